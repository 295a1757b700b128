//! The thread that reads the terminal's input. When the graphics query was written
//! ([`graphics::Startup::Asked`]), it first reads the terminal's answers one byte at a time,
//! handing on the keys typed meanwhile ([`term_replies`](super::term_replies)), until the
//! status report that ends them or [`ANSWER_WAIT`]; the graphics settled from them arrive as
//! [`AppEvent::Graphics`]. Then it reads events with crossterm until the app is gone, dropping
//! answers that come later still, which crossterm would read as keys ([`LateReplies`]).
//!
//! One byte at a time, so that nothing after the answers is taken from crossterm, and with
//! a deadline, so that a terminal that never answers costs neither a wait nor a key. The
//! explorer does not restore the terminal while answers are still on their way
//! ([`AnswersRead`]): they would land at the shell's prompt.

use std::sync::mpsc::Sender;
use std::time::{Duration, Instant};

use crossterm::event::Event;

use super::super::jobs::gate::Gate;
use super::super::jobs::job::detach;
use super::event::AppEvent;
use super::graphics::{self, Graphics};
use super::term_replies::{LateReplies, Replies, Sorter};

/// How long the terminal's answers are waited for by default (on this thread: the explorer
/// runs meanwhile, its pictures in half-blocks). A terminal that answers later keeps
/// half-blocks; its answers are dropped, not read as keys. `BAGSCOPE_QUERY_WAIT` (seconds)
/// sets another.
pub const ANSWER_WAIT: Duration = Duration::from_secs(2);

/// The longest `BAGSCOPE_QUERY_WAIT` taken.
const MAX_ANSWER_WAIT: Duration = Duration::from_secs(60);

/// The wait for the answers: `BAGSCOPE_QUERY_WAIT` in seconds (at most a minute), else
/// [`ANSWER_WAIT`].
pub fn answer_wait(var: Option<&str>) -> Duration {
    var.and_then(|v| v.trim().parse::<f64>().ok())
        .filter(|s| s.is_finite() && *s >= 0.0)
        .map_or(ANSWER_WAIT, |s| {
            Duration::from_secs_f64(s.min(MAX_ANSWER_WAIT.as_secs_f64()))
        })
}

/// How long after an `ESC` the rest of its sequence may take before the `ESC` counts as the
/// Escape key (or a sequence cut short is given up).
const ESCAPE_WAIT: Duration = Duration::from_millis(50);

/// Waits, when dropped, until the terminal's answers have been read (or their deadline has
/// passed): held by `run()` over the terminal's restoration, so that no way out (`q`, a
/// signal, a bag that cannot be opened) gives the shell answers still on their way.
#[must_use]
pub struct AnswersRead {
    read: Gate,
    until: Instant,
}

impl Drop for AnswersRead {
    fn drop(&mut self) {
        self.read
            .wait(self.until.saturating_duration_since(Instant::now()));
    }
}

/// Starts the input thread (`terminal-input`), sending on `tx`; `startup` says whether
/// answers to the graphics query come first. An error when no thread could be started.
pub fn spawn(tx: Sender<AppEvent>, startup: &graphics::Startup) -> std::io::Result<AnswersRead> {
    let hints = match startup {
        graphics::Startup::Asked(hints) => Some(hints.clone()),
        graphics::Startup::Known(_) => None,
    };
    let asked = hints.is_some();
    let wait = answer_wait(std::env::var("BAGSCOPE_QUERY_WAIT").ok().as_deref());
    let deadline = Instant::now() + wait;
    let read = if asked {
        Gate::default()
    } else {
        Gate::opened()
    };
    let answers = AnswersRead {
        read: read.clone(),
        // The reading ends at most this long after its deadline.
        until: deadline + ESCAPE_WAIT * 5,
    };
    let started = detach("terminal-input", move || {
        if let Some(hints) = hints {
            let size = crossterm::terminal::size().ok();
            let replies = read_answers(deadline, &tx);
            read.open();
            let graphics = Graphics::from_replies(&replies, &hints);
            if tx.send(AppEvent::Graphics(graphics)).is_err() {
                return;
            }
            // crossterm sees resizes from the time it first reads: one made meanwhile.
            if let Ok((w, h)) = crossterm::terminal::size()
                && size != Some((w, h))
                && tx.send(AppEvent::Input(Event::Resize(w, h))).is_err()
            {
                return;
            }
        }
        let mut late = LateReplies::default();
        while let Ok(ev) = crossterm::event::read() {
            let more_behind = || crossterm::event::poll(ESCAPE_WAIT).unwrap_or(false);
            let Some(ev) = late.push(ev, more_behind) else {
                continue;
            };
            if tx.send(AppEvent::Input(ev)).is_err() {
                break;
            }
        }
    });
    if let Err(e) = started {
        // Nothing will be read: nothing to wait for.
        answers.read.open();
        return Err(e);
    }
    Ok(answers)
}

/// Reads the terminal's answers from standard input until its status report, `deadline`,
/// or the end of the input, sending each key typed meanwhile on `tx`.
#[cfg(unix)]
fn read_answers(deadline: Instant, tx: &Sender<AppEvent>) -> Replies {
    let stdin = std::io::stdin();
    let mut sorter = Sorter::default();
    // However much comes, the wait ends soon after the deadline.
    let end = deadline + ESCAPE_WAIT * 4;
    while !sorter.replies.status {
        let now = Instant::now();
        if now >= end || (now >= deadline && !sorter.in_sequence()) {
            break;
        }
        let wait = if sorter.in_sequence() {
            ESCAPE_WAIT
        } else {
            deadline - now
        };
        match next_byte(&stdin, wait) {
            Next::Byte(b) => {
                if let Some(key) = sorter.push(b)
                    && tx.send(AppEvent::Input(Event::Key(key))).is_err()
                {
                    break;
                }
            }
            Next::Quiet => {
                if let Some(key) = sorter.idle()
                    && tx.send(AppEvent::Input(Event::Key(key))).is_err()
                {
                    break;
                }
                if Instant::now() >= deadline {
                    break;
                }
            }
            Next::End => break,
        }
    }
    sorter.replies
}

/// Elsewhere the query is ratatui-image's, made before this thread starts.
#[cfg(not(unix))]
fn read_answers(_deadline: Instant, _tx: &Sender<AppEvent>) -> Replies {
    Replies::default()
}

/// What waiting for a byte gave.
#[cfg(unix)]
enum Next {
    Byte(u8),
    /// Nothing came in the time.
    Quiet,
    /// The input ended or cannot be read.
    End,
}

/// The next byte of `fd`, waiting at most `wait`.
#[cfg(unix)]
fn next_byte(fd: &impl std::os::fd::AsFd, wait: Duration) -> Next {
    use rustix::event::{PollFd, PollFlags, Timespec, poll};
    let timeout = Timespec::try_from(wait).ok();
    let mut fds = [PollFd::new(fd, PollFlags::IN)];
    match poll(&mut fds, timeout.as_ref()) {
        Ok(0) | Err(rustix::io::Errno::INTR) => return Next::Quiet,
        Ok(_) => {}
        Err(_) => return Next::End,
    }
    let mut byte = [0u8; 1];
    match rustix::io::read(fd, &mut byte) {
        Ok(1) => {
            let [b] = byte;
            Next::Byte(b)
        }
        Err(rustix::io::Errno::INTR | rustix::io::Errno::AGAIN) => Next::Quiet,
        Ok(_) | Err(_) => Next::End,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_wait_for_the_answers_can_be_set() {
        assert_eq!(answer_wait(None), ANSWER_WAIT);
        assert_eq!(answer_wait(Some("0.5")), Duration::from_millis(500));
        assert_eq!(answer_wait(Some(" 30 ")), Duration::from_secs(30));
        assert_eq!(answer_wait(Some("1e9")), MAX_ANSWER_WAIT);
        for bad in ["", "soon", "-1", "NaN", "inf"] {
            assert_eq!(answer_wait(Some(bad)), ANSWER_WAIT, "{bad:?}");
        }
    }
}
