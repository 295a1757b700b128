//! The follower's record walk over an MCAP file being written (ROS 2's `ros2 bag record`, the
//! `mcap` libraries' writers): schemas and channels are learned where they appear, a chunk
//! record is read once it is whole (MCAP writers write a chunk at once, when it is full: the
//! messages of the chunk being filled are in the writer's memory, not yet in the file),
//! messages outside chunks (writers without chunking) are read one by one as pseudo chunks,
//! and the data end record (or the footer) finishes the recording.
//!
//! A record cut off at the end of what was read is still being written: it waits for the
//! rest. A record whose length is known but which cannot be read is skipped by its length
//! and reported; one whose opcode or length is impossible ends what can be framed: the rest
//! of the file is reported lost (MCAP has no marker to find the next record by).

use std::collections::HashMap;

use mcap::records::{Channel, Record};

use crate::bag::mcap::{Attachment, McapInfo, MetadataRecord, SchemaDef, connection};
use crate::bag::recovery::Loss;
use crate::format::ErrorKind;
use crate::format::compression::decompress;
use crate::format::mcap::{self as fmt, op};
use crate::time::RosTime;

use super::super::chunk::{Chunk, ChunkLayout, ChunkState};
use super::super::connection::ConnId;
use super::super::counts::Counts;
use super::super::read::heads::ChunkHead;
use super::parse::{Found, push_loss};
use super::{Follower, MAX_CONNECTION_BYTES, MAX_CONNECTIONS, Update};

/// Records larger than this that are not read whole (attachments, indexes, records of kinds
/// bagscope does not know) are passed over as they arrive instead of being buffered.
const SKIP_OVER: u64 = 1 << 20;

/// A length no record of a file being written can have: the record is not a record.
const IMPOSSIBLE_LEN: u64 = 1 << 40;

/// The length (and sizes) a chunk header holds while its chunk is being written by a writer
/// that rewrites the header when it closes the chunk (the `mcap` crate's).
pub(super) const PLACEHOLDER: u64 = u64::MAX;

/// Attachments and metadata records kept for the snapshots; beyond, they are counted only.
const MAX_LISTED: usize = 10_000;

/// What following an MCAP file keeps besides what a bag's follower does.
#[derive(Default)]
pub(super) struct McapFollow {
    schemas: HashMap<u16, SchemaDef>,
    /// The profile, library, attachments and metadata read so far.
    pub(super) info: McapInfo,
    /// The data end record (or the footer) was read: the recording is finished.
    pub(super) closed: bool,
    /// The last records of messages were in a chunk: the writer keeps the chunk it is
    /// filling in memory.
    pub(super) chunked: bool,
    /// Bytes from here on belong to a record passed over (see [`SKIP_OVER`]).
    skip_to: u64,
    /// An impossible record was met at this offset: nothing after it can be framed.
    lost_at: Option<u64>,
    /// Attachments and metadata records beyond [`MAX_LISTED`].
    pub(super) unlisted: u64,
}

/// What the record at the start of the unconsumed bytes is.
enum Step {
    /// Consumed this many bytes.
    Took(usize),
    /// The record is not complete yet.
    Wait,
}

impl Follower {
    /// True once an MCAP recording's data end record was read.
    pub(super) fn mcap_closed(&self) -> bool {
        self.mcap.as_ref().is_some_and(|m| m.closed)
    }

    /// [`Follower::parse`] for an MCAP file: consumes whole records until one is incomplete
    /// or the messages hold `budget` bytes.
    pub(super) fn parse_mcap(&mut self, update: &mut Update, budget: usize) {
        let Some(state) = self.mcap.as_mut() else {
            return;
        };
        if state.closed || state.lost_at.is_some() {
            // Nothing more is read: after the data end the summary follows; after an
            // impossible record nothing can be framed (reported once, when it was met).
            self.base += self.buf.len() as u64;
            self.buf.clear();
            return;
        }
        let skip = usize::try_from(state.skip_to.saturating_sub(self.base))
            .unwrap_or(usize::MAX)
            .min(self.buf.len());
        let mut at = skip;
        let mut data = 0usize;
        // Records are read from the buffer in place (a chunk may be as large as the chunk
        // limit: never copied); it is put back after the walk.
        let buf = std::mem::take(&mut self.buf);
        while at < buf.len() && data < budget && self.pending_chunk.is_none() {
            let before = update.messages.len();
            match self.mcap_step(&buf, at, update) {
                Step::Took(n) => at = at.saturating_add(n.max(1)),
                Step::Wait => break,
            }
            data += update
                .messages
                .get(before..)
                .unwrap_or_default()
                .iter()
                .map(|m| m.data.len())
                .sum::<usize>();
            if self.mcap_closed() {
                at = buf.len();
            }
        }
        self.buf = buf;
        let at = at.min(self.buf.len());
        self.buf.drain(..at);
        self.base += at as u64;
        if self.pending_chunk.is_some() {
            // Read again from the chunk's record once its header is rewritten.
            self.buf.clear();
        }
    }

    /// Whether the MCAP chunk at `pos`, being written behind a placeholder header, has had
    /// its header rewritten (length and sizes; the compressed size is written last).
    pub(super) fn mcap_chunk_closed(head: &[u8]) -> bool {
        let Some((opcode, len)) = fmt::stated_len(head, 0) else {
            return false;
        };
        if opcode != op::CHUNK || len == PLACEHOLDER {
            return opcode != op::CHUNK;
        }
        fmt::chunk_prefix(head.get(fmt::FRAME_LEN..).unwrap_or_default())
            .is_some_and(|p| p.compressed_size != PLACEHOLDER && p.uncompressed_size != PLACEHOLDER)
    }

    /// Looks at the record at `buf[at..]` (the follower's unconsumed bytes).
    fn mcap_step(&mut self, buf: &[u8], at: usize, update: &mut Update) -> Step {
        let rest = buf.get(at..).unwrap_or_default();
        let offset = self.base + at as u64;
        let Some((opcode, body_len)) = fmt::stated_len(rest, 0) else {
            return Step::Wait;
        };
        if opcode == op::CHUNK && body_len == PLACEHOLDER {
            // The `mcap` crate's writer streams a chunk into the file behind a placeholder
            // header and rewrites the header when it closes the chunk: wait for that.
            self.pending_chunk = Some(offset);
            return Step::Wait;
        }
        if opcode == 0 || body_len >= IMPOSSIBLE_LEN {
            let bytes = rest.len() as u64;
            push_loss(
                update,
                Loss {
                    offset,
                    bytes,
                    messages: None,
                    reason: format!(
                        "unreadable: a record of opcode 0x{opcode:02x} claiming {body_len} bytes; nothing after it can be read"
                    ),
                },
            );
            if let Some(m) = self.mcap.as_mut() {
                m.lost_at = Some(offset);
            }
            return Step::Took(rest.len());
        }
        let whole = fmt::FRAME.saturating_add(body_len);
        let kept = matches!(
            opcode,
            op::MESSAGE | op::CHUNK | op::SCHEMA | op::CHANNEL | op::HEADER | op::METADATA
        );
        let too_big = match opcode {
            op::CHUNK | op::MESSAGE => body_len > self.max_chunk.saturating_add(1 << 20),
            op::SCHEMA | op::CHANNEL | op::HEADER | op::METADATA => body_len > MAX_CONNECTION_BYTES,
            _ => false,
        };
        if too_big || (!kept && whole > SKIP_OVER) {
            if too_big {
                push_loss(
                    update,
                    Loss {
                        offset,
                        bytes: whole,
                        messages: None,
                        reason: format!(
                            "an MCAP {} record of {whole} bytes, more than a follower reads",
                            op::name(opcode)
                        ),
                    },
                );
            }
            if opcode == op::ATTACHMENT {
                // Its head is read from what has arrived; its data is passed over.
                let arrived = rest.len() as u64;
                if !self.attachment(rest, offset, body_len) && arrived < SKIP_OVER {
                    return Step::Wait;
                }
            }
            if let Some(m) = self.mcap.as_mut() {
                m.skip_to = offset.saturating_add(whole);
            }
            return Step::Took(usize::MAX);
        }
        let Some(record) = usize::try_from(whole).ok().and_then(|n| rest.get(..n)) else {
            return Step::Wait;
        };
        let whole = record.len();
        match opcode {
            op::MESSAGE => self.loose_message(record, offset, update),
            op::CHUNK if !self.mcap_chunk(record, offset, update) => return Step::Wait,
            op::SCHEMA | op::CHANNEL | op::HEADER | op::METADATA => {
                self.definition(record, offset, update);
            }
            op::ATTACHMENT if !self.attachment(record, offset, body_len) => push_loss(
                update,
                Loss {
                    offset,
                    bytes: whole as u64,
                    messages: None,
                    reason: "an attachment record too short for its fields".into(),
                },
            ),
            op::DATA_END | op::FOOTER => {
                if let Some(m) = self.mcap.as_mut() {
                    m.closed = true;
                }
            }
            // Message indexes, chunk indexes, statistics and unknown records: skipped.
            _ => {}
        }
        Step::Took(whole)
    }

    /// A message record outside chunks (`record`: all of it), at file offset `offset`.
    fn loose_message(&mut self, record: &[u8], offset: u64, update: &mut Update) {
        let Some(m) = fmt::message_at(record, 0) else {
            let bytes = record.len() as u64;
            push_loss(
                update,
                Loss {
                    offset,
                    bytes,
                    messages: Some(1),
                    reason: "a message record too short for its fields".into(),
                },
            );
            return;
        };
        let data = record
            .get(m.data_start..m.data_end)
            .unwrap_or_default()
            .to_vec();
        let end = offset + m.data_end as u64;
        let run = self.run_at(offset);
        if let Some(state) = self.mcap.as_mut() {
            state.chunked = false;
        }
        self.message(
            Found {
                file_conn: u32::from(m.channel),
                time: RosTime::from_nanos(m.log_time),
                offset,
                in_chunk: offset - run,
                record: end - offset,
                data,
            },
            update,
        );
        self.extend_open(end);
    }

    /// A whole chunk record (`record`, at file offset `offset`): decompressed within the
    /// size cap, its schemas and channels learned, its messages taken. False when its header
    /// is still being rewritten (it is read again once it is).
    fn mcap_chunk(&mut self, record: &[u8], offset: u64, update: &mut Update) -> bool {
        let lose = |update: &mut Update, reason: String| {
            push_loss(
                update,
                Loss {
                    offset,
                    bytes: record.len() as u64,
                    messages: None,
                    reason,
                },
            );
        };
        let body = record.get(fmt::FRAME_LEN..).unwrap_or_default();
        let Some(prefix) = fmt::chunk_prefix(body) else {
            lose(update, "a chunk record too short for its header".into());
            return true;
        };
        if prefix.compressed_size == PLACEHOLDER || prefix.uncompressed_size == PLACEHOLDER {
            // Its header is being rewritten as this was read: read it again.
            self.pending_chunk = Some(offset);
            return false;
        }
        let Some(method) = crate::bag::mcap::summary::parse_compression(&prefix.compression) else {
            lose(
                update,
                format!(
                    "a chunk compressed with '{}', which bagscope cannot read",
                    prefix.compression
                ),
            );
            return true;
        };
        let rest = body.get(prefix.records_start..).unwrap_or_default();
        let Some(data) = usize::try_from(prefix.compressed_size)
            .ok()
            .and_then(|n| rest.get(..n))
        else {
            lose(
                update,
                "a chunk whose records are longer than its record".into(),
            );
            return true;
        };
        let declared = u32::try_from(prefix.uncompressed_size).unwrap_or(u32::MAX);
        let within = self.max_chunk.min(prefix.uncompressed_size);
        let mut out = Vec::new();
        if let Err(e) = decompress(method, data, declared, within, &mut out) {
            lose(
                update,
                match e {
                    ErrorKind::TooLarge { .. } if within < self.max_chunk => format!(
                        "a chunk that decodes to more than the {} bytes it declares",
                        prefix.uncompressed_size
                    ),
                    e => format!("a chunk that does not decompress: {e}"),
                },
            );
            return true;
        }
        if prefix.uncompressed_crc != 0 && crc32fast::hash(&out) != prefix.uncompressed_crc {
            lose(
                update,
                "a chunk whose records do not match their CRC (read as they are)".into(),
            );
        }
        let walk = crate::bag::mcap::index::walk(&out, Some(offset), 0, true);
        for (at, r) in walk.records {
            self.learn(r, offset, at, update);
        }
        if let Some(e) = walk.error {
            lose(update, format!("the chunk's records end early: {e}"));
        }
        let (start, end) = walk
            .messages
            .iter()
            .map(|m| m.0)
            .fold(None, |acc: Option<(RosTime, RosTime)>, t| {
                Some(acc.map_or((t, t), |(a, b)| (a.min(t), b.max(t))))
            })
            .unwrap_or((
                RosTime::from_nanos(prefix.message_start_time),
                RosTime::from_nanos(prefix.message_end_time),
            ));
        let chunk = Chunk {
            index: 0,
            pos: offset,
            layout: ChunkLayout::Mcap,
            state: ChunkState::Complete,
            start,
            end,
            counts: Counts::default(),
        };
        let head = ChunkHead {
            data_offset: offset + fmt::FRAME + prefix.records_start as u64,
            compressed_size: data.len() as u64,
            uncompressed_size: prefix.uncompressed_size,
            compression: method,
            index_data_pos: None,
        };
        self.push_chunk((chunk, head));
        for (time, channel, in_chunk) in walk.messages {
            let Some(m) = usize::try_from(in_chunk)
                .ok()
                .and_then(|i| fmt::message_at(&out, i))
            else {
                continue;
            };
            let data = out
                .get(m.data_start..m.data_end)
                .unwrap_or_default()
                .to_vec();
            self.message(
                Found {
                    file_conn: channel,
                    time,
                    offset,
                    in_chunk,
                    record: (m.data_end as u64).saturating_sub(in_chunk),
                    data,
                },
                update,
            );
        }
        if let Some(state) = self.mcap.as_mut() {
            state.chunked = true;
        }
        // The writer now fills the next chunk in memory: counted from here.
        self.pending_seen = None;
        true
    }

    /// A whole schema, channel, header or metadata record at `offset`.
    fn definition(&mut self, record: &[u8], offset: u64, update: &mut Update) {
        let parsed = fmt::frame_at(record, 0, offset).and_then(|f| fmt::parse_borrowed(&f, offset));
        match parsed {
            Ok(r) => self.learn(r.into_owned(), offset, 0, update),
            Err(e) => push_loss(
                update,
                Loss {
                    offset,
                    bytes: record.len() as u64,
                    messages: None,
                    reason: e.to_string(),
                },
            ),
        }
    }

    /// Takes a schema, channel, header or metadata record (at `at` in the chunk at
    /// `offset`, or at `offset` itself).
    fn learn(&mut self, record: Record<'static>, offset: u64, at: u64, update: &mut Update) {
        let Some(state) = self.mcap.as_mut() else {
            return;
        };
        match record {
            Record::Header(h) => {
                state.info.profile = h.profile;
                state.info.library = h.library;
            }
            Record::Metadata(m) => {
                if state.info.metadata.len() < MAX_LISTED {
                    state.info.metadata.push(MetadataRecord {
                        name: m.name,
                        entries: m.metadata,
                    });
                } else {
                    state.unlisted += 1;
                }
            }
            Record::Schema { header, data } => {
                if state.schemas.contains_key(&header.id) {
                    return;
                }
                let bytes = (data.len() + header.name.len() + header.encoding.len()) as u64;
                if self.connection_bytes.saturating_add(bytes) > MAX_CONNECTION_BYTES {
                    push_loss(
                        update,
                        Loss {
                            offset,
                            bytes,
                            messages: None,
                            reason: format!(
                                "a schema record beyond the {} MiB of definitions a follower takes",
                                MAX_CONNECTION_BYTES >> 20
                            ),
                        },
                    );
                    return;
                }
                self.connection_bytes += bytes;
                state.schemas.insert(
                    header.id,
                    SchemaDef {
                        name: header.name,
                        encoding: header.encoding,
                        data: data.into_owned(),
                    },
                );
            }
            Record::Channel(c) => self.channel(&c, offset.saturating_add(at), update),
            _ => {}
        }
    }

    /// Takes a channel record as a connection (within the follower's bounds).
    fn channel(&mut self, c: &Channel, at: u64, update: &mut Update) {
        let file_id = u32::from(c.id);
        if self.conn_map.contains_key(&file_id) {
            return;
        }
        let bytes = (c.topic.len()
            + c.message_encoding.len()
            + c.metadata
                .iter()
                .map(|(k, v)| k.len() + v.len())
                .sum::<usize>()) as u64;
        if self.connections.len() >= MAX_CONNECTIONS
            || self.connection_bytes.saturating_add(bytes) > MAX_CONNECTION_BYTES
        {
            push_loss(
                update,
                Loss {
                    offset: at,
                    bytes,
                    messages: None,
                    reason: format!(
                        "a channel record beyond the {MAX_CONNECTIONS} channels or {} MiB of definitions a follower takes (its messages are not read)",
                        MAX_CONNECTION_BYTES >> 20
                    ),
                },
            );
            return;
        }
        self.connection_bytes += bytes;
        let id = ConnId::try_from(self.connections.len()).unwrap_or(ConnId::MAX);
        let Some(state) = self.mcap.as_mut() else {
            return;
        };
        let conn = connection(id, c, state.schemas.get(&c.schema_id), 0);
        state
            .info
            .channel_metadata
            .insert(file_id, c.metadata.clone());
        self.conn_map.insert(file_id, id);
        self.connections.push(conn);
        update.new_connections.push(id);
    }

    /// Lists an attachment record from its head (`bytes`: the record as far as it has
    /// arrived). False when the head has not all arrived.
    fn attachment(&mut self, bytes: &[u8], offset: u64, body_len: u64) -> bool {
        let body = bytes.get(fmt::FRAME_LEN..).unwrap_or_default();
        let body = body
            .get(
                ..usize::try_from(body_len)
                    .unwrap_or(usize::MAX)
                    .min(body.len()),
            )
            .unwrap_or_default();
        let frame = fmt::Frame {
            op: op::ATTACHMENT,
            at: 0,
            body,
            end: fmt::FRAME.saturating_add(body_len),
        };
        let Ok(head) = fmt::attachment_head(&frame, offset) else {
            return false;
        };
        let Some(state) = self.mcap.as_mut() else {
            return true;
        };
        if state.info.attachments.len() < MAX_LISTED {
            state.info.attachments.push(Attachment {
                offset,
                name: head.name,
                media_type: head.media_type,
                size: head.data_size,
                log_time: head.log_time,
                create_time: head.create_time,
            });
        } else {
            state.unlisted += 1;
        }
        true
    }
}
