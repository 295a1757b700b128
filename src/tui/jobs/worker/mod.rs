//! Background work, so the UI thread never reads or decompresses: message windows, sizes,
//! decoding and YAML on one thread (latest request of each kind wins), exports on their own
//! thread (a long export never delays the inspector), the health/index scan on a third.
//! Replies go to a [`Notify`] (the app's event loop); stale ones are dropped by id
//! ([`pending`]).

pub mod decode;
mod export;
pub mod pending;
pub mod picture;

use std::sync::mpsc::{self, Receiver, Sender};
use std::thread::JoinHandle;

use crate::catalog::{BagConn, Catalog, MsgRef, Window};
use crate::msg::Registry;
use crate::time::RosTime;

use super::gate::{FIRST_FRAME_WAIT, Gate};
use super::job::{detach, named};
use super::notify::Notify;
use crate::catalog::health::{self, HealthReport};
use decode::{Decoder, Inspected};
pub use export::ExportRequest;
use pending::RequestId;

/// Work the UI asks for.
#[derive(Clone, Debug)]
pub enum Request {
    /// Messages of a topic around a time (`extend`: `Some(true)` = later ones only,
    /// `Some(false)` = earlier ones only).
    Window {
        /// Request id.
        id: RequestId,
        /// Topic.
        topic: String,
        /// Its connections.
        connections: Vec<BagConn>,
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
        id: RequestId,
        /// Messages.
        refs: Vec<MsgRef>,
    },
    /// Decode one message for the inspector.
    Decode {
        /// Request id.
        id: RequestId,
        /// The message.
        msg: MsgRef,
    },
    /// Write an interval to a bag.
    Export(ExportRequest),
    /// A message as `rostopic echo` YAML, for the clipboard or saved to a file.
    Yaml {
        /// Request id.
        id: RequestId,
        /// The message.
        msg: MsgRef,
        /// Save here instead of returning the text.
        save_to: Option<std::path::PathBuf>,
    },
    /// Draw one message as a picture scaled to fit (image preview).
    Picture {
        /// Request id.
        id: RequestId,
        /// The message.
        msg: MsgRef,
        /// The size to scale to, in pixels.
        fit: crate::picture::Fit,
        /// Encode it for this graphics protocol, at most this many cells (columns, rows);
        /// `None`: half-blocks, drawn by the UI from the raster.
        encode: Option<(crate::tui::term::graphics::Graphics, u16, u16)>,
    },
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
        id: RequestId,
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
        id: RequestId,
        /// Sizes.
        sizes: Vec<(MsgRef, Option<usize>)>,
        /// One-line previews of the messages that decoded (`msg::render::preview`).
        previews: Vec<(MsgRef, String)>,
    },
    /// A decoded message.
    Decoded {
        /// Request id.
        id: RequestId,
        /// The message.
        msg: MsgRef,
        /// The result.
        result: Box<Inspected>,
    },
    /// A message as YAML (or why not).
    Yaml {
        /// Request id.
        id: RequestId,
        /// Topic of the message.
        topic: String,
        /// The result.
        result: Result<YamlDone, String>,
    },
    /// An interval was written to a bag (a summary, or why not).
    Exported {
        /// Request id.
        id: RequestId,
        /// What happened.
        result: Result<String, String>,
    },
    /// Progress of the health scan (0..1).
    ScanProgress(f64),
    /// The health scan is done.
    Scanned(Box<HealthReport>),
    /// A message drawn as a picture (or why not).
    Picture {
        /// Request id.
        id: RequestId,
        /// The message.
        msg: MsgRef,
        /// The picture, or a one-line reason.
        result: Box<Result<crate::picture::Picture, String>>,
        /// The picture encoded for the terminal's graphics protocol, when asked for.
        graphic: Option<crate::tui::term::graphics::Graphic>,
    },
}

/// Handle to the worker threads.
pub struct Worker {
    tx: Option<Sender<Request>>,
    /// Exports go to their own thread; `None` (a manual worker): with the other requests.
    export: Option<Sender<ExportRequest>>,
    threads: Vec<JoinHandle<()>>,
}

impl Worker {
    /// Starts the workers, decoding with `registry`'s definitions where the bags carry none;
    /// replies go to `notify`. The health scan starts once `after` opens (the explorer's
    /// first frame is drawn; [`Gate::opened`] to start it at once).
    pub fn start(
        catalog: Catalog,
        registry: Registry,
        notify: Notify<Reply>,
        after: Gate,
    ) -> Worker {
        let worker = Worker::serving(catalog.clone(), registry, notify.clone(), export::write);
        let _ = detach("health-scan", move || {
            after.wait(FIRST_FRAME_WAIT);
            let mut last = 0.0;
            let report = health::compute(&catalog, &mut |p| {
                if p - last >= 0.02 {
                    last = p;
                    notify.send(Reply::ScanProgress(p));
                }
            });
            notify.send(Reply::Scanned(Box::new(report)));
        });
        worker
    }

    /// Starts the workers without the health scan (a followed recording's new snapshot).
    pub fn start_serving(catalog: Catalog, registry: Registry, notify: Notify<Reply>) -> Worker {
        Worker::serving(catalog, registry, notify, export::write)
    }

    /// The interactive and the export thread (no health scan); `exporter` writes exports.
    fn serving(
        catalog: Catalog,
        registry: Registry,
        notify: Notify<Reply>,
        exporter: impl Fn(&Catalog, ExportRequest) -> Reply + Send + 'static,
    ) -> Worker {
        let (tx, rx) = mpsc::channel();
        let (export_tx, export_rx) = mpsc::channel();
        let interactive = {
            let catalog = catalog.clone();
            let notify = notify.clone();
            named("worker", move || {
                interactive_loop(&catalog, registry, &rx, &notify);
            })
        };
        let exports = named("export", move || {
            export::export_loop(&catalog, &export_rx, &notify, exporter);
        });
        // Without the export thread, exports go to the interactive one (it serves them too);
        // without the interactive thread, its requests are dropped.
        Worker {
            tx: interactive.is_ok().then_some(tx),
            export: exports.is_ok().then_some(export_tx),
            threads: [interactive, exports].into_iter().flatten().collect(),
        }
    }

    /// A worker that does nothing.
    pub fn none() -> Worker {
        Worker {
            tx: None,
            export: None,
            threads: Vec::new(),
        }
    }

    /// A worker without threads whose requests (exports too) land in the returned receiver,
    /// so tests can serve them synchronously with [`serve`] and feed the replies back.
    pub fn manual() -> (Worker, Receiver<Request>) {
        let (tx, rx) = mpsc::channel();
        (
            Worker {
                tx: Some(tx),
                export: None,
                threads: Vec::new(),
            },
            rx,
        )
    }

    /// Queues a request (ignored when the worker has stopped).
    pub fn send(&self, request: Request) {
        match (request, &self.export) {
            (Request::Export(e), Some(export)) => {
                let _ = export.send(e);
            }
            (request, _) => {
                if let Some(tx) = &self.tx {
                    let _ = tx.send(request);
                }
            }
        }
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        // Closing the channels ends the interactive and the export loop (an export under way
        // finishes first; its reply then goes nowhere); the scan thread is left to finish on
        // its own (its sends fail once the app is gone). None is waited for: quitting is
        // never delayed.
        self.tx = None;
        self.export = None;
        self.threads.clear();
    }
}

/// Serves requests, keeping only the newest of each kind when several are queued.
fn interactive_loop(
    catalog: &Catalog,
    registry: Registry,
    rx: &Receiver<Request>,
    notify: &Notify<Reply>,
) {
    let mut decoder = Decoder::with_registry(registry);
    while let Ok(first) = rx.recv() {
        let mut window = None;
        let mut extension = None;
        let mut sizes = None;
        let mut decode = None;
        let mut yaml = None;
        let mut export = None;
        let mut picture = None;
        let mut file = |r: Request| match r {
            Request::Window { extend: None, .. } => window = Some(r),
            Request::Window { .. } => extension = Some(r),
            Request::Sizes { .. } => sizes = Some(r),
            Request::Decode { .. } => decode = Some(r),
            Request::Yaml { .. } => yaml = Some(r),
            Request::Export(_) => export = Some(r),
            Request::Picture { .. } => picture = Some(r),
        };
        file(first);
        while let Ok(r) = rx.try_recv() {
            file(r);
        }
        for r in [window, extension, decode, picture, yaml, sizes, export]
            .into_iter()
            .flatten()
        {
            if !notify.send(serve(catalog, &mut decoder, r)) {
                return;
            }
        }
    }
}

/// Does one request (also used directly by tests).
pub fn serve(catalog: &Catalog, decoder: &mut Decoder, request: Request) -> Reply {
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
            window: catalog.window(&connections, center, before, after),
            extend,
        },
        Request::Sizes { id, refs } => {
            let mut sizes = Vec::with_capacity(refs.len());
            let mut previews = Vec::new();
            for r in refs {
                let (size, preview) = decoder.size_and_preview(catalog, r);
                sizes.push((r, size));
                if let Some(p) = preview {
                    previews.push((r, p));
                }
            }
            Reply::Sizes {
                id,
                sizes,
                previews,
            }
        }
        Request::Decode { id, msg } => Reply::Decoded {
            id,
            msg,
            result: Box::new(decoder.inspect(catalog, msg)),
        },
        Request::Export(export) => export::write(catalog, export),
        Request::Yaml { id, msg, save_to } => {
            let ins = decoder.inspect(catalog, msg);
            let result = ins
                .value
                .map(|v| crate::msg::yaml::YamlStyle::for_wire(ins.wire).message_to_string(&v))
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
        Request::Picture {
            id,
            msg,
            fit,
            encode,
        } => {
            let (result, graphic) = picture::draw(catalog, decoder, msg, fit, encode.as_ref());
            Reply::Picture {
                id,
                msg,
                result: Box::new(result),
                graphic,
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

#[cfg(test)]
mod tests;
