//! Serving XML-RPC calls: one request per connection, bounded sizes and timeouts, malformed
//! requests answered with an HTTP error or a fault, never a panic.

use std::io::{self, BufReader};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::Arc;
use std::time::Duration;

use super::error::XmlRpcError;
use super::http::{read_body, read_head, write_message};
use super::parse::parse_call;
use super::value::{Fault, Value};
use super::write::{fault_document, response_document};
use crate::ros::accept::AcceptLoop;

/// Largest request body accepted.
pub const MAX_REQUEST: usize = 4 * 1024 * 1024;
/// How long a client may take to send its request or read the answer.
pub const IO_TIMEOUT: Duration = Duration::from_secs(10);
/// Connections served at once; more are closed at once.
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

    /// Serves `handler` on an already bound listener.
    pub fn on_listener(listener: TcpListener, handler: Arc<dyn Handler>) -> io::Result<Server> {
        let accept = AcceptLoop::spawn(
            listener,
            "xmlrpc",
            MAX_CONNECTIONS,
            Arc::new(move |stream, _peer| serve(stream, handler.as_ref())),
        )?;
        Ok(Server { accept })
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

/// Serves one connection: reads a request, answers, closes.
fn serve(stream: TcpStream, handler: &dyn Handler) {
    if stream.set_read_timeout(Some(IO_TIMEOUT)).is_err()
        || stream.set_write_timeout(Some(IO_TIMEOUT)).is_err()
    {
        return;
    }
    let Ok(mut writer) = stream.try_clone() else {
        return;
    };
    let mut reader = BufReader::new(stream);
    let (status, body) = match answer(&mut reader, handler) {
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
    let _ = writer.shutdown(std::net::Shutdown::Both);
}

fn answer(reader: &mut BufReader<TcpStream>, handler: &dyn Handler) -> Result<String, XmlRpcError> {
    let head = read_head(reader)?;
    if !head.start.starts_with("POST ") {
        return Err(XmlRpcError::Http(format!("not a POST: '{}'", head.start)));
    }
    let body = read_body(reader, &head, MAX_REQUEST, false)?;
    let call = parse_call(&body)?;
    Ok(match handler.handle(&call.method, &call.params) {
        Ok(v) => response_document(&v),
        Err(f) => fault_document(&f),
    })
}
