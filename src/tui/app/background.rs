//! The explorer's background side as the app holds it: the worker and its pending requests,
//! the ROS publisher, following a growing recording, a running recovery scan, playback and
//! publishing ([`Jobs`]), with the small states of following ([`FollowState`]) and of the
//! scan's clock ([`ScanClock`]).

use std::time::{Duration, Instant};

use crate::tui::jobs::lanes::LaneJobs;
use crate::tui::jobs::live::{LiveJob, LiveNews, LiveStatus};
use crate::tui::jobs::notify::Notify;
use crate::tui::jobs::publish::{Publisher, Publishing, RosEvent};
use crate::tui::jobs::worker::pending::Pending;
use crate::tui::jobs::worker::{Reply, Worker};
use crate::tui::model::play::Play;
use crate::tui::model::scan::ScanState;

/// What runs beside the screen: the threads the app asks and what it remembers of them.
pub struct Jobs {
    /// The decode worker.
    pub(crate) worker: Worker,
    /// The latest worker request of each kind: replies to older ones are dropped.
    pub(crate) requests: Pending,
    /// The ROS publisher, while `p` publishes.
    pub(crate) publisher: Option<Publisher>,
    /// Where the ROS publisher reports (set by the event loop; without it `p` cannot publish).
    pub(crate) ros: Option<Notify<RosEvent>>,
    /// Following a growing recording (`F`).
    pub follow: FollowState,
    /// The recovery scan of a bag shown while it runs.
    pub scan: ScanState,
    /// When the scan started and its health report was last asked for.
    pub(crate) scan_clock: ScanClock,
    /// Playback, when started.
    pub play: Option<Play>,
    /// The latest ROS publishing run, as shown in the status bar.
    pub publishing: Option<Publishing>,
    /// The lanes' thumbnails and ERROR/FATAL ticks.
    pub lanes: LaneJobs,
}

impl Jobs {
    /// Nothing running yet but `worker`.
    pub fn new(worker: Worker) -> Jobs {
        Jobs {
            worker,
            requests: Pending::default(),
            publisher: None,
            ros: None,
            follow: FollowState::default(),
            scan: ScanState::default(),
            scan_clock: ScanClock::default(),
            play: None,
            publishing: None,
            lanes: LaneJobs::default(),
        }
    }
}

/// The follow state of the app.
#[derive(Default)]
pub struct FollowState {
    pub(crate) job: Option<LiveJob>,
    /// Where the follow thread reports (set by the event loop).
    pub(crate) notify: Option<Notify<LiveNews>>,
    /// Where a worker over a new snapshot replies (set by the event loop).
    pub(crate) replies: Option<Notify<Reply>>,
    /// The latest status of the followed recording.
    pub(crate) status: Option<LiveStatus>,
    /// The followed recording was finished by its writer.
    pub(crate) finished: bool,
    /// A snapshot came since the health report was last asked for.
    pub(crate) health_stale: bool,
    pub(crate) next_id: u64,
}

impl std::fmt::Debug for FollowState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FollowState")
            .field("job", &self.job)
            .field("status", &self.status)
            .field("finished", &self.finished)
            .finish_non_exhaustive()
    }
}

impl FollowState {
    /// True while a recording is followed.
    pub fn is_following(&self) -> bool {
        self.job.is_some()
    }

    /// The latest status of the followed recording.
    pub fn status(&self) -> Option<&LiveStatus> {
        self.status.as_ref()
    }

    /// The status bar mark: `● live` and how far behind the writer the reader is, or that
    /// the recording finished; `None` when nothing is followed.
    pub fn mark(&self) -> Option<String> {
        if self.job.is_none() {
            return self.finished.then(|| "■ recording finished".to_string());
        }
        Some(match &self.status {
            Some(LiveStatus {
                stalled: Some(stall),
                ..
            }) => format!("■ {stall}"),
            Some(LiveStatus {
                unwritten: Some(d), ..
            }) => format!(
                "● live · newest {} not yet on disk: the recorder compresses chunks",
                secs(*d)
            ),
            Some(s) if s.behind_bytes > 0 => {
                format!(
                    "● live · {} behind",
                    crate::tui::text::bytes(s.behind_bytes)
                )
            }
            Some(LiveStatus { idle: Some(d), .. }) => format!("● live · idle {}", secs(*d)),
            None | Some(_) => "● live".to_string(),
        })
    }
}

fn secs(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s < 10.0 {
        format!("{s:.1} s")
    } else {
        format!("{s:.0} s")
    }
}

/// The shortest time between two health reports recomputed over partial results (the
/// report walks every chunk; one at a time).
const HEALTH_EVERY: Duration = Duration::from_secs(3);

/// When the scan started and the health report was last asked for.
#[derive(Debug, Default)]
pub struct ScanClock {
    pub(crate) started: Option<Instant>,
    pub(crate) health: Option<Instant>,
    /// A health report is being computed: no other is asked for meanwhile.
    pub(crate) health_running: bool,
}

impl ScanClock {
    /// A health report arrived.
    pub fn report_arrived(&mut self) {
        self.health_running = false;
    }

    /// True when a health report over a newer partial result should be asked for now (and
    /// then notes that it is).
    pub fn health_due(&mut self) -> bool {
        let due = !self.health_running && self.health.is_none_or(|t| t.elapsed() >= HEALTH_EVERY);
        if due {
            self.health = Some(Instant::now());
            self.health_running = true;
        }
        due
    }
}
