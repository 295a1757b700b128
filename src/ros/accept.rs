//! An accept loop on its own thread, one short-lived thread per connection (at most a fixed
//! number at once), stopped by a flag and a connection to itself.

use std::io;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

/// What is done with each accepted connection (on its own thread).
pub(crate) type ConnectionHandler = Arc<dyn Fn(TcpStream, SocketAddr) + Send + Sync>;

/// A running accept loop.
pub(crate) struct AcceptLoop {
    addr: SocketAddr,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

/// Decrements the active-connection count when the connection's thread ends.
struct ActiveGuard(Arc<AtomicUsize>);

impl Drop for ActiveGuard {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

impl AcceptLoop {
    /// Accepts connections on `listener`; each runs `handler` on a new thread. Beyond
    /// `max_active` simultaneous handlers, new connections are closed at once.
    pub(crate) fn spawn(
        listener: TcpListener,
        name: &str,
        max_active: usize,
        handler: ConnectionHandler,
    ) -> io::Result<AcceptLoop> {
        let addr = listener.local_addr()?;
        let stop = Arc::new(AtomicBool::new(false));
        let active = Arc::new(AtomicUsize::new(0));
        let thread = {
            let stop = Arc::clone(&stop);
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
                        if active.fetch_add(1, Ordering::SeqCst) >= max_active {
                            active.fetch_sub(1, Ordering::SeqCst);
                            continue;
                        }
                        let guard = ActiveGuard(Arc::clone(&active));
                        let handler = Arc::clone(&handler);
                        let spawned = std::thread::Builder::new()
                            .name(format!("{name}-conn"))
                            .spawn(move || {
                                let _guard = guard;
                                handler(stream, peer);
                            });
                        // When no thread can be made the connection is dropped (and counted
                        // back by the guard, dropped with the closure).
                        drop(spawned);
                    }
                })?
        };
        Ok(AcceptLoop {
            addr,
            stop,
            thread: Some(thread),
        })
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
