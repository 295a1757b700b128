//! The CRCs an MCAP file keeps: a chunk record's of its uncompressed records, checked against
//! what the chunk decoded to (`verify` checks every chunk; reading does not: a chunk that
//! decodes is read as it is), and the data end record's of the data section (checked by a
//! scan that found nothing else wrong).

use crate::bag::chunk::{Chunk, ChunkLayout, ChunkState};
use crate::bag::handle::Bag;
use crate::bag::source::{Changed, Source};
use crate::format::mcap as fmt;

/// Bytes read for a chunk record's fields before its records: frame, times, size, CRC, a
/// compression name (of up to 64 bytes) and the records' length.
const PREFIX_READ: u64 = fmt::FRAME + 32 + 64 + 8;

/// Checks `records` (the uncompressed records of `chunk`, all of them) against the CRC its
/// chunk record carries. `None` when they match, when the record carries none (0), when the
/// chunk is not a whole MCAP chunk record (a run of loose records, a chunk cut off), or when
/// `records` is not all of it (a chunk that did not decode: reported as such); else what is
/// wrong.
pub(crate) fn chunk_crc_mismatch(bag: &Bag, chunk: &Chunk, records: &[u8]) -> Option<String> {
    if chunk.layout != ChunkLayout::Mcap || chunk.state != ChunkState::Complete {
        return None;
    }
    let head = bag.chunk_head(chunk.index)?;
    if head.data_offset == chunk.pos || records.len() as u64 != head.uncompressed_size {
        return None;
    }
    let source = bag.source();
    let len = PREFIX_READ.min(source.len().saturating_sub(chunk.pos));
    let bytes = source.read_at(chunk.pos, usize::try_from(len).unwrap_or(0));
    let prefix = fmt::chunk_prefix(bytes.get(fmt::FRAME_LEN..)?)?;
    if prefix.uncompressed_crc == 0 {
        return None;
    }
    let crc = crc32fast::hash(records);
    (crc != prefix.uncompressed_crc).then(|| {
        format!(
            "the chunk's records do not match their CRC (0x{crc:08x}, the chunk says 0x{:08x})",
            prefix.uncompressed_crc
        )
    })
}

/// Bytes hashed at a time by [`data_section`].
const PIECE: u64 = 4 << 20;

/// The CRC-32 of the file's bytes before `end` (the data end record's offset): what the data
/// end record's `data_section_crc` covers.
pub(crate) fn data_section(source: &Source, end: u64) -> Result<u32, Changed> {
    let mut h = crc32fast::Hasher::new();
    let mut at = 0u64;
    while at < end {
        let n = (end - at).min(PIECE);
        h.update(&source.read_exact_at(at, n)?);
        at += n;
    }
    Ok(h.finalize())
}
