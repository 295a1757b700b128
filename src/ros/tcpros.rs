//! The node's TCPROS server socket: each incoming connection sends its header first, which
//! routes it to a publication (`topic`) or a service (`service`).

use std::io::Write;
use std::net::TcpStream;
use std::sync::Arc;
use std::time::Duration;

use super::header::{Header, MAX_HEADER};
use super::publication::Publication;
use super::service::ServiceServer;

/// How long a peer may take to send its connection header.
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
}

/// Reads the header of a new connection and hands it on; answers an `error` header when it
/// cannot be served. Malformed or slow peers are dropped.
pub(crate) fn serve_connection(mut stream: TcpStream, router: &dyn Router) {
    if stream.set_read_timeout(Some(HANDSHAKE_TIMEOUT)).is_err()
        || stream.set_write_timeout(Some(HANDSHAKE_TIMEOUT)).is_err()
    {
        return;
    }
    let Ok(header) = Header::read_from(&mut stream, MAX_HEADER) else {
        return;
    };
    let Ok(mut reply) = stream.try_clone() else {
        return;
    };
    let me = router.callerid();
    let result = if router.shutting_down() {
        Err("node shutting down".to_string())
    } else if let Some(topic) = header.get("topic") {
        match router.publication(topic) {
            Some(p) => p.accept(stream, &header),
            None => Err(format!("[{me}] is not a publisher of [{topic}]")),
        }
    } else if let Some(name) = header.get("service") {
        match router.service(name) {
            Some(s) => s.serve(stream, &header),
            None => Err(format!("[{me}] is not a provider of [{name}]")),
        }
    } else {
        Err("no topic or service name detected".to_string())
    };
    if let Err(msg) = result {
        let _ = reply.write_all(&Header::new().with("error", &msg).encode());
    }
    let _ = reply.flush();
}
