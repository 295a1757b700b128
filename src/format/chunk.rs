//! The chunk record header (op 0x05): compression method and uncompressed size.

use super::compression::Compression;
use super::error::{ErrorKind, FormatError, Result};
use super::op::{Op, RecordKind};
use super::record::{Record, RecordHead};

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
