//! The HTTP/1.1 framing XML-RPC travels in: one request and one response per connection
//! (`Connection: close`), bodies by `Content-Length` or chunked, every length capped.

use std::io::{BufRead, Read, Write};

use super::error::XmlRpcError;

/// Largest request or status line plus headers accepted.
pub const MAX_HEAD: usize = 16 * 1024;

/// A request or status line with its headers.
#[derive(Debug)]
pub(crate) struct Head {
    /// The first line, without its line end.
    pub start: String,
    /// Header fields in order (names as sent).
    pub headers: Vec<(String, String)>,
}

impl Head {
    /// A header's value (names compare case-insensitively; the first one wins).
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// Reads one line ending in `\n` (the line end stripped), charging `budget`.
fn read_line(r: &mut impl BufRead, budget: &mut usize) -> Result<String, XmlRpcError> {
    let mut buf = Vec::new();
    let limit = u64::try_from(*budget).unwrap_or(u64::MAX);
    let n = r
        .by_ref()
        .take(limit)
        .read_until(b'\n', &mut buf)
        .map_err(|e| XmlRpcError::io("reading the HTTP head", e))?;
    let exhausted = n >= *budget;
    *budget = budget.saturating_sub(n);
    if buf.last() != Some(&b'\n') {
        return Err(if exhausted {
            XmlRpcError::TooLarge {
                what: "HTTP head",
                limit: MAX_HEAD,
            }
        } else if n == 0 {
            XmlRpcError::Http("the connection closed before a complete message".into())
        } else {
            XmlRpcError::Http("the connection closed inside the HTTP head".into())
        });
    }
    buf.pop();
    if buf.last() == Some(&b'\r') {
        buf.pop();
    }
    String::from_utf8(buf).map_err(|_| XmlRpcError::Http("HTTP head is not UTF-8".into()))
}

/// Reads a start line and the headers up to the empty line.
pub(crate) fn read_head(r: &mut impl BufRead) -> Result<Head, XmlRpcError> {
    let mut budget = MAX_HEAD;
    let mut start = read_line(r, &mut budget)?;
    // Tolerate empty lines before the start line (RFC 9112, 2.2).
    for _ in 0..4 {
        if !start.is_empty() {
            break;
        }
        start = read_line(r, &mut budget)?;
    }
    let mut headers = Vec::new();
    loop {
        let line = read_line(r, &mut budget)?;
        if line.is_empty() {
            break;
        }
        let (k, v) = line
            .split_once(':')
            .ok_or_else(|| XmlRpcError::Http(format!("bad header line '{line}'")))?;
        headers.push((k.trim().to_string(), v.trim().to_string()));
    }
    Ok(Head { start, headers })
}

/// Reads the body: `Content-Length` bytes, chunked, or (when `to_eof` is allowed, for
/// responses) everything up to the end of the stream. Never more than `max` bytes.
pub(crate) fn read_body(
    r: &mut impl BufRead,
    head: &Head,
    max: usize,
    to_eof: bool,
) -> Result<Vec<u8>, XmlRpcError> {
    let too_large = XmlRpcError::TooLarge {
        what: "HTTP body",
        limit: max,
    };
    let chunked = head
        .header("Transfer-Encoding")
        .is_some_and(|v| v.to_ascii_lowercase().contains("chunked"));
    if chunked {
        return read_chunked(r, max);
    }
    if let Some(len) = head.header("Content-Length") {
        let len: usize = len
            .parse()
            .map_err(|_| XmlRpcError::Http(format!("bad Content-Length '{len}'")))?;
        if len > max {
            return Err(too_large);
        }
        // Grown as the bytes arrive: memory follows what the peer sends, not what it declares.
        let mut body = Vec::new();
        r.by_ref()
            .take(u64::try_from(len).unwrap_or(u64::MAX))
            .read_to_end(&mut body)
            .map_err(|e| XmlRpcError::io("reading the HTTP body", e))?;
        if body.len() < len {
            return Err(XmlRpcError::io("reading the HTTP body", cut_short()));
        }
        return Ok(body);
    }
    if !to_eof {
        return Err(XmlRpcError::Http("request without Content-Length".into()));
    }
    let mut body = Vec::new();
    r.by_ref()
        .take(u64::try_from(max).unwrap_or(u64::MAX).saturating_add(1))
        .read_to_end(&mut body)
        .map_err(|e| XmlRpcError::io("reading the HTTP body", e))?;
    if body.len() > max {
        return Err(too_large);
    }
    Ok(body)
}

fn read_chunked(r: &mut impl BufRead, max: usize) -> Result<Vec<u8>, XmlRpcError> {
    let mut body = Vec::new();
    let mut budget = MAX_HEAD;
    loop {
        let line = read_line(r, &mut budget)?;
        let size = line.split(';').next().unwrap_or_default().trim();
        let size = usize::from_str_radix(size, 16)
            .map_err(|_| XmlRpcError::Http(format!("bad chunk size '{size}'")))?;
        if size == 0 {
            // Trailer fields up to the empty line.
            while !read_line(r, &mut budget)?.is_empty() {}
            return Ok(body);
        }
        if body.len().saturating_add(size) > max {
            return Err(XmlRpcError::TooLarge {
                what: "HTTP body",
                limit: max,
            });
        }
        let start = body.len();
        r.by_ref()
            .take(u64::try_from(size).unwrap_or(u64::MAX))
            .read_to_end(&mut body)
            .map_err(|e| XmlRpcError::io("reading an HTTP chunk", e))?;
        if body.len() - start < size {
            return Err(XmlRpcError::io("reading an HTTP chunk", cut_short()));
        }
        if !read_line(r, &mut budget)?.is_empty() {
            return Err(XmlRpcError::Http("chunk not followed by a line end".into()));
        }
    }
}

fn cut_short() -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::UnexpectedEof,
        "the connection closed inside the body",
    )
}

/// Writes a complete message: start line, our headers, `Content-Length`, body.
pub(crate) fn write_message(
    w: &mut impl Write,
    start: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> std::io::Result<()> {
    let mut out = Vec::with_capacity(body.len() + 256);
    out.extend_from_slice(start.as_bytes());
    out.extend_from_slice(b"\r\n");
    for (k, v) in headers {
        out.extend_from_slice(format!("{k}: {v}\r\n").as_bytes());
    }
    out.extend_from_slice(format!("Content-Length: {}\r\n\r\n", body.len()).as_bytes());
    out.extend_from_slice(body);
    w.write_all(&out)?;
    w.flush()
}
