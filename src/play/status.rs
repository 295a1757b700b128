//! What the player is doing, shared with whoever draws a status line.

use std::sync::{Mutex, PoisonError};
use std::time::Instant;

use crate::time::RosTime;

use super::schedule::Schedule;

/// The player's state.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PlayState {
    /// Advertised; waiting `--delay` and for known subscribers.
    #[default]
    Waiting,
    /// Publishing on schedule.
    Running,
    /// Paused (space); `s` steps.
    Paused,
    /// Every message was published.
    Done,
    /// Stopped early (Ctrl-C, SIGTERM, shutdown request).
    Stopped,
}

impl PlayState {
    /// The label `rosbag play` shows (`RUNNING`, `PAUSED`, ...).
    pub fn label(self) -> &'static str {
        match self {
            PlayState::Waiting => "DELAYED",
            PlayState::Running => "RUNNING",
            PlayState::Paused => "PAUSED",
            PlayState::Done => "DONE",
            PlayState::Stopped => "STOPPED",
        }
    }
}

/// A copy of the status at one moment.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StatusSnapshot {
    /// State.
    pub state: PlayState,
    /// The running schedule (while running).
    pub schedule: Option<Schedule>,
    /// The bag time shown while not running (paused, stepped, done).
    pub frozen: Option<RosTime>,
    /// The time of the next message (the clock shown never passes it).
    pub next: Option<RosTime>,
    /// Time of the first message played.
    pub first: Option<RosTime>,
    /// Time of the last message of the selection (planned end).
    pub last: Option<RosTime>,
    /// Messages published so far.
    pub published: u64,
    /// Completed passes (with `--loop`).
    pub loops: u64,
}

impl StatusSnapshot {
    /// The bag time to show at `now`.
    pub fn bag_time(&self, now: Instant) -> Option<RosTime> {
        if self.state != PlayState::Running {
            return self.frozen;
        }
        let t = self.schedule.map(|s| s.bag_time(now))?;
        Some(self.next.map_or(t, |n| t.min(n)))
    }

    /// The one-line status `rosbag play` prints:
    /// ` [RUNNING]  Bag Time: 1397024209.156423   Duration: 0.000000 / 12.345678`.
    pub fn line(&self, now: Instant) -> String {
        let first = self.first.unwrap_or_default();
        let t = self.bag_time(now).unwrap_or(first);
        let secs = |a: RosTime, b: RosTime| (a.nanos_since(b).max(0) as f64) / 1e9;
        let total = self.last.map_or(0.0, |l| secs(l, first));
        format!(
            " [{}]  Bag Time: {:13.6}   Duration: {:.6} / {:.6}",
            self.state.label(),
            t.as_secs_f64(),
            secs(t, first),
            total
        )
    }
}

/// The shared status.
#[derive(Debug, Default)]
pub struct Status {
    inner: Mutex<StatusSnapshot>,
}

impl Status {
    /// A copy of the current status.
    pub fn snapshot(&self) -> StatusSnapshot {
        *self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Changes the status.
    pub(crate) fn update(&self, f: impl FnOnce(&mut StatusSnapshot)) {
        f(&mut self.inner.lock().unwrap_or_else(PoisonError::into_inner));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_line() {
        let now = Instant::now();
        let s = StatusSnapshot {
            state: PlayState::Running,
            schedule: Some(Schedule::new(now, RosTime::new(100, 0), 1.0)),
            next: Some(RosTime::new(100, 250_000_000)),
            first: Some(RosTime::new(100, 0)),
            last: Some(RosTime::new(112, 345_678_000)),
            ..StatusSnapshot::default()
        };
        let later = now + std::time::Duration::from_secs(1);
        assert_eq!(
            s.line(later),
            " [RUNNING]  Bag Time:    100.250000   Duration: 0.250000 / 12.345678"
        );
        let p = StatusSnapshot {
            state: PlayState::Paused,
            frozen: Some(RosTime::new(101, 0)),
            ..s
        };
        assert!(
            p.line(later)
                .starts_with(" [PAUSED]  Bag Time:    101.000000   Duration: 1.000000")
        );
    }
}
