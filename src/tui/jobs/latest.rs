//! A background thread for work whose newest request is the only one that matters (a
//! picture or a sum for the view the user is looking at now): a request not yet started is
//! replaced by a newer one, so zooming through ten views does the work at most twice. Each
//! result is reported through a [`Notify`]; dropping the [`Latest`] stops the thread.

use std::sync::{Arc, Condvar, Mutex, PoisonError};

use super::notify::Notify;

/// The newest request not yet taken, and whether the handle was dropped.
#[derive(Debug)]
struct Slot<R> {
    next: Option<R>,
    closed: bool,
}

#[derive(Debug)]
struct Shared<R> {
    slot: Mutex<Slot<R>>,
    wake: Condvar,
}

/// The handle of a newest-request-wins thread taking requests `R`.
#[derive(Debug)]
pub struct Latest<R> {
    shared: Arc<Shared<R>>,
}

impl<R: Send + 'static> Latest<R> {
    /// Starts a thread named `name` that runs `work` on the newest request and reports each
    /// result to `notify` (until dropped, or until nobody listens).
    pub fn start<O: Send + 'static>(
        name: &str,
        work: impl Fn(R) -> O + Send + 'static,
        notify: Notify<O>,
    ) -> std::io::Result<Latest<R>> {
        let shared = Arc::new(Shared {
            slot: Mutex::new(Slot {
                next: None,
                closed: false,
            }),
            wake: Condvar::new(),
        });
        let theirs = Arc::clone(&shared);
        std::thread::Builder::new()
            .name(name.into())
            .spawn(move || {
                while let Some(request) = take(&theirs) {
                    if !notify.send(work(request)) {
                        return;
                    }
                }
            })?;
        Ok(Latest { shared })
    }

    /// Asks for `request`, replacing one not yet started.
    pub fn request(&self, request: R) {
        let mut slot = self
            .shared
            .slot
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        slot.next = Some(request);
        self.shared.wake.notify_one();
    }
}

impl<R> Drop for Latest<R> {
    fn drop(&mut self) {
        let mut slot = self
            .shared
            .slot
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        slot.closed = true;
        slot.next = None;
        self.shared.wake.notify_one();
    }
}

/// Waits for the next request; `None` once the handle is dropped.
fn take<R>(shared: &Shared<R>) -> Option<R> {
    let mut slot = shared.slot.lock().unwrap_or_else(PoisonError::into_inner);
    loop {
        if slot.closed {
            return None;
        }
        if let Some(r) = slot.next.take() {
            return Some(r);
        }
        slot = shared
            .wake
            .wait(slot)
            .unwrap_or_else(PoisonError::into_inner);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;
    use std::time::Duration;

    #[test]
    fn the_newest_request_is_always_done_and_a_drop_stops_the_thread() {
        let (tx, rx) = mpsc::channel();
        let (gate_tx, gate_rx) = mpsc::channel::<()>();
        let gate = Mutex::new(gate_rx);
        let latest = Latest::start(
            "test-latest",
            move |n: u32| {
                // The first request waits for the gate: the next ones queue up meanwhile.
                if n == 0 {
                    let _ = gate.lock().unwrap().recv_timeout(Duration::from_secs(10));
                }
                n * 10
            },
            Notify::from(tx),
        )
        .unwrap();
        latest.request(0);
        std::thread::sleep(Duration::from_millis(50));
        for n in 1..=5 {
            latest.request(n);
        }
        gate_tx.send(()).unwrap();
        let got: Vec<u32> = (0..2)
            .map(|_| rx.recv_timeout(Duration::from_secs(10)).unwrap())
            .collect();
        // The first, then only the newest of the five that waited.
        assert_eq!(got, vec![0, 50]);
        drop(latest);
        assert!(rx.recv_timeout(Duration::from_secs(10)).is_err());
    }
}
