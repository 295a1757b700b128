//! `http://HOST:PORT/` and `rosrpc://HOST:PORT` addresses.

use std::net::{SocketAddr, TcpStream, ToSocketAddrs};
use std::time::{Duration, Instant};

/// Host and port of a `SCHEME://HOST:PORT[/PATH]` URI; `None` when it is not one.
/// IPv6 hosts are written in brackets (`http://[::1]:11311/`).
pub fn host_port<'a>(uri: &'a str, scheme: &str) -> Option<(&'a str, u16)> {
    let rest = uri.strip_prefix(scheme)?.strip_prefix("://")?;
    let authority = rest.split('/').next()?;
    let (host, port) = if let Some(v6) = authority.strip_prefix('[') {
        let (host, after) = v6.split_once(']')?;
        (host, after.strip_prefix(':')?)
    } else {
        authority.rsplit_once(':')?
    };
    if host.is_empty() {
        return None;
    }
    Some((host, port.parse().ok()?))
}

/// A URI for `host:port`, bracketing IPv6 literals.
pub fn format(scheme: &str, host: &str, port: u16, trailing_slash: bool) -> String {
    let slash = if trailing_slash { "/" } else { "" };
    if host.contains(':') {
        format!("{scheme}://[{host}]:{port}{slash}")
    } else {
        format!("{scheme}://{host}:{port}{slash}")
    }
}

/// Connects to `host:port` within `timeout` in all, trying each resolved address.
pub fn connect(host: &str, port: u16, timeout: Duration) -> std::io::Result<TcpStream> {
    connect_until(host, port, Instant::now() + timeout)
}

/// Connects to `host:port` before `deadline`, trying each resolved address with what is
/// left (resolving the name is not bounded: the system resolver has its own timeouts).
pub fn connect_until(host: &str, port: u16, deadline: Instant) -> std::io::Result<TcpStream> {
    let addrs: Vec<SocketAddr> = (host, port).to_socket_addrs()?.collect();
    let mut last = std::io::Error::new(
        std::io::ErrorKind::NotFound,
        format!("{host} resolves to no address"),
    );
    for a in addrs {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                format!("connecting to {host}:{port} took too long"),
            ));
        }
        match TcpStream::connect_timeout(&a, left) {
            Ok(s) => return Ok(s),
            Err(e) => last = e,
        }
    }
    Err(last)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_uris() {
        assert_eq!(
            host_port("http://localhost:11311/", "http"),
            Some(("localhost", 11311))
        );
        assert_eq!(
            host_port("http://10.0.0.1:5", "http"),
            Some(("10.0.0.1", 5))
        );
        assert_eq!(host_port("http://[::1]:80/RPC2", "http"), Some(("::1", 80)));
        assert_eq!(host_port("rosrpc://h:1", "rosrpc"), Some(("h", 1)));
        assert_eq!(host_port("http://h/", "http"), None);
        assert_eq!(host_port("http://:1/", "http"), None);
        assert_eq!(host_port("http://h:99999/", "http"), None);
        assert_eq!(host_port("ftp://h:1/", "http"), None);
        assert_eq!(host_port("http://[::1/", "http"), None);
        assert_eq!(format("http", "::1", 5, true), "http://[::1]:5/");
        assert_eq!(format("rosrpc", "h", 5, false), "rosrpc://h:5");
    }
}
