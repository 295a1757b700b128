//! Background work that waits for the explorer's first frame: on a machine of two cores, the
//! health scan and the chunks-by-time index of a bag of a million chunks, started the moment
//! the bag is open, took the cores the first frame was being drawn on. They wait at a
//! [`Gate`] that the event loop opens once that frame is on the screen (or, at the latest,
//! after [`Gate::wait`]'s limit: nothing waits forever on a frame that never comes).

use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// A gate, shut until [`Gate::open`]; clones share it.
#[derive(Clone, Default)]
pub struct Gate(Arc<(Mutex<bool>, Condvar)>);

impl Gate {
    /// A gate already open (work that needs no first frame to wait for).
    #[must_use]
    pub fn opened() -> Gate {
        let gate = Gate::default();
        gate.open();
        gate
    }

    /// Opens the gate: every waiter goes on.
    pub fn open(&self) {
        let (open, changed) = &*self.0;
        *open.lock().unwrap_or_else(PoisonError::into_inner) = true;
        changed.notify_all();
    }

    /// True once the gate is open.
    #[cfg(test)]
    #[must_use]
    pub fn is_open(&self) -> bool {
        *self.0.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Waits until the gate is open, or `longest` has passed.
    pub fn wait(&self, longest: Duration) {
        let (open, changed) = &*self.0;
        let deadline = Instant::now() + longest;
        let mut guard = open.lock().unwrap_or_else(PoisonError::into_inner);
        while !*guard {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return;
            }
            guard = match changed.wait_timeout(guard, left) {
                Ok((g, _)) => g,
                Err(poisoned) => poisoned.into_inner().0,
            };
        }
    }
}

/// Opens its gate when dropped: held by the event loop so that no exit path (an error, a
/// bag that cannot be opened, a signal) leaves work waiting at the gate.
pub struct OpenOnDrop(pub Gate);

impl Drop for OpenOnDrop {
    fn drop(&mut self) {
        self.0.open();
    }
}

/// How long background work waits for the first frame at most.
pub const FIRST_FRAME_WAIT: Duration = Duration::from_secs(1);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waiters_go_on_when_the_gate_opens_and_not_before() {
        let gate = Gate::default();
        let waiter = {
            let gate = gate.clone();
            std::thread::spawn(move || {
                let t = Instant::now();
                gate.wait(Duration::from_secs(30));
                t.elapsed()
            })
        };
        std::thread::sleep(Duration::from_millis(50));
        assert!(!waiter.is_finished(), "went on through a shut gate");
        gate.open();
        let waited = waiter.join().unwrap();
        assert!(waited < Duration::from_secs(30), "waited for the limit");
        assert!(gate.is_open());
    }

    #[test]
    fn a_shut_gate_is_waited_at_no_longer_than_the_limit_and_an_open_one_not_at_all() {
        let shut = Gate::default();
        let t = Instant::now();
        shut.wait(Duration::from_millis(30));
        assert!(t.elapsed() >= Duration::from_millis(30));
        let t = Instant::now();
        Gate::opened().wait(Duration::from_secs(30));
        assert!(t.elapsed() < Duration::from_secs(5));
        let dropped = Gate::default();
        drop(OpenOnDrop(dropped.clone()));
        assert!(dropped.is_open());
    }
}
