//! A chunk's messages: from the message index records that follow an MCAP chunk (no
//! decompression; checked against the counts the chunk index gave), or by walking the
//! records of its uncompressed data.

use std::collections::HashMap;

use crate::bag::chunk::{Chunk, IndexEntry};
use crate::bag::connection::ConnId;
use crate::bag::read::heads::ChunkHead;
use crate::bag::source::Source;
use crate::format::mcap::{self as fmt, op};
use crate::format::{ErrorKind, FormatError, RecordKind};
use crate::time::RosTime;

/// The most bytes of message index records read for one chunk.
const MAX_INDEX_BYTES: u64 = 256 << 20;

/// Reads the message index records of `chunk` (at the head's `index_data_pos`) and checks
/// them against its counts: every counted channel once, with as many entries as counted,
/// every offset inside the chunk's uncompressed data.
pub(crate) fn from_message_indexes(
    source: &Source,
    chunk: &Chunk,
    head: &ChunkHead,
    map: &HashMap<u32, ConnId>,
) -> Result<Vec<IndexEntry>, String> {
    let pos = head.index_data_pos.ok_or("no message index position")?;
    let expected = chunk.message_count();
    // Every counted channel's record, plus room for a few empty ones.
    let want = chunk
        .counts
        .iter()
        .map(|&(_, n)| 15 + 16 * u64::from(n))
        .sum::<u64>()
        .saturating_add(15 * 64)
        .min(MAX_INDEX_BYTES);
    let bytes = source.read_at(pos, usize::try_from(want).unwrap_or(0));
    let mut entries = Vec::with_capacity(usize::try_from(expected).unwrap_or(0).min(1 << 20));
    let mut per_conn: HashMap<ConnId, u32> = HashMap::with_capacity(chunk.counts.len());
    let mut at = 0u64;
    while (entries.len() as u64) < expected {
        let frame = match fmt::frame_at(&bytes, at, pos) {
            Ok(f) => f,
            Err(e) => return Err(format!("{e} (at byte {})", e.file_offset())),
        };
        if frame.op != op::MESSAGE_INDEX {
            break;
        }
        let (ch, rest) = frame
            .body
            .split_first_chunk::<2>()
            .ok_or("a message index record too short for its channel id")?;
        let (n, list) = rest
            .split_first_chunk::<4>()
            .ok_or("a message index record too short for its length")?;
        let n = u32::from_le_bytes(*n) as usize;
        let list = list
            .get(..n)
            .ok_or("a message index longer than its record")?;
        let file_id = u32::from(u16::from_le_bytes(*ch));
        let records = list.chunks_exact(16);
        if !records.remainder().is_empty() {
            return Err(format!("a message index of {n} bytes at byte {}", pos + at));
        }
        if records.len() > 0 {
            let conn = *map.get(&file_id).ok_or_else(|| {
                format!(
                    "the message index at byte {} names unknown channel {file_id}",
                    pos + at
                )
            })?;
            for r in records {
                let (t, o) = r.split_at(8);
                let time = u64::from_le_bytes(t.try_into().unwrap_or_default());
                let offset = u64::from_le_bytes(o.try_into().unwrap_or_default());
                if offset >= head.uncompressed_size {
                    return Err(format!(
                        "the message index at byte {} points to offset {offset}, beyond the chunk's {} bytes",
                        pos + at,
                        head.uncompressed_size
                    ));
                }
                entries.push(IndexEntry {
                    time: RosTime::from_nanos(time),
                    conn,
                    chunk: chunk.index,
                    offset,
                });
                let c = per_conn.entry(conn).or_default();
                *c = c.saturating_add(1);
            }
        }
        at = frame.end;
    }
    for &(conn, n) in &chunk.counts {
        let found = per_conn.get(&conn).copied().unwrap_or(0);
        if found != n {
            return Err(format!(
                "the chunk index counts {n} messages of connection {conn}, its message index lists {found}"
            ));
        }
    }
    Ok(entries)
}

/// What walking the records of an MCAP chunk's data (or of a run of records at top level)
/// found: messages as `(time, channel id, offset in bytes)`, and the error that stopped the
/// walk early.
#[derive(Debug, Default)]
pub(crate) struct Walk {
    /// Messages found.
    pub messages: Vec<(RosTime, u32, u64)>,
    /// Schemas and channels met, as records (for a scan that learns them on the way).
    pub records: Vec<(u64, mcap::records::Record<'static>)>,
    /// Where and why the walk stopped early.
    pub error: Option<FormatError>,
    /// Bytes after the last whole record.
    pub unread: u64,
}

/// Walks the records of `bytes`; `base` places errors (`Some(chunk pos)`: offsets inside that
/// chunk's data; `None`: `bytes` starts at file offset `file_base`). Schema and channel records
/// are kept when `keep_definitions`.
pub(crate) fn walk(
    bytes: &[u8],
    chunk_pos: Option<u64>,
    file_base: u64,
    keep_definitions: bool,
) -> Walk {
    let mut w = Walk::default();
    let mut at = 0u64;
    let locate = |e: FormatError| match chunk_pos {
        Some(pos) => e.in_chunk(pos),
        None => e,
    };
    let base = if chunk_pos.is_some() { 0 } else { file_base };
    while at < bytes.len() as u64 {
        let start = usize::try_from(at).unwrap_or(usize::MAX);
        if let Some(m) = fmt::message_at(bytes, start) {
            w.messages
                .push((RosTime::from_nanos(m.log_time), u32::from(m.channel), at));
            at = m.data_end as u64;
            continue;
        }
        let frame = match fmt::frame_at(bytes, at, base) {
            Ok(f) => f,
            Err(e) => {
                w.error = Some(locate(e));
                break;
            }
        };
        match frame.op {
            op::MESSAGE => {
                w.error = Some(locate(FormatError::new(
                    base + at,
                    RecordKind::Mcap(op::MESSAGE),
                    ErrorKind::Truncated {
                        what: "MCAP message record",
                        needed: 22,
                        available: frame.body.len() as u64,
                    },
                )));
                break;
            }
            op::SCHEMA | op::CHANNEL if keep_definitions => match fmt::parse(&frame, base + at) {
                Ok(r) => w.records.push((base + at, r)),
                Err(e) => {
                    w.error = Some(locate(e));
                    break;
                }
            },
            _ => {}
        }
        at = frame.end;
    }
    w.unread = (bytes.len() as u64).saturating_sub(at);
    w
}
