//! Opening the bags off the UI thread. A bag without a usable index is scanned record by
//! record (and compressed chunks decompressed), which can take many seconds: meanwhile the
//! explorer shows what it is opening and for how long, and `q`, Ctrl-C and signals work. The
//! app (topic table, first requests to the worker) is built on the same thread (by the
//! `done` callback the event loop gives), so the UI thread never waits for work proportional
//! to the bag.
//!
//! When a bag needs a recovery scan, the explorer need not wait for its end: the bags that
//! need none are opened first, and the scan of the last one opened hands out the bag as found
//! so far ([`Progress::Partial`]), the first soon after the first chunks are read; the
//! explorer shows it (with the others) at once and takes each newer one, then the finished
//! bag ([`Progress::Scanned`]). Once nobody listens (the user quit), the scan stops.
//!
//! A ROS 2 bag directory is opened as its storage files; what its metadata contradicts
//! becomes warnings of its first file once they are open ([`super::bag_dirs`]).

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use std::sync::Mutex;

use crate::bag::{Bag, BagError, OpenOptions, PartialFn, ProgressFn, RecoveryProgress};
use crate::catalog::Catalog;

use super::job::detach;
use super::notify::Notify;

/// What to explore.
#[derive(Clone, Debug)]
pub enum Bags {
    /// Bags already open (the bundled demo bag, tests).
    Open(Catalog),
    /// Paths to open, in this order: bag and MCAP files, and ROS 2 bag directories (each
    /// standing for its storage files: [`super::bag_dirs`]).
    Paths(Vec<PathBuf>, OpenOptions),
}

/// News from the opening thread.
#[derive(Debug)]
pub enum Progress {
    /// Bag `index` is being opened.
    Bag(usize),
    /// The bag being opened has no usable index: how far its recovery scan is.
    Recovery(RecoveryProgress),
    /// Every bag is open; the topic table over this many connections is being built.
    Preparing(usize),
    /// The last bag is being scanned: the bags with it as found so far.
    Partial(Partial),
    /// The scan of the last bag, whose partial results were shown, is done: the bag (or why
    /// it could not be read to its end). No `done` call follows.
    Scanned(Box<Result<Bag, BagError>>),
}

/// The bags to show while one of them is still being scanned.
#[derive(Debug)]
pub struct Partial {
    /// The bags that opened, in the order given, the one being scanned as found so far.
    pub bags: Vec<Bag>,
    /// Which of `bags` is being scanned.
    pub scanned: usize,
    /// Bags that could not be opened (in the first partial result only).
    pub errors: Vec<BagError>,
    /// Bytes of the scanned bag walked.
    pub done: u64,
    /// Its size.
    pub total: u64,
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
    /// When opening the current bag started.
    pub current_since: Instant,
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
            Bags::Paths(paths, _) => super::bag_dirs::expand(paths)
                .files
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
            current_since: Instant::now(),
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
                self.current_since = Instant::now();
            }
            Progress::Recovery(now) => {
                // Decompression workers may report out of order: never go backwards.
                let behind = self.recovery.is_some_and(|r| r.is_ahead_of(now));
                if !behind {
                    self.recovery = Some(*now);
                }
            }
            Progress::Preparing(n) => self.preparing = Some(*n),
            Progress::Partial(_) | Progress::Scanned(_) => {}
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
                Some(format!(
                    "scanning {pct} % of {}",
                    super::super::text::bytes(total)
                ))
            }
            RecoveryProgress::Decoding { done, total } => {
                Some(format!("decoding chunk {} of {total}", done.min(total)))
            }
        }
    }
}

/// Starts the opening thread: opens `bags`, reporting through `notify`, then hands the
/// catalog of the bags that opened (maybe none) and the errors of the others to `done`, on
/// the same thread. Stops early when nobody listens any more. An error when no thread could
/// be started.
pub fn start(
    bags: Bags,
    notify: Notify<Progress>,
    done: impl FnOnce(Catalog, Vec<BagError>) + Send + 'static,
) -> std::io::Result<()> {
    detach("opening", move || {
        let (catalog, errors) = match bags {
            Bags::Open(c) => (c, Vec::new()),
            Bags::Paths(given, mut options) => {
                let super::bag_dirs::Inputs { files: paths, dirs } =
                    super::bag_dirs::expand(&given);
                // Recovery scans report how far they are (from any thread).
                let recovery = notify.clone();
                let theirs = options.progress.take();
                options.progress = Some(ProgressFn(Arc::new(move |p| {
                    if let Some(f) = &theirs {
                        (f.0)(p);
                    }
                    recovery.send(Progress::Recovery(p));
                    test_delay("BAGSCOPE_TEST_SLOW_PROGRESS_MS");
                })));
                // The bags that need no scan are opened first, so that the last one opened,
                // if it needs a scan, is shown as it is scanned (with all the others).
                let mut order: Vec<usize> = (0..paths.len()).collect();
                order.sort_by_cached_key(|&i| paths.get(i).is_some_and(Bag::likely_needs_scan));
                let mut slots: Vec<Option<Bag>> = vec![None; paths.len()];
                let mut errors = Vec::new();
                for (k, &i) in order.iter().enumerate() {
                    let Some(p) = paths.get(i) else { continue };
                    if !notify.send(Progress::Bag(i)) {
                        return;
                    }
                    test_delay("BAGSCOPE_TEST_SLOW_OPEN_MS");
                    if k + 1 < order.len() {
                        match Bag::open_with(p, options.clone()) {
                            Ok(b) => put(&mut slots, i, b),
                            Err(e) => errors.push(e),
                        }
                        continue;
                    }
                    // The last bag: shown while it is scanned, if it needs a scan.
                    let shown = Arc::new(AtomicBool::new(false));
                    let before = Arc::new(Mutex::new(std::mem::take(&mut errors)));
                    let mut last_options = options.clone();
                    last_options.partial = Some(partial_fn(
                        notify.clone(),
                        (slots.clone(), i),
                        Arc::clone(&before),
                        Arc::clone(&shown),
                    ));
                    let result = Bag::open_with(p, last_options);
                    if shown.load(Ordering::SeqCst) {
                        // The others are shown already: their warnings are shared with them.
                        if let Ok(b) = &result {
                            let mut all = slots.clone();
                            put(&mut all, i, b.clone());
                            super::bag_dirs::add_disagreements(&dirs, &all);
                        }
                        notify.send(Progress::Scanned(Box::new(result)));
                        return;
                    }
                    // No partial result went out (an indexed bag): the errors are still ours.
                    errors = before
                        .lock()
                        .map(|mut e| std::mem::take(&mut *e))
                        .unwrap_or_default();
                    match result {
                        Ok(b) => put(&mut slots, i, b),
                        Err(e) => errors.push(e),
                    }
                }
                super::bag_dirs::add_disagreements(&dirs, &slots);
                let opened = slots.into_iter().flatten().collect();
                (Catalog::new(opened), errors)
            }
        };
        if !catalog.is_empty() {
            let connections: usize = catalog.bags().iter().map(|b| b.connections().len()).sum();
            if !notify.send(Progress::Preparing(connections)) {
                return;
            }
        }
        done(catalog, errors);
    })
}

/// Builds the chunks by time of `catalog` (shared with the app's, a clone) on a thread of
/// its own, after a recovery scan finished: later zooms' histogram and lanes then cost
/// O(bins · log chunks). Without a thread, they are built when first needed.
pub fn index_by_time(catalog: Catalog) {
    let _ = detach("index-by-time", move || {
        catalog.index_by_time();
    });
}

/// The callback handing the explorer each partial result of the last bag's scan, with the
/// bags opened before it (`others`, in the order given, the scanned one's place `at` empty);
/// `errors` (of the bags before) go with the first. Sets `shown` once one was sent; stops the
/// scan when nobody listens.
fn partial_fn(
    notify: Notify<Progress>,
    (others, at): (Vec<Option<Bag>>, usize),
    errors: Arc<Mutex<Vec<BagError>>>,
    shown: Arc<AtomicBool>,
) -> PartialFn {
    PartialFn(Arc::new(move |p| {
        let scanned = others.iter().take(at).flatten().count();
        let mut bags: Vec<Bag> = others.iter().take(at).flatten().cloned().collect();
        bags.push(p.bag);
        bags.extend(others.iter().skip(at + 1).flatten().cloned());
        let errors = errors
            .lock()
            .map(|mut e| std::mem::take(&mut *e))
            .unwrap_or_default();
        shown.store(true, Ordering::SeqCst);
        notify.send(Progress::Partial(Partial {
            bags,
            scanned,
            errors,
            done: p.done,
            total: p.total,
        }))
    }))
}

/// Puts the bag opened from path `i` in its place.
fn put(slots: &mut [Option<Bag>], i: usize, bag: Bag) {
    if let Some(slot) = slots.get_mut(i) {
        *slot = Some(bag);
    }
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
