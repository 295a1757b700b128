//! Chunk info records (op 0x06): where a chunk is, its time range and how many messages of
//! each connection it holds. Together with the connection records they summarise a bag without
//! touching its chunks.

use super::cursor::{Cursor, le_u32};
use super::error::{ErrorKind, FormatError, Result};
use super::op::{Op, RecordKind};
use super::record::{RecordHead, read_head};
use crate::time::RosTime;

/// A parsed chunk info record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChunkInfo {
    /// Absolute offset of this record.
    pub offset: u64,
    /// Absolute offset of the chunk record it describes.
    pub chunk_pos: u64,
    /// Earliest receive time in the chunk.
    pub start_time: RosTime,
    /// Latest receive time in the chunk.
    pub end_time: RosTime,
    /// `(connection id, message count)` pairs.
    pub counts: Vec<(u32, u32)>,
    /// Absolute offset just past the record (computed from `count`, like the official reader).
    pub end: u64,
}

/// The fixed fields of a chunk info record, its counts appended to a table of the caller's
/// (one table for a whole index section: no allocation per record).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChunkInfoHead {
    /// Absolute offset of this record.
    pub offset: u64,
    /// Absolute offset of the chunk record it describes.
    pub chunk_pos: u64,
    /// Earliest receive time in the chunk.
    pub start_time: RosTime,
    /// Latest receive time in the chunk.
    pub end_time: RosTime,
    /// Absolute offset just past the record (computed from `count`, like the official reader).
    pub end: u64,
}

impl ChunkInfoHead {
    /// Reads a chunk info record whose header is `head` (`buf`, first byte at absolute offset
    /// `base`, holds its data), appending its `(connection id, message count)` pairs to
    /// `counts` (nothing is appended when it fails).
    pub fn read_into(
        head: &RecordHead<'_>,
        buf: &[u8],
        base: u64,
        counts: &mut Vec<(u32, u32)>,
    ) -> Result<Self> {
        let h = head.header.with_kind(RecordKind::ChunkInfo);
        let [op, ver, count, chunk_pos, start_time, end_time] =
            h.pick(["op", "ver", "count", "chunk_pos", "start_time", "end_time"]);
        let op = h.convert(op, "op", 1, |v| match v {
            [b] => Some(*b),
            _ => None,
        })?;
        if op != Op::ChunkInfo.byte() {
            return Err(FormatError::new(
                head.offset,
                RecordKind::ChunkInfo,
                ErrorKind::UnexpectedOp {
                    found: op,
                    expected: RecordKind::ChunkInfo,
                },
            ));
        }
        let ver = h.u32_of(ver, "ver")?;
        if ver != 1 {
            return Err(FormatError::new(
                head.offset,
                RecordKind::ChunkInfo,
                ErrorKind::UnsupportedRecordVersion {
                    what: "chunk info",
                    version: ver,
                },
            ));
        }
        let count = h.u32_of(count, "count")?;
        let start = usize::try_from(head.data_offset - base).unwrap_or(usize::MAX);
        let mut c = Cursor::new(
            buf.get(start..).unwrap_or_default(),
            head.data_offset,
            RecordKind::ChunkInfo,
        );
        let data = c.take_len(u64::from(count) * 8, "chunk info entries")?;
        let fixed = ChunkInfoHead {
            offset: head.offset,
            chunk_pos: h.u64_of(chunk_pos, "chunk_pos")?,
            start_time: h.time_of(start_time, "start_time")?,
            end_time: h.time_of(end_time, "end_time")?,
            end: c.offset(),
        };
        counts.extend(data.chunks_exact(8).map(|e| {
            let (conn, n) = e.split_at(4);
            (
                le_u32(conn).unwrap_or_default(),
                le_u32(n).unwrap_or_default(),
            )
        }));
        Ok(fixed)
    }
}

impl ChunkInfoHead {
    /// The hot path of opening a bag of many chunks: a well-formed chunk info record at the
    /// start of `buf` (first byte at absolute offset `base`), its header fields found in one
    /// pass and every length checked, its counts appended to `counts`. `None` (nothing
    /// appended) when anything is off or unusual; [`ChunkInfoHead::read_into`] then reads the
    /// record again and reports the problem.
    pub fn read_fast(buf: &[u8], base: u64, counts: &mut Vec<(u32, u32)>) -> Option<Self> {
        Self::read_shaped(buf, base, counts, &mut None)
    }

    /// [`ChunkInfoHead::read_fast`] through the header layout of the previous record read
    /// with the same `shape` (see [`super::shape`]), learning it when it differs.
    pub fn read_shaped(
        buf: &[u8],
        base: u64,
        counts: &mut Vec<(u32, u32)>,
        shape: &mut Option<super::shape::Shape>,
    ) -> Option<Self> {
        let (fixed, pairs) = Self::read_shaped_pairs(buf, base, shape)?;
        counts.extend(pairs);
        Some(fixed)
    }

    /// [`ChunkInfoHead::read_shaped`] handing back the record's `(connection id, message
    /// count)` pairs instead of appending them: for a caller that writes them in place.
    pub fn read_shaped_pairs<'a>(
        buf: &'a [u8],
        base: u64,
        shape: &mut Option<super::shape::Shape>,
    ) -> Option<(Self, Pairs<'a>)> {
        let ([op, ver, count, chunk_pos, start, end], header_len, rest) =
            super::shape::read_fields(
                buf,
                [
                    b"op",
                    b"ver",
                    b"count",
                    b"chunk_pos",
                    b"start_time",
                    b"end_time",
                ],
                shape,
            )?;
        let (_data_len, data) = rest.split_first_chunk::<4>()?;
        if op? != [Op::ChunkInfo.byte()] || le_u32(ver?)? != 1 {
            return None;
        }
        let count = usize::try_from(le_u32(count?)?).ok()?;
        let pairs = data.get(..count.checked_mul(8)?)?;
        let data_offset = base.checked_add(8)?.checked_add(header_len as u64)?;
        let fixed = ChunkInfoHead {
            offset: base,
            chunk_pos: super::cursor::le_u64(chunk_pos?)?,
            start_time: super::cursor::le_time(start?)?,
            end_time: super::cursor::le_time(end?)?,
            end: data_offset.checked_add(pairs.len() as u64)?,
        };
        Some((fixed, Pairs(pairs.chunks_exact(8))))
    }
}

/// The `(connection id, message count)` pairs of a chunk info record, decoded as they are
/// walked (see [`ChunkInfoHead::read_shaped_pairs`]).
pub struct Pairs<'a>(std::slice::ChunksExact<'a, u8>);

impl Iterator for Pairs<'_> {
    type Item = (u32, u32);

    fn next(&mut self) -> Option<(u32, u32)> {
        let (conn, n) = self.0.next()?.split_at(4);
        Some((
            le_u32(conn).unwrap_or_default(),
            le_u32(n).unwrap_or_default(),
        ))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.0.size_hint()
    }
}

impl ExactSizeIterator for Pairs<'_> {}

impl ChunkInfo {
    /// Reads the chunk info record at `pos` of `buf` (first byte at absolute offset `base`).
    pub fn read(buf: &[u8], pos: usize, base: u64) -> Result<Self> {
        Self::from_head(&read_head(buf, pos, base)?, buf, base)
    }

    /// Reads a chunk info record whose header is `head`; `buf` (first byte at absolute offset
    /// `base`) holds its data.
    pub fn from_head(head: &RecordHead<'_>, buf: &[u8], base: u64) -> Result<Self> {
        let mut counts = Vec::new();
        let fixed = ChunkInfoHead::read_into(head, buf, base, &mut counts)?;
        Ok(ChunkInfo {
            offset: fixed.offset,
            chunk_pos: fixed.chunk_pos,
            start_time: fixed.start_time,
            end_time: fixed.end_time,
            counts,
            end: fixed.end,
        })
    }

    /// Total messages in the chunk.
    pub fn message_count(&self) -> u64 {
        self.counts.iter().map(|&(_, n)| u64::from(n)).sum()
    }

    /// Appends the encoded record to `out`.
    pub fn encode(&self, out: &mut Vec<u8>) {
        let mut data = Vec::with_capacity(self.counts.len() * 8);
        for (conn, n) in &self.counts {
            data.extend_from_slice(&conn.to_le_bytes());
            data.extend_from_slice(&n.to_le_bytes());
        }
        let count = u32::try_from(self.counts.len()).unwrap_or(u32::MAX);
        let time = |t: RosTime| {
            let mut b = [0u8; 8];
            b[..4].copy_from_slice(&t.sec.to_le_bytes());
            b[4..].copy_from_slice(&t.nsec.to_le_bytes());
            b
        };
        super::record::write_record(
            out,
            &[
                ("chunk_pos", &self.chunk_pos.to_le_bytes()),
                ("count", &count.to_le_bytes()),
                ("end_time", &time(self.end_time)),
                ("op", &[Op::ChunkInfo.byte()]),
                ("start_time", &time(self.start_time)),
                ("ver", &1u32.to_le_bytes()),
            ],
            &data,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips() {
        let info = ChunkInfo {
            offset: 0,
            chunk_pos: 4117,
            start_time: RosTime::new(5, 6),
            end_time: RosTime::new(7, 8),
            counts: vec![(0, 3), (2, 9)],
            end: 0,
        };
        let mut buf = Vec::new();
        info.encode(&mut buf);
        let back = ChunkInfo::read(&buf, 0, 0).unwrap();
        // The fast path reads the same, and declines what the general path rejects.
        let mut counts = Vec::new();
        let fast = ChunkInfoHead::read_fast(&buf, 0, &mut counts).unwrap();
        assert_eq!(
            (fast.chunk_pos, fast.start_time, fast.end_time, fast.end),
            (back.chunk_pos, back.start_time, back.end_time, back.end)
        );
        assert_eq!(counts, back.counts);
        for cut in 0..buf.len() {
            let mut counts = Vec::new();
            let fast = ChunkInfoHead::read_fast(&buf[..cut], 0, &mut counts);
            assert!(fast.is_none() && counts.is_empty(), "cut at {cut}");
            assert!(ChunkInfo::read(&buf[..cut], 0, 0).is_err(), "cut at {cut}");
        }
        assert_eq!(back.end, buf.len() as u64);
        assert_eq!(back.counts, info.counts);
        assert_eq!(back.chunk_pos, 4117);
        assert_eq!(back.message_count(), 12);
    }
}
