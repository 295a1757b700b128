//! Index data records (op 0x04): version 1 (2.0, per connection per chunk: time and offset
//! into the uncompressed chunk) and version 0 (1.2, per topic: time and absolute file offset).
//!
//! Like the official reader, the entries are read from `count` in the header, not from the
//! record's data length: early 2.0 writers (ROS C Turtle) wrote a wrong data length.

use super::cursor::{Cursor, le_time, le_u32, le_u64};
use super::error::{ErrorKind, FormatError, Result};
use super::op::{Op, RecordKind};
use super::record::read_head;
use crate::time::RosTime;

/// Bytes per version-1 entry.
pub const V1_ENTRY_LEN: usize = 12;
/// Bytes per version-0 entry.
pub const V0_ENTRY_LEN: usize = 16;

/// A parsed index data record of either version.
#[derive(Clone, Debug)]
pub struct IndexData<'a> {
    /// Absolute offset of the record.
    pub offset: u64,
    /// Index version (1 for 2.0 bags, 0 for 1.2).
    pub ver: u32,
    /// Connection id (version 1).
    pub conn: Option<u32>,
    /// Topic (version 0).
    pub topic: Option<String>,
    /// Number of entries.
    pub count: u32,
    /// The raw entries.
    entries: &'a [u8],
    /// The data length the record declares (may be wrong, see module docs).
    pub declared_len: u32,
    /// Absolute offset just past the entries: where the next record starts.
    pub end: u64,
}

impl<'a> IndexData<'a> {
    /// Reads the index data record at `pos` of `buf` (first byte at absolute offset `base`).
    pub fn read(buf: &'a [u8], pos: usize, base: u64) -> Result<Self> {
        let head = read_head(buf, pos, base)?;
        let h = head.header.with_kind(RecordKind::IndexData);
        // One pass over the fields (a bag of tiny chunks has one of these per message).
        let [op, ver, count, conn] = h.pick(["op", "ver", "count", "conn"]);
        let op = h.op_of(op)?;
        if op != Op::IndexData.byte() {
            return Err(FormatError::new(
                head.offset,
                RecordKind::IndexData,
                ErrorKind::UnexpectedOp {
                    found: op,
                    expected: RecordKind::IndexData,
                },
            ));
        }
        let ver = h.u32_of(ver, "ver")?;
        let count = h.u32_of(count, "count")?;
        let (conn, topic, entry_len) = match ver {
            1 => (Some(h.u32_of(conn, "conn")?), None, V1_ENTRY_LEN),
            0 => (None, Some(h.string("topic")?), V0_ENTRY_LEN),
            v => {
                return Err(FormatError::new(
                    head.offset,
                    RecordKind::IndexData,
                    ErrorKind::UnsupportedRecordVersion {
                        what: "index data",
                        version: v,
                    },
                ));
            }
        };
        let start = usize::try_from(head.data_offset - base).unwrap_or(usize::MAX);
        let mut c = Cursor::new(
            buf.get(start..).unwrap_or_default(),
            head.data_offset,
            RecordKind::IndexData,
        );
        let entries = c.take_len(u64::from(count) * entry_len as u64, "index entries")?;
        Ok(IndexData {
            offset: head.offset,
            ver,
            conn,
            topic,
            count,
            entries,
            declared_len: head.data_len,
            end: c.offset(),
        })
    }

    /// True when the record's data length disagrees with its entry count.
    pub fn length_lies(&self) -> bool {
        u64::from(self.declared_len) != self.entries.len() as u64
    }

    /// Version-1 entries: `(time, offset into the uncompressed chunk)`. Meaningful only when
    /// `ver == 1`.
    pub fn v1_entries(&self) -> impl ExactSizeIterator<Item = (RosTime, u32)> + 'a {
        self.entries.chunks_exact(V1_ENTRY_LEN).map(|e| {
            let (t, off) = e.split_at(8);
            (
                le_time(t).unwrap_or_default(),
                le_u32(off).unwrap_or_default(),
            )
        })
    }

    /// Version-0 entries: `(time, absolute file offset)`. Meaningful only when `ver == 0`.
    pub fn v0_entries(&self) -> impl ExactSizeIterator<Item = (RosTime, u64)> + 'a {
        self.entries.chunks_exact(V0_ENTRY_LEN).map(|e| {
            let (t, pos) = e.split_at(8);
            (
                le_time(t).unwrap_or_default(),
                le_u64(pos).unwrap_or_default(),
            )
        })
    }
}

/// Encodes a version-1 index data record for `conn` with `entries` (time, chunk offset).
pub fn encode_v1(out: &mut Vec<u8>, conn: u32, entries: &[(RosTime, u32)]) {
    let mut data = Vec::with_capacity(entries.len() * V1_ENTRY_LEN);
    for (t, off) in entries {
        data.extend_from_slice(&t.sec.to_le_bytes());
        data.extend_from_slice(&t.nsec.to_le_bytes());
        data.extend_from_slice(&off.to_le_bytes());
    }
    let count = u32::try_from(entries.len()).unwrap_or(u32::MAX);
    super::record::write_record(
        out,
        &[
            ("conn", &conn.to_le_bytes()),
            ("count", &count.to_le_bytes()),
            ("op", &[Op::IndexData.byte()]),
            ("ver", &1u32.to_le_bytes()),
        ],
        &data,
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_v1_entries_and_trusts_count_over_data_length() {
        let mut buf = Vec::new();
        encode_v1(
            &mut buf,
            3,
            &[(RosTime::new(1, 2), 10), (RosTime::new(3, 4), 99)],
        );
        let idx = IndexData::read(&buf, 0, 0).unwrap();
        assert_eq!(idx.conn, Some(3));
        assert_eq!(
            idx.v1_entries().collect::<Vec<_>>(),
            vec![(RosTime::new(1, 2), 10), (RosTime::new(3, 4), 99)]
        );
        assert_eq!(idx.end, buf.len() as u64);
        assert!(!idx.length_lies());
        // Corrupt the data length: the entries and the end still follow `count`.
        let header_len = u32::from_le_bytes(buf[..4].try_into().unwrap()) as usize;
        buf[4 + header_len..8 + header_len].copy_from_slice(&7u32.to_le_bytes());
        let idx = IndexData::read(&buf, 0, 0).unwrap();
        assert!(idx.length_lies());
        assert_eq!(idx.v1_entries().len(), 2);
        assert_eq!(idx.end, buf.len() as u64);
        // A count beyond the file is an error, not an allocation.
        let mut big = Vec::new();
        crate::format::record::write_record(
            &mut big,
            &[
                ("op", &[4]),
                ("ver", &1u32.to_le_bytes()),
                ("conn", &0u32.to_le_bytes()),
                ("count", &u32::MAX.to_le_bytes()),
            ],
            b"",
        );
        assert!(IndexData::read(&big, 0, 0).is_err());
    }
}
