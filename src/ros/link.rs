//! One subscriber's connection to a publication: a bounded queue (oldest frames dropped when
//! full, drops counted) emptied by a writer thread, so a slow subscriber never blocks the
//! publisher or the other subscribers; and a watcher thread that notices when the subscriber
//! goes away. The connection holds one file descriptor, given back when it closes.

use std::collections::VecDeque;
use std::io::{Read, Write};
use std::net::{Shutdown, SocketAddr, TcpStream};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use super::header::READ_STEP;
use super::seats::Seat;
use super::stall::{PACE, StallBudget};

/// A message framed for the wire (length prefix included), shared by every subscriber.
pub type Frame = Arc<[u8]>;

/// How long one write to a subscriber may block before the subscriber is dropped.
pub const WRITE_TIMEOUT: Duration = Duration::from_secs(10);

/// Bounds of each subscriber's queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QueueLimits {
    /// Messages waiting at most (at least 1).
    pub messages: usize,
    /// Bytes waiting at most (a single larger message is still queued alone).
    pub bytes: usize,
}

impl Default for QueueLimits {
    fn default() -> Self {
        QueueLimits {
            messages: 100,
            bytes: 64 * 1024 * 1024,
        }
    }
}

/// Counters of one subscriber connection.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LinkStats {
    /// Connection id, unique within the node.
    pub id: u32,
    /// The subscriber's `callerid`.
    pub callerid: String,
    /// The subscriber's address.
    pub remote: SocketAddr,
    /// Our port of the connection.
    pub local_port: u16,
    /// Messages written.
    pub messages: u64,
    /// Bytes written (frames, length prefixes included).
    pub bytes: u64,
    /// Messages dropped because the queue was full.
    pub dropped: u64,
    /// The subscriber held up a lossless publisher too long and is no longer waited for.
    pub slow: bool,
    /// False once the connection has closed.
    pub connected: bool,
    /// The socket's descriptor, for `rosnode info`'s connection line.
    pub socket: i64,
}

#[derive(Default)]
struct Queue {
    frames: VecDeque<Frame>,
    bytes: usize,
    writing: bool,
    closed: bool,
    /// Publishers waiting in [`Link::wait_for_room`] (the writer wakes them as it goes).
    room_waiters: usize,
    /// Made a publisher wait for room longer than its stall allowance once: never waited
    /// for again (its oldest messages are dropped instead).
    slow: bool,
    /// When the writer last took a frame or wrote a step ([`READ_STEP`] bytes) of one.
    progress: Option<Instant>,
    /// Frames taken and steps written since the start.
    steps: u64,
    /// The connection, until it closes (then its descriptor goes with the threads).
    stream: Option<Arc<TcpStream>>,
    /// The subscriber's place among the node's, until the connection closes.
    seat: Option<Seat>,
}

/// A subscriber connection after a successful handshake.
pub(crate) struct Link {
    id: u32,
    callerid: String,
    remote: SocketAddr,
    local_port: u16,
    socket: i64,
    limits: QueueLimits,
    started: Instant,
    queue: Mutex<Queue>,
    changed: Condvar,
    messages: AtomicU64,
    bytes: AtomicU64,
    dropped: AtomicU64,
}

impl Link {
    /// Starts the writer and watcher threads on `stream` (whose handshake is done); `seat`
    /// is given back when the connection closes.
    pub(crate) fn start(
        stream: Arc<TcpStream>,
        id: u32,
        callerid: &str,
        limits: QueueLimits,
        seat: Option<Seat>,
    ) -> std::io::Result<Arc<Link>> {
        stream.set_read_timeout(None)?;
        stream.set_write_timeout(Some(WRITE_TIMEOUT))?;
        let remote = stream.peer_addr()?;
        let local_port = stream.local_addr()?.port();
        let link = Arc::new(Link {
            id,
            callerid: callerid.to_string(),
            remote,
            local_port,
            socket: socket_number(&stream),
            limits: QueueLimits {
                messages: limits.messages.max(1),
                bytes: limits.bytes,
            },
            started: Instant::now(),
            queue: Mutex::new(Queue {
                stream: Some(Arc::clone(&stream)),
                seat,
                ..Queue::default()
            }),
            changed: Condvar::new(),
            messages: AtomicU64::new(0),
            bytes: AtomicU64::new(0),
            dropped: AtomicU64::new(0),
        });
        let writer = Arc::clone(&stream);
        let started = {
            let link = Arc::clone(&link);
            std::thread::Builder::new()
                .name("tcpros-write".into())
                .spawn(move || link.write_loop(&writer))
        };
        let started = started.and_then(|_| {
            let link = Arc::clone(&link);
            std::thread::Builder::new()
                .name("tcpros-watch".into())
                .spawn(move || link.watch(&stream))
        });
        if let Err(e) = started {
            link.close();
            return Err(e);
        }
        Ok(link)
    }

    fn lock(&self) -> MutexGuard<'_, Queue> {
        self.queue.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Queues a frame, dropping the oldest ones beyond the limits.
    pub(crate) fn push(&self, frame: Frame) {
        let mut q = self.lock();
        if q.closed {
            return;
        }
        while !q.frames.is_empty()
            && (q.frames.len() >= self.limits.messages
                || q.bytes.saturating_add(frame.len()) > self.limits.bytes)
        {
            if let Some(old) = q.frames.pop_front() {
                q.bytes -= old.len();
                self.dropped.fetch_add(1, Ordering::Relaxed);
            }
        }
        q.bytes += frame.len();
        q.frames.push_back(frame);
        drop(q);
        self.changed.notify_all();
    }

    /// Closes the connection; queued frames are discarded, the subscriber's seat is given
    /// back and the descriptor closes as the threads end.
    pub(crate) fn close(&self) {
        let mut q = self.lock();
        q.closed = true;
        q.bytes = 0;
        q.frames.clear();
        let stream = q.stream.take();
        let seat = q.seat.take();
        drop(q);
        self.changed.notify_all();
        if let Some(s) = stream {
            let _ = s.shutdown(Shutdown::Both);
        }
        drop(seat);
    }

    /// True when a frame of `len` bytes can be queued without dropping another.
    fn has_room(&self, q: &Queue, len: usize) -> bool {
        q.frames.is_empty()
            || (q.frames.len() < self.limits.messages
                && q.bytes.saturating_add(len) <= self.limits.bytes)
    }

    /// Waits until a frame of `len` bytes can be queued without dropping an older one (or
    /// the link closed), within `budget` (see [`StallBudget`]). True when there is room. A
    /// subscriber that takes nothing for the budget's stall is marked slow and not waited for
    /// again: from then on it loses its oldest messages instead of holding up the others.
    pub(crate) fn wait_for_room(&self, len: usize, budget: &StallBudget) -> bool {
        let mut q = self.lock();
        q.room_waiters += 1;
        let (mut q, room) = self.wait(q, |q| self.has_room(q, len), Some(budget), None);
        q.room_waiters -= 1;
        room
    }

    /// Waits until `ready` (or the link closed), at most until `deadline` and, with a
    /// `budget`, within it: a subscriber that takes nothing for its stall is marked slow,
    /// one marked slow is not waited for, and once the budget is spent only a subscriber
    /// that takes a step every [`PACE`] is.
    fn wait<'q>(
        &self,
        mut q: MutexGuard<'q, Queue>,
        ready: impl Fn(&Queue) -> bool,
        budget: Option<&StallBudget>,
        deadline: Option<Instant>,
    ) -> (MutexGuard<'q, Queue>, bool) {
        loop {
            if q.closed || ready(&q) {
                return (q, true);
            }
            let now = Instant::now();
            let mut until = deadline.unwrap_or(now + WRITE_TIMEOUT);
            if q.slow {
                return (q, false);
            }
            if let Some(b) = budget {
                let idle_since = q.progress.unwrap_or(self.started);
                if now >= idle_since + b.stall() {
                    q.slow = true;
                    return (q, false);
                }
                let left = b.left();
                if left.is_zero() {
                    // Spent: only a subscriber that keeps the pace is waited for.
                    if now >= idle_since + PACE {
                        return (q, false);
                    }
                    until = until.min(idle_since + PACE);
                } else {
                    until = until.min(idle_since + b.stall()).min(now + left);
                }
            }
            if now >= until {
                return (q, false);
            }
            let steps = q.steps;
            q = self
                .changed
                .wait_timeout(q, until - now)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
            if let Some(b) = budget {
                b.charge(now.elapsed(), q.steps.saturating_sub(steps));
            }
        }
    }

    /// True once the connection has closed.
    pub(crate) fn is_closed(&self) -> bool {
        self.lock().closed
    }

    /// Waits until every queued frame has been written (or the link closed), at most until
    /// `deadline` and, with a `budget`, within it (a subscriber marked slow is not waited
    /// for). True when the queue is empty.
    pub(crate) fn flush(&self, deadline: Instant, budget: Option<&StallBudget>) -> bool {
        let q = self.lock();
        self.wait(
            q,
            |q| q.frames.is_empty() && !q.writing,
            budget,
            Some(deadline),
        )
        .1
    }

    /// The connection's counters.
    pub(crate) fn stats(&self) -> LinkStats {
        let (slow, closed) = {
            let q = self.lock();
            (q.slow, q.closed)
        };
        LinkStats {
            id: self.id,
            callerid: self.callerid.clone(),
            remote: self.remote,
            local_port: self.local_port,
            messages: self.messages.load(Ordering::Relaxed),
            bytes: self.bytes.load(Ordering::Relaxed),
            dropped: self.dropped.load(Ordering::Relaxed),
            slow,
            connected: !closed,
            socket: self.socket,
        }
    }

    fn write_loop(&self, out: &TcpStream) {
        loop {
            let frame = {
                let mut q = self.lock();
                q.writing = false;
                loop {
                    if q.closed {
                        drop(q);
                        self.changed.notify_all();
                        return;
                    }
                    if let Some(f) = q.frames.pop_front() {
                        q.bytes -= f.len();
                        q.writing = true;
                        q.progress = Some(Instant::now());
                        q.steps += 1;
                        if q.room_waiters > 0 {
                            self.changed.notify_all();
                        }
                        break f;
                    }
                    self.changed.notify_all();
                    q = self.changed.wait(q).unwrap_or_else(PoisonError::into_inner);
                }
            };
            for step in frame.chunks(READ_STEP) {
                let mut w = out;
                if w.write_all(step).is_err() {
                    self.close();
                    return;
                }
                let mut q = self.lock();
                q.progress = Some(Instant::now());
                q.steps += 1;
            }
            self.messages.fetch_add(1, Ordering::Relaxed);
            self.bytes.fetch_add(frame.len() as u64, Ordering::Relaxed);
        }
    }

    /// Reads (and ignores) whatever the subscriber sends until it closes the connection.
    fn watch(&self, input: &TcpStream) {
        let mut buf = [0u8; 512];
        let mut input = input;
        loop {
            match input.read(&mut buf) {
                Ok(0) => break,
                Ok(_) => {}
                Err(e)
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::Interrupted
                            | std::io::ErrorKind::WouldBlock
                            | std::io::ErrorKind::TimedOut
                    ) => {}
                Err(_) => break,
            }
            if self.is_closed() {
                return;
            }
        }
        self.close();
    }
}

#[cfg(unix)]
fn socket_number(s: &TcpStream) -> i64 {
    use std::os::fd::AsRawFd;
    i64::from(s.as_raw_fd())
}

#[cfg(not(unix))]
fn socket_number(_: &TcpStream) -> i64 {
    0
}
