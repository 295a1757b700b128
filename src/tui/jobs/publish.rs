//! `p`: the marked interval published into a live ROS1 graph, off the UI thread.
//!
//! Each run has one thread (`ros-publish`) that owns everything networked: it resolves the
//! node configuration, starts the node and advertises the selection
//! ([`Session`]), then runs a [`Player`] with
//! [`play::play`](crate::play::play), the run `bagscope play` shares: the player on this
//! thread, its shared [`Status`] sampled every [`POLL`] on another. What the status bar shows
//! ([`Update`]) is sent to the app (a [`Notify`]) only when it changed, so the screen
//! is redrawn only then. `p` again, or leaving the app, sends [`Control::Stop`]; the thread
//! then flushes, unregisters from the master and reports [`Update::Finished`]. Whatever
//! happens, its last report is [`Update::Finished`] or [`Update::Failed`].

use std::fmt::Write as _;
use std::sync::Arc;
use std::sync::mpsc::{self, Receiver, Sender};
use std::time::{Duration, Instant};

use crate::catalog::{Catalog, Selection};
use crate::play::{
    Control, PlayOptions, PlayState, Player, Report, Session, StartError, Status, StatusSnapshot,
    Watcher, play, stop_on_shutdown_request,
};
use crate::ros::{NodeConfig, QueueLimits, names};
use crate::time::RosTime;

use super::job::detach;
use super::notify::Notify;

/// How often the publisher thread looks at the player's progress.
pub const POLL: Duration = Duration::from_millis(250);
/// How long queued messages may take to reach subscribers after the last one.
const FLUSH_DONE: Duration = Duration::from_secs(3);
/// The same after a stop: the user wants it to end.
const FLUSH_STOPPED: Duration = Duration::from_millis(300);
/// How long to wait for the subscribers the master knew of to connect before the first
/// message (shorter than `bagscope play`'s: a stop must not wait long).
const SUBSCRIBER_WAIT: Duration = Duration::from_secs(2);

/// How the explorer publishes (command-line options of the explorer).
#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    /// Every topic is published under this namespace (`/`: the original names).
    pub namespace: String,
    /// Speed factor (2.0: twice as fast).
    pub rate: f64,
    /// The node's configuration; `None`: from the environment (`ROS_MASTER_URI`, ...) when
    /// publishing starts. Tests pass their own.
    pub config: Option<NodeConfig>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            namespace: "/".to_string(),
            rate: 1.0,
            config: None,
        }
    }
}

/// Which topics a run publishes: those shown in the topic list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// No filter: every topic.
    All,
    /// The topics the `/` filter shows.
    Filtered {
        /// Topics published.
        shown: usize,
        /// Topics in the bags.
        of: usize,
    },
}

/// Where a running publication is, as shown (rounded so that it changes a few times a
/// second at most).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Progress {
    /// Bag time reached, in tenths of a second since the start of the interval.
    pub at: u64,
    /// Length of the interval, in tenths of a second.
    pub total: u64,
    /// Percent of the interval done.
    pub percent: u8,
}

impl Progress {
    /// Progress of `status` at `now` through the interval `start..=end`.
    pub fn of(status: &StatusSnapshot, now: Instant, start: RosTime, end: RosTime) -> Progress {
        let total = end.nanos_since(start).max(0);
        let at = match status.state {
            PlayState::Done => total,
            _ => status
                .bag_time(now)
                .map_or(0, |t| t.nanos_since(start).clamp(0, total)),
        };
        let percent = if total == 0 {
            if status.state == PlayState::Done {
                100
            } else {
                0
            }
        } else {
            u8::try_from(at * 100 / total).unwrap_or(100)
        };
        let tenths = |n: i128| u64::try_from(n / 100_000_000).unwrap_or(0);
        Progress {
            at: tenths(at),
            total: tenths(total),
            percent,
        }
    }
}

/// How a run ended.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Finished {
    /// Messages published.
    pub published: u64,
    /// Messages not published (their topic is held by another type).
    pub skipped: u64,
    /// Messages that could not be read or published.
    pub failed: usize,
    /// The first of those problems, or a warning (a topic not advertised, unregistering
    /// failed).
    pub problem: Option<String>,
    /// Stopped before the end (`p`, quitting, a shutdown request from the graph).
    pub stopped: bool,
}

/// What the publisher thread reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Update {
    /// Calling the master.
    Connecting {
        /// Its URI.
        master: String,
    },
    /// Advertised; publishing on schedule.
    Progress(Progress),
    /// Done or stopped; the node is unregistered.
    Finished(Finished),
    /// Nothing was published: the master is unreachable, the environment is unusable, ...
    Failed(String),
}

/// A report of run `run`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RosEvent {
    /// Which run (reports of an earlier run are ignored).
    pub run: u64,
    /// What happened.
    pub update: Update,
}

/// Where a run is, for the status bar.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Phase {
    /// The thread was started.
    Starting,
    /// Calling the master.
    Connecting {
        /// Its URI.
        master: String,
    },
    /// Publishing.
    Publishing(Progress),
    /// Stop was asked for; flushing and unregistering.
    Stopping,
    /// Over; unregistered.
    Finished(Finished),
    /// Nothing published.
    Failed(String),
}

/// The state of the latest run, as the status bar shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct Publishing {
    /// The run.
    pub run: u64,
    /// Where it is.
    pub phase: Phase,
    /// Which topics.
    pub scope: Scope,
    /// Under which namespace.
    pub namespace: String,
    /// At which rate.
    pub rate: f64,
}

impl Publishing {
    /// A run just started.
    pub fn new(run: u64, scope: Scope, settings: &Settings) -> Publishing {
        Publishing {
            run,
            phase: Phase::Starting,
            scope,
            namespace: settings.namespace.clone(),
            rate: settings.rate,
        }
    }

    /// True while its thread runs (until it reports the end).
    pub fn is_active(&self) -> bool {
        !matches!(self.phase, Phase::Finished(_) | Phase::Failed(_))
    }

    /// Applies a report of the thread; true when something shown changed.
    pub fn apply(&mut self, update: Update) -> bool {
        let next = match update {
            // While stopping, progress is old news.
            Update::Connecting { .. } | Update::Progress(_) if self.phase == Phase::Stopping => {
                return false;
            }
            Update::Connecting { master } => Phase::Connecting { master },
            Update::Progress(p) => Phase::Publishing(p),
            Update::Finished(f) => Phase::Finished(f),
            Update::Failed(e) => Phase::Failed(e),
        };
        if next == self.phase {
            return false;
        }
        self.phase = next;
        true
    }

    /// True when the status shows an error (nothing published).
    pub fn is_error(&self) -> bool {
        matches!(self.phase, Phase::Failed(_))
    }

    /// True when the status shows a warning (some messages failed).
    pub fn is_warning(&self) -> bool {
        matches!(&self.phase, Phase::Finished(f) if f.failed > 0 || f.problem.is_some())
    }

    /// `all topics`, `2 of 7 topics`, with the namespace and rate when not the defaults.
    fn what(&self) -> String {
        let mut s = match self.scope {
            Scope::All => "all topics".to_string(),
            Scope::Filtered { shown, of } => format!("{shown} of {of} topics"),
        };
        if self.namespace != "/" {
            s.push_str(" → ");
            s.push_str(&self.namespace);
        }
        if (self.rate - 1.0).abs() > f64::EPSILON {
            let _ = write!(s, " at {}×", self.rate);
        }
        s
    }

    /// The status bar text: `ROS ▶ 12.3/30.0 s 40% · all topics`.
    pub fn status_text(&self) -> String {
        let messages = |n: u64| format!("{n} message{}", if n == 1 { "" } else { "s" });
        match &self.phase {
            Phase::Starting => format!("ROS … starting · {}", self.what()),
            Phase::Connecting { master } => format!("ROS … connecting to {master}"),
            Phase::Publishing(p) => format!(
                "ROS ▶ {}.{}/{}.{} s {}% · {}",
                p.at / 10,
                p.at % 10,
                p.total / 10,
                p.total % 10,
                p.percent,
                self.what()
            ),
            Phase::Stopping => "ROS ■ stopping…".to_string(),
            Phase::Finished(f) => {
                let mut s = if f.stopped {
                    format!("ROS ■ stopped: {} published", messages(f.published))
                } else if f.failed > 0 || f.problem.is_some() {
                    format!("ROS ⚠ done: {} published", messages(f.published))
                } else {
                    format!("ROS ✓ done: {} published", messages(f.published))
                };
                if f.skipped > 0 {
                    let _ = write!(s, ", {} skipped", f.skipped);
                }
                if f.failed > 0 {
                    let _ = write!(s, ", {} failed", f.failed);
                }
                if let Some(p) = &f.problem {
                    s.push_str(": ");
                    s.push_str(p);
                }
                s
            }
            Phase::Failed(e) => format!("ROS ✗ {e}"),
        }
    }
}

/// What a run publishes.
#[derive(Clone, Debug)]
pub struct Job {
    /// Run id (in every report).
    pub run: u64,
    /// Topics (none: all) and the interval (both ends set).
    pub selection: Selection,
}

/// Handle to a run's thread. Dropping it asks the run to stop (without waiting).
#[derive(Debug)]
pub struct Publisher {
    control: Sender<Control>,
}

impl Publisher {
    /// Starts publishing `job` from `catalog` on a new thread; reports go to `events`.
    pub fn start(
        catalog: Catalog,
        job: Job,
        settings: Settings,
        events: Notify<RosEvent>,
    ) -> std::io::Result<Publisher> {
        let (control, rx) = mpsc::channel();
        let stopper = control.clone();
        detach("ros-publish", move || {
            let mut out = Reporter {
                run: job.run,
                events,
                ended: false,
            };
            run(&catalog, &job.selection, settings, &rx, &stopper, &mut out);
        })?;
        Ok(Publisher { control })
    }

    /// Asks the run to stop; it reports [`Update::Finished`] once unregistered.
    pub fn stop(&self) {
        let _ = self.control.send(Control::Stop);
    }
}

impl Drop for Publisher {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Sends a run's reports; reports a failure if the thread ends without a last report.
struct Reporter {
    run: u64,
    events: Notify<RosEvent>,
    ended: bool,
}

impl Reporter {
    fn send(&mut self, update: Update) {
        self.ended |= matches!(update, Update::Finished(_) | Update::Failed(_));
        self.events.send(RosEvent {
            run: self.run,
            update,
        });
    }
}

impl Drop for Reporter {
    fn drop(&mut self) {
        if !self.ended {
            self.send(Update::Failed("the publisher stopped unexpectedly".into()));
        }
    }
}

/// The thread: connect, advertise, play, unregister.
fn run(
    catalog: &Catalog,
    selection: &Selection,
    settings: Settings,
    control: &Receiver<Control>,
    stopper: &Sender<Control>,
    out: &mut Reporter,
) {
    let config = match settings.config {
        Some(c) => Ok(c),
        None => NodeConfig::from_env(&names::anonymous("bagscope_explore")),
    };
    let config = match config {
        Ok(c) => c,
        Err(e) => return out.send(Update::Failed(e.to_string())),
    };
    out.send(Update::Connecting {
        master: config.master_uri.clone(),
    });
    let mut session = match Session::start(
        config,
        &settings.namespace,
        QueueLimits::default(),
        catalog,
        selection,
    ) {
        Ok(s) => s,
        Err(e) => return out.send(Update::Failed(describe(&e))),
    };
    // `rosnode kill`: stop like `p` does.
    stop_on_shutdown_request(&session.node, stopper);
    let (start, end) = (
        selection.start.unwrap_or(RosTime::MIN),
        selection.end.unwrap_or(RosTime::MAX),
    );
    let mut player = Player {
        outlet: &mut session.outlet,
        clock: None,
        options: PlayOptions {
            rate: settings.rate,
            subscriber_wait: SUBSCRIBER_WAIT,
            ..PlayOptions::default()
        },
        status: Arc::new(Status::default()),
    };
    let mut last = None;
    let watcher = Watcher {
        period: POLL,
        on_status: Box::new(|status| {
            let p = Progress::of(status, Instant::now(), start, end);
            if last != Some(p) {
                last = Some(p);
                out.send(Update::Progress(p));
            }
        }),
    };
    let played = play(&mut player, catalog, selection, control, Some(watcher));
    let mut warnings = session.outlet.take_warnings();
    let Ok(report) = played else {
        let _ = session.finish(FLUSH_STOPPED);
        return out.send(Update::Failed("the player stopped unexpectedly".into()));
    };
    let flush = if report.stopped {
        FLUSH_STOPPED
    } else {
        FLUSH_DONE
    };
    if let Err(e) = session.finish(flush) {
        warnings.push(format!("unregistering from the master: {e}"));
    }
    out.send(Update::Finished(finished(&report, warnings)));
}

/// The status text of a failed start.
fn describe(e: &StartError) -> String {
    match e {
        StartError::Unreachable { master, .. } => {
            format!("cannot reach the ROS master at {master}: {}", e.cause())
        }
        StartError::Advertise(e) => format!("cannot advertise: {e}"),
    }
}

fn finished(report: &Report, warnings: Vec<String>) -> Finished {
    let failed = report.read_errors.len() + report.publish_errors.len();
    let problem = report
        .read_errors
        .first()
        .map(ToString::to_string)
        .or_else(|| report.publish_errors.first().cloned())
        .or_else(|| warnings.into_iter().next());
    Finished {
        published: report.published,
        skipped: report.skipped,
        failed,
        problem,
        stopped: report.stopped,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn publishing(phase: Phase) -> Publishing {
        Publishing {
            run: 1,
            phase,
            scope: Scope::All,
            namespace: "/".into(),
            rate: 1.0,
        }
    }

    #[test]
    fn status_texts() {
        let p = |at, total, percent| publishing(Phase::Publishing(Progress { at, total, percent }));
        assert_eq!(
            p(123, 300, 41).status_text(),
            "ROS ▶ 12.3/30.0 s 41% · all topics"
        );
        let mut filtered = p(0, 5, 0);
        filtered.scope = Scope::Filtered { shown: 2, of: 7 };
        filtered.namespace = "/replay".into();
        filtered.rate = 2.0;
        assert_eq!(
            filtered.status_text(),
            "ROS ▶ 0.0/0.5 s 0% · 2 of 7 topics → /replay at 2×"
        );
        let done = publishing(Phase::Finished(Finished {
            published: 1,
            ..Finished::default()
        }));
        assert_eq!(done.status_text(), "ROS ✓ done: 1 message published");
        assert!(!done.is_active() && !done.is_warning() && !done.is_error());
        let stopped = publishing(Phase::Finished(Finished {
            published: 40,
            skipped: 2,
            stopped: true,
            ..Finished::default()
        }));
        assert_eq!(
            stopped.status_text(),
            "ROS ■ stopped: 40 messages published, 2 skipped"
        );
        let bad = publishing(Phase::Finished(Finished {
            published: 40,
            failed: 1,
            problem: Some("oops".into()),
            ..Finished::default()
        }));
        assert_eq!(
            bad.status_text(),
            "ROS ⚠ done: 40 messages published, 1 failed: oops"
        );
        assert!(bad.is_warning());
        let failed = publishing(Phase::Failed("no".into()));
        assert_eq!(failed.status_text(), "ROS ✗ no");
        assert!(failed.is_error() && !failed.is_active());
    }

    #[test]
    fn updates_change_the_phase_once() {
        let mut p = publishing(Phase::Starting);
        assert!(p.is_active());
        let pr = Progress {
            at: 1,
            total: 10,
            percent: 10,
        };
        assert!(p.apply(Update::Progress(pr)));
        assert!(!p.apply(Update::Progress(pr)), "no change, no redraw");
        p.phase = Phase::Stopping;
        assert!(!p.apply(Update::Progress(pr)), "progress while stopping");
        assert!(p.apply(Update::Finished(Finished::default())));
        assert!(!p.is_active());
    }

    #[test]
    fn progress_through_the_interval() {
        let start = RosTime::new(100, 0);
        let end = RosTime::new(130, 0);
        let now = Instant::now();
        let paused_at = |t: RosTime, state| StatusSnapshot {
            state,
            frozen: Some(t),
            ..StatusSnapshot::default()
        };
        assert_eq!(
            Progress::of(&StatusSnapshot::default(), now, start, end),
            Progress {
                at: 0,
                total: 300,
                percent: 0
            }
        );
        assert_eq!(
            Progress::of(
                &paused_at(RosTime::new(112, 340_000_000), PlayState::Paused),
                now,
                start,
                end
            ),
            Progress {
                at: 123,
                total: 300,
                percent: 41
            }
        );
        let done = Progress::of(&paused_at(end, PlayState::Done), now, start, start);
        assert_eq!(done.percent, 100);
    }
}
