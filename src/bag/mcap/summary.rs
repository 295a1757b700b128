//! Opening an MCAP file from its footer and summary section: schemas, channels, chunk
//! indexes (each chunk's time range, place, compression and sizes; its per-channel message
//! counts from the sizes of its message index records, which the chunk index places), the
//! statistics, and the attachment and metadata indexes. Reads: the footer, the summary
//! section, and each metadata record the summary indexes (attachments and metadata it does
//! not index are found by [`super::extras`]). Anything that does not check out — a channel of
//! a chunk or a schema of a channel the summary does not list included — is a reason to scan
//! the file instead ([`super::scan`]).

use std::collections::{BTreeMap, HashMap};

use mcap::records::{Channel, ChunkIndex, Record, Statistics};

use crate::bag::chunk::{Chunk, ChunkLayout, ChunkState};
use crate::bag::connection::ConnId;
use crate::bag::counts::Counts;
use crate::bag::error::Warning;
use crate::bag::opened::Opened;
use crate::bag::read::heads::{ChunkHead, Heads};
use crate::bag::source::{Changed, Source};
use crate::format::Compression;
use crate::format::mcap::{self as fmt, FOOTER_LEN, MAGIC, op};
use crate::time::RosTime;

use super::{Attachment, McapInfo, MetadataRecord, SchemaDef, connection};

/// The largest summary section read (a longer one is damage: the file is scanned).
const MAX_SUMMARY: u64 = 1 << 30;

/// Bytes of a message index record with no entries: frame, channel id, entries length.
const EMPTY_MESSAGE_INDEX: u64 = fmt::FRAME + 2 + 4;

/// Why the summary could not be used: the file is scanned, and this is the scan's reason.
pub(crate) type Fallback = String;

/// What the summary gives besides the opened bag.
pub(crate) struct FromSummary {
    pub opened: Opened,
    pub info: McapInfo,
}

/// Opens the file from its summary, or says why it cannot be.
pub(crate) fn open(source: &Source) -> Result<Result<FromSummary, Fallback>, Changed> {
    let len = source.len();
    if len < MAGIC.len() as u64 + FOOTER_LEN {
        return Ok(Err("the file is too short to hold a footer".into()));
    }
    let tail = source.read_exact_at(len - FOOTER_LEN, FOOTER_LEN)?;
    if !tail.ends_with(MAGIC) {
        return Ok(Err(
            "the file does not end with the MCAP magic (cut off or still being written)".into(),
        ));
    }
    let footer = match fmt::frame_at(&tail, 0, len - FOOTER_LEN)
        .and_then(|f| fmt::parse_borrowed(&f, len - FOOTER_LEN))
    {
        Ok(Record::Footer(f)) => f,
        Ok(_) => {
            return Ok(Err(
                "the record before the closing magic is not a footer".into()
            ));
        }
        Err(e) => return Ok(Err(format!("the footer is unreadable: {e}"))),
    };
    let footer_pos = len - FOOTER_LEN;
    if footer.summary_start == 0 {
        return Ok(Err("the file has no summary section".into()));
    }
    if footer.summary_start < MAGIC.len() as u64 || footer.summary_start > footer_pos {
        return Ok(Err(format!(
            "the footer places the summary at byte {}, outside the file",
            footer.summary_start
        )));
    }
    let size = footer_pos - footer.summary_start;
    if size > MAX_SUMMARY {
        return Ok(Err(format!("the summary section claims {size} bytes")));
    }
    let summary = source.read_exact_at(footer.summary_start, size)?;
    if footer.summary_crc != 0 {
        let mut h = crc32fast::Hasher::new();
        h.update(&summary);
        // The CRC covers the summary and the footer's fields before it.
        h.update(tail.get(..fmt::FRAME_LEN + 16).unwrap_or_default());
        if h.finalize() != footer.summary_crc {
            return Ok(Err("the summary section's CRC does not match".into()));
        }
    }
    let mut parts = match read_summary(&summary, footer.summary_start) {
        Ok(p) => p,
        Err(why) => return Ok(Err(why)),
    };
    parts.data_end = footer.summary_start;
    assemble(source, parts)
}

/// The records of a summary section.
#[derive(Default)]
struct Parts {
    schemas: HashMap<u16, SchemaDef>,
    channels: BTreeMap<u16, Channel>,
    chunks: Vec<ChunkIndex>,
    statistics: Option<Statistics>,
    attachments: Vec<Attachment>,
    metadata_at: Vec<(u64, u64, String)>,
    /// Where the data section ends at the latest (the summary's start).
    data_end: u64,
}

fn read_summary(bytes: &[u8], base: u64) -> Result<Parts, String> {
    let mut parts = Parts::default();
    let mut at = 0u64;
    while at < bytes.len() as u64 {
        let frame = fmt::frame_at(bytes, at, base).map_err(|e| format!("the summary: {e}"))?;
        let offset = base + at;
        match frame.op {
            op::ATTACHMENT_INDEX
            | op::SCHEMA
            | op::CHANNEL
            | op::CHUNK_INDEX
            | op::STATISTICS
            | op::METADATA_INDEX => {
                let record =
                    fmt::parse_borrowed(&frame, offset).map_err(|e| format!("the summary: {e}"))?;
                take(&mut parts, record, offset)?;
            }
            _ => {}
        }
        at = frame.end;
    }
    Ok(parts)
}

fn take(parts: &mut Parts, record: Record<'_>, offset: u64) -> Result<(), String> {
    match record {
        Record::Schema { header, data } => {
            parts.schemas.entry(header.id).or_insert(SchemaDef {
                name: header.name,
                encoding: header.encoding,
                data: data.into_owned(),
            });
        }
        Record::Channel(c) => {
            parts.channels.entry(c.id).or_insert(c);
        }
        Record::ChunkIndex(c) => parts.chunks.push(c),
        Record::Statistics(s) => parts.statistics = Some(s),
        Record::AttachmentIndex(a) => parts.attachments.push(Attachment {
            offset: a.offset,
            name: a.name,
            media_type: a.media_type,
            size: a.data_size,
            log_time: a.log_time,
            create_time: a.create_time,
        }),
        Record::MetadataIndex(m) => parts.metadata_at.push((m.offset, m.length, m.name)),
        other => {
            return Err(format!(
                "unexpected {:?} record in the summary at byte {offset}",
                std::mem::discriminant(&other)
            ));
        }
    }
    Ok(())
}

/// Messages per channel of one chunk, from the places of its message index records: each
/// record runs to the next one (the last to the end of the chunk's message index section),
/// and holds 16 bytes per message after its 15 bytes of frame and fields.
fn chunk_counts(c: &ChunkIndex) -> Result<Vec<(u16, u32)>, String> {
    let section_start = c.chunk_start_offset.saturating_add(c.chunk_length);
    let section_end = section_start.saturating_add(c.message_index_length);
    let mut places: Vec<(u64, u16)> = c
        .message_index_offsets
        .iter()
        .map(|(&ch, &at)| (at, ch))
        .collect();
    places.sort_unstable();
    let mut counts = Vec::with_capacity(places.len());
    for (i, &(at, ch)) in places.iter().enumerate() {
        let next = places.get(i + 1).map_or(section_end, |&(n, _)| n);
        if at < section_start || next > section_end || next < at {
            return Err(format!(
                "the chunk at byte {} places a message index outside its index section",
                c.chunk_start_offset
            ));
        }
        let size = next - at;
        let entries = size
            .checked_sub(EMPTY_MESSAGE_INDEX)
            .filter(|n| n % 16 == 0)
            .map(|n| n / 16)
            .and_then(|n| u32::try_from(n).ok())
            .ok_or_else(|| {
                format!(
                    "the message index of channel {ch} of the chunk at byte {} is {size} bytes",
                    c.chunk_start_offset
                )
            })?;
        if entries > 0 {
            counts.push((ch, entries));
        }
    }
    Ok(counts)
}

/// A chunk's compression (`""` is none).
pub(crate) fn parse_compression(name: &str) -> Option<Compression> {
    if name.is_empty() {
        return Some(Compression::None);
    }
    Compression::parse(name.as_bytes())
}

/// Messages per channel of one chunk, read from its message index records.
fn read_counts(
    source: &Source,
    c: &ChunkIndex,
) -> Result<Result<Vec<(u16, u32)>, String>, Changed> {
    let start = c.chunk_start_offset.saturating_add(c.chunk_length);
    let len = c.message_index_length.min(MAX_SUMMARY);
    let bytes = source.read_exact_at(start, len)?;
    let mut counts = Vec::new();
    let mut at = 0u64;
    while at < bytes.len() as u64 {
        let frame = match fmt::frame_at(&bytes, at, start) {
            Ok(f) => f,
            Err(e) => return Ok(Err(format!("a message index: {e}"))),
        };
        if frame.op == op::MESSAGE_INDEX {
            let entries = frame
                .body
                .get(2..6)
                .and_then(|b| b.try_into().ok())
                .map(u32::from_le_bytes)
                .ok_or_else(|| format!("a message index at byte {} is too short", start + at));
            let channel = frame
                .body
                .first_chunk::<2>()
                .map_or(0, |b| u16::from_le_bytes(*b));
            match entries {
                Ok(n) if n / 16 > 0 => counts.push((channel, n / 16)),
                Ok(_) => {}
                Err(why) => return Ok(Err(why)),
            }
        }
        at = frame.end;
    }
    Ok(Ok(counts))
}

fn assemble(source: &Source, mut parts: Parts) -> Result<Result<FromSummary, Fallback>, Changed> {
    if parts.chunks.is_empty() {
        let has_messages = parts
            .statistics
            .as_ref()
            .is_none_or(|s| s.message_count > 0);
        if has_messages {
            return Ok(Err(
                "the summary has no chunk index (messages outside chunks, or no index)".into(),
            ));
        }
    }
    for ch in parts.channels.values() {
        if ch.schema_id != 0 && !parts.schemas.contains_key(&ch.schema_id) {
            return Ok(Err(format!(
                "the summary lists channel {} without its schema {}",
                ch.id, ch.schema_id
            )));
        }
    }
    parts.chunks.sort_by_key(|c| c.chunk_start_offset);
    let len = source.len();
    let mut map = HashMap::new();
    for (i, &id) in parts.channels.keys().enumerate() {
        map.insert(u32::from(id), ConnId::try_from(i).unwrap_or(ConnId::MAX));
    }
    let mut chunks = Vec::with_capacity(parts.chunks.len());
    let mut heads = Vec::with_capacity(parts.chunks.len());
    let mut per_conn = vec![0u64; map.len()];
    let mut warnings = Vec::new();
    let writes_indexes = parts.chunks.iter().any(|c| c.message_index_length > 0);
    let mut unindexed: Option<u64> = None;
    for (i, c) in parts.chunks.iter().enumerate() {
        // Records padded past their entries (allowed) do not tell their count by their
        // size: the chunk's message index section is read then.
        let counts = match chunk_counts(c) {
            Ok(counts) => counts,
            Err(_) => match read_counts(source, c)? {
                Ok(counts) => counts,
                Err(why) => return Ok(Err(why)),
            },
        };
        if counts.is_empty() && c.uncompressed_size > 0 && c.message_index_length == 0 {
            // A writer that indexes its chunks writes no index for a chunk without messages
            // (one of only schemas and channels, before a metadata record or an attachment).
            if !writes_indexes {
                return Ok(Err(format!(
                    "the chunk at byte {} has no message index: its messages are not counted",
                    c.chunk_start_offset
                )));
            }
            unindexed.get_or_insert(c.chunk_start_offset);
        }
        let end = c.chunk_start_offset.saturating_add(c.chunk_length);
        if end > len || c.chunk_start_offset < MAGIC.len() as u64 {
            return Ok(Err(format!(
                "the chunk index places a chunk at byte {} past the end of the file",
                c.chunk_start_offset
            )));
        }
        let mut dense = Vec::with_capacity(counts.len());
        for (ch, n) in counts {
            let Some(&conn) = map.get(&u32::from(ch)) else {
                return Ok(Err(format!(
                    "the chunk at byte {} holds channel {ch}, which the summary does not list",
                    c.chunk_start_offset
                )));
            };
            if let Some(t) = per_conn.get_mut(conn as usize) {
                *t += u64::from(n);
            }
            dense.push((conn, n));
        }
        dense.sort_unstable();
        let Some(compression) = parse_compression(&c.compression) else {
            return Ok(Err(format!(
                "the chunk at byte {} is compressed with '{}', which bagscope cannot read",
                c.chunk_start_offset, c.compression
            )));
        };
        heads.push(ChunkHead {
            data_offset: c
                .chunk_start_offset
                .saturating_add(fmt::FRAME)
                .saturating_add(fmt::chunk_prefix_len(&c.compression)),
            compressed_size: c.compressed_size,
            uncompressed_size: c.uncompressed_size,
            compression,
            index_data_pos: (c.message_index_length > 0).then_some(end),
        });
        chunks.push(Chunk {
            index: u32::try_from(i).unwrap_or(u32::MAX),
            pos: c.chunk_start_offset,
            layout: ChunkLayout::Mcap,
            state: ChunkState::Complete,
            start: RosTime::from_nanos(c.message_start_time),
            end: RosTime::from_nanos(c.message_end_time),
            counts: Counts::from(dense),
        });
    }
    if let Some(s) = &parts.statistics {
        let total: u64 = per_conn.iter().sum();
        if s.message_count != total {
            if let Some(at) = unindexed {
                return Ok(Err(format!(
                    "the chunk at byte {at} has no message index and the statistics count {} messages, the indexes {total}",
                    s.message_count
                )));
            }
            warnings.push(Warning::general(format!(
                "the statistics record counts {} messages, the chunk indexes {total}",
                s.message_count
            )));
        }
    }
    let connections = parts
        .channels
        .values()
        .enumerate()
        .map(|(i, ch)| {
            let id = ConnId::try_from(i).unwrap_or(ConnId::MAX);
            let schema = parts.schemas.get(&ch.schema_id);
            connection(id, ch, schema, per_conn.get(i).copied().unwrap_or(0))
        })
        .collect();
    let metadata = attachments_and_metadata(source, &mut parts, &mut warnings)?;
    let opened = Opened {
        connections,
        conn_map: map,
        chunks,
        heads: Heads::known(heads.into_iter()),
        entries: Vec::new(),
        warnings,
        recovery: None,
        totals: None,
        mcap: None,
    };
    let info = McapInfo {
        profile: String::new(),
        library: String::new(),
        attachments: parts.attachments,
        metadata,
        from_summary: true,
        channel_metadata: parts
            .channels
            .values()
            .map(|c| (u32::from(c.id), c.metadata.clone()))
            .collect(),
    };
    Ok(Ok(FromSummary { opened, info }))
}

/// The metadata records (read where the summary's index places them), and the attachments
/// in `parts`. Those the summary does not index (its statistics count more, or it has
/// neither) are found by walking the data section's top-level records.
fn attachments_and_metadata(
    source: &Source,
    parts: &mut Parts,
    warnings: &mut Vec<Warning>,
) -> Result<Vec<MetadataRecord>, Changed> {
    let unindexed = match &parts.statistics {
        Some(s) => {
            s.metadata_count as usize > parts.metadata_at.len()
                || s.attachment_count as usize > parts.attachments.len()
        }
        None => parts.metadata_at.is_empty() && parts.attachments.is_empty(),
    };
    if unindexed {
        let skips = parts
            .chunks
            .iter()
            .map(|c| {
                let n = c.chunk_length.saturating_add(c.message_index_length);
                (c.chunk_start_offset, n)
            })
            .collect();
        let found = super::extras::walk(source, parts.data_end, &skips, warnings)?;
        parts.attachments = found.attachments;
        return Ok(found.metadata);
    }
    Ok(std::mem::take(&mut parts.metadata_at)
        .into_iter()
        .map(|(offset, length, name)| read_metadata(source, offset, length, name, warnings))
        .collect())
}

/// The metadata record at `offset` (its name from the index when it cannot be read).
fn read_metadata(
    source: &Source,
    offset: u64,
    length: u64,
    name: String,
    warnings: &mut Vec<Warning>,
) -> MetadataRecord {
    let length = length.min(super::extras::MAX_METADATA);
    let bytes = source.read_at(offset, usize::try_from(length).unwrap_or(0));
    let read = fmt::frame_at(&bytes, 0, offset).and_then(|f| fmt::parse_borrowed(&f, offset));
    match read {
        Ok(Record::Metadata(m)) => MetadataRecord {
            name: m.name,
            entries: m.metadata,
        },
        other => {
            let why = match other {
                Err(e) => e.to_string(),
                Ok(_) => "not a metadata record".into(),
            };
            warnings.push(Warning::at(
                offset,
                format!("the metadata record '{name}' is unreadable: {why}"),
            ));
            MetadataRecord {
                name,
                entries: BTreeMap::new(),
            }
        }
    }
}

/// The header record at the start of the file: profile and library.
pub(crate) fn header(source: &Source) -> (String, String) {
    let first = source.read_at(MAGIC.len() as u64, 4096);
    let read = fmt::frame_at(&first, 0, MAGIC.len() as u64)
        .and_then(|f| fmt::parse_borrowed(&f, MAGIC.len() as u64));
    match read {
        Ok(Record::Header(h)) => (h.profile, h.library),
        _ => (String::new(), String::new()),
    }
}
