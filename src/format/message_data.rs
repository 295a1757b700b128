//! The message data record header (op 0x02) of a 2.0 bag: connection id and receive time.

use super::cursor::{le_time, le_u32};
use super::error::{ErrorKind, FormatError, Result};
use super::header::FieldIter;
use super::op::{Op, RecordKind};
use super::record::write_record;
use crate::time::RosTime;

/// The fields of a 2.0 message data record header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MessageDataHeader {
    /// Connection id.
    pub conn: u32,
    /// Receive time.
    pub time: RosTime,
}

impl MessageDataHeader {
    /// Parses a message data header in one pass over its fields (the hot path of a full read).
    pub fn parse(header: &[u8], base: u64) -> Result<Self> {
        if let Some(h) = Self::parse_usual(header) {
            return Ok(h);
        }
        let kind = RecordKind::MessageData;
        let mut op = None;
        let mut conn = None;
        let mut time = None;
        for field in FieldIter::new(header, base, kind) {
            let field = field?;
            let bad = |name, expected| {
                FormatError::new(
                    field.offset,
                    kind,
                    ErrorKind::FieldSize {
                        name,
                        len: field.value.len(),
                        expected,
                    },
                )
            };
            match field.name {
                b"op" => match field.value {
                    [b] => op = Some(*b),
                    _ => return Err(bad("op", 1)),
                },
                b"conn" => conn = Some(le_u32(field.value).ok_or_else(|| bad("conn", 4))?),
                b"time" => time = Some(le_time(field.value).ok_or_else(|| bad("time", 8))?),
                _ => {}
            }
        }
        match op {
            Some(b) if b == Op::MessageData.byte() => {}
            Some(found) => {
                return Err(FormatError::new(
                    base,
                    kind,
                    ErrorKind::UnexpectedOp {
                        found,
                        expected: kind,
                    },
                ));
            }
            None => return Err(FormatError::new(base, kind, ErrorKind::MissingOp)),
        }
        Ok(MessageDataHeader {
            conn: conn
                .ok_or_else(|| FormatError::new(base, kind, ErrorKind::MissingField("conn")))?,
            time: time
                .ok_or_else(|| FormatError::new(base, kind, ErrorKind::MissingField("time")))?,
        })
    }
}

/// Splits a field of exactly `name=value` with a `len`-byte value off the front of `header`.
#[inline]
fn exact_field<'h>(header: &mut &'h [u8], name: &[u8], len: usize) -> Option<&'h [u8]> {
    let (field_len, rest) = header.split_first_chunk::<4>()?;
    let body_len = name.len() + 1 + len;
    if usize::try_from(u32::from_le_bytes(*field_len)).ok()? != body_len {
        return None;
    }
    let (body, rest) = rest.split_at_checked(body_len)?;
    let (field_name, rest_of_body) = body.split_at_checked(name.len())?;
    let (eq, value) = rest_of_body.split_first()?;
    if field_name != name || *eq != b'=' {
        return None;
    }
    *header = rest;
    Some(value)
}

impl MessageDataHeader {
    /// Recognises the two layouts writers use — exactly `conn`, `op`, `time` (the C++
    /// recorder) or `op`, `conn`, `time` (the Python writer), each of the right size and `op`
    /// 0x02 — without the general field scan. `None` for anything else, which
    /// [`MessageDataHeader::parse`] then reads field by field (with the same result when the
    /// header is one of these, since each name then occurs once).
    #[inline]
    fn parse_usual(header: &[u8]) -> Option<Self> {
        let mut rest = header;
        let (op, conn) = if header.get(4..7) == Some(b"op=") {
            let op = exact_field(&mut rest, b"op", 1)?;
            (op, exact_field(&mut rest, b"conn", 4)?)
        } else {
            let conn = exact_field(&mut rest, b"conn", 4)?;
            (exact_field(&mut rest, b"op", 1)?, conn)
        };
        let time = exact_field(&mut rest, b"time", 8)?;
        if !rest.is_empty() || op != [Op::MessageData.byte()] {
            return None;
        }
        Some(MessageDataHeader {
            conn: le_u32(conn)?,
            time: le_time(time)?,
        })
    }

    /// Appends a message data record with this header and `payload` to `out` (fields in the
    /// C++ recorder's order: `conn`, `op`, `time`). The payload must be shorter than 4 GiB.
    pub fn encode(&self, out: &mut Vec<u8>, payload: &[u8]) {
        let mut time = [0u8; 8];
        let (sec, nsec) = time.split_at_mut(4);
        sec.copy_from_slice(&self.time.sec.to_le_bytes());
        nsec.copy_from_slice(&self.time.nsec.to_le_bytes());
        write_record(
            out,
            &[
                ("conn", &self.conn.to_le_bytes()),
                ("op", &[Op::MessageData.byte()]),
                ("time", &time),
            ],
            payload,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::header::write_field;

    #[test]
    fn parses_in_any_field_order() {
        let mut h = Vec::new();
        write_field(&mut h, "time", &[1, 0, 0, 0, 2, 0, 0, 0]);
        write_field(&mut h, "conn", &5u32.to_le_bytes());
        write_field(&mut h, "op", &[2]);
        let m = MessageDataHeader::parse(&h, 0).unwrap();
        assert_eq!(m.conn, 5);
        assert_eq!(m.time, RosTime::new(1, 2));
        let mut bad = Vec::new();
        write_field(&mut bad, "op", &[2]);
        write_field(&mut bad, "conn", &[1, 2]);
        assert!(MessageDataHeader::parse(&bad, 0).is_err());
    }

    #[test]
    fn usual_layouts_read_like_the_general_parser() {
        let mut cpp = Vec::new();
        write_field(&mut cpp, "conn", &7u32.to_le_bytes());
        write_field(&mut cpp, "op", &[2]);
        write_field(&mut cpp, "time", &[3, 0, 0, 0, 4, 0, 0, 0]);
        let mut py = Vec::new();
        write_field(&mut py, "op", &[2]);
        write_field(&mut py, "conn", &7u32.to_le_bytes());
        write_field(&mut py, "time", &[3, 0, 0, 0, 4, 0, 0, 0]);
        let want = MessageDataHeader {
            conn: 7,
            time: RosTime::new(3, 4),
        };
        for h in [&cpp, &py] {
            assert_eq!(MessageDataHeader::parse_usual(h), Some(want));
            assert_eq!(MessageDataHeader::parse(h, 0).unwrap(), want);
        }
        // Anything else goes to the general parser, which reports it.
        let mut wrong_op = cpp.clone();
        wrong_op[20] = 3;
        assert_eq!(MessageDataHeader::parse_usual(&wrong_op), None);
        assert!(matches!(
            MessageDataHeader::parse(&wrong_op, 0).unwrap_err().kind,
            ErrorKind::UnexpectedOp { found: 3, .. }
        ));
        let mut extra = cpp.clone();
        write_field(&mut extra, "conn", &9u32.to_le_bytes());
        assert_eq!(MessageDataHeader::parse_usual(&extra), None);
        assert_eq!(MessageDataHeader::parse(&extra, 0).unwrap().conn, 9);
        assert_eq!(MessageDataHeader::parse_usual(&cpp[..cpp.len() - 1]), None);
        assert!(MessageDataHeader::parse(&cpp[..cpp.len() - 1], 0).is_err());
    }

    #[test]
    fn encodes_a_record_that_reads_back() {
        let h = MessageDataHeader {
            conn: 9,
            time: RosTime::new(17, 42),
        };
        let mut buf = Vec::new();
        h.encode(&mut buf, b"payload");
        let r = crate::format::read_record(&buf, 0, 0).unwrap();
        assert_eq!(r.data, b"payload");
        assert_eq!(MessageDataHeader::parse(r.header.bytes(), 4).unwrap(), h);
    }
}
