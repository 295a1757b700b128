//! Opening the bags off the UI thread. A bag without a usable index is scanned record by
//! record (and compressed chunks decompressed), which can take many seconds: meanwhile the
//! explorer shows what it is opening and for how long, and `q`, Ctrl-C and signals work. The
//! app (topic table, first requests to the worker) is built on the same thread, so the UI
//! thread never waits for work proportional to the bag.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::mpsc::Sender;
use std::time::Instant;

use crate::bag::{Bag, BagError, OpenOptions, ProgressFn, RecoveryProgress};
use crate::catalog::Catalog;

use super::app::App;
use super::event::AppEvent;
use super::worker::Worker;

/// What to explore.
#[derive(Clone, Debug)]
pub enum Bags {
    /// Bags already open (the bundled demo bag, tests).
    Open(Catalog),
    /// Paths to open, in this order.
    Paths(Vec<PathBuf>, OpenOptions),
}

/// News from the opening thread.
pub enum Progress {
    /// Bag `index` is being opened.
    Bag(usize),
    /// The bag being opened has no usable index: how far its recovery scan is.
    Recovery(RecoveryProgress),
    /// Every bag is open; the topic table over this many connections is being built.
    Preparing(usize),
    /// Done: the app, and the bags that could not be opened.
    Ready(Box<Ready>),
}

impl std::fmt::Debug for Progress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Progress::Bag(i) => write!(f, "Bag({i})"),
            Progress::Recovery(p) => write!(f, "Recovery({p:?})"),
            Progress::Preparing(n) => write!(f, "Preparing({n})"),
            Progress::Ready(r) => write!(f, "Ready({} errors)", r.errors.len()),
        }
    }
}

/// The result of opening.
pub struct Ready {
    /// The app over the bags that opened (`None` when none did).
    pub app: Option<App>,
    /// Bags that could not be opened.
    pub errors: Vec<BagError>,
}

/// What the opening screen shows.
#[derive(Clone, Debug)]
pub struct Opening {
    /// The bags (path and size when known).
    pub bags: Vec<(String, Option<u64>)>,
    /// The bag being opened.
    pub current: usize,
    /// Set once every bag is open: topics being prepared.
    pub preparing: Option<usize>,
    /// How far the recovery scan of the current bag is, if it needs one.
    pub recovery: Option<RecoveryProgress>,
    /// When opening started.
    pub started: Instant,
}

impl Opening {
    /// The screen for `bags`, started now.
    pub fn new(bags: &Bags) -> Opening {
        let list = match bags {
            Bags::Open(c) => c
                .bags()
                .iter()
                .map(|b| (b.path().display().to_string(), Some(b.size())))
                .collect(),
            Bags::Paths(paths, _) => paths
                .iter()
                .map(|p| {
                    (
                        p.display().to_string(),
                        std::fs::metadata(p).ok().map(|m| m.len()),
                    )
                })
                .collect(),
        };
        Opening {
            bags: list,
            current: 0,
            preparing: None,
            recovery: None,
            started: Instant::now(),
        }
    }

    /// Applies news from the opening thread; true when the text shown changed (apart from
    /// the elapsed time), so a slow terminal is redrawn only then.
    pub fn apply(&mut self, p: &Progress) -> bool {
        let before = (self.current, self.preparing, self.stage());
        match p {
            Progress::Bag(i) => {
                self.current = *i;
                self.recovery = None;
            }
            Progress::Recovery(now) => {
                // Decompression workers may report out of order: never go backwards.
                let behind = match (self.recovery, now) {
                    (
                        Some(RecoveryProgress::Scanning { done, total }),
                        RecoveryProgress::Scanning {
                            done: next,
                            total: of,
                        },
                    )
                    | (
                        Some(RecoveryProgress::Decoding { done, total }),
                        RecoveryProgress::Decoding {
                            done: next,
                            total: of,
                        },
                    ) => total == *of && done > *next,
                    _ => false,
                };
                if !behind {
                    self.recovery = Some(*now);
                }
            }
            Progress::Preparing(n) => self.preparing = Some(*n),
            Progress::Ready(_) => {}
        }
        before != (self.current, self.preparing, self.stage())
    }

    /// Where the recovery scan of the current bag is, as shown: "scanning 42 % of 1.2 GiB",
    /// "decoding chunk 10 of 80".
    pub fn stage(&self) -> Option<String> {
        match self.recovery? {
            RecoveryProgress::Scanning { done, total } => {
                let pct = if total == 0 {
                    100
                } else {
                    u128::from(done.min(total)) * 100 / u128::from(total)
                };
                Some(format!("scanning {pct} % of {}", super::text::bytes(total)))
            }
            RecoveryProgress::Decoding { done, total } => {
                Some(format!("decoding chunk {} of {total}", done.min(total)))
            }
        }
    }
}

/// Starts the opening thread: opens `bags`, starts the worker (decoding with `registry`'s
/// definitions where the bags carry none) and builds the app of `width`×`height`; reports
/// through `events`.
pub fn start(
    bags: Bags,
    registry: crate::msg::Registry,
    width: u16,
    height: u16,
    events: Sender<AppEvent>,
) {
    std::thread::spawn(move || {
        let send = |p: Progress| events.send(AppEvent::Opening(p)).is_ok();
        let (catalog, errors) = match bags {
            Bags::Open(c) => (c, Vec::new()),
            Bags::Paths(paths, mut options) => {
                // Recovery scans report how far they are (from any thread).
                let tx = events.clone();
                let theirs = options.progress.take();
                options.progress = Some(ProgressFn(Arc::new(move |p| {
                    if let Some(f) = &theirs {
                        (f.0)(p);
                    }
                    let _ = tx.send(AppEvent::Opening(Progress::Recovery(p)));
                    test_delay("BAGSCOPE_TEST_SLOW_PROGRESS_MS");
                })));
                let mut opened = Vec::new();
                let mut errors = Vec::new();
                for (i, p) in paths.iter().enumerate() {
                    if !send(Progress::Bag(i)) {
                        return;
                    }
                    test_delay("BAGSCOPE_TEST_SLOW_OPEN_MS");
                    match Bag::open_with(p, options.clone()) {
                        Ok(b) => opened.push(b),
                        Err(e) => errors.push(e),
                    }
                }
                (Catalog::new(opened), errors)
            }
        };
        if catalog.is_empty() {
            let _ = send(Progress::Ready(Box::new(Ready { app: None, errors })));
            return;
        }
        let connections: usize = catalog.bags().iter().map(|b| b.connections().len()).sum();
        if !send(Progress::Preparing(connections)) {
            return;
        }
        let worker = Worker::start(catalog.clone(), registry, events.clone());
        let mut app = App::new(catalog, worker, width, height);
        app.set_events(events.clone());
        app.unopened = errors.iter().map(ToString::to_string).collect();
        let _ = send(Progress::Ready(Box::new(Ready {
            app: Some(app),
            errors,
        })));
    });
}

/// Debug builds only: `BAGSCOPE_TEST_SLOW_OPEN_MS` makes each bag take that much longer to
/// open, `BAGSCOPE_TEST_SLOW_PROGRESS_MS` each report of a recovery scan, so end-to-end tests
/// can act and look while opening is under way.
fn test_delay(var: &str) {
    #[cfg(debug_assertions)]
    if let Some(ms) = std::env::var(var).ok().and_then(|v| v.parse::<u64>().ok()) {
        std::thread::sleep(std::time::Duration::from_millis(ms.min(600_000)));
    }
    #[cfg(not(debug_assertions))]
    let _ = var;
}
