//! Following a growing bag in the background (`F`): one thread runs a
//! [`Follower`], which reads only the bytes added since its
//! last poll, and reports through a [`Notify`] (the event loop wraps it into an event).
//!
//! This first slice hands the app a fresh [`Bag`] snapshot of what was read so far at most
//! every [`REFRESH`] (or ten times what the last snapshot took, for a recording of very many
//! chunks) while the file grows (the snapshot copies the connection and chunk
//! lists, never the data), and the finished bag, opened with its index, once the recorder
//! closes it. Between snapshots a status-only report every [`STATUS_EVERY`] keeps the
//! "behind" time current. Dropping the [`LiveJob`] stops the thread within one poll.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use super::job::{Job, Reporter, detach};
use super::notify::Notify;
use super::worker::Reply;
use crate::bag::Bag;
use crate::bag::follow::{Follower, Stall};
use crate::catalog::Catalog;
use crate::catalog::time_index::BagTimes;

/// The shortest time between two snapshots sent to the app.
pub const REFRESH: Duration = Duration::from_millis(200);

/// A snapshot copies the connection and chunk lists: work proportional to the recording. The
/// next one waits at least this many times what the last one took, so that following a
/// recording of a million chunks costs a bounded share of a core (a tenth), not all of it.
const SNAPSHOT_COST_FACTOR: u32 = 10;

/// How often the status alone is reported while nothing new arrives.
pub const STATUS_EVERY: Duration = Duration::from_secs(1);

/// How long a finished `.active` recording is given to be renamed to its final name.
const RENAME_WAIT: Duration = Duration::from_secs(2);

/// Message data read per poll before the thread looks at the clock again.
const POLL_BUDGET: usize = 4 << 20;

/// How the followed recording stands.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LiveStatus {
    /// Messages read so far.
    pub messages: u64,
    /// Bytes written but not yet readable as whole records.
    pub behind_bytes: u64,
    /// Time since new bytes last completed a record (`None` before the first one).
    pub idle: Option<Duration>,
    /// True once the recorder closed the bag.
    pub finished: bool,
    /// The recording stopped growing and no process is seen writing it: since when.
    pub stalled: Option<Stall>,
    /// The recorder compresses its chunks: how long ago the newest message on disk was
    /// received (what is newer is still in the recorder's memory, not lost).
    pub unwritten: Option<Duration>,
}

/// One report of the follow thread.
#[derive(Debug)]
pub struct LiveNews {
    /// The job it belongs to (reports of a stopped job are dropped).
    pub id: u64,
    /// Which bag of the catalog is followed.
    pub bag: usize,
    /// What the recording holds now, when it changed (the finished bag at the end).
    pub snapshot: Option<Bag>,
    /// The snapshot's chunks by time, grown from the last snapshot's (built anew for the
    /// first snapshot and the finished bag), off the event loop.
    pub times: Option<Arc<BagTimes>>,
    /// How it stands.
    pub status: LiveStatus,
    /// Why following stopped, if it failed.
    pub error: Option<String>,
}

/// A running follow thread; dropping it stops it (within one poll).
pub type LiveJob = Job<LiveNews>;

/// Starts following `path` (bag `bag` of the catalog) on its own thread. `scanned`: the bag
/// as a finished recovery scan read it; following then starts at its last chunk instead of
/// reading the file again (see [`Follower::resume`]).
pub fn start(
    path: PathBuf,
    (id, bag): (u64, usize),
    scanned: Option<Bag>,
    notify: Notify<LiveNews>,
) -> std::io::Result<LiveJob> {
    Job::start("follow", id, notify, move |out| {
        run(&path, (id, bag), scanned, out);
    })
}

/// Drops `value` on a short-lived thread (on this one if no thread can be started): a
/// replaced snapshot's chunk list is freed off the UI thread.
pub fn drop_elsewhere<T: Send + 'static>(value: T) {
    let _ = detach("drop-snapshot", move || drop(value));
}

/// Recomputes the health report over the followed recording so far (`catalog`) on a thread
/// of its own; the report goes to `replies` as the health scan's. False when no thread could
/// be started.
pub fn refresh_health(catalog: Catalog, replies: Notify<Reply>) -> bool {
    detach("live-health", move || {
        let report = crate::catalog::health::compute(&catalog, &mut |_| {});
        replies.send(Reply::Scanned(Box::new(report)));
    })
    .is_ok()
}

fn status(f: &mut Follower) -> LiveStatus {
    LiveStatus {
        messages: f.message_count(),
        behind_bytes: f.behind_bytes(),
        idle: f.since_growth(),
        finished: f.is_finished(),
        stalled: f.stalled(),
        unwritten: f.unwritten(),
    }
}

fn run(
    path: &std::path::Path,
    (id, bag): (u64, usize),
    scanned: Option<Bag>,
    notify: &Reporter<LiveNews>,
) {
    let cancel = notify.flag();
    let news = |snapshot: Option<Bag>, status: LiveStatus, error: Option<String>| LiveNews {
        id,
        bag,
        snapshot,
        times: None,
        status,
        error,
    };
    // The message lists are kept: snapshots list, plot and check the followed chunks
    // without reading them again.
    let opened = Follower::open(path).map(Follower::keep_entries);
    let opened = match &scanned {
        Some(b) => opened.and_then(|f| Follower::resume_from(f, b)),
        None => opened,
    };
    drop(scanned);
    let mut follower = match opened {
        Ok(f) => f,
        Err(e) => {
            notify.send(news(None, LiveStatus::default(), Some(e.to_string())));
            return;
        }
    };
    // The first poll is reported at once: what the follower makes of the file (a record
    // still being written is no loss; a recording whose file stopped growing long ago is
    // stalled) replaces what the opening scan said.
    let mut dirty = true;
    let mut times: Option<Arc<BagTimes>> = None;
    let mut last_sent: Option<Instant> = None;
    let mut refresh = REFRESH;
    let mut last_status = Instant::now();
    while !cancel.load(Ordering::Relaxed) {
        let update = match follower.poll(POLL_BUDGET) {
            Ok(u) => u,
            Err(e) => {
                notify.send(news(None, status(&mut follower), Some(e.to_string())));
                return;
            }
        };
        if !update.messages.is_empty() || !update.new_connections.is_empty() {
            dirty = true;
        }
        if update.finished {
            // The recorder closed the bag: switch to it as indexed, at its new name once
            // `rosbag record` has renamed `.active` (it does so right after closing).
            let deadline = Instant::now() + RENAME_WAIT;
            while path.to_string_lossy().ends_with(".active")
                && follower.final_path() == path
                && Instant::now() < deadline
                && !cancel.load(Ordering::Relaxed)
            {
                std::thread::sleep(Duration::from_millis(20));
            }
            let done = Bag::open(follower.final_path()).unwrap_or_else(|_| follower.snapshot());
            let times = BagTimes::growing(&done, done.chunks().len());
            let mut last = news(Some(done), status(&mut follower), None);
            last.times = Some(Arc::new(times));
            notify.send(last);
            return;
        }
        let due = last_sent.is_none_or(|t| t.elapsed() >= refresh);
        if dirty && due {
            dirty = false;
            let began = Instant::now();
            let snapshot = follower.snapshot();
            // The chunks by time, carried over: the explorer's zooms and pans then cost
            // O(bins · log chunks), not a pass over every chunk of the recording.
            let stable = follower.closed_chunks();
            let grown = Arc::new(match &times {
                Some(t) => t.grow(&snapshot, stable),
                None => BagTimes::growing(&snapshot, stable),
            });
            times = Some(Arc::clone(&grown));
            refresh = REFRESH.max(began.elapsed() * SNAPSHOT_COST_FACTOR);
            last_sent = Some(Instant::now());
            last_status = Instant::now();
            let mut sent = news(Some(snapshot), status(&mut follower), None);
            sent.times = Some(grown);
            if !notify.send(sent) {
                return;
            }
        } else if last_status.elapsed() >= STATUS_EVERY {
            last_status = Instant::now();
            if !notify.send(news(None, status(&mut follower), None)) {
                return;
            }
        }
        if update.more {
            continue;
        }
        // Sleeps until the file changes (one fstat per poll interval) or a refresh is due.
        let wait = if dirty { refresh / 4 } else { REFRESH };
        if let Err(e) = follower.wait(wait) {
            notify.send(news(None, status(&mut follower), Some(e.to_string())));
            return;
        }
    }
}
