//! TCPROS connection headers and message framing: a `u32` length, then fields each written
//! as a `u32` length and `name=value`; messages are a `u32` length and the serialized bytes.
//! All little-endian.

use std::io::{self, Read};

use super::limits::Reservation;

/// Largest connection header accepted (a subscriber sends the whole message definition).
pub const MAX_HEADER: usize = 4 * 1024 * 1024;

/// A malformed or unreadable connection header.
#[derive(Debug, thiserror::Error)]
pub enum HeaderError {
    /// The socket failed, closed or timed out.
    #[error("reading the connection header: {0}")]
    Io(#[from] io::Error),
    /// The declared length is above the limit.
    #[error("connection header of {declared} bytes (at most {limit} accepted)")]
    TooLarge {
        /// The declared length.
        declared: u64,
        /// The limit.
        limit: usize,
    },
    /// The node is receiving too much from other connections to take this header now.
    #[error("connection header of {declared} bytes: the node is busy receiving others")]
    OverBudget {
        /// The declared length.
        declared: u64,
    },
    /// The fields do not parse.
    #[error("malformed connection header at byte {offset}: {what}")]
    Malformed {
        /// Offset in the header body.
        offset: usize,
        /// What is wrong.
        what: &'static str,
    },
}

/// A connection header: `name=value` fields in order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Header {
    fields: Vec<(String, String)>,
}

impl Header {
    /// An empty header.
    pub fn new() -> Self {
        Header::default()
    }

    /// Adds a field (builder style).
    #[must_use]
    pub fn with(mut self, name: &str, value: &str) -> Self {
        self.insert(name, value);
        self
    }

    /// Sets a field, replacing an earlier one of the same name.
    pub fn insert(&mut self, name: &str, value: &str) {
        if let Some(f) = self.fields.iter_mut().find(|(k, _)| k == name) {
            f.1 = value.to_string();
        } else {
            self.fields.push((name.to_string(), value.to_string()));
        }
    }

    /// A field's value (the last one when a name is repeated, as rospy's dict does).
    pub fn get(&self, name: &str) -> Option<&str> {
        self.fields
            .iter()
            .rev()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// The fields in order.
    pub fn fields(&self) -> &[(String, String)] {
        &self.fields
    }

    /// The header on the wire, with its leading total length.
    pub fn encode(&self) -> Vec<u8> {
        let mut body = Vec::new();
        for (k, v) in &self.fields {
            let len = k.len() + 1 + v.len();
            body.extend_from_slice(&u32::try_from(len).unwrap_or(u32::MAX).to_le_bytes());
            body.extend_from_slice(k.as_bytes());
            body.push(b'=');
            body.extend_from_slice(v.as_bytes());
        }
        let mut out = Vec::with_capacity(body.len() + 4);
        out.extend_from_slice(&u32::try_from(body.len()).unwrap_or(u32::MAX).to_le_bytes());
        out.extend_from_slice(&body);
        out
    }

    /// Parses the fields (the bytes after the total length). Names and values that are not
    /// UTF-8 are taken lossily.
    pub fn decode(body: &[u8]) -> Result<Header, HeaderError> {
        let mut fields = Vec::new();
        let mut pos = 0usize;
        while pos < body.len() {
            let malformed = |what| HeaderError::Malformed { offset: pos, what };
            let len_bytes = body
                .get(pos..pos + 4)
                .ok_or_else(|| malformed("field length cut short"))?;
            let mut len4 = [0u8; 4];
            len4.copy_from_slice(len_bytes);
            let len = usize::try_from(u32::from_le_bytes(len4))
                .map_err(|_| malformed("field length too large"))?;
            let start = pos + 4;
            let field = start
                .checked_add(len)
                .and_then(|end| body.get(start..end))
                .ok_or_else(|| malformed("field longer than the header"))?;
            let eq = field
                .iter()
                .position(|&b| b == b'=')
                .ok_or_else(|| malformed("field without '='"))?;
            let (name, value) = field.split_at(eq);
            if name.is_empty() {
                return Err(malformed("field without a name"));
            }
            fields.push((
                String::from_utf8_lossy(name).into_owned(),
                String::from_utf8_lossy(value.get(1..).unwrap_or_default()).into_owned(),
            ));
            pos = start + len;
        }
        Ok(Header { fields })
    }

    /// Reads a length-prefixed header from `r`, refusing more than `max` bytes.
    pub fn read_from(r: &mut impl Read, max: usize) -> Result<Header, HeaderError> {
        let body = read_prefixed(r, max).map_err(|e| prefixed_error(e, max))?;
        Header::decode(&body)
    }
}

/// Why a length-prefixed block could not be read.
#[derive(Debug)]
pub(crate) enum Prefixed {
    Io(io::Error),
    TooLarge(u64),
    /// The node's budget for frames being received is spent.
    OverBudget(u64),
}

/// Bytes read (and reserved) at a time: memory follows what the peer really sends, not what
/// it declares.
pub(crate) const READ_STEP: usize = 64 * 1024;

/// Reads a `u32` length and that many bytes (at most `max`).
pub(crate) fn read_prefixed(r: &mut impl Read, max: usize) -> Result<Vec<u8>, Prefixed> {
    let mut len4 = [0u8; 4];
    r.read_exact(&mut len4).map_err(Prefixed::Io)?;
    read_body(
        r,
        u32::from_le_bytes(len4),
        max,
        &mut Reservation::new(None),
    )
}

/// Reads `declared` bytes (at most `max`), growing the buffer as they arrive and charging
/// each step but the first ([`READ_STEP`] bytes) to `reservation`.
pub(crate) fn read_body(
    r: &mut impl Read,
    declared: u32,
    max: usize,
    reservation: &mut Reservation,
) -> Result<Vec<u8>, Prefixed> {
    let len = usize::try_from(declared).unwrap_or(usize::MAX);
    if len > max {
        return Err(Prefixed::TooLarge(u64::from(declared)));
    }
    let mut body = Vec::new();
    while body.len() < len {
        let step = (len - body.len()).min(READ_STEP);
        // The first step is every connection's own (a small request never waits on the
        // budget greedy peers hold); the rest comes from the node's shared budget.
        if !body.is_empty() && !reservation.grow(step) {
            return Err(Prefixed::OverBudget(u64::from(declared)));
        }
        let start = body.len();
        body.resize(start + step, 0);
        r.read_exact(body.get_mut(start..).unwrap_or_default())
            .map_err(Prefixed::Io)?;
    }
    Ok(body)
}

/// Reads a length-prefixed header (at most `max` bytes) charged to `reservation`.
pub(crate) fn read_header_within(
    r: &mut impl Read,
    max: usize,
    reservation: &mut Reservation,
) -> Result<Header, HeaderError> {
    let mut len4 = [0u8; 4];
    r.read_exact(&mut len4)?;
    let body = read_body(r, u32::from_le_bytes(len4), max, reservation)
        .map_err(|e| prefixed_error(e, max))?;
    Header::decode(&body)
}

fn prefixed_error(e: Prefixed, max: usize) -> HeaderError {
    match e {
        Prefixed::Io(e) => HeaderError::Io(e),
        Prefixed::TooLarge(declared) => HeaderError::TooLarge {
            declared,
            limit: max,
        },
        Prefixed::OverBudget(declared) => HeaderError::OverBudget { declared },
    }
}

/// The error of a frame the budget cannot hold.
pub(crate) fn over_budget(declared: u64) -> io::Error {
    io::Error::new(
        io::ErrorKind::OutOfMemory,
        format!("message of {declared} bytes: the node is busy receiving others"),
    )
}

/// A message framed for the wire: its `u32` length, then its bytes. `None` when the payload
/// does not fit a `u32` length.
pub fn frame(payload: &[u8]) -> Option<Vec<u8>> {
    let len = u32::try_from(payload.len()).ok()?;
    let mut out = Vec::with_capacity(payload.len() + 4);
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(payload);
    Some(out)
}

/// Reads one framed message of at most `max` bytes.
pub fn read_frame(r: &mut impl Read, max: usize) -> io::Result<Vec<u8>> {
    read_prefixed(r, max).map_err(|e| match e {
        Prefixed::Io(e) => e,
        Prefixed::TooLarge(n) => io::Error::new(
            io::ErrorKind::InvalidData,
            format!("message of {n} bytes (at most {max} accepted)"),
        ),
        Prefixed::OverBudget(n) => over_budget(n),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What rospy writes for `{'callerid': '/a', 'md5sum': '*', 'topic': '/t'}`
    /// (`rosgraph.network.encode_ros_handshake_header`, keys in insertion order).
    const ROSPY: &[u8] = b"\x27\x00\x00\x00\x0b\x00\x00\x00callerid=/a\x08\x00\x00\x00md5sum=*\x08\x00\x00\x00topic=/t";

    #[test]
    fn encode_and_decode() {
        let h = Header::new()
            .with("callerid", "/a")
            .with("md5sum", "*")
            .with("topic", "/t");
        assert_eq!(h.encode(), ROSPY);
        let back = Header::read_from(&mut &ROSPY[..], MAX_HEADER).unwrap();
        assert_eq!(back, h);
        // Values may hold '=' and newlines; empty values are kept.
        let h = Header::new()
            .with("message_definition", "a=b\nc")
            .with("x", "");
        let enc = h.encode();
        assert_eq!(Header::decode(&enc[4..]).unwrap(), h);
        assert_eq!(Header::decode(&enc[4..]).unwrap().get("x"), Some(""));
        // Repeated names: the last wins.
        let mut body = Header::new().with("a", "1").encode()[4..].to_vec();
        body.extend_from_slice(&Header::new().with("a", "2").encode()[4..]);
        assert_eq!(Header::decode(&body).unwrap().get("a"), Some("2"));
        assert_eq!(Header::decode(b"").unwrap().fields().len(), 0);
    }

    #[test]
    fn malformed_headers() {
        let bad: &[&[u8]] = &[
            b"\x05\x00\x00",          // cut length
            b"\x09\x00\x00\x00abc=d", // longer than the header
            b"\x03\x00\x00\x00abc",   // no '='
            b"\x02\x00\x00\x00=x",    // no name
            b"\xff\xff\xff\xff",      // absurd length
        ];
        for b in bad {
            assert!(
                matches!(Header::decode(b), Err(HeaderError::Malformed { .. })),
                "{b:?}"
            );
        }
        // Over the limit: refused before allocating.
        let r = Header::read_from(&mut &b"\xff\xff\xff\x7f"[..], MAX_HEADER);
        assert!(matches!(r, Err(HeaderError::TooLarge { .. })));
        // Cut short on the wire.
        let r = Header::read_from(&mut &ROSPY[..20], MAX_HEADER);
        assert!(matches!(r, Err(HeaderError::Io(_))));
        // Every truncation of a valid body fails cleanly or parses a prefix of fields.
        for cut in 0..ROSPY.len() - 4 {
            let _ = Header::decode(&ROSPY[4..4 + cut]);
        }
    }

    #[test]
    fn framing() {
        let f = frame(b"abc").unwrap();
        assert_eq!(f, b"\x03\x00\x00\x00abc");
        assert_eq!(read_frame(&mut &f[..], 10).unwrap(), b"abc");
        assert!(read_frame(&mut &f[..], 2).is_err());
        assert!(read_frame(&mut &f[..5], 10).is_err());
    }
}
