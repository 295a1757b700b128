//! Requests take turns: one is played at a time, a bounded number wait in order, the rest
//! are told the server is busy. A waiting request whose client goes is taken out of line;
//! the request being played can be stopped (shutdown, its client gone, or preempted by a
//! later request that asks for it), and learns why.

use std::collections::VecDeque;
use std::sync::mpsc::Sender;
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use crate::play::Control;

/// Why a request was not played (to the end).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Stopped {
    /// The server is shutting down.
    Shutdown,
    /// Its client closed the connection.
    ClientGone,
    /// A later request asked to take its place.
    Preempted,
    /// Too many requests wait already.
    Busy {
        /// Requests waiting.
        waiting: usize,
    },
}

impl std::fmt::Display for Stopped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Stopped::Shutdown => f.write_str("the bagserver is shutting down"),
            Stopped::ClientGone => f.write_str("its client disconnected"),
            Stopped::Preempted => f.write_str("preempted by a later request"),
            Stopped::Busy { waiting } => write!(
                f,
                "busy: a request is being published and {waiting} more wait (the most the \
                 server queues); try again later, or call with --preempt to stop the current one"
            ),
        }
    }
}

struct Current {
    id: u64,
    control: Sender<Control>,
    stopped: Option<Stopped>,
}

#[derive(Default)]
struct State {
    next: u64,
    line: VecDeque<u64>,
    /// Waiting requests taken out of line, with why.
    dropped: Vec<(u64, Stopped)>,
    current: Option<Current>,
    shutdown: bool,
}

/// The line of requests.
pub(crate) struct Turns {
    max_waiting: usize,
    state: Mutex<State>,
    changed: Condvar,
}

impl Turns {
    /// At most `max_waiting` requests wait behind the one being played.
    pub(crate) fn new(max_waiting: usize) -> Turns {
        Turns {
            max_waiting,
            state: Mutex::new(State::default()),
            changed: Condvar::new(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Gets in line: an id to [`Turns::wait`] with, or why not. A `preempt` request goes
    /// first and stops the request being played.
    pub(crate) fn join(&self, preempt: bool) -> Result<u64, Stopped> {
        let mut st = self.lock();
        if st.shutdown {
            return Err(Stopped::Shutdown);
        }
        if !preempt && st.current.is_some() && st.line.len() >= self.max_waiting {
            return Err(Stopped::Busy {
                waiting: st.line.len(),
            });
        }
        st.next += 1;
        let id = st.next;
        if preempt {
            st.line.push_front(id);
            if let Some(c) = st.current.as_mut() {
                c.stopped.get_or_insert(Stopped::Preempted);
                let _ = c.control.send(Control::Stop);
            }
        } else {
            st.line.push_back(id);
        }
        Ok(id)
    }

    /// Waits for `id`'s turn; then `control` is how it is stopped. `Err` when it was taken
    /// out of line (its client gone, shutdown).
    pub(crate) fn wait(&self, id: u64, control: Sender<Control>) -> Result<(), Stopped> {
        let mut st = self.lock();
        loop {
            if let Some(i) = st.dropped.iter().position(|(d, _)| *d == id) {
                let (_, why) = st.dropped.swap_remove(i);
                st.line.retain(|l| *l != id);
                drop(st);
                self.changed.notify_all();
                return Err(why);
            }
            if st.shutdown {
                st.line.retain(|l| *l != id);
                return Err(Stopped::Shutdown);
            }
            if st.current.is_none() && st.line.front() == Some(&id) {
                st.line.pop_front();
                st.current = Some(Current {
                    id,
                    control,
                    stopped: None,
                });
                return Ok(());
            }
            st = self
                .changed
                .wait_timeout(st, Duration::from_millis(200))
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }

    /// Stops request `id` (playing or waiting) for `why`.
    pub(crate) fn stop(&self, id: u64, why: Stopped) {
        let mut st = self.lock();
        match st.current.as_mut() {
            Some(c) if c.id == id => {
                c.stopped.get_or_insert(why);
                let _ = c.control.send(Control::Stop);
            }
            _ => {
                if st.line.contains(&id) {
                    st.dropped.push((id, why));
                }
            }
        }
        drop(st);
        self.changed.notify_all();
    }

    /// Refuses further requests, takes the waiting ones out of line and stops the one
    /// being played.
    pub(crate) fn shut_down(&self) {
        let mut st = self.lock();
        st.shutdown = true;
        if let Some(c) = st.current.as_mut() {
            c.stopped.get_or_insert(Stopped::Shutdown);
            let _ = c.control.send(Control::Stop);
        }
        drop(st);
        self.changed.notify_all();
    }

    /// Ends `id`'s turn: why it was stopped, if it was.
    pub(crate) fn done(&self, id: u64) -> Option<Stopped> {
        let mut st = self.lock();
        let why = match st.current.take() {
            Some(c) if c.id == id => c.stopped,
            other => {
                st.current = other;
                None
            }
        };
        st.dropped.retain(|(d, _)| *d != id);
        drop(st);
        self.changed.notify_all();
        why
    }

    /// Requests waiting now.
    #[cfg(test)]
    pub(crate) fn waiting(&self) -> usize {
        self.lock().line.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;

    #[test]
    fn line_busy_preempt_and_cancel() {
        let turns = Turns::new(1);
        let (tx, rx) = mpsc::channel();
        let a = turns.join(false).unwrap();
        turns.wait(a, tx.clone()).unwrap();
        let b = turns.join(false).unwrap();
        assert_eq!(turns.join(false), Err(Stopped::Busy { waiting: 1 }));
        // b's client leaves while waiting.
        turns.stop(b, Stopped::ClientGone);
        assert_eq!(turns.wait(b, tx.clone()), Err(Stopped::ClientGone));
        assert_eq!(turns.waiting(), 0);
        // A preempting request stops a.
        let c = turns.join(true).unwrap();
        assert!(matches!(rx.try_recv(), Ok(Control::Stop)));
        assert_eq!(turns.done(a), Some(Stopped::Preempted));
        turns.wait(c, tx.clone()).unwrap();
        assert_eq!(turns.done(c), None);
        turns.shut_down();
        assert_eq!(turns.join(false), Err(Stopped::Shutdown));
    }
}
