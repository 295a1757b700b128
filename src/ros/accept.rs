//! An accept loop on its own thread, one short-lived thread per connection, and the
//! admission rules that keep slow peers from holding the server: connections being read
//! are capped per peer and in total, and when a cap is reached the oldest one being read
//! is closed (a slow peer loses its slot; a normal client, whose request arrives at once,
//! keeps it).

use std::io;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// What is done with each accepted connection (on its own thread). The handler tells its
/// [`Ticket`] when the connection stops being read (it is being answered) and when it is
/// read again. The stream is shared with the server (which may close it to make room), not
/// duplicated: each connection holds one file descriptor.
pub(crate) type ConnectionHandler = Arc<dyn Fn(Arc<TcpStream>, SocketAddr, &Ticket) + Send + Sync>;

/// How many connections a server takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Caps {
    /// Connections handled at once.
    pub(crate) active: usize,
    /// Connections being read at once.
    pub(crate) reading: usize,
    /// Connections being read at once from one address.
    pub(crate) reading_per_peer: usize,
}

/// A running accept loop.
pub(crate) struct AcceptLoop {
    addr: SocketAddr,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
    admission: Arc<Admission>,
}

struct Slot {
    id: u64,
    peer: IpAddr,
    /// `Some(since)` while the connection is being read; `None` while it is answered.
    reading: Option<Instant>,
    stream: Arc<TcpStream>,
}

/// The connections a server handles now.
pub(crate) struct Admission {
    caps: Caps,
    slots: Mutex<Vec<Slot>>,
    next: AtomicU64,
    closed_slow: AtomicU64,
    refused: AtomicU64,
}

/// A connection's place in its server's [`Admission`]; dropped when the handler ends.
pub(crate) struct Ticket {
    admission: Arc<Admission>,
    id: u64,
}

impl Ticket {
    /// The connection is being answered: it cannot be closed to make room.
    pub(crate) fn answering(&self) {
        self.admission.set_reading(self.id, None);
    }

    /// The connection is read again (e.g. idle between a persistent client's requests).
    pub(crate) fn reading(&self) {
        self.admission.set_reading(self.id, Some(Instant::now()));
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
        self.admission.lock().retain(|s| s.id != self.id);
    }
}

impl Admission {
    fn new(caps: Caps) -> Arc<Admission> {
        Arc::new(Admission {
            caps: Caps {
                active: caps.active.max(1),
                reading: caps.reading.max(1),
                reading_per_peer: caps.reading_per_peer.max(1),
            },
            slots: Mutex::new(Vec::new()),
            next: AtomicU64::new(1),
            closed_slow: AtomicU64::new(0),
            refused: AtomicU64::new(0),
        })
    }

    fn lock(&self) -> MutexGuard<'_, Vec<Slot>> {
        self.slots.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn set_reading(&self, id: u64, reading: Option<Instant>) {
        if let Some(s) = self.lock().iter_mut().find(|s| s.id == id) {
            s.reading = reading;
        }
    }

    /// Closes the connection read for the longest time among those `pick` selects. True
    /// when one was closed.
    fn close_oldest(&self, slots: &mut Vec<Slot>, pick: impl Fn(&Slot) -> bool) -> bool {
        let oldest = slots
            .iter()
            .enumerate()
            .filter(|(_, s)| pick(s))
            .filter_map(|(i, s)| s.reading.map(|t| (t, i)))
            .min();
        let Some((_, i)) = oldest else {
            return false;
        };
        let slot = slots.swap_remove(i);
        let _ = slot.stream.shutdown(Shutdown::Both);
        self.closed_slow.fetch_add(1, Ordering::Relaxed);
        true
    }

    /// Makes room for a new connection from `peer`: a ticket, or `None` when every slot is
    /// taken by a connection being answered.
    fn admit(self: &Arc<Self>, stream: &Arc<TcpStream>, peer: IpAddr) -> Option<Ticket> {
        let handle = Arc::clone(stream);
        let mut slots = self.lock();
        let from_peer = slots
            .iter()
            .filter(|s| s.reading.is_some() && s.peer == peer)
            .count();
        if from_peer >= self.caps.reading_per_peer {
            self.close_oldest(&mut slots, |s| s.peer == peer);
        }
        if slots.iter().filter(|s| s.reading.is_some()).count() >= self.caps.reading {
            self.close_oldest(&mut slots, |_| true);
        }
        if slots.len() >= self.caps.active && !self.close_oldest(&mut slots, |_| true) {
            self.refused.fetch_add(1, Ordering::Relaxed);
            return None;
        }
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        slots.push(Slot {
            id,
            peer,
            reading: Some(Instant::now()),
            stream: handle,
        });
        Some(Ticket {
            admission: Arc::clone(self),
            id,
        })
    }
}

/// Counters of a server's admission.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AdmissionStats {
    /// Connections handled now.
    pub active: usize,
    /// Of which being read.
    pub reading: usize,
    /// Connections closed to make room (slow or idle peers), since the start.
    pub closed_slow: u64,
    /// Connections refused because every slot was being answered, since the start.
    pub refused: u64,
}

impl AcceptLoop {
    /// Accepts connections on `listener`; each runs `handler` on a new thread, within `caps`.
    pub(crate) fn spawn(
        listener: TcpListener,
        name: &str,
        caps: Caps,
        handler: ConnectionHandler,
    ) -> io::Result<AcceptLoop> {
        let addr = listener.local_addr()?;
        let stop = Arc::new(AtomicBool::new(false));
        let admission = Admission::new(caps);
        let thread = {
            let stop = Arc::clone(&stop);
            let admission = Arc::clone(&admission);
            let name = name.to_string();
            std::thread::Builder::new()
                .name(name.clone())
                .spawn(move || {
                    for conn in listener.incoming() {
                        if stop.load(Ordering::SeqCst) {
                            break;
                        }
                        let Ok(stream) = conn else {
                            // Out of descriptors and the like: do not spin.
                            std::thread::sleep(Duration::from_millis(10));
                            continue;
                        };
                        let Ok(peer) = stream.peer_addr() else {
                            continue;
                        };
                        let stream = Arc::new(stream);
                        let Some(ticket) = admission.admit(&stream, peer.ip()) else {
                            continue;
                        };
                        let handler = Arc::clone(&handler);
                        let spawned = std::thread::Builder::new()
                            .name(format!("{name}-conn"))
                            .spawn(move || {
                                handler(stream, peer, &ticket);
                                drop(ticket);
                            });
                        // When no thread can be made the connection is dropped (and its
                        // ticket with the closure).
                        drop(spawned);
                    }
                })?
        };
        Ok(AcceptLoop {
            addr,
            stop,
            thread: Some(thread),
            admission,
        })
    }

    /// Counters of the connections handled.
    pub(crate) fn stats(&self) -> AdmissionStats {
        let slots = self.admission.lock();
        AdmissionStats {
            active: slots.len(),
            reading: slots.iter().filter(|s| s.reading.is_some()).count(),
            closed_slow: self.admission.closed_slow.load(Ordering::Relaxed),
            refused: self.admission.refused.load(Ordering::Relaxed),
        }
    }

    /// The address the listener is bound to.
    pub(crate) fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// Stops accepting and waits for the loop to end (handlers already running go on).
    pub(crate) fn stop(&mut self) {
        if self.stop.swap(true, Ordering::SeqCst) {
            return;
        }
        // Wake the blocking accept with a connection to ourselves.
        let ip = match self.addr.ip() {
            IpAddr::V4(v) if v.is_unspecified() => IpAddr::V4(Ipv4Addr::LOCALHOST),
            IpAddr::V6(v) if v.is_unspecified() => IpAddr::V6(Ipv6Addr::LOCALHOST),
            ip => ip,
        };
        let woke = TcpStream::connect_timeout(
            &SocketAddr::new(ip, self.addr.port()),
            Duration::from_secs(1),
        );
        if let Some(t) = self.thread.take() {
            if woke.is_ok() {
                let _ = t.join();
            }
        }
    }
}

impl Drop for AcceptLoop {
    fn drop(&mut self) {
        self.stop();
    }
}
