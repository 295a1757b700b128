//! A progress bar on stderr for long copies: shown only when stderr is a terminal and the run
//! has lasted a moment (short runs stay silent), measured in bag time.

use std::io::IsTerminal;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::bag::rewrite::Progress;
use crate::time::RosTime;

/// How long a run goes before the bar appears.
const DELAY: Duration = Duration::from_millis(400);
/// How often the bar is moved.
const INTERVAL: Duration = Duration::from_millis(100);

/// Progress through the time range `[start, end]` of the messages being copied.
pub struct CopyProgress {
    enabled: bool,
    started: Instant,
    range: Option<(RosTime, RosTime)>,
    bar: Option<ProgressBar>,
    last: Instant,
}

impl CopyProgress {
    /// A bar for messages received in `range` (`None`: nothing to copy).
    pub fn new(range: Option<(RosTime, RosTime)>) -> Self {
        CopyProgress {
            enabled: std::io::stderr().is_terminal(),
            started: Instant::now(),
            range,
            bar: None,
            last: Instant::now(),
        }
    }

    /// Moves the bar to `p` (at most every 100 ms; the first time after 400 ms).
    pub fn update(&mut self, p: Progress) {
        let Some((start, end)) = self.range else {
            return;
        };
        if !self.enabled || self.last.elapsed() < INTERVAL {
            return;
        }
        self.last = Instant::now();
        if self.bar.is_none() && self.started.elapsed() < DELAY {
            return;
        }
        let total = nanos_between(start, end).max(1);
        let started = self.started;
        let bar = self.bar.get_or_insert_with(|| {
            let bar =
                ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr_with_hz(8))
                    .with_elapsed(started.elapsed());
            let style = ProgressStyle::with_template(
                "{wide_bar} {percent:>3}% {msg} messages, {elapsed} (eta {eta})",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar());
            bar.set_style(style);
            // Redraw while a slow chunk compresses, so elapsed time keeps moving.
            bar.enable_steady_tick(Duration::from_millis(500));
            bar
        });
        bar.set_position(nanos_between(start, p.time).min(total));
        bar.set_message(p.messages.to_string());
    }

    /// Removes the bar.
    pub fn finish(self) {
        if let Some(bar) = self.bar {
            bar.finish_and_clear();
        }
    }
}

fn nanos_between(start: RosTime, t: RosTime) -> u64 {
    u64::try_from(t.nanos_since(start).max(0)).unwrap_or(u64::MAX)
}
