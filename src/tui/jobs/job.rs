//! The one job type of the explorer: a piece of background work on a named thread, with an
//! id, whose news go to a [`Notify`] (the event loop wraps them into its events), and which
//! stops when its handle is dropped.
//!
//! Two kinds, one handle ([`Job`]):
//! - [`Job::start`]: one run of `work` (a plot series, a search, the log lines, following a
//!   recording). The thread gets a [`Reporter`]: its [`Reporter::send`] says `false` once the
//!   job is cancelled or nobody listens, and [`Reporter::flag`] is what long loops poll.
//! - [`Job::latest`]: a thread serving requests where only the newest matters (a picture or a
//!   sum for the view shown now, the topic filter being typed): a request not yet started is
//!   replaced by a newer one, so zooming through ten views does the work at most twice.
//!
//! A thread that cannot be started is an error for the caller to show, never a panic.

use std::marker::PhantomData;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError};

use super::notify::Notify;

/// A running job reporting `News`; `Request`: what a newest-wins job ([`Job::latest`]) is
/// asked for. Dropping it cancels it: the thread sees it at its next report or poll.
pub struct Job<News, Request = ()> {
    /// The job's id, as in its news (those of a replaced job are dropped by it).
    pub id: u64,
    cancel: Arc<AtomicBool>,
    requests: Option<Arc<Requests<Request>>>,
    news: PhantomData<fn() -> News>,
}

/// What a job's thread reports through: its news go to the [`Notify`] until the job is
/// cancelled.
pub struct Reporter<News> {
    cancel: Arc<AtomicBool>,
    notify: Notify<News>,
}

impl<News> Reporter<News> {
    /// Hands over `news`; false (and nothing sent) once the job is cancelled, false when
    /// nobody listens any more: the thread should then stop.
    pub fn send(&self, news: News) -> bool {
        !self.cancelled() && self.notify.send(news)
    }

    /// True once the job's handle was dropped.
    pub fn cancelled(&self) -> bool {
        self.cancel.load(Ordering::Relaxed)
    }

    /// The cancel flag, for work that polls it itself (set once the handle is dropped).
    pub fn flag(&self) -> &AtomicBool {
        &self.cancel
    }
}

/// The newest request not yet taken, and whether either side is gone.
struct Slot<R> {
    next: Option<R>,
    /// The handle was dropped.
    closed: bool,
    /// The thread ended.
    ended: bool,
}

struct Requests<R> {
    slot: Mutex<Slot<R>>,
    wake: Condvar,
}

impl<R> Requests<R> {
    fn lock(&self) -> std::sync::MutexGuard<'_, Slot<R>> {
        self.slot.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Waits for the next request; `None` once the handle is dropped.
    fn take(&self) -> Option<R> {
        let mut slot = self.lock();
        loop {
            if slot.closed {
                return None;
            }
            if let Some(r) = slot.next.take() {
                return Some(r);
            }
            slot = self.wake.wait(slot).unwrap_or_else(PoisonError::into_inner);
        }
    }
}

/// Marks the requests' thread as ended however it ends (a panic too).
struct Ended<R>(Arc<Requests<R>>);

impl<R> Drop for Ended<R> {
    fn drop(&mut self) {
        self.0.lock().ended = true;
    }
}

impl<News: Send + 'static> Job<News> {
    /// Starts `work` as job `id` on a thread named `name`; it reports through the
    /// [`Reporter`] it is given.
    pub fn start(
        name: &str,
        id: u64,
        notify: Notify<News>,
        work: impl FnOnce(&Reporter<News>) + Send + 'static,
    ) -> std::io::Result<Job<News>> {
        let cancel = Arc::new(AtomicBool::new(false));
        let reporter = Reporter {
            cancel: Arc::clone(&cancel),
            notify,
        };
        detach(name, move || work(&reporter))?;
        Ok(Job {
            id,
            cancel,
            requests: None,
            news: PhantomData,
        })
    }
}

impl<News: Send + 'static, Request: Send + 'static> Job<News, Request> {
    /// Starts a thread named `name` that runs `work` on the newest request
    /// ([`Job::request`]) and reports each result to `notify`, until the handle is dropped
    /// or nobody listens. Its id is 0: its news are always the newest.
    pub fn latest(
        name: &str,
        mut work: impl FnMut(Request) -> News + Send + 'static,
        notify: Notify<News>,
    ) -> std::io::Result<Job<News, Request>> {
        let requests = Arc::new(Requests {
            slot: Mutex::new(Slot {
                next: None,
                closed: false,
                ended: false,
            }),
            wake: Condvar::new(),
        });
        let cancel = Arc::new(AtomicBool::new(false));
        let theirs = Arc::clone(&requests);
        let flag = Arc::clone(&cancel);
        detach(name, move || {
            let ended = Ended(theirs);
            while let Some(request) = ended.0.take() {
                let news = work(request);
                if flag.load(Ordering::Relaxed) || !notify.send(news) {
                    return;
                }
            }
        })?;
        Ok(Job {
            id: 0,
            cancel,
            requests: Some(requests),
            news: PhantomData,
        })
    }

    /// Asks for `request`, replacing one not yet started (ignored once the thread is gone:
    /// see [`Job::is_running`]).
    pub fn request(&self, request: Request) {
        let Some(requests) = &self.requests else {
            return;
        };
        let mut slot = requests.lock();
        if slot.ended {
            return;
        }
        slot.next = Some(request);
        requests.wake.notify_one();
    }

    /// False once a newest-wins thread is gone (nobody listened, or it failed), and for a
    /// job that takes no requests: the caller may then do the work itself.
    pub fn is_running(&self) -> bool {
        self.requests.as_ref().is_some_and(|r| !r.lock().ended)
    }
}

impl<News, Request> Drop for Job<News, Request> {
    fn drop(&mut self) {
        self.cancel.store(true, Ordering::Relaxed);
        if let Some(requests) = &self.requests {
            let mut slot = requests.lock();
            slot.closed = true;
            slot.next = None;
            requests.wake.notify_one();
        }
    }
}

impl<News, Request> std::fmt::Debug for Job<News, Request> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Job")
            .field("id", &self.id)
            .field("cancelled", &self.cancel.load(Ordering::Relaxed))
            .finish_non_exhaustive()
    }
}

/// Runs `work` on a thread named `name` that nobody waits for (it ends on its own: work
/// whose result goes through a [`Notify`] or nowhere).
pub fn detach(name: &str, work: impl FnOnce() + Send + 'static) -> std::io::Result<()> {
    named(name, work).map(drop)
}

/// Runs `work` on a thread named `name`: the one place the explorer's background threads
/// are started (apart from the scoped ones of [`parallel`](super::parallel)).
pub fn named<T: Send + 'static>(
    name: &str,
    work: impl FnOnce() -> T + Send + 'static,
) -> std::io::Result<std::thread::JoinHandle<T>> {
    std::thread::Builder::new().name(name.into()).spawn(work)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;
    use std::time::Duration;

    const LONG: Duration = Duration::from_secs(10);

    #[test]
    fn news_arrive_through_the_notify_from_a_named_thread() {
        let (tx, rx) = mpsc::channel();
        let job = Job::start("test-named", 7, Notify::from(tx), |out| {
            let name = std::thread::current().name().map(str::to_string);
            out.send(name);
            out.send(Some("second".into()));
        })
        .unwrap();
        assert_eq!(job.id, 7);
        assert_eq!(
            rx.recv_timeout(LONG).unwrap().as_deref(),
            Some("test-named")
        );
        assert_eq!(rx.recv_timeout(LONG).unwrap().as_deref(), Some("second"));
    }

    #[test]
    fn a_dropped_job_is_seen_cancelled_by_its_thread_and_sends_nothing_more() {
        let (tx, rx) = mpsc::channel();
        let (seen_tx, seen_rx) = mpsc::channel();
        let (go_tx, go_rx) = mpsc::channel::<()>();
        let job = Job::start("test-cancel", 1, Notify::from(tx), move |out| {
            assert!(!out.cancelled());
            out.send(1);
            // Waits for the test to drop the handle.
            let _ = go_rx.recv_timeout(LONG);
            let cancelled = out.cancelled() && out.flag().load(Ordering::Relaxed);
            let sent = out.send(2);
            let _ = seen_tx.send((cancelled, sent));
        })
        .unwrap();
        assert_eq!(rx.recv_timeout(LONG), Ok(1));
        drop(job);
        go_tx.send(()).unwrap();
        assert_eq!(seen_rx.recv_timeout(LONG), Ok((true, false)));
        assert!(rx.recv_timeout(LONG).is_err(), "nothing after the cancel");
    }

    #[test]
    fn the_newest_request_is_always_done_and_a_drop_stops_the_thread() {
        let (tx, rx) = mpsc::channel();
        let (gate_tx, gate_rx) = mpsc::channel::<()>();
        let (started_tx, started_rx) = mpsc::channel::<()>();
        let job = Job::latest(
            "test-latest",
            move |n: u32| {
                // The first request waits for the gate: the next ones queue up meanwhile.
                if n == 0 {
                    let _ = started_tx.send(());
                    let _ = gate_rx.recv_timeout(LONG);
                }
                n * 10
            },
            Notify::from(tx),
        )
        .unwrap();
        job.request(0);
        started_rx.recv_timeout(LONG).unwrap();
        for n in 1..=5 {
            job.request(n);
        }
        gate_tx.send(()).unwrap();
        let got: Vec<u32> = (0..2).map(|_| rx.recv_timeout(LONG).unwrap()).collect();
        // The first, then only the newest of the five that waited.
        assert_eq!(got, vec![0, 50]);
        drop(job);
        assert!(rx.recv_timeout(LONG).is_err(), "the thread ended");
    }

    #[test]
    fn a_newest_wins_thread_whose_listener_is_gone_ends_and_says_so() {
        let (tx, rx) = mpsc::channel();
        let job = Job::latest("test-gone", |n: u32| n, Notify::from(tx)).unwrap();
        drop(rx);
        assert!(job.is_running());
        job.request(1);
        // Its send fails: it ends, and says so.
        let mut ended = false;
        for _ in 0..1000 {
            if !job.is_running() {
                ended = true;
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        assert!(ended);
        let one_shot = Job::start("test-one-shot", 0, Notify::new(|_: u32| true), |_| {}).unwrap();
        assert!(!one_shot.is_running(), "a one-shot job takes no requests");
    }
}
