//! Per-chunk message lists: read from the index data records that follow a 2.0 chunk (no
//! decompression), or found by walking the chunk's records.

use std::collections::HashMap;

use crate::format::{ConnectionRecord, FormatError, IndexData, MessageDataHeader, Op, read_record};
use crate::time::RosTime;

use crate::bag::chunk::{Chunk, IndexEntry};
use crate::bag::connection::ConnId;
use crate::bag::read::heads::ChunkHead;
use crate::bag::source::Source;

/// The most a record read by [`record_at`] may hold (an index data record lists 12 bytes per
/// message; a longer one is damage).
const MAX_INDEX_RECORD: u64 = 256 << 20;

/// The whole record at `pos` of the file, with one positioned read for its lengths and one for
/// the rest (fewer bytes when the file ends, or when it claims more than
/// [`MAX_INDEX_RECORD`]: the reader then reports the record cut short).
fn record_at(source: &Source, pos: u64) -> std::borrow::Cow<'_, [u8]> {
    const GUESS: usize = 4096;
    let first = source.read_at(pos, GUESS);
    let le = |at: usize| {
        first
            .get(at..at.saturating_add(4))
            .and_then(crate::format::cursor::le_u32)
    };
    let Some(header_len) = le(0) else {
        return first;
    };
    let data_at = 4usize.saturating_add(header_len as usize);
    let total = match le(data_at) {
        Some(data_len) => data_at as u64 + 4 + u64::from(data_len),
        None => data_at as u64 + 4,
    };
    if total <= first.len() as u64 || first.len() < GUESS {
        return first;
    }
    source.read_at(
        pos,
        usize::try_from(total.min(MAX_INDEX_RECORD)).unwrap_or(0),
    )
}

/// Bytes of the file from `start`, read at once for the index data of several small chunks
/// (a fixed read, unlike `window.rs`'s sliding window for the recovery walk).
pub(crate) struct ReadAhead {
    /// Where the bytes start in the file.
    pub start: u64,
    /// The bytes.
    pub bytes: Vec<u8>,
}

impl ReadAhead {
    /// True when the byte at `pos` of the file is in the window.
    pub fn holds(&self, pos: u64) -> bool {
        pos.checked_sub(self.start)
            .is_some_and(|at| at < self.bytes.len() as u64)
    }

    /// The whole record at `pos` when the window holds all of it.
    fn record(&self, pos: u64) -> Option<&[u8]> {
        let at = usize::try_from(pos.checked_sub(self.start)?).ok()?;
        let rest = self.bytes.get(at..)?;
        rest.get(..crate::format::record_end(rest, 0)?)
    }
}

/// The error of [`from_index_data`] when the index data runs past the current end of the
/// file: still being written, or cut by a crash — not inconsistent.
pub(crate) const CUT_BY_END: &str = "index data cut by the end of the file";

/// Reads the index data records of `chunk` and checks them against its chunk info: the
/// connections and counts must agree and every offset must fall inside the chunk.
/// Records inside `window` are taken from it, the others read from `source`.
pub(crate) fn from_index_data(
    source: &Source,
    chunk: &Chunk,
    head: &ChunkHead,
    map: &HashMap<u32, ConnId>,
    window: Option<&ReadAhead>,
) -> Result<Vec<IndexEntry>, String> {
    if chunk.layout == crate::bag::chunk::ChunkLayout::Mcap {
        return crate::bag::mcap::index::from_message_indexes(source, chunk, head, map);
    }
    let mut pos = head.index_data_pos.ok_or("no index data position")?;
    let expected: u64 = chunk.message_count();
    let mut entries = Vec::with_capacity(usize::try_from(expected).unwrap_or(0).min(1 << 20));
    // Messages found per connection (a map: a chunk of a bag of very many topics holds
    // thousands of connections, and a list searched per record would be quadratic).
    let mut per_conn: HashMap<ConnId, u32> = HashMap::with_capacity(chunk.counts.len());
    for _ in 0..chunk.counts.len() {
        let rec = match window.and_then(|w| w.record(pos)) {
            Some(bytes) => std::borrow::Cow::Borrowed(bytes),
            None => record_at(source, pos),
        };
        let idx = IndexData::read(&rec, 0, pos).map_err(|e| {
            let cut = matches!(e.kind, crate::format::ErrorKind::Truncated { available, .. }
                if e.file_offset().saturating_add(available) >= source.len());
            if cut {
                CUT_BY_END.to_string()
            } else {
                format!("{e} (at byte {})", e.file_offset())
            }
        })?;
        if idx.ver != 1 {
            return Err(format!("index data version {} at byte {pos}", idx.ver));
        }
        let file_id = idx.conn.unwrap_or(u32::MAX);
        let conn = *map.get(&file_id).ok_or_else(|| {
            format!("index data at byte {pos} names unknown connection {file_id}")
        })?;
        for (time, offset) in idx.v1_entries() {
            if u64::from(offset) >= head.uncompressed_size {
                return Err(format!(
                    "index data at byte {pos} points to offset {offset}, beyond the chunk's {} bytes",
                    head.uncompressed_size
                ));
            }
            entries.push(IndexEntry {
                time,
                conn,
                chunk: chunk.index,
                offset: u64::from(offset),
            });
        }
        let n = per_conn.entry(conn).or_default();
        *n = n.saturating_add(idx.count);
        pos = idx.end;
    }
    for &(conn, n) in &chunk.counts {
        let found = per_conn.get(&conn).copied().unwrap_or(0);
        if found != n {
            return Err(format!(
                "the chunk info says {n} messages of connection {conn}, its index data lists {found}"
            ));
        }
    }
    Ok(entries)
}

/// What walking the records of one 2.0 chunk found.
#[derive(Debug, Default)]
pub(crate) struct ChunkScan {
    /// Connection records (with their offset in the chunk).
    pub connections: Vec<(ConnectionRecord, u64)>,
    /// Messages: `(time, file connection id, offset in the chunk)`.
    pub messages: Vec<(RosTime, u32, u64)>,
    /// Where and why the walk stopped early.
    pub error: Option<FormatError>,
    /// Bytes after the last complete record.
    pub unread: u64,
}

/// Where a run of records lives, for error offsets.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Origin {
    /// Uncompressed bytes starting at this file offset.
    File(u64),
    /// Decompressed data of the chunk record at this file offset.
    Chunk(u64),
}

impl Origin {
    /// Turns an error at a position in the run into one that locates it in the file.
    pub fn locate(self, mut e: FormatError) -> FormatError {
        match self {
            Origin::File(base) => {
                e.offset += base;
                e
            }
            Origin::Chunk(pos) => e.in_chunk(pos),
        }
    }

    /// The origin of a chunk's data.
    pub fn of(chunk: &Chunk, head: &ChunkHead) -> Self {
        if head.compression == crate::format::Compression::None {
            Origin::File(head.data_offset)
        } else {
            Origin::Chunk(chunk.pos)
        }
    }
}

/// Walks the records of a chunk's uncompressed data (or of a run of records at top level).
/// Offsets in the result are relative to `bytes`.
pub(crate) fn scan_records(bytes: &[u8], origin: Origin) -> ChunkScan {
    let mut scan = ChunkScan::default();
    let mut pos = 0usize;
    while pos < bytes.len() {
        let rec = match read_record(bytes, pos, 0) {
            Ok(r) => r,
            Err(e) => {
                scan.error = Some(origin.locate(e));
                break;
            }
        };
        let offset = pos as u64;
        let parsed = match rec.op() {
            Ok(Ok(Op::MessageData)) => {
                MessageDataHeader::parse(rec.header.bytes(), rec.header.base())
                    .map(|h| scan.messages.push((h.time, h.conn, offset)))
            }
            Ok(Ok(Op::Connection)) => {
                ConnectionRecord::from_record(&rec).map(|c| scan.connections.push((c, offset)))
            }
            // Other records do not belong in a chunk; skip them by their length.
            Ok(_) => Ok(()),
            Err(e) => Err(e),
        };
        if let Err(e) = parsed {
            scan.error = Some(origin.locate(e));
            break;
        }
        pos = usize::try_from(rec.end()).unwrap_or(usize::MAX);
    }
    scan.unread = bytes.len().saturating_sub(pos) as u64;
    scan
}

/// Sorts entries into reading order.
pub(crate) fn finish(mut entries: Vec<IndexEntry>) -> Vec<IndexEntry> {
    entries.sort_unstable();
    entries
}
