//! The chunk record header (op 0x05): compression method and uncompressed size.

use super::compression::Compression;
use super::error::{ErrorKind, FormatError, Result};
use super::op::{Op, RecordKind};
use super::record::{Record, RecordHead, write_record_head};

/// The fields of a chunk record header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChunkHeader {
    /// How the data is compressed.
    pub compression: Compression,
    /// Declared uncompressed size.
    pub size: u32,
}

impl ChunkHeader {
    /// Reads the header of a chunk record whose data may be incomplete.
    pub fn from_head(head: &RecordHead<'_>) -> Result<Self> {
        let h = head.header.with_kind(RecordKind::Chunk);
        let [op, compression, size] = h.pick(["op", "compression", "size"]);
        let op = h.convert(op, "op", 1, |v| match v {
            [b] => Some(*b),
            _ => None,
        })?;
        if op != Op::Chunk.byte() {
            return Err(FormatError::new(
                head.offset,
                RecordKind::Chunk,
                ErrorKind::UnexpectedOp {
                    found: op,
                    expected: RecordKind::Chunk,
                },
            ));
        }
        let field = compression.ok_or_else(|| {
            FormatError::new(
                head.offset,
                RecordKind::Chunk,
                ErrorKind::MissingField("compression"),
            )
        })?;
        let compression = Compression::parse(field.value).ok_or_else(|| {
            FormatError::new(
                field.offset,
                RecordKind::Chunk,
                ErrorKind::UnknownCompression(String::from_utf8_lossy(field.value).into_owned()),
            )
        })?;
        Ok(ChunkHeader {
            compression,
            size: h.u32_of(size, "size")?,
        })
    }

    /// The hot path of reading many chunk record headers: a well-formed chunk record header
    /// at the start of `buf`, its fields found in one pass: the header, the declared data
    /// length and where the data starts in `buf`. `None` when anything is off or unusual
    /// ([`read_head`](super::read_head) and [`ChunkHeader::from_head`] then tell what).
    pub fn read_fast(buf: &[u8]) -> Option<(Self, u32, usize)> {
        Self::read_shaped(buf, &mut None)
    }

    /// [`ChunkHeader::read_fast`] through the header layout of the previous chunk record
    /// read with the same `shape` (see [`super::shape`]), learning it when it differs.
    pub fn read_shaped(
        buf: &[u8],
        shape: &mut Option<super::shape::Shape>,
    ) -> Option<(Self, u32, usize)> {
        let ([op, compression, size], header_len, rest) =
            super::shape::read_fields(buf, [b"op", b"compression", b"size"], shape)?;
        let (data_len, _) = rest.split_first_chunk::<4>()?;
        if op? != [Op::Chunk.byte()] {
            return None;
        }
        let head = ChunkHeader {
            compression: Compression::parse(compression?)?,
            size: u32::from_le_bytes(size?.try_into().ok()?),
        };
        Some((
            head,
            u32::from_le_bytes(*data_len),
            header_len.checked_add(8)?,
        ))
    }

    /// Appends the chunk record's header and `data_len` (the compressed size) to `out`; the
    /// `data_len` bytes of compressed data follow.
    pub fn encode_head(&self, out: &mut Vec<u8>, data_len: u32) {
        write_record_head(
            out,
            &[
                ("compression", self.compression.name().as_bytes()),
                ("op", &[Op::Chunk.byte()]),
                ("size", &self.size.to_le_bytes()),
            ],
            data_len,
        );
    }

    /// Reads the header of a complete chunk record.
    pub fn from_record(record: &Record<'_>) -> Result<Self> {
        Self::from_head(&RecordHead {
            offset: record.offset,
            header: record.header,
            data_len: u32::try_from(record.data.len()).unwrap_or(u32::MAX),
            data_offset: record.data_offset,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::record::read_head;

    #[test]
    fn encodes_a_head_that_reads_back() {
        let h = ChunkHeader {
            compression: Compression::Lz4,
            size: 1234,
        };
        let mut buf = Vec::new();
        h.encode_head(&mut buf, 7);
        buf.extend_from_slice(b"1234567");
        let head = read_head(&buf, 0, 0).unwrap();
        assert_eq!(head.data_len, 7);
        assert_eq!(head.end(), buf.len() as u64);
        assert_eq!(ChunkHeader::from_head(&head).unwrap(), h);
        let (fast, data_len, data_at) = ChunkHeader::read_fast(&buf).unwrap();
        assert_eq!((fast, data_len, data_at as u64), (h, 7, head.data_offset));
        for cut in 0..data_at {
            assert!(
                ChunkHeader::read_fast(&buf[..cut]).is_none(),
                "cut at {cut}"
            );
            let general = read_head(&buf[..cut], 0, 0).and_then(|h| ChunkHeader::from_head(&h));
            assert!(general.is_err(), "cut at {cut}");
        }
    }
}
