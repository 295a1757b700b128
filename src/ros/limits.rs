//! What a node grants peers it does not know: a deadline for each whole request or handshake
//! (not per read), how many connections may be read at once (per peer and in total), how many
//! subscribers it keeps (per peer and in total, within its file descriptors), and a memory
//! budget for frames being received across all connections.

use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// The bounds a node's servers hold untrusted peers to. See `docs/ros.md` ("Under load").
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeLimits {
    /// A whole XML-RPC request (head and body) must arrive within this, from the connection.
    pub request_deadline: Duration,
    /// A whole TCPROS connection header must arrive within this, from the connection.
    pub handshake_deadline: Duration,
    /// A service request frame must arrive within this, from its first byte.
    pub frame_deadline: Duration,
    /// How long a persistent service connection may stay idle between requests.
    pub idle_timeout: Duration,
    /// Connections being read (handshake or request not complete yet, or idle between
    /// requests) at once, per server. Beyond it the oldest one is closed.
    pub max_reading: usize,
    /// Connections being read at once from one IP address. Beyond it that address's
    /// oldest one is closed.
    pub max_reading_per_peer: usize,
    /// Connections handled at once per server (being read or being answered). Beyond it,
    /// the oldest one being read is closed, or the new one when every one is being answered.
    pub max_active: usize,
    /// Bytes of connection headers and service requests being received at once, across
    /// every connection. A frame that does not fit closes its connection.
    pub frame_budget: usize,
    /// Largest service request accepted.
    pub max_service_request: usize,
    /// Subscriber connections kept at once, every topic together. Beyond it a new
    /// subscriber is refused (an `error` header saying why).
    pub max_subscribers: usize,
    /// Subscriber connections kept at once from one IP address.
    pub max_subscribers_per_peer: usize,
}

impl Default for NodeLimits {
    fn default() -> Self {
        NodeLimits {
            request_deadline: Duration::from_secs(10),
            handshake_deadline: Duration::from_secs(5),
            frame_deadline: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(60),
            max_reading: 64,
            max_reading_per_peer: 32,
            max_active: 256,
            frame_budget: 64 * 1024 * 1024,
            max_service_request: 64 * 1024 * 1024,
            max_subscribers: 1024,
            max_subscribers_per_peer: 512,
        }
    }
}

impl NodeLimits {
    /// These limits shrunk so that every connection they allow fits in `fds` file
    /// descriptors (one each): each server (XML-RPC, TCPROS) handles at most a quarter of
    /// them at once, subscribers take the rest, one address the same share of those as
    /// configured (half, by default). Never below one of each.
    #[must_use]
    pub fn fitted(&self, fds: usize) -> NodeLimits {
        let active = self.max_active.min(fds / 4).max(1);
        let subscribers = self
            .max_subscribers
            .min(fds.saturating_sub(2 * active))
            .max(1);
        NodeLimits {
            max_active: active,
            max_reading: self.max_reading.min(active),
            max_reading_per_peer: self.max_reading_per_peer.min(active),
            max_subscribers: subscribers,
            max_subscribers_per_peer: self.max_subscribers_per_peer.min(
                subscribers
                    .saturating_mul(self.max_subscribers_per_peer)
                    .checked_div(self.max_subscribers)
                    .unwrap_or(subscribers)
                    .max(1),
            ),
            ..self.clone()
        }
    }

    /// File descriptors the connections these limits allow may hold at most.
    pub fn descriptors(&self) -> usize {
        self.max_active
            .saturating_mul(2)
            .saturating_add(self.max_subscribers)
    }
}

/// Bytes that may be held at once by frames being received; shared by every connection.
#[derive(Debug)]
pub struct FrameBudget {
    limit: usize,
    used: AtomicUsize,
}

impl FrameBudget {
    /// A budget of `limit` bytes.
    pub fn new(limit: usize) -> Arc<FrameBudget> {
        Arc::new(FrameBudget {
            limit,
            used: AtomicUsize::new(0),
        })
    }

    /// Bytes reserved now.
    pub fn used(&self) -> usize {
        self.used.load(Ordering::SeqCst)
    }

    /// The limit.
    pub fn limit(&self) -> usize {
        self.limit
    }

    fn take(&self, n: usize) -> bool {
        self.used
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |u| {
                u.checked_add(n).filter(|t| *t <= self.limit)
            })
            .is_ok()
    }

    fn give(&self, n: usize) {
        let _ = self
            .used
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |u| {
                Some(u.saturating_sub(n))
            });
    }
}

/// Bytes taken from a [`FrameBudget`] (or from none), given back when dropped.
#[derive(Debug, Default)]
pub struct Reservation {
    budget: Option<Arc<FrameBudget>>,
    bytes: usize,
}

impl Reservation {
    /// A reservation against `budget` (none: unlimited), holding nothing yet.
    pub fn new(budget: Option<&Arc<FrameBudget>>) -> Reservation {
        Reservation {
            budget: budget.cloned(),
            bytes: 0,
        }
    }

    /// Takes `n` more bytes; false when the budget cannot give them.
    pub fn grow(&mut self, n: usize) -> bool {
        if let Some(b) = &self.budget {
            if !b.take(n) {
                return false;
            }
        }
        self.bytes = self.bytes.saturating_add(n);
        true
    }

    /// Bytes held.
    pub fn bytes(&self) -> usize {
        self.bytes
    }
}

impl Drop for Reservation {
    fn drop(&mut self) {
        if let Some(b) = &self.budget {
            b.give(self.bytes);
        }
    }
}

/// A socket read and written until a deadline for the whole exchange: each read or write
/// waits at most for what is left. Past the deadline every read and write fails with
/// `TimedOut`.
pub(crate) struct DeadlineStream<'a> {
    stream: &'a TcpStream,
    deadline: Instant,
}

impl<'a> DeadlineStream<'a> {
    /// Reads and writes `stream` until `deadline`.
    pub(crate) fn new(stream: &'a TcpStream, deadline: Instant) -> Self {
        DeadlineStream { stream, deadline }
    }

    /// Moves the deadline.
    pub(crate) fn set_deadline(&mut self, deadline: Instant) {
        self.deadline = deadline;
    }

    /// What is left before the deadline; an error once it has passed.
    fn left(&self) -> io::Result<Duration> {
        let left = self.deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(io::Error::new(
                io::ErrorKind::TimedOut,
                "the peer took too long",
            ));
        }
        Ok(left.max(Duration::from_millis(1)))
    }
}

/// True for the errors a socket read or write gives when its timeout passes.
pub(crate) fn is_timeout(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
    )
}

impl Read for DeadlineStream<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.stream.set_read_timeout(Some(self.left()?))?;
        let mut s = self.stream;
        s.read(buf)
    }
}

impl Write for DeadlineStream<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.stream.set_write_timeout(Some(self.left()?))?;
        let mut s = self.stream;
        s.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Charges every byte read through it to a [`Reservation`], beyond the first `free` ones:
/// fails with `OutOfMemory` when the budget cannot take more.
pub(crate) struct ChargedReader<R> {
    inner: R,
    reservation: Reservation,
    free: usize,
}

impl<R: Read> ChargedReader<R> {
    /// Reads `inner`, charging `budget` beyond the first `free` bytes.
    pub(crate) fn new(inner: R, budget: &Arc<FrameBudget>, free: usize) -> Self {
        ChargedReader {
            inner,
            reservation: Reservation::new(Some(budget)),
            free,
        }
    }
}

impl<R: Read> Read for ChargedReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        let charged = n.saturating_sub(self.free);
        self.free = self.free.saturating_sub(n);
        if charged > 0 && !self.reservation.grow(charged) {
            return Err(io::Error::new(
                io::ErrorKind::OutOfMemory,
                "the node is busy receiving other requests",
            ));
        }
        Ok(n)
    }
}
