//! `echo --follow` and `info --follow`: a bag that is still being recorded, read as it grows
//! (see [`crate::bag::follow`]). They end when the recording is finished (exit 0, or 1 when
//! damage was skipped), when it has not grown for `--idle-timeout` seconds with no process
//! writing it (exit 1: the recorder stopped without finishing it), when another file takes
//! its name or it is deleted (exit 2), or on SIGINT/SIGTERM/SIGHUP (exit 128 + the signal, as
//! shells report it).

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use crate::bag::follow::{FollowError, Follower, POLL_INTERVAL, Update};

use super::echo::{EchoArgs, Printer};
use super::term::Stdout;
use super::{Outcome, print_error, print_warning};

/// Message bytes handed over per poll: a large backlog is printed in pieces.
const POLL_BUDGET: usize = 4 << 20;

/// The default `--idle-timeout` (seconds): a recording that has not grown for this long with
/// no process writing it is taken as stopped.
pub const IDLE_TIMEOUT: u64 = 300;

/// True (after saying so) when the recording has not grown for `timeout` seconds and no
/// process holds it open for writing (`0`: never).
fn gave_up(path: &Path, follower: &mut Follower, timeout: u64) -> bool {
    if timeout == 0 {
        return false;
    }
    let Some(stall) = follower.idle_for(Duration::from_secs(timeout)) else {
        return false;
    };
    print_warning(format_args!(
        "{}: {stall}; stopped waiting (--idle-timeout {timeout})",
        path.display()
    ));
    true
}

/// The signal that ended a follow (0: none yet).
struct Stop(Arc<AtomicUsize>);

impl Stop {
    fn watch() -> Stop {
        let flag = Arc::new(AtomicUsize::new(0));
        #[cfg(unix)]
        for sig in [
            signal_hook::consts::SIGINT,
            signal_hook::consts::SIGTERM,
            signal_hook::consts::SIGHUP,
        ] {
            let n = usize::try_from(sig).unwrap_or(127);
            let _ = signal_hook::flag::register_usize(sig, Arc::clone(&flag), n);
        }
        Stop(flag)
    }

    fn signal(&self) -> Option<u8> {
        match self.0.load(Ordering::SeqCst) {
            0 => None,
            n => Some(u8::try_from(n).unwrap_or(127)),
        }
    }

    /// Waits until the file changes, a signal arrives or `timeout` passes.
    fn wait(&self, follower: &Follower, timeout: Duration) -> Result<(), FollowError> {
        let start = std::time::Instant::now();
        while self.signal().is_none() && start.elapsed() < timeout {
            if follower.wait(POLL_INTERVAL)? {
                break;
            }
        }
        Ok(())
    }
}

fn open(path: &Path, keep_entries: bool) -> Result<Follower, Outcome> {
    let opened = Follower::open(path);
    let opened = if keep_entries {
        opened.map(Follower::keep_entries)
    } else {
        opened
    };
    opened.map_err(|e| {
        print_error(e);
        Outcome::Failed
    })
}

fn single(bags: &[PathBuf]) -> Result<&Path, Outcome> {
    if let [one] = bags {
        Ok(one)
    } else {
        print_error("--follow takes exactly one bag");
        Err(Outcome::Failed)
    }
}

/// Reports an update's losses; true when there were some.
fn report_losses(path: &Path, update: &Update) -> bool {
    for l in &update.losses {
        print_warning(format_args!("{}: skipped {l}", path.display()));
    }
    !update.losses.is_empty()
}

/// Runs `bagscope echo --follow`.
pub fn echo(args: &EchoArgs) -> Outcome {
    let path = match single(&args.input.bags) {
        Ok(p) => p,
        Err(o) => return o,
    };
    if args.select.start.is_some() || args.select.end.is_some() {
        print_error("--follow prints every new message: --start and --end do not apply");
        return Outcome::Failed;
    }
    let registry = match args.input.msg.registry() {
        Ok(r) => r,
        Err(o) => return o,
    };
    let mut follower = match open(path, false) {
        Ok(f) => f,
        Err(o) => return o,
    };
    let topics: Vec<String> = args
        .select
        .topics
        .iter()
        .map(|t| {
            if t.starts_with('/') {
                t.clone()
            } else {
                format!("/{t}")
            }
        })
        .collect();
    let stop = Stop::watch();
    let mut printer = Printer::new(args.format, registry);
    let mut out = Stdout::data();
    let mut outcome = Outcome::Ok;
    let mut written = 0u64;
    loop {
        let update = match follower.poll(POLL_BUDGET) {
            Ok(u) => u,
            Err(e) => {
                print_error(e);
                return out.finish(Outcome::Failed);
            }
        };
        if report_losses(path, &update) {
            outcome = outcome.max(Outcome::Problems);
        }
        for m in &update.messages {
            if args.limit.is_some_and(|n| written >= n) {
                break;
            }
            let Some(conn) = follower.connections().get(m.conn as usize) else {
                continue;
            };
            if !topics.is_empty() && !topics.contains(&conn.topic) {
                continue;
            }
            let (text, ok) = printer.render_conn(0, path, conn, m.time, &m.data);
            if !ok {
                outcome = outcome.max(Outcome::Problems);
            }
            out.bytes(text.as_bytes());
            written += 1;
        }
        if std::io::Write::flush(&mut out).is_err() || out.is_closed() {
            return out.finish(outcome);
        }
        if args.limit.is_some_and(|n| written >= n) || update.finished {
            return out.finish(outcome);
        }
        if let Some(sig) = stop.signal() {
            return out.finish(outcome.max(Outcome::Signal(sig)));
        }
        if !update.more && gave_up(path, &mut follower, args.idle_timeout) {
            return out.finish(outcome.max(Outcome::Problems));
        }
        if !update.more {
            if let Err(e) = stop.wait(&follower, Duration::from_secs(1)) {
                print_error(e);
                return out.finish(Outcome::Failed);
            }
        }
    }
}

/// Runs `bagscope info --follow`: a summary of what the recording holds so far, redrawn in
/// place on a terminal and printed anew on each change otherwise; once the recording is
/// finished, the summary of the finished (indexed) bag. `freq`: with each topic's median
/// rate; `idle_timeout`: see [`gave_up`].
pub fn info(bags: &[PathBuf], freq: bool, idle_timeout: u64) -> Outcome {
    let path = match single(bags) {
        Ok(p) => p,
        Err(o) => return o,
    };
    // The rates need every message's receive time: the message lists are kept.
    let mut follower = match open(path, freq) {
        Ok(f) => f,
        Err(o) => return o,
    };
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
                Err(e) => {
                    print_error(e);
                    return Outcome::Failed;
                }
            }
        };
        let text = if update.finished {
            match super::open_bag(&follower.final_path()) {
                Ok(bag) => {
                    let shown = follower.final_path().display().to_string();
                    super::info::text_summary(&bag, &shown, freq)
                }
                Err(o) => return o,
            }
        } else {
            super::info::live_summary(&mut follower, freq)
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
                return out.finish(outcome);
            }
            let _ = out.finish(Outcome::Ok);
            last = text;
        }
        if update.finished {
            return outcome;
        }
        if let Some(sig) = stop.signal() {
            return outcome.max(Outcome::Signal(sig));
        }
        if gave_up(path, &mut follower, idle_timeout) {
            return outcome.max(Outcome::Problems);
        }
        if let Err(e) = stop.wait(&follower, Duration::from_secs(1)) {
            print_error(e);
            return Outcome::Failed;
        }
    }
}
