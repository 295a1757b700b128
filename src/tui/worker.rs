//! Background work, so the UI thread never reads or decompresses: message windows, sizes and
//! decoding on one thread (latest request of each kind wins), the health/index scan on another.
//! Replies arrive on the app's event channel; stale ones are dropped by id.

use std::sync::mpsc::{self, Receiver, Sender};
use std::thread::JoinHandle;

use crate::bag::ConnId;
use crate::catalog::Catalog;
use crate::msg::Registry;
use crate::time::RosTime;

use super::event::AppEvent;
use super::model::inspector::{self, Inspected};
use super::model::messages::{self, MsgRef, Window};
use crate::catalog::health::{self, HealthReport};

/// Work the UI asks for.
#[derive(Clone, Debug)]
pub enum Request {
    /// Messages of a topic around a time (`extend`: `Some(true)` = later ones only,
    /// `Some(false)` = earlier ones only).
    Window {
        /// Request id.
        id: u64,
        /// Topic.
        topic: String,
        /// Its connections.
        connections: Vec<(usize, ConnId)>,
        /// Around this time.
        center: RosTime,
        /// Entries wanted before.
        before: usize,
        /// Entries wanted after.
        after: usize,
        /// Extension of an existing window.
        extend: Option<bool>,
    },
    /// Payload sizes of these messages.
    Sizes {
        /// Request id.
        id: u64,
        /// Messages.
        refs: Vec<MsgRef>,
    },
    /// Decode one message for the inspector.
    Decode {
        /// Request id.
        id: u64,
        /// The message.
        msg: MsgRef,
    },
    /// Write an interval to a bag.
    Export(ExportRequest),
    /// A message as `rostopic echo` YAML, for the clipboard or saved to a file.
    Yaml {
        /// Request id.
        id: u64,
        /// The message.
        msg: MsgRef,
        /// Save here instead of returning the text.
        save_to: Option<std::path::PathBuf>,
    },
}

/// Write every message of an interval to a new bag.
#[derive(Clone, Debug)]
pub struct ExportRequest {
    /// Request id.
    pub id: u64,
    /// The interval.
    pub start: RosTime,
    /// See `start`.
    pub end: RosTime,
    /// The topics to write (all when empty).
    pub topics: Vec<String>,
    /// The bag to write.
    pub path: std::path::PathBuf,
}

/// What a YAML request produced.
#[derive(Debug)]
pub enum YamlDone {
    /// The text, for the clipboard.
    Text(String),
    /// Written to this file (bytes).
    Saved(std::path::PathBuf, usize),
}

/// Results for the UI.
#[derive(Debug)]
pub enum Reply {
    /// A message window.
    Window {
        /// Request id.
        id: u64,
        /// Topic.
        topic: String,
        /// Entries.
        window: Window,
        /// As requested.
        extend: Option<bool>,
    },
    /// Payload sizes (`None`: unreadable).
    Sizes {
        /// Request id.
        id: u64,
        /// Sizes.
        sizes: Vec<(MsgRef, Option<usize>)>,
    },
    /// A decoded message.
    Decoded {
        /// Request id.
        id: u64,
        /// The message.
        msg: MsgRef,
        /// The result.
        result: Box<Inspected>,
    },
    /// A message as YAML (or why not).
    Yaml {
        /// Request id.
        id: u64,
        /// Topic of the message.
        topic: String,
        /// The result.
        result: Result<YamlDone, String>,
    },
    /// An interval was written to a bag (a summary, or why not).
    Exported {
        /// Request id.
        id: u64,
        /// What happened.
        result: Result<String, String>,
    },
    /// Progress of the health scan (0..1).
    ScanProgress(f64),
    /// The health scan is done.
    Scanned(Box<HealthReport>),
}

/// Handle to the worker threads.
pub struct Worker {
    tx: Option<Sender<Request>>,
    threads: Vec<JoinHandle<()>>,
}

impl Worker {
    /// Starts the workers, decoding with `registry`'s definitions where the bags carry none;
    /// replies go to `events`. The health scan starts at once.
    pub fn start(catalog: Catalog, registry: Registry, events: Sender<AppEvent>) -> Worker {
        let (tx, rx) = mpsc::channel();
        let interactive = {
            let catalog = catalog.clone();
            let events = events.clone();
            std::thread::spawn(move || interactive_loop(&catalog, registry, &rx, &events))
        };
        let scan = std::thread::spawn(move || {
            let mut last = 0.0;
            let report = health::compute(&catalog, &mut |p| {
                if p - last >= 0.02 {
                    last = p;
                    let _ = events.send(AppEvent::Worker(Reply::ScanProgress(p)));
                }
            });
            let _ = events.send(AppEvent::Worker(Reply::Scanned(Box::new(report))));
        });
        Worker {
            tx: Some(tx),
            threads: vec![interactive, scan],
        }
    }

    /// A worker that does nothing.
    pub fn none() -> Worker {
        Worker {
            tx: None,
            threads: Vec::new(),
        }
    }

    /// A worker without threads whose requests land in the returned receiver, so tests can
    /// serve them synchronously with [`serve`] and feed the replies back.
    pub fn manual() -> (Worker, Receiver<Request>) {
        let (tx, rx) = mpsc::channel();
        (
            Worker {
                tx: Some(tx),
                threads: Vec::new(),
            },
            rx,
        )
    }

    /// Queues a request (ignored when the worker has stopped).
    pub fn send(&self, request: Request) {
        if let Some(tx) = &self.tx {
            let _ = tx.send(request);
        }
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        // Closing the channel ends the interactive loop; the scan thread is left to finish on
        // its own (its sends fail once the app is gone).
        self.tx = None;
        self.threads.clear();
    }
}

/// Serves requests, keeping only the newest of each kind when several are queued.
fn interactive_loop(
    catalog: &Catalog,
    registry: Registry,
    rx: &Receiver<Request>,
    events: &Sender<AppEvent>,
) {
    let mut decoder = inspector::Decoder::with_registry(registry);
    while let Ok(first) = rx.recv() {
        let mut window = None;
        let mut extension = None;
        let mut sizes = None;
        let mut decode = None;
        let mut yaml = None;
        let mut export = None;
        let mut file = |r: Request| match r {
            Request::Window { extend: None, .. } => window = Some(r),
            Request::Window { .. } => extension = Some(r),
            Request::Sizes { .. } => sizes = Some(r),
            Request::Decode { .. } => decode = Some(r),
            Request::Yaml { .. } => yaml = Some(r),
            Request::Export(_) => export = Some(r),
        };
        file(first);
        while let Ok(r) = rx.try_recv() {
            file(r);
        }
        for r in [window, extension, decode, yaml, sizes, export]
            .into_iter()
            .flatten()
        {
            let reply = serve(catalog, &mut decoder, r);
            if events.send(AppEvent::Worker(reply)).is_err() {
                return;
            }
        }
    }
}

/// Does one request (also used directly by tests).
pub fn serve(catalog: &Catalog, decoder: &mut inspector::Decoder, request: Request) -> Reply {
    match request {
        Request::Window {
            id,
            topic,
            connections,
            center,
            before,
            after,
            extend,
        } => Reply::Window {
            id,
            topic,
            window: messages::window(catalog, &connections, center, before, after),
            extend,
        },
        Request::Sizes { id, refs } => Reply::Sizes {
            id,
            sizes: refs
                .into_iter()
                .map(|r| {
                    let size = catalog
                        .bag(r.bag)
                        .and_then(|b| b.read(&r.entry).ok())
                        .map(|m| m.data.len());
                    (r, size)
                })
                .collect(),
        },
        Request::Decode { id, msg } => Reply::Decoded {
            id,
            msg,
            result: Box::new(decoder.inspect(catalog, msg)),
        },
        Request::Export(ExportRequest {
            id,
            start,
            end,
            topics,
            path,
        }) => {
            let selection = crate::catalog::Selection {
                topics,
                start: Some(start),
                end: Some(end),
                parallel: true,
            };
            // Messages that could not be read, counted as `verify` counts them.
            let lost = std::cell::Cell::new(0u64);
            let messages = catalog.messages(&selection).map(|m| {
                m.map(|m| (m.bag, m.message)).map_err(|e| {
                    lost.set(lost.get() + e.lost_messages());
                    e.to_string()
                })
            });
            let options = crate::bag::writer::WriterOptions {
                compression: crate::format::Compression::Lz4,
                ..crate::bag::writer::WriterOptions::default()
            };
            let result = crate::catalog::export::write_bag(catalog, messages, &path, options, &[])
                .map(|done| {
                    let skipped = if done.skipped.is_empty() {
                        String::new()
                    } else {
                        format!(" ({} unreadable messages skipped)", lost.get())
                    };
                    format!(
                        "wrote {}: {} messages{skipped}",
                        path.display(),
                        done.summary.messages
                    )
                })
                .map_err(|e| e.to_string());
            Reply::Exported { id, result }
        }
        Request::Yaml { id, msg, save_to } => {
            let ins = decoder.inspect(catalog, msg);
            let result = ins
                .value
                .map(|v| crate::msg::yaml::message_to_string(&v))
                .and_then(|text| match save_to {
                    None => Ok(YamlDone::Text(text)),
                    Some(path) => save(&path, &text)
                        .map(|()| YamlDone::Saved(path.clone(), text.len()))
                        .map_err(|e| format!("cannot write {}: {e}", path.display())),
                });
            Reply::Yaml {
                id,
                topic: ins.topic,
                result,
            }
        }
    }
}

/// Writes a small text file as every output is written (complete or not at all).
fn save(path: &std::path::Path, text: &str) -> Result<(), String> {
    use std::io::Write;
    let mut file = crate::bag::writer::AtomicFile::create(path).map_err(|e| e.to_string())?;
    file.write_all(text.as_bytes()).map_err(|e| e.to_string())?;
    file.commit().map_err(|e| e.to_string())
}
