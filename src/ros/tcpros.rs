//! The node's TCPROS server socket: each incoming connection sends its header first, which
//! routes it to a publication (`topic`) or a service (`service`).

use std::io::Write;
use std::net::TcpStream;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::accept::Ticket;
use super::header::{self, Header, MAX_HEADER};
use super::limits::{DeadlineStream, FrameBudget, NodeLimits, Reservation};
use super::publication::Publication;
use super::service::ServiceServer;

/// How long a peer may take to send its whole connection header (by default).
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(5);

/// Finds what a connection asks for.
pub(crate) trait Router: Send + Sync {
    /// Our name, for error messages.
    fn callerid(&self) -> &str;
    /// The publication of `topic`, if we publish it.
    fn publication(&self, topic: &str) -> Option<Publication>;
    /// The service `name`, if we provide it.
    fn service(&self, name: &str) -> Option<Arc<ServiceServer>>;
    /// True while shutting down (new connections are refused).
    fn shutting_down(&self) -> bool;
    /// What peers are held to.
    fn limits(&self) -> &NodeLimits;
    /// The memory for frames being received, shared by every connection.
    fn budget(&self) -> &Arc<FrameBudget>;
}

/// Reads the header of a new connection (whole within the handshake deadline, charged to
/// the node's frame budget) and hands it on; answers an `error` header when it cannot be
/// served. Malformed, slow or greedy peers are dropped.
pub(crate) fn serve_connection(stream: Arc<TcpStream>, router: &dyn Router, ticket: &Ticket) {
    let limits = router.limits();
    if stream.set_write_timeout(Some(HANDSHAKE_TIMEOUT)).is_err() {
        return;
    }
    let header = {
        let mut reader = DeadlineStream::new(&stream, Instant::now() + limits.handshake_deadline);
        let mut reservation = Reservation::new(Some(router.budget()));
        match header::read_header_within(&mut reader, MAX_HEADER, &mut reservation) {
            Ok(h) => h,
            Err(_) => return,
        }
    };
    let reply = Arc::clone(&stream);
    let me = router.callerid();
    let result = if router.shutting_down() {
        Err("node shutting down".to_string())
    } else if let Some(topic) = header.get("topic") {
        match router.publication(topic) {
            Some(p) => {
                ticket.answering();
                p.accept(stream, &header)
            }
            None => Err(format!("[{me}] is not a publisher of [{topic}]")),
        }
    } else if let Some(name) = header.get("service") {
        match router.service(name) {
            Some(s) => s.serve(&stream, &header, limits, router.budget(), ticket),
            None => Err(format!("[{me}] is not a provider of [{name}]")),
        }
    } else {
        Err("no topic or service name detected".to_string())
    };
    let mut reply: &TcpStream = &reply;
    if let Err(msg) = result {
        let _ = reply.write_all(&Header::new().with("error", &msg).encode());
    }
    let _ = reply.flush();
}
