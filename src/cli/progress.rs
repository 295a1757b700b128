//! A progress bar on stderr for long copies: shown only when stderr is a terminal and the run
//! has lasted a moment (short runs stay silent), measured in bag time.

use std::io::IsTerminal;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::bag::rewrite::Progress;
use crate::time::RosTime;

/// How long a run goes before the bar appears.
const DELAY: Duration = Duration::from_millis(400);

/// Progress through the time range `[start, end]` of the messages being copied.
pub struct CopyProgress {
    enabled: bool,
    started: Instant,
    range: Option<(RosTime, RosTime)>,
    bar: Option<ProgressBar>,
}

impl CopyProgress {
    /// A bar for messages received in `range` (`None`: nothing to copy).
    pub fn new(range: Option<(RosTime, RosTime)>) -> Self {
        CopyProgress {
            enabled: std::io::stderr().is_terminal(),
            started: Instant::now(),
            range,
            bar: None,
        }
    }

    /// Moves the bar to `p`.
    pub fn update(&mut self, p: Progress) {
        let Some((start, end)) = self.range else {
            return;
        };
        if !self.enabled || (self.bar.is_none() && self.started.elapsed() < DELAY) {
            return;
        }
        let total = nanos_between(start, end).max(1);
        let bar = self.bar.get_or_insert_with(|| {
            let bar =
                ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr_with_hz(8));
            let style = ProgressStyle::with_template(
                "{wide_bar} {percent:>3}% {msg} messages, {elapsed} (eta {eta})",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar());
            bar.set_style(style);
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
