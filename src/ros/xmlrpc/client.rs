//! Calling a method on an XML-RPC server.

use std::io::BufReader;
use std::time::{Duration, Instant};

use super::error::XmlRpcError;
use super::http::{read_body, read_head, write_message};
use super::parse::parse_response;
use super::value::Value;
use super::write::call_document;
use crate::ros::limits::{DeadlineStream, is_timeout};
use crate::ros::uri;

/// Largest response body accepted (a big graph's `getSystemState` is well below this).
pub const MAX_RESPONSE: usize = 64 * 1024 * 1024;

/// Calls `method` on the server at `uri` (`http://HOST:PORT/PATH`); `timeout` bounds the
/// whole call — connecting, sending, the answer — not each read, so a server that trickles
/// its answer is given up on at the deadline ([`XmlRpcError::TimedOut`]). A fault is
/// returned as [`XmlRpcError::Fault`].
pub fn call(
    uri: &str,
    method: &str,
    params: &[Value],
    timeout: Duration,
) -> Result<Value, XmlRpcError> {
    let deadline = Instant::now() + timeout;
    exchange(uri, method, params, deadline).map_err(|e| match e {
        XmlRpcError::Io { source, .. } if is_timeout(&source) || Instant::now() >= deadline => {
            XmlRpcError::TimedOut { after: timeout }
        }
        other => other,
    })
}

fn exchange(
    uri: &str,
    method: &str,
    params: &[Value],
    deadline: Instant,
) -> Result<Value, XmlRpcError> {
    let (host, port) =
        uri::host_port(uri, "http").ok_or_else(|| XmlRpcError::BadUri(uri.to_string()))?;
    let path = uri
        .strip_prefix("http://")
        .and_then(|r| r.find('/').and_then(|i| r.get(i..)))
        .unwrap_or("/");
    let stream = uri::connect_until(host, port, deadline)
        .map_err(|e| XmlRpcError::io(format!("connecting to {uri}"), e))?;
    let _ = stream.set_nodelay(true);
    let mut io = DeadlineStream::new(&stream, deadline);
    let body = call_document(method, params);
    let host_header = if host.contains(':') {
        format!("[{host}]:{port}")
    } else {
        format!("{host}:{port}")
    };
    write_message(
        &mut io,
        &format!("POST {path} HTTP/1.1"),
        &[
            ("Host", &host_header),
            ("User-Agent", "bagscope"),
            ("Content-Type", "text/xml"),
            ("Connection", "close"),
        ],
        body.as_bytes(),
    )
    .map_err(|e| XmlRpcError::io(format!("sending {method} to {uri}"), e))?;
    let mut reader = BufReader::new(io);
    let head = read_head(&mut reader)?;
    let mut parts = head.start.split_whitespace();
    let status = parts.nth(1).unwrap_or_default();
    if status != "200" {
        return Err(XmlRpcError::Http(format!(
            "{uri} answered '{}' to {method}",
            head.start
        )));
    }
    let body = read_body(&mut reader, &head, MAX_RESPONSE, true)?;
    parse_response(&body)?.map_err(XmlRpcError::Fault)
}
