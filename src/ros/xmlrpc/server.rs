//! Serving XML-RPC calls: one request per connection, bounded sizes and timeouts, malformed
//! requests answered with an HTTP error or a fault, never a panic.

use std::io::{self, BufReader};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::error::XmlRpcError;
use super::http::{read_body, read_head, write_message};
use super::parse::parse_call;
use super::value::{Fault, Value};
use super::write::{fault_document, response_document};
use crate::ros::accept::{AcceptLoop, AdmissionStats, Caps, Ticket};
use crate::ros::header::READ_STEP;
use crate::ros::limits::{ChargedReader, DeadlineStream, FrameBudget, NodeLimits};

/// Largest request body accepted.
pub const MAX_REQUEST: usize = 4 * 1024 * 1024;
/// How long a client may take to send its whole request, or to read the answer.
pub const IO_TIMEOUT: Duration = Duration::from_secs(10);
/// Connections being read at once (by default); beyond it the oldest one is closed.
pub const MAX_CONNECTIONS: usize = 64;

/// Answers calls.
pub trait Handler: Send + Sync + 'static {
    /// The return value of `method`, or a fault.
    fn handle(&self, method: &str, params: &[Value]) -> Result<Value, Fault>;
}

/// A running XML-RPC server.
pub struct Server {
    accept: AcceptLoop,
}

impl Server {
    /// Binds `addr` (port 0: any free port) and serves `handler` on background threads.
    pub fn start(addr: SocketAddr, handler: Arc<dyn Handler>) -> io::Result<Server> {
        Server::on_listener(TcpListener::bind(addr)?, handler)
    }

    /// Serves `handler` on an already bound listener, with the default limits.
    pub fn on_listener(listener: TcpListener, handler: Arc<dyn Handler>) -> io::Result<Server> {
        let limits = NodeLimits::default();
        let budget = FrameBudget::new(limits.frame_budget);
        Server::with_limits(listener, handler, &limits, budget)
    }

    /// Serves `handler` on an already bound listener: each request must arrive whole within
    /// `limits.request_deadline`; connections being read are capped per peer and in total
    /// (the oldest is closed to make room); request bytes beyond the first 64 KiB of each
    /// are charged to `budget`.
    pub fn with_limits(
        listener: TcpListener,
        handler: Arc<dyn Handler>,
        limits: &NodeLimits,
        budget: Arc<FrameBudget>,
    ) -> io::Result<Server> {
        let deadline = limits.request_deadline;
        let accept = AcceptLoop::spawn(
            listener,
            "xmlrpc",
            Caps {
                active: limits.max_active,
                reading: limits.max_reading,
                reading_per_peer: limits.max_reading_per_peer,
            },
            Arc::new(move |stream, _peer, ticket: &Ticket| {
                serve(&stream, handler.as_ref(), deadline, &budget, ticket);
            }),
        )?;
        Ok(Server { accept })
    }

    /// Counters of the connections handled.
    pub fn admission(&self) -> AdmissionStats {
        self.accept.stats()
    }

    /// The bound address.
    pub fn local_addr(&self) -> SocketAddr {
        self.accept.local_addr()
    }

    /// Stops accepting connections.
    pub fn stop(&mut self) {
        self.accept.stop();
    }
}

/// Serves one connection: reads a request (whole within `deadline`), answers, closes.
fn serve(
    stream: &TcpStream,
    handler: &dyn Handler,
    deadline: Duration,
    budget: &Arc<FrameBudget>,
    ticket: &Ticket,
) {
    if stream.set_write_timeout(Some(IO_TIMEOUT)).is_err() {
        return;
    }
    let mut reader = BufReader::new(ChargedReader::new(
        DeadlineStream::new(stream, Instant::now() + deadline),
        budget,
        READ_STEP,
    ));
    let request = read_request(&mut reader);
    ticket.answering();
    let answered = request.and_then(|body| {
        let call = parse_call(&body)?;
        Ok(match handler.handle(&call.method, &call.params) {
            Ok(v) => response_document(&v),
            Err(f) => fault_document(&f),
        })
    });
    let (status, body) = match answered {
        Ok(doc) => ("HTTP/1.1 200 OK", doc),
        Err(XmlRpcError::Xml { offset, what }) => (
            "HTTP/1.1 200 OK",
            fault_document(&Fault {
                code: -32700,
                message: format!("parse error at byte {offset}: {what}"),
            }),
        ),
        Err(XmlRpcError::TooLarge { .. }) => ("HTTP/1.1 413 Content Too Large", String::new()),
        Err(XmlRpcError::Io { .. }) => return,
        Err(e) => ("HTTP/1.1 400 Bad Request", format!("{e}\n")),
    };
    let mut writer = stream;
    let _ = write_message(
        &mut writer,
        status,
        &[
            ("Server", "bagscope"),
            ("Content-Type", "text/xml"),
            ("Connection", "close"),
        ],
        body.as_bytes(),
    );
    let _ = stream.shutdown(std::net::Shutdown::Both);
}

fn read_request(reader: &mut impl io::BufRead) -> Result<Vec<u8>, XmlRpcError> {
    let head = read_head(reader)?;
    if !head.start.starts_with("POST ") {
        return Err(XmlRpcError::Http(format!("not a POST: '{}'", head.start)));
    }
    read_body(reader, &head, MAX_REQUEST, false)
}
