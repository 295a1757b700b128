//! `bagscope info --follow`: the summary of a bag still being recorded, shown anew as it grows
//! (see [`crate::cli::follow`] for how a follow ends).

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::PathBuf;
use std::time::Duration;

use crate::cli::error::CliError;
use crate::cli::follow::{POLL_BUDGET, Stop, gave_up, open, report_losses, single};
use crate::cli::outcome::Outcome;
use crate::cli::term::Stdout;

use super::summary::{Summary, text_summary};

/// Runs `bagscope info --follow`: a summary of what the recording holds so far, redrawn in
/// place on a terminal and printed anew on each change otherwise; once the recording is
/// finished, the summary of the finished (indexed) bag. `freq`: with each topic's median
/// rate; `idle_timeout`: see [`gave_up`].
pub fn info(bags: &[PathBuf], freq: bool, idle_timeout: u64) -> Result<Outcome, CliError> {
    let path = &single(bags)?;
    // The rates need every message's receive time: the message lists are kept.
    let mut follower = open(path, freq)?;
    let stop = Stop::watch();
    let tty = std::io::IsTerminal::is_terminal(&std::io::stdout());
    let mut outcome = Outcome::Ok;
    let mut shown_lines = 0usize;
    let mut last = String::new();
    loop {
        let update = loop {
            match follower.poll(POLL_BUDGET) {
                Ok(u) => {
                    if report_losses(path, &u) {
                        outcome = outcome.max(Outcome::Problems);
                    }
                    if !u.more {
                        break u;
                    }
                }
                Err(e) => return Err(e.into()),
            }
        };
        let text = if update.finished {
            let bag = crate::bag::Bag::open(follower.final_path())?;
            let shown = follower.final_path().display().to_string();
            text_summary(&bag, &shown, freq)
        } else {
            live_summary(&mut follower, freq)
        };
        if text != last {
            if tty && shown_lines > 0 {
                // Back to the first line of the last summary, and clear to the end (written
                // raw: the summary itself is escaped).
                let mut raw = std::io::stdout();
                let _ = write!(raw, "\x1b[{shown_lines}F\x1b[J");
                let _ = raw.flush();
            }
            let mut out = Stdout::human();
            if !tty && shown_lines > 0 {
                out.print(format_args!("---\n"));
            }
            out.print(format_args!("{text}\n"));
            shown_lines = text.lines().count();
            if out.is_closed() {
                return Ok(out.finish(outcome));
            }
            let _ = out.finish(Outcome::Ok);
            last = text;
        }
        if update.finished {
            return Ok(outcome);
        }
        if let Some(sig) = stop.signal() {
            return Ok(outcome.max(Outcome::Signal(sig)));
        }
        if gave_up(path, &mut follower, idle_timeout) {
            return Ok(outcome.max(Outcome::Problems));
        }
        stop.wait(&follower, Duration::from_secs(1))?;
    }
}

/// The `rosbag info`-style text of a recording still being written (`info --follow`), with
/// a last line saying how it stands: live, stalled, or with its newest messages still in
/// the recorder's memory. `freq`: each topic's median rate so far.
pub fn live_summary(follower: &mut crate::bag::follow::Follower, freq: bool) -> String {
    let bag = follower.snapshot();
    let shown = follower.path().display().to_string();
    let mut text = Summary::new(&bag, freq).text(&bag, &shown);
    if let Some(stall) = follower.stalled() {
        let _ = write!(text, "\nlive:        {stall}");
    } else if let Some(d) = follower.unwritten() {
        let _ = write!(
            text,
            "\nlive:        recording; newest {} not yet on disk: the recorder compresses chunks",
            crate::bag::follow::ago(d)
        );
    } else {
        let _ = write!(
            text,
            "\nlive:        recording ({} bytes read, {} not yet a whole record)",
            follower.consumed(),
            follower.behind_bytes()
        );
    }
    text
}
