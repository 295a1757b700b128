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

impl MessageDataHeader {
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
