//! The on-disk layout of a bagscope index file (see `docs/index-format.md`): a checksummed
//! header, a metadata section (files, topics), fixed-size sorted entries, and a table of
//! per-block checksums so that a query verifies only the entries it reads.

use twox_hash::XxHash64;

use crate::format::cursor::{Cursor, le_u32, le_u64};
use crate::format::{FormatError, RecordKind};

/// The first 16 bytes of every index file.
pub const MAGIC: &[u8; 16] = b"BAGSCOPE-INDEX\r\n";
/// The layout version written.
pub const VERSION: u32 = 1;
/// Header size.
pub const HEADER_LEN: usize = 128;
/// Bytes per entry.
pub const ENTRY_LEN: usize = 32;
/// Entries per checksummed block.
pub const BLOCK_ENTRIES: usize = 4096;

/// xxHash64 of `bytes` (seed 0), the checksum used throughout.
pub fn checksum(bytes: &[u8]) -> u64 {
    XxHash64::oneshot(0, bytes)
}

/// The header fields.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IndexHeader {
    /// Total file length.
    pub file_len: u64,
    /// Bag files.
    pub file_count: u32,
    /// Topic groups (name, type, md5sum).
    pub topic_count: u32,
    /// Entries.
    pub entry_count: u64,
    /// Offset and length of the metadata section.
    pub meta_offset: u64,
    /// See `meta_offset`.
    pub meta_len: u64,
    /// Offset of the entries.
    pub entries_offset: u64,
    /// Offset of the block checksum table.
    pub blocks_offset: u64,
    /// Checksum of the metadata section.
    pub meta_checksum: u64,
    /// Checksum of the block table.
    pub blocks_checksum: u64,
}

impl IndexHeader {
    /// Encodes the 128-byte header (its own checksum last).
    pub fn encode(&self) -> [u8; HEADER_LEN] {
        let mut h = [0u8; HEADER_LEN];
        let mut put = |at: usize, b: &[u8]| {
            if let Some(dst) = h.get_mut(at..at + b.len()) {
                dst.copy_from_slice(b);
            }
        };
        put(0, MAGIC);
        put(16, &VERSION.to_le_bytes());
        put(20, &u32::try_from(HEADER_LEN).unwrap_or(0).to_le_bytes());
        put(24, &self.file_len.to_le_bytes());
        put(32, &self.file_count.to_le_bytes());
        put(36, &self.topic_count.to_le_bytes());
        put(40, &self.entry_count.to_le_bytes());
        put(48, &self.meta_offset.to_le_bytes());
        put(56, &self.meta_len.to_le_bytes());
        put(64, &self.entries_offset.to_le_bytes());
        put(72, &self.blocks_offset.to_le_bytes());
        put(80, &u32::try_from(BLOCK_ENTRIES).unwrap_or(0).to_le_bytes());
        put(88, &self.meta_checksum.to_le_bytes());
        put(96, &self.blocks_checksum.to_le_bytes());
        let sum = checksum(h.get(..120).unwrap_or_default());
        if let Some(dst) = h.get_mut(120..128) {
            dst.copy_from_slice(&sum.to_le_bytes());
        }
        h
    }

    /// Decodes and checks a header (magic, version, checksum, sizes against the length of
    /// `bytes`, the whole file).
    #[cfg(test)]
    pub fn decode(bytes: &[u8]) -> Result<Self, String> {
        Self::decode_sized(bytes, bytes.len() as u64)
    }

    /// Decodes and checks a header read from the start of a file of `file_len` bytes (`bytes`
    /// holds at least the header).
    pub fn decode_sized(bytes: &[u8], file_len: u64) -> Result<Self, String> {
        let h = bytes
            .get(..HEADER_LEN)
            .ok_or("the file is too short to be a bagscope index")?;
        if h.get(..16) != Some(MAGIC.as_slice()) {
            return Err("not a bagscope index (bad magic)".into());
        }
        let u32_at = |at: usize| h.get(at..at + 4).and_then(le_u32).unwrap_or(0);
        let u64_at = |at: usize| h.get(at..at + 8).and_then(le_u64).unwrap_or(0);
        let version = u32_at(16);
        if version != VERSION {
            return Err(format!(
                "index version {version} is not supported (this bagscope reads version {VERSION}); rebuild it"
            ));
        }
        if u64_at(120) != checksum(h.get(..120).unwrap_or_default()) {
            return Err("the index header is damaged (checksum mismatch)".into());
        }
        if u32_at(80) as usize != BLOCK_ENTRIES || u32_at(20) as usize != HEADER_LEN {
            return Err("unexpected index geometry".into());
        }
        let header = IndexHeader {
            file_len: u64_at(24),
            file_count: u32_at(32),
            topic_count: u32_at(36),
            entry_count: u64_at(40),
            meta_offset: u64_at(48),
            meta_len: u64_at(56),
            entries_offset: u64_at(64),
            blocks_offset: u64_at(72),
            meta_checksum: u64_at(88),
            blocks_checksum: u64_at(96),
        };
        let len = file_len;
        let entries_end = header
            .entry_count
            .checked_mul(ENTRY_LEN as u64)
            .and_then(|n| n.checked_add(header.entries_offset));
        let blocks_end = header
            .entry_count
            .div_ceil(BLOCK_ENTRIES as u64)
            .checked_mul(8)
            .and_then(|n| n.checked_add(header.blocks_offset));
        let meta_end = header.meta_offset.checked_add(header.meta_len);
        if header.file_len != len
            || [entries_end, blocks_end, meta_end]
                .iter()
                .any(|e| e.is_none_or(|e| e > len))
        {
            return Err(format!(
                "the index is truncated or damaged: {len} bytes, its header describes {}",
                header.file_len
            ));
        }
        Ok(header)
    }
}

/// One message in the index.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RawEntry {
    /// Receive time, total nanoseconds.
    pub time: u64,
    /// Bag file index.
    pub file: u32,
    /// Connection id in that file.
    pub conn: u32,
    /// Chunk index in that bag.
    pub chunk: u32,
    /// Offset of the record in the chunk's uncompressed data (absolute for old layouts).
    pub offset: u64,
}

impl RawEntry {
    /// Encodes the 32-byte entry.
    pub fn encode(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.time.to_le_bytes());
        out.extend_from_slice(&self.file.to_le_bytes());
        out.extend_from_slice(&self.conn.to_le_bytes());
        out.extend_from_slice(&self.chunk.to_le_bytes());
        out.extend_from_slice(&0u32.to_le_bytes());
        out.extend_from_slice(&self.offset.to_le_bytes());
    }

    /// Decodes a 32-byte entry.
    pub fn decode(b: &[u8]) -> Option<RawEntry> {
        Some(RawEntry {
            time: le_u64(b.get(0..8)?)?,
            file: le_u32(b.get(8..12)?)?,
            conn: le_u32(b.get(12..16)?)?,
            chunk: le_u32(b.get(16..20)?)?,
            offset: le_u64(b.get(24..32)?)?,
        })
    }
}

/// A bag file as indexed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IndexedFile {
    /// Absolute path when built.
    pub path: String,
    /// Path relative to the index file's directory (used when the absolute path is gone).
    pub relative: String,
    /// Size in bytes when built.
    pub size: u64,
    /// Modification time (ns since the epoch) when built.
    pub mtime_ns: i64,
}

/// A topic with one type and md5sum, and where its entries are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IndexedTopic {
    /// Topic name.
    pub topic: String,
    /// Type.
    pub datatype: String,
    /// md5sum.
    pub md5sum: String,
    /// First entry (index into the entries).
    pub first: u64,
    /// Number of entries.
    pub count: u64,
    /// Earliest and latest receive time (ns).
    pub start: u64,
    /// See `start`.
    pub end: u64,
}

fn put_str(out: &mut Vec<u8>, s: &str) {
    out.extend_from_slice(&u32::try_from(s.len()).unwrap_or(u32::MAX).to_le_bytes());
    out.extend_from_slice(s.as_bytes());
}

/// Encodes the metadata section.
pub fn encode_meta(files: &[IndexedFile], topics: &[IndexedTopic]) -> Vec<u8> {
    let mut out = Vec::new();
    for f in files {
        put_str(&mut out, &f.path);
        put_str(&mut out, &f.relative);
        out.extend_from_slice(&f.size.to_le_bytes());
        out.extend_from_slice(&f.mtime_ns.to_le_bytes());
    }
    for t in topics {
        put_str(&mut out, &t.topic);
        put_str(&mut out, &t.datatype);
        put_str(&mut out, &t.md5sum);
        for v in [t.first, t.count, t.start, t.end] {
            out.extend_from_slice(&v.to_le_bytes());
        }
    }
    out
}

/// Decodes the metadata section (bounds-checked; counts come from the checked header).
pub fn decode_meta(
    bytes: &[u8],
    base: u64,
    files: u32,
    topics: u32,
) -> Result<(Vec<IndexedFile>, Vec<IndexedTopic>), FormatError> {
    let mut c = Cursor::new(bytes, base, RecordKind::Record);
    let string = |c: &mut Cursor<'_>| -> Result<String, FormatError> {
        let n = c.u32("string length")?;
        Ok(String::from_utf8_lossy(c.take_len(u64::from(n), "string")?).into_owned())
    };
    let mut fs = Vec::new();
    for _ in 0..files {
        let path = string(&mut c)?;
        let relative = string(&mut c)?;
        let size = c.u64("file size")?;
        let mtime = c.u64("modification time")?;
        fs.push(IndexedFile {
            path,
            relative,
            size,
            mtime_ns: i64::from_le_bytes(mtime.to_le_bytes()),
        });
    }
    let mut ts = Vec::new();
    for _ in 0..topics {
        let topic = string(&mut c)?;
        let datatype = string(&mut c)?;
        let md5sum = string(&mut c)?;
        ts.push(IndexedTopic {
            topic,
            datatype,
            md5sum,
            first: c.u64("first entry")?,
            count: c.u64("entry count")?,
            start: c.u64("start")?,
            end: c.u64("end")?,
        });
    }
    Ok((fs, ts))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_and_entries_round_trip_and_damage_is_caught() {
        let h = IndexHeader {
            file_len: 200,
            file_count: 1,
            topic_count: 2,
            entry_count: 2,
            meta_offset: 128,
            meta_len: 0,
            entries_offset: 128,
            blocks_offset: 192,
            meta_checksum: 7,
            blocks_checksum: 9,
        };
        let mut bytes = h.encode().to_vec();
        bytes.resize(200, 0);
        assert_eq!(IndexHeader::decode(&bytes).unwrap(), h);
        let mut bad = bytes.clone();
        bad[40] ^= 1;
        assert!(IndexHeader::decode(&bad).unwrap_err().contains("checksum"));
        assert!(IndexHeader::decode(&bytes[..150]).is_err());
        assert!(IndexHeader::decode(b"hello").is_err());
        let e = RawEntry {
            time: 5,
            file: 1,
            conn: 2,
            chunk: 3,
            offset: 4,
        };
        let mut out = Vec::new();
        e.encode(&mut out);
        assert_eq!(out.len(), ENTRY_LEN);
        assert_eq!(RawEntry::decode(&out), Some(e));
    }
}
