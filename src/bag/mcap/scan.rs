//! Reading an MCAP file front to back, as `mcap recover` does: for a file without a summary
//! (a recording cut off, a writer that leaves it out) or with one that does not check out.
//! Schemas and channels are learned where they appear (in chunks too); each chunk is
//! decompressed (within the size cap) and walked; messages outside chunks become pseudo-chunks
//! of the file. A record cut off by the end of the file, a chunk that does not decompress or
//! whose CRC does not match, message index records that follow no chunk (a chunk whose
//! opcode was damaged), a data section that does not match its CRC, and messages of channels
//! never declared are losses. With [`Settings::partial`] set, the file as found so far is
//! handed out while the walk runs, at the pace [`super::scan_pace`] sets.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use mcap::records::{Channel, Record};

use crate::bag::chunk::{Chunk, ChunkLayout, ChunkState, IndexEntry};
use crate::bag::connection::ConnId;
use crate::bag::counts::Counts;
use crate::bag::opened::Opened;
use crate::bag::read::entries::finish;
use crate::bag::read::heads::{ChunkHead, Heads};
use crate::bag::recovery::{Loss, ProgressFn, Recovery, RecoveryProgress};
use crate::bag::source::{Changed, Source};
use crate::format::compression::decompress;
use crate::format::mcap::{self as fmt, MAGIC, op};
use crate::format::{Compression, ErrorKind};
use crate::time::RosTime;

use super::index::walk;
use super::scan_window::{WINDOW, Window};
use super::{Attachment, McapInfo, MetadataRecord, SchemaDef, connection};

/// The most bytes and messages one pseudo-chunk of loose messages spans.
const LOOSE_BYTES: u64 = 4 << 20;
const LOOSE_MESSAGES: usize = 8192;

/// Takes the file as found so far, the bytes walked and the file's size; false stops the scan.
pub(crate) type PartialSink<'a> = dyn Fn(Opened, McapInfo, u64, u64) -> bool + 'a;

/// What the scan needs from the options.
pub(crate) struct Settings<'a> {
    /// The most a chunk may decompress to.
    pub limit: u64,
    /// Told how the walk advances.
    pub progress: Option<&'a ProgressFn>,
    /// Handed the file as found so far while the walk runs, if set.
    pub partial: Option<&'a PartialSink<'a>>,
}

/// Why a scan ended without a result.
#[derive(Debug)]
pub(crate) enum Stopped {
    /// The file changed under the scan.
    Changed(Changed),
    /// The partial results' callback asked to stop.
    Cancelled,
}

impl From<Changed> for Stopped {
    fn from(c: Changed) -> Stopped {
        Stopped::Changed(c)
    }
}

/// Messages outside chunks, gathered into a pseudo-chunk.
#[derive(Default)]
struct Loose {
    start: u64,
    end: u64,
    messages: Vec<(RosTime, u32, u64)>,
}

/// A chunk found: the chunk, its head, its messages as `(time, channel id, offset)`.
type FoundChunk = (Chunk, ChunkHead, Vec<(RosTime, u32, u64)>);

/// What the walk gathers.
#[derive(Clone, Default)]
struct Found {
    schemas: HashMap<u16, SchemaDef>,
    channels: BTreeMap<u16, Channel>,
    /// Per chunk: the chunk (counts by channel id for now), its head, its messages.
    chunks: Vec<FoundChunk>,
    losses: Vec<Loss>,
    complete: u64,
    partial: u64,
    info: McapInfo,
    closed: bool,
}

impl Found {
    fn learn(&mut self, record: Record<'_>) {
        match record {
            Record::Schema { header, data } => {
                self.schemas.entry(header.id).or_insert(SchemaDef {
                    name: header.name,
                    encoding: header.encoding,
                    data: data.into_owned(),
                });
            }
            Record::Channel(c) => {
                self.channels.entry(c.id).or_insert(c);
            }
            _ => {}
        }
    }

    fn close_loose(&mut self, loose: &mut Loose) {
        if loose.messages.is_empty() {
            return;
        }
        let l = std::mem::take(loose);
        let (start, end) = times(&l.messages);
        let chunk = Chunk {
            index: u32::try_from(self.chunks.len()).unwrap_or(u32::MAX),
            pos: l.start,
            layout: ChunkLayout::Mcap,
            state: ChunkState::Complete,
            start,
            end,
            counts: Counts::default(),
        };
        let head = ChunkHead {
            data_offset: l.start,
            compressed_size: l.end - l.start,
            uncompressed_size: l.end - l.start,
            compression: Compression::None,
            index_data_pos: None,
        };
        self.chunks.push((chunk, head, l.messages));
    }
}

fn times(messages: &[(RosTime, u32, u64)]) -> (RosTime, RosTime) {
    let start = messages.iter().map(|m| m.0).min().unwrap_or(RosTime::MIN);
    let end = messages.iter().map(|m| m.0).max().unwrap_or(RosTime::MIN);
    (start, end)
}

/// Walks the file; `reason` says why it was not opened from its summary.
pub(crate) fn scan(
    source: &Source,
    reason: String,
    settings: &Settings<'_>,
) -> Result<(Opened, McapInfo), Stopped> {
    let len = source.len();
    let mut window = Window::new(source);
    let mut found = Found::default();
    let mut loose = Loose::default();
    let mut at = MAGIC.len() as u64;
    let mut reported = 0u64;
    // The last record was a chunk (its message indexes follow); the loss of message indexes
    // without one, to add to; the last record of a kind bagscope does not know.
    let mut after_chunk = false;
    let mut orphan: Option<usize> = None;
    let mut skipped: Option<(u64, u8, u64)> = None;
    let mut data_crc: Option<(u64, u32)> = None;
    let mut pace = super::scan_pace::Pace::new();
    while at < len {
        offer(&found, &reason, (&mut pace, settings), (at, len))?;
        if let Some(p) = settings.progress {
            if at - reported >= WINDOW {
                reported = at;
                (p.0)(RecoveryProgress::Scanning {
                    done: at,
                    total: len,
                });
            }
        }
        let head = window.get(at, fmt::FRAME)?;
        let Some((opcode, body_len)) = fmt::stated_len(head, 0) else {
            cut_off(
                &mut found,
                at,
                len,
                "a record cut off by the end of the file",
            );
            break;
        };
        let end = at.saturating_add(fmt::FRAME).saturating_add(body_len);
        if opcode == 0 || (end > len && opcode != op::CHUNK) {
            if opcode == 0 || body_len > len {
                found.losses.push(Loss {
                    offset: at,
                    bytes: len - at,
                    messages: None,
                    reason: format!(
                        "unreadable: a record of opcode 0x{opcode:02x} claiming {body_len} bytes"
                    ),
                });
            } else {
                cut_off(
                    &mut found,
                    at,
                    len,
                    &format!(
                        "an MCAP {} record cut off by the end of the file",
                        op::name(opcode)
                    ),
                );
            }
            break;
        }
        match opcode {
            op::MESSAGE => {
                let bytes = window.get(at, end - at)?;
                match fmt::message_at(bytes, 0) {
                    Some(m) => {
                        if loose.messages.is_empty() {
                            loose.start = at;
                        }
                        if at - loose.start > LOOSE_BYTES || loose.messages.len() >= LOOSE_MESSAGES
                        {
                            found.close_loose(&mut loose);
                            loose.start = at;
                        }
                        loose.messages.push((
                            RosTime::from_nanos(m.log_time),
                            u32::from(m.channel),
                            at - loose.start,
                        ));
                        loose.end = end;
                    }
                    None => found.losses.push(Loss {
                        offset: at,
                        bytes: end - at,
                        messages: Some(1),
                        reason: "a message record too short for its fields".into(),
                    }),
                }
            }
            op::CHUNK => {
                found.close_loose(&mut loose);
                let avail = end.min(len) - at;
                let take = avail.min(settings.limit.saturating_add(1 << 20));
                let bytes = source.read_exact_at(at, take)?;
                chunk(&mut found, &bytes, at, end > len, settings.limit);
                if end > len {
                    break;
                }
            }
            op::SCHEMA | op::CHANNEL | op::HEADER | op::METADATA | op::ATTACHMENT => {
                definition(&mut found, window.get(at, end - at)?, at, end);
            }
            op::MESSAGE_INDEX if !after_chunk => {
                // Message indexes of a chunk the walk did not meet: the record before them
                // was a damaged chunk (its opcode changed). They count what it held.
                let bytes = window.get(at, end - at)?;
                let n = fmt::frame_at(bytes, 0, at)
                    .ok()
                    .and_then(|f| f.body.get(2..6).and_then(|b| b.try_into().ok()))
                    .map_or(0, |b| u64::from(u32::from_le_bytes(b) / 16));
                orphans(&mut found, &mut orphan, skipped, n);
            }
            op::DATA_END => {
                found.closed = true;
                let bytes = window.get(at, end - at)?;
                data_crc = bytes
                    .get(fmt::FRAME_LEN..fmt::FRAME_LEN + 4)
                    .and_then(|b| b.try_into().ok())
                    .map(u32::from_le_bytes)
                    .map(|crc| (at, crc));
                break;
            }
            op::FOOTER => {
                found.closed = true;
                break;
            }
            // Indexes, statistics and unknown records are skipped by their length.
            _ => {}
        }
        if opcode != op::MESSAGE_INDEX {
            after_chunk = opcode == op::CHUNK;
            orphan = None;
            skipped = (!op::is_known(opcode)).then_some((at, opcode, end - at));
        }
        at = end;
    }
    // The data section's CRC, when it has one and nothing else was found wrong: damage the
    // walk could not see (a record changed in place).
    if let Some((data_end, crc)) = data_crc.filter(|&(_, crc)| crc != 0) {
        if found.losses.is_empty() && super::crc::data_section(source, data_end)? != crc {
            found.losses.push(Loss {
                offset: 0,
                bytes: 0,
                messages: None,
                reason: "the data section does not match its CRC: bytes were changed where the walk could not tell (message data, a chunk without a CRC, a record of unknown kind)".into(),
            });
        }
    }
    found.close_loose(&mut loose);
    if !found.closed && found.losses.is_empty() && at >= len {
        found.losses.push(Loss {
            offset: len,
            bytes: 0,
            messages: None,
            reason: "the file ends before its data end record: the recording was cut off".into(),
        });
    }
    Ok(assemble(found, reason))
}

/// Hands the file as found so far to [`Settings::partial`] when one is due, with `(done,
/// total)` bytes walked; `Cancelled` when it says to stop.
fn offer(
    found: &Found,
    reason: &str,
    (pace, settings): (&mut super::scan_pace::Pace, &Settings<'_>),
    (done, total): (u64, u64),
) -> Result<(), Stopped> {
    if let Some(sink) = settings.partial.filter(|_| pace.due(found.chunks.len())) {
        let began = std::time::Instant::now();
        let (opened, info) = assemble(found.clone(), reason.to_string());
        if !sink(opened, info, done, total) {
            return Err(Stopped::Cancelled);
        }
        pace.sent(found.chunks.len(), began);
    }
    Ok(())
}

/// Counts `n` messages of message index records that follow no chunk: one loss for a run of
/// them, placed at the record of unknown kind before them when there is one.
fn orphans(found: &mut Found, orphan: &mut Option<usize>, skipped: Option<(u64, u8, u64)>, n: u64) {
    if let Some(loss) = orphan.and_then(|i| found.losses.get_mut(i)) {
        loss.messages = Some(loss.messages.unwrap_or(0) + n);
        return;
    }
    let (offset, bytes, what) = match skipped {
        Some((at, opcode, len)) => (
            at,
            len,
            format!("a record of unknown kind (opcode 0x{opcode:02x}) where a chunk belongs"),
        ),
        None => (0, 0, "a chunk the walk did not find".to_string()),
    };
    *orphan = Some(found.losses.len());
    found.losses.push(Loss {
        offset,
        bytes,
        messages: Some(n),
        reason: format!("message index records follow {what}: its messages are lost"),
    });
}

/// Reads a schema, channel, header, metadata or attachment record (`bytes`: all of it).
fn definition(found: &mut Found, bytes: &[u8], at: u64, end: u64) {
    let frame = fmt::frame_at(bytes, 0, at);
    match frame {
        Ok(f) if f.op == op::ATTACHMENT => match fmt::attachment_head(&f, at) {
            Ok(a) => found.info.attachments.push(Attachment {
                offset: at,
                name: a.name,
                media_type: a.media_type,
                size: a.data_size,
                log_time: a.log_time,
                create_time: a.create_time,
            }),
            Err(e) => found.losses.push(loss_of(at, end, &e.to_string())),
        },
        Ok(f) => match fmt::parse_borrowed(&f, at) {
            Ok(Record::Header(h)) => {
                found.info.profile = h.profile;
                found.info.library = h.library;
            }
            Ok(Record::Metadata(m)) => found.info.metadata.push(MetadataRecord {
                name: m.name,
                entries: m.metadata,
            }),
            Ok(r) => found.learn(r),
            Err(e) => found.losses.push(loss_of(at, end, &e.to_string())),
        },
        Err(e) => found.losses.push(loss_of(at, end, &e.to_string())),
    }
}

fn loss_of(at: u64, end: u64, why: &str) -> Loss {
    Loss {
        offset: at,
        bytes: end - at,
        messages: None,
        reason: why.to_string(),
    }
}

fn cut_off(found: &mut Found, at: u64, len: u64, why: &str) {
    found.losses.push(Loss {
        offset: at,
        bytes: len - at,
        messages: None,
        reason: why.to_string(),
    });
}

/// Reads one chunk record (`bytes`: as much of it as the file holds, `cut`: the file ends
/// inside it).
fn chunk(found: &mut Found, bytes: &[u8], at: u64, cut: bool, limit: u64) {
    let body = bytes.get(fmt::FRAME_LEN..).unwrap_or_default();
    let Some(prefix) = fmt::chunk_prefix(body) else {
        found.losses.push(loss_of(
            at,
            at + bytes.len() as u64,
            "a chunk cut off in its header",
        ));
        return;
    };
    let data = body.get(prefix.records_start..).unwrap_or_default();
    let data = data
        .get(..usize::try_from(prefix.compressed_size).unwrap_or(usize::MAX))
        .unwrap_or(data);
    let Some(method) = super::summary::parse_compression(&prefix.compression) else {
        found.losses.push(Loss {
            offset: at,
            bytes: bytes.len() as u64,
            messages: None,
            reason: format!(
                "a chunk compressed with '{}', which bagscope cannot read",
                prefix.compression
            ),
        });
        return;
    };
    let declared = u32::try_from(prefix.uncompressed_size).unwrap_or(u32::MAX);
    let mut out = Vec::new();
    // A chunk holds the records it declares: decoding past them is damage, not worth memory
    // (a bomb that declares a few bytes costs a few bytes).
    let within = limit.min(prefix.uncompressed_size);
    let result = decompress(method, data, declared, within, &mut out);
    if out.len() as u64 > within {
        out.truncate(usize::try_from(within).unwrap_or(usize::MAX));
    }
    let mut state = if cut {
        ChunkState::Truncated
    } else {
        ChunkState::Complete
    };
    if let Err(e) = &result {
        if !cut {
            found.losses.push(Loss {
                offset: at,
                bytes: bytes.len() as u64,
                messages: None,
                reason: match e {
                    ErrorKind::TooLarge { .. } if within < limit => format!(
                        "a chunk that decodes to more than the {} bytes it declares (read up to them)",
                        prefix.uncompressed_size
                    ),
                    e => format!("a chunk that does not decompress: {e}"),
                },
            });
            state = ChunkState::Truncated;
        }
    } else if prefix.uncompressed_crc != 0 && crc32fast::hash(&out) != prefix.uncompressed_crc {
        found.losses.push(Loss {
            offset: at,
            bytes: bytes.len() as u64,
            messages: None,
            reason: "a chunk whose records do not match their CRC (read as they are)".into(),
        });
    }
    if cut {
        found.losses.push(Loss {
            offset: at,
            bytes: bytes.len() as u64,
            messages: None,
            reason: "a chunk cut off by the end of the file (its whole messages were read)".into(),
        });
    }
    let w = walk(&out, Some(at), 0, true);
    for (_, r) in w.records {
        found.learn(r);
    }
    if state == ChunkState::Complete {
        found.complete += 1;
    } else {
        found.partial += 1;
    }
    let (start, end) = if w.messages.is_empty() {
        (
            RosTime::from_nanos(prefix.message_start_time),
            RosTime::from_nanos(prefix.message_end_time),
        )
    } else {
        times(&w.messages)
    };
    let head = ChunkHead {
        data_offset: at + fmt::FRAME + prefix.records_start as u64,
        compressed_size: data.len() as u64,
        // A chunk cut off or damaged holds what decoded, whatever its header says.
        uncompressed_size: if state == ChunkState::Complete {
            prefix.uncompressed_size
        } else {
            out.len() as u64
        },
        compression: method,
        index_data_pos: None,
    };
    let chunk = Chunk {
        index: u32::try_from(found.chunks.len()).unwrap_or(u32::MAX),
        pos: at,
        layout: ChunkLayout::Mcap,
        state,
        start,
        end,
        counts: Counts::default(),
    };
    found.chunks.push((chunk, head, w.messages));
}

fn assemble(found: Found, reason: String) -> (Opened, McapInfo) {
    let Found {
        schemas,
        channels,
        chunks: raw,
        mut losses,
        complete,
        partial,
        mut info,
        closed: _,
    } = found;
    info.channel_metadata = channels
        .values()
        .map(|c| (u32::from(c.id), c.metadata.clone()))
        .collect();
    let mut map = HashMap::new();
    for (i, &id) in channels.keys().enumerate() {
        map.insert(u32::from(id), ConnId::try_from(i).unwrap_or(ConnId::MAX));
    }
    let mut per_conn = vec![0u64; map.len()];
    let mut chunks = Vec::with_capacity(raw.len());
    let mut heads = Vec::with_capacity(raw.len());
    let mut entries = Vec::with_capacity(raw.len());
    let mut unknown: BTreeMap<u32, u64> = BTreeMap::new();
    for (mut chunk, head, messages) in raw {
        let mut counts: BTreeMap<ConnId, u32> = BTreeMap::new();
        let mut list = Vec::with_capacity(messages.len());
        for (time, channel, offset) in messages {
            let Some(&conn) = map.get(&channel) else {
                *unknown.entry(channel).or_default() += 1;
                continue;
            };
            *counts.entry(conn).or_default() += 1;
            if let Some(t) = per_conn.get_mut(conn as usize) {
                *t += 1;
            }
            list.push(IndexEntry {
                time,
                conn,
                chunk: chunk.index,
                offset,
            });
        }
        chunk.counts = counts.into_iter().collect();
        chunks.push(chunk);
        heads.push(head);
        entries.push(Some(Arc::from(finish(list))));
    }
    for (channel, n) in unknown {
        losses.push(Loss {
            offset: 0,
            bytes: 0,
            messages: Some(n),
            reason: format!("messages of channel {channel}, which the file never declares"),
        });
    }
    let connections = channels
        .values()
        .enumerate()
        .map(|(i, ch)| {
            let id = ConnId::try_from(i).unwrap_or(ConnId::MAX);
            connection(
                id,
                ch,
                schemas.get(&ch.schema_id),
                per_conn.get(i).copied().unwrap_or(0),
            )
        })
        .collect();
    let opened = Opened {
        connections,
        conn_map: map,
        chunks,
        heads: Heads::known(heads.into_iter()),
        entries,
        warnings: Vec::new(),
        recovery: Some(Recovery {
            reason,
            complete_chunks: complete,
            partial_chunks: partial,
            losses,
            scanned: None,
            unfinished: None,
        }),
        totals: None,
        mcap: None,
    };
    (opened, info)
}
