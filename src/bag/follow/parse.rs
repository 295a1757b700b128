//! The follower's record walk over the bytes read so far: whole records are consumed, a
//! record cut off at the end waits for the rest, damage is skipped to the next record.

use crate::format::compression::decompress;
use crate::format::{
    ChunkHeader, Compression, ConnectionRecord, MessageDataHeader, Op, read_head, read_record,
};
use crate::time::RosTime;

use super::super::chunk::{Chunk, ChunkLayout, ChunkState, IndexEntry};
use super::super::connection::{ConnId, Connection};
use super::super::counts::Counts;
use super::super::extent::{Extent, record_at};
use super::super::read::heads::ChunkHead;
use super::super::recovery::Loss;
use super::super::resync::find_next_record;
use super::{
    FollowError, FollowedMessage, Follower, MAX_CONNECTION_BYTES, MAX_CONNECTIONS,
    MAX_LOSSES_PER_UPDATE, RUN_SPLIT, Update, read_at,
};

/// A message as the walk found it.
pub(super) struct Found {
    /// Connection id in the file.
    pub(super) file_conn: u32,
    pub(super) time: RosTime,
    /// File offset of its record (of its chunk record, for a compressed chunk).
    pub(super) offset: u64,
    /// Offset of its record in its chunk's uncompressed data.
    pub(super) in_chunk: u64,
    /// Bytes of its record.
    pub(super) record: u64,
    pub(super) data: Vec<u8>,
}

/// What the record at the start of the unconsumed bytes is.
enum Step {
    /// Consumed this many bytes.
    Took(usize),
    /// The record is not complete yet.
    Wait,
    /// Not a record: skip to the next one.
    Damage(String),
}

impl Follower {
    /// Consumes whole records from the buffer until one is incomplete, a compressed chunk is
    /// still open, or the messages hold `budget` bytes.
    pub(super) fn parse(&mut self, update: &mut Update, budget: usize) {
        let mut at = 0usize;
        let mut data = 0usize;
        while at < self.buf.len() && data < budget && self.pending_chunk.is_none() {
            let before = update.messages.len();
            match self.step(at, update) {
                Step::Took(n) => at += n.max(1),
                Step::Wait => break,
                Step::Damage(why) => {
                    let Some(next) = find_next_record(&self.buf, at + 1) else {
                        // Perhaps the next record is still being written: wait for it, but
                        // keep no more than a bounded stretch of damage.
                        if (self.buf.len() - at) as u64 > super::READ_STEP {
                            let keep = self.buf.len() - 1024;
                            self.lose(update, at, keep, why);
                            at = keep;
                        }
                        break;
                    };
                    self.lose(update, at, next, why);
                    at = next;
                }
            }
            data += update
                .messages
                .get(before..)
                .unwrap_or_default()
                .iter()
                .map(|m| m.data.len())
                .sum::<usize>();
        }
        let at = at.min(self.buf.len());
        self.buf.drain(..at);
        self.base += at as u64;
        if self.pending_chunk.is_some() {
            self.buf.clear();
        }
    }

    fn lose(&self, update: &mut Update, from: usize, to: usize, reason: String) {
        push_loss(
            update,
            Loss {
                offset: self.base + from as u64,
                bytes: to.saturating_sub(from) as u64,
                messages: None,
                reason,
            },
        );
    }

    /// Looks at the record at `buf[at..]`.
    fn step(&mut self, at: usize, update: &mut Update) -> Step {
        let rest = self.buf.get(at..).unwrap_or_default();
        let offset = self.base + at as u64;
        // The same rule as the recovery scan's: a record cut off by the end of what was
        // read is still being written.
        let head = match record_at(rest, offset, self.max_chunk) {
            Extent::Head(h) => h,
            Extent::CutHeader => return Step::Wait,
            Extent::Damage(why) => return Step::Damage(why),
        };
        let head_len = usize::try_from(head.data_offset - offset).unwrap_or(usize::MAX);
        let whole = head_len.saturating_add(head.data_len as usize);
        let op = match head.op() {
            Ok(Ok(op)) => op,
            Ok(Err(b)) => return Step::Damage(format!("unknown op {b:#04x}")),
            Err(e) => return Step::Damage(e.to_string()),
        };
        if op == Op::Chunk {
            let header = match ChunkHeader::from_head(&head) {
                Ok(h) => h,
                Err(e) => return Step::Damage(e.to_string()),
            };
            return self.chunk(at, head_len, whole, header, update);
        }
        if rest.len() < whole {
            return Step::Wait;
        }
        let record = match read_record(rest, 0, offset) {
            Ok(r) => r,
            Err(e) => return Step::Damage(e.to_string()),
        };
        match op {
            Op::MessageData => {
                let h = match MessageDataHeader::parse(record.header.bytes(), offset + 4) {
                    Ok(h) => h,
                    Err(e) => return Step::Damage(e.to_string()),
                };
                let mut msg = Found {
                    file_conn: h.conn,
                    time: h.time,
                    offset,
                    in_chunk: 0,
                    record: whole as u64,
                    data: record.data.to_vec(),
                };
                // In the open chunk the recorder is writing, or loose after a crash.
                msg.in_chunk = offset.saturating_sub(self.run_at(offset));
                self.message(msg, update);
                self.extend_open(offset + whole as u64);
            }
            Op::Connection => {
                if let Ok(c) = ConnectionRecord::from_record(&record) {
                    self.connection(c, update, offset, whole as u64);
                    self.extend_open(offset + whole as u64);
                } else {
                    return Step::Damage("an unreadable connection record".into());
                }
            }
            // Index data follow a closed chunk.
            Op::IndexData => {
                if let Some(last) = self.chunks.last_mut() {
                    if last.state == ChunkState::Open {
                        last.state = ChunkState::Complete;
                        if let Some(head) = self.heads.last_mut() {
                            head.index_data_pos.get_or_insert(offset);
                        }
                    }
                }
            }
            // Chunk info and a second bag header carry nothing new.
            _ => {}
        }
        Step::Took(whole)
    }

    /// A chunk record at `buf[at..]`: uncompressed chunks are walked as they grow (their
    /// records follow the header); a compressed one is read whole once its header carries
    /// its size.
    fn chunk(
        &mut self,
        at: usize,
        head_len: usize,
        whole: usize,
        header: ChunkHeader,
        update: &mut Update,
    ) -> Step {
        let offset = self.base + at as u64;
        let fresh = |state| {
            let chunk = Chunk {
                index: 0,
                pos: offset,
                layout: ChunkLayout::V2,
                state,
                start: RosTime::default(),
                end: RosTime::default(),
                counts: Counts::default(),
            };
            let head = ChunkHead {
                data_offset: offset + head_len as u64,
                compressed_size: (whole - head_len) as u64,
                uncompressed_size: u64::from(header.size),
                compression: header.compression,
                index_data_pos: None,
            };
            (chunk, head)
        };
        if header.compression == Compression::None {
            self.push_chunk(fresh(ChunkState::Open));
            return Step::Took(head_len);
        }
        if whole == head_len {
            // Still being written: its header is rewritten with the sizes when it is closed.
            self.pending_chunk = Some(offset);
            return Step::Wait;
        }
        let Some(compressed) = self
            .buf
            .get(at.saturating_add(head_len)..at.saturating_add(whole))
        else {
            return Step::Wait;
        };
        let mut out = Vec::new();
        if let Err(e) = decompress(
            header.compression,
            compressed,
            header.size,
            self.max_chunk,
            &mut out,
        ) {
            return Step::Damage(format!("the chunk does not decompress: {e}"));
        }
        self.push_chunk(fresh(ChunkState::Complete));
        let mut pos = 0usize;
        while pos < out.len() {
            let Ok(record) = read_record(&out, pos, 0) else {
                push_loss(
                    update,
                    Loss {
                        offset,
                        bytes: (whole - head_len) as u64,
                        messages: None,
                        reason: format!("the chunk's records end early at byte {pos} of its data"),
                    },
                );
                break;
            };
            let end = usize::try_from(record.end()).unwrap_or(usize::MAX);
            match record.op() {
                Ok(Ok(Op::MessageData)) => {
                    if let Ok(h) = MessageDataHeader::parse(record.header.bytes(), 0) {
                        let msg = Found {
                            file_conn: h.conn,
                            time: h.time,
                            offset,
                            in_chunk: pos as u64,
                            record: end.saturating_sub(pos) as u64,
                            data: record.data.to_vec(),
                        };
                        self.message(msg, update);
                    }
                }
                Ok(Ok(Op::Connection)) => {
                    if let Ok(c) = ConnectionRecord::from_record(&record) {
                        self.connection(c, update, offset, end.saturating_sub(pos) as u64);
                    }
                }
                _ => {}
            }
            pos = end;
        }
        Step::Took(whole)
    }

    pub(super) fn push_chunk(&mut self, (mut chunk, head): (Chunk, ChunkHead)) {
        if let Some(last) = self.chunks.last_mut() {
            if last.state == ChunkState::Open {
                last.state = ChunkState::Complete;
            }
        }
        chunk.index = u32::try_from(self.chunks.len()).unwrap_or(u32::MAX);
        self.chunks.push(chunk);
        self.heads.push(head);
        self.open_entries.push(Vec::new());
    }

    /// The uncompressed chunk a message record at top level at `offset` belongs to: the
    /// chunk the recorder is writing (its header still says size 0 and its records follow
    /// it), else a run of loose records (after a crash, or a writer without chunks), kept
    /// as a pseudo chunk that starts at its first record, as a recovery scan does (for an
    /// MCAP file, where chunk records are taken whole, only the latter). Returns where that
    /// chunk's data starts.
    pub(super) fn run_at(&mut self, offset: u64) -> u64 {
        let open = self
            .chunks
            .last()
            .zip(self.heads.last())
            .filter(|(c, h)| {
                c.state == ChunkState::Open
                    && h.compression == Compression::None
                    && !(h.data_offset == c.pos && h.compressed_size >= RUN_SPLIT)
            })
            .map(|(_, h)| h.data_offset);
        if let Some(at) = open {
            return at;
        }
        let layout = if self.mcap.is_some() {
            ChunkLayout::Mcap
        } else {
            ChunkLayout::V2
        };
        let chunk = Chunk {
            index: 0,
            pos: offset,
            layout,
            state: ChunkState::Open,
            start: RosTime::default(),
            end: RosTime::default(),
            counts: Counts::default(),
        };
        let head = ChunkHead {
            data_offset: offset,
            compressed_size: 0,
            uncompressed_size: 0,
            compression: Compression::None,
            index_data_pos: None,
        };
        self.push_chunk((chunk, head));
        offset
    }

    /// The open uncompressed chunk now holds whole records up to file offset `end`: its
    /// record header, as a snapshot has it, says so (the file's still says size 0 until the
    /// recorder closes the chunk), so that its messages are read like any other.
    pub(super) fn extend_open(&mut self, end: u64) {
        let (Some(chunk), Some(head)) = (self.chunks.last(), self.heads.last_mut()) else {
            return;
        };
        if chunk.state == ChunkState::Open && head.compression == Compression::None {
            let size = end.saturating_sub(head.data_offset);
            head.compressed_size = head.compressed_size.max(size);
            head.uncompressed_size = head.compressed_size;
        }
    }

    /// Checks whether the compressed chunk at `pos` has been closed (its header rewritten
    /// with its size); if so the walk goes on from it.
    pub(super) fn chunk_closed(&mut self, pos: u64) -> Result<bool, FollowError> {
        let mut head = vec![0u8; 4096];
        let got = read_at(&self.file, &mut head, pos).map_err(|source| FollowError::Io {
            path: self.path.clone(),
            source,
        })?;
        head.truncate(got);
        let closed = if self.mcap.is_some() {
            Follower::mcap_chunk_closed(&head)
        } else {
            read_head(&head, 0, pos).is_ok_and(|h| h.data_len > 0)
        };
        if closed {
            self.pending_chunk = None;
            self.buf.clear();
            self.base = pos;
        }
        Ok(closed)
    }

    /// Takes a connection record of `bytes` bytes at `at` (its chunk record's offset, in a
    /// compressed chunk), within the budget of [`MAX_CONNECTIONS`] and
    /// [`MAX_CONNECTION_BYTES`]; beyond it the record is reported as damage.
    fn connection(&mut self, c: ConnectionRecord, update: &mut Update, at: u64, bytes: u64) {
        if self.conn_map.contains_key(&c.conn) {
            return;
        }
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
                        "a connection record beyond the {MAX_CONNECTIONS} connections or {} MiB of connection records a follower takes (its messages are not read)",
                        MAX_CONNECTION_BYTES >> 20
                    ),
                },
            );
            return;
        }
        self.connection_bytes = self.connection_bytes.saturating_add(bytes);
        let id = ConnId::try_from(self.connections.len()).unwrap_or(ConnId::MAX);
        self.conn_map.insert(c.conn, id);
        let h = c.header;
        self.connections.push(Connection {
            id,
            file_id: c.conn,
            topic: c.topic,
            datatype: h.datatype.clone(),
            md5sum: h.md5sum.clone(),
            message_definition: h.message_definition.clone(),
            callerid: h.callerid.clone(),
            latching: h.latching.clone(),
            header: h,
            message_count: 0,
            message_encoding: "ros1".into(),
            schema_encoding: "ros1msg".into(),
        });
        update.new_connections.push(id);
    }

    /// Counts a message in the last chunk (the one it was found in).
    pub(super) fn message(&mut self, m: Found, update: &mut Update) {
        let Found {
            file_conn,
            time,
            offset,
            in_chunk,
            record,
            data,
        } = m;
        let Some(&conn) = self.conn_map.get(&file_conn) else {
            push_loss(
                update,
                Loss {
                    offset,
                    bytes: record,
                    messages: Some(1),
                    reason: format!(
                        "a message of connection {file_conn}, which has no connection record before it"
                    ),
                },
            );
            return;
        };
        if let Some(c) = self.connections.get_mut(conn as usize) {
            c.message_count += 1;
        }
        if self.keep_entries {
            let chunk = self.chunks.len().saturating_sub(1);
            if let Some(list) = self.open_entries.last_mut() {
                list.push(IndexEntry {
                    time,
                    conn,
                    chunk: u32::try_from(chunk).unwrap_or(u32::MAX),
                    offset: in_chunk,
                });
            }
        }
        if let Some(chunk) = self.chunks.last_mut() {
            if chunk.counts.is_empty() {
                chunk.start = time;
                chunk.end = time;
            }
            chunk.start = chunk.start.min(time);
            chunk.end = chunk.end.max(time);
            chunk.counts.add_one(conn);
        }
        update.messages.push(FollowedMessage {
            conn,
            time,
            offset,
            data,
        });
    }
}

/// Adds `loss` to the update's: merged into the last one when it continues it (the same
/// reason, right after it) or when the update already holds [`MAX_LOSSES_PER_UPDATE`], so
/// that a file full of damage costs a bounded list per poll.
pub(super) fn push_loss(update: &mut Update, loss: Loss) {
    let full = update.losses.len() >= MAX_LOSSES_PER_UPDATE;
    if let Some(last) = update.losses.last_mut() {
        let end = loss.offset.saturating_add(loss.bytes);
        let adjacent =
            last.reason == loss.reason && last.offset.saturating_add(last.bytes) == loss.offset;
        if adjacent || (full && end >= last.offset) {
            if !adjacent && !last.reason.starts_with("several problems") {
                last.reason = format!("several problems, the first: {}", last.reason);
            }
            last.bytes = end.saturating_sub(last.offset).max(last.bytes);
            last.messages = match (last.messages, loss.messages) {
                (None, None) => None,
                (a, b) => Some(a.unwrap_or(0).saturating_add(b.unwrap_or(0))),
            };
            return;
        }
    }
    update.losses.push(loss);
}
