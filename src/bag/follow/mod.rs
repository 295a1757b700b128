//! Following a 2.0 bag that a writer is still appending to (`rosbag record`'s `.bag.active`,
//! or any bag being written): each [`Follower::poll`] reads only the bytes added since the
//! last one and returns the messages they complete.
//!
//! The file is read with positioned reads (never mapped: it grows and may be rewritten). A
//! record cut off at the end of the file is one still being written: its bytes are kept and
//! it is parsed once the rest arrives, never reported as damage. Uncompressed chunks are
//! walked as they grow (their header says size 0 until the writer closes them); a compressed
//! chunk is taken once its header has been rewritten with its size. The recording is
//! finished once the bag header names an index position and every byte before the end of
//! the file has been read (`rosbag record` then renames `.bag.active` to `.bag`; the open
//! file stays the same, so nothing is read twice or lost across the rename).
//!
//! An MCAP file being written is followed the same way (`mcap`): its chunk records are
//! written whole, so a chunked writer's newest messages appear when it writes their chunk;
//! the data end record finishes the recording.

mod error;
mod mcap;
#[cfg(test)]
mod mcap_tests;
#[cfg(test)]
mod open_chunk_tests;
mod parse;
mod resume;
mod snapshot;
mod stall;
#[cfg(test)]
mod stall_tests;
#[cfg(test)]
pub(crate) mod tests;
mod watch;

pub use super::recovery::ago;
pub use error::FollowError;
pub(crate) use stall::find_writer;
pub use stall::{STALL_AFTER, Stall, Writer};

use std::collections::HashMap;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use crate::format::{BagHeader, Version, read_head};
use crate::time::RosTime;

use super::chunk::{Chunk, IndexEntry};
use super::connection::{ConnId, Connection};
use super::recovery::Loss;
use super::source::open_regular;

/// How often [`Follower::wait`] looks at the file's size and modification time.
pub const POLL_INTERVAL: Duration = Duration::from_millis(40);

/// The most bytes read from the file in one positioned read.
const READ_STEP: u64 = 8 << 20;

/// One message read by the follower.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FollowedMessage {
    /// Connection (position in [`Follower::connections`]).
    pub conn: ConnId,
    /// Receive time.
    pub time: RosTime,
    /// File offset of the record (of its chunk record, for a compressed chunk).
    pub offset: u64,
    /// The serialized message.
    pub data: Vec<u8>,
}

/// What one [`Follower::poll`] found.
#[derive(Debug, Default)]
pub struct Update {
    /// New messages, in file order.
    pub messages: Vec<FollowedMessage>,
    /// Connections seen for the first time (their ids in [`Follower::connections`]).
    pub new_connections: Vec<ConnId>,
    /// Stretches that could not be read (damage, not a record still being written).
    pub losses: Vec<Loss>,
    /// True when the poll stopped at its byte budget: poll again at once for the rest.
    pub more: bool,
    /// True once the recording is finished (see the module docs); no more polls are needed.
    pub finished: bool,
}

/// The file's size and modification time, to notice growth cheaply.
type Stamp = (u64, Option<SystemTime>);

/// Follows one growing bag. See the module docs.
pub struct Follower {
    path: PathBuf,
    file: File,
    /// Bytes of the file starting at `base` not yet consumed (a record still being written).
    buf: Vec<u8>,
    base: u64,
    /// True once the version line and bag header were read.
    started: bool,
    /// The bag header's index position (0 while recording).
    index_pos: u64,
    /// A compressed chunk still being written at this offset: wait for its header rewrite.
    pending_chunk: Option<u64>,
    connections: Vec<Connection>,
    conn_map: HashMap<u32, ConnId>,
    chunks: Vec<Chunk>,
    /// The record header of each chunk, as parsed.
    heads: Vec<super::read::heads::ChunkHead>,
    /// The leading chunks whose counts live in shared tables (see `share_counts`).
    shared: usize,
    /// The totals over those chunks, and how many of them are complete: a snapshot adds
    /// the chunks after them instead of passing over every chunk again.
    closed: Closed,
    max_chunk: u64,
    stamp: Stamp,
    finished: bool,
    /// When the last byte was consumed, and the time of the last message.
    last_growth: Option<Instant>,
    last_time: Option<RosTime>,
    /// Every loss reported so far (the first [`MAX_LOSSES`]), for snapshots.
    losses: Vec<Loss>,
    /// Message lists of the closed chunks (`chunks[..shared]`; `None` where not kept).
    kept_entries: Vec<Option<Arc<[IndexEntry]>>>,
    /// Message lists of the chunks after them (`chunks[shared..]`), still growing.
    open_entries: Vec<Vec<IndexEntry>>,
    /// True when message lists are kept for the snapshots (see [`Follower::keep_entries`]).
    keep_entries: bool,
    /// Bytes of connection records taken so far (bounded by [`MAX_CONNECTION_BYTES`]).
    connection_bytes: u64,
    /// When the compressed chunk the recorder is writing was first seen open.
    pending_seen: Option<Instant>,
    /// The open file's device and inode, to notice another file put in its place.
    identity: (u64, u64),
    /// The last look for a process writing the file: when, and what it found.
    writer_check: Option<(Instant, Writer)>,
    /// Another file took the name (or the name went): noticed by one poll, which still
    /// returns what the open file held; the next poll ends the follow with it.
    gone: Option<stall::Gone>,
    /// What following an MCAP file keeps (`None` for a bag).
    mcap: Option<Box<mcap::McapFollow>>,
}

/// The most connections a follower takes: each costs several times its record's bytes, and
/// a file of nothing but connection records must not grow memory without bound. Beyond,
/// connection records (and then their messages) are reported as damage.
pub const MAX_CONNECTIONS: usize = 1 << 16;

/// The most bytes of connection records a follower takes (see [`MAX_CONNECTIONS`]).
pub const MAX_CONNECTION_BYTES: u64 = 32 << 20;

/// Losses reported by one poll one by one; past that they are merged into the last one.
const MAX_LOSSES_PER_UPDATE: usize = 1000;

/// A run of records at top level (outside any chunk record: loose records after a crash) is
/// split into pseudo chunks of about this many bytes, as a recorder splits chunks, so that
/// what a snapshot copies of the open one stays bounded.
const RUN_SPLIT: u64 = 768 << 10;

/// What a follower keeps of its closed chunks for its snapshots.
#[derive(Default)]
struct Closed {
    totals: super::totals::Totals,
    complete: usize,
}

impl Closed {
    /// Adds `chunks`, closed now, of a recording of `connections` connections.
    fn add(&mut self, chunks: &[Chunk], connections: usize) {
        self.totals.widen_to(connections);
        self.totals.add(chunks);
        self.complete += Chunk::complete_count(chunks);
    }
}

/// Losses a follower keeps for its snapshots; beyond, they are still reported per update.
const MAX_LOSSES: usize = 1000;

impl Follower {
    /// Opens `path` for following from its start.
    pub fn open(path: impl AsRef<Path>) -> Result<Follower, FollowError> {
        let path = path.as_ref().to_path_buf();
        let file = open_regular(&path).map_err(|source| FollowError::Io {
            path: path.clone(),
            source,
        })?;
        let identity = file
            .metadata()
            .map(|m| stall::identity(&m))
            .map_err(|source| FollowError::Io {
                path: path.clone(),
                source,
            })?;
        Ok(Follower {
            path,
            file,
            buf: Vec::new(),
            base: 0,
            started: false,
            index_pos: 0,
            pending_chunk: None,
            connections: Vec::new(),
            conn_map: HashMap::new(),
            chunks: Vec::new(),
            heads: Vec::new(),
            shared: 0,
            closed: Closed::default(),
            max_chunk: crate::format::compression::DEFAULT_MAX_CHUNK_SIZE,
            stamp: (0, None),
            finished: false,
            last_growth: None,
            last_time: None,
            losses: Vec::new(),
            kept_entries: Vec::new(),
            open_entries: Vec::new(),
            keep_entries: false,
            connection_bytes: 0,
            pending_seen: None,
            identity,
            writer_check: None,
            gone: None,
            mcap: None,
        })
    }

    /// Keeps each message's place (24 bytes a message) so that snapshots carry their chunks'
    /// message lists: nothing is read again to list, plot or check what was followed. For
    /// the explorer and `info --follow --freq`; call before the first poll.
    #[must_use]
    pub fn keep_entries(mut self) -> Follower {
        self.keep_entries = true;
        self
    }

    /// The path given to [`Follower::open`].
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Where the finished recording is now: `rosbag record` renames `X.bag.active` to
    /// `X.bag` when it closes the bag. The path given otherwise.
    pub fn final_path(&self) -> PathBuf {
        let s = self.path.to_string_lossy();
        if let Some(stem) = s.strip_suffix(".active") {
            let done = PathBuf::from(stem);
            if !self.path.exists() && done.exists() {
                return done;
            }
        }
        self.path.clone()
    }

    /// Connections seen so far, with their message counts.
    pub fn connections(&self) -> &[Connection] {
        &self.connections
    }

    /// Chunks seen so far (the last one may still be open), with per-connection counts.
    pub fn chunks(&self) -> &[Chunk] {
        &self.chunks
    }

    /// The record header of each chunk so far (as [`Follower::chunks`]).
    pub fn heads(&self) -> &[super::read::heads::ChunkHead] {
        &self.heads
    }

    /// Total messages read so far.
    pub fn message_count(&self) -> u64 {
        self.connections.iter().map(|c| c.message_count).sum()
    }

    /// True once the recording is finished (see the module docs).
    pub fn is_finished(&self) -> bool {
        self.finished
    }

    /// Bytes of the file consumed (every record before this offset has been read).
    pub fn consumed(&self) -> u64 {
        self.base
    }

    /// File size at the last poll.
    pub fn file_len(&self) -> u64 {
        self.stamp.0
    }

    /// Bytes written but not yet readable as whole records (the writer is inside a record,
    /// or a compressed chunk is still open): how far behind the writer the reader is.
    pub fn behind_bytes(&self) -> u64 {
        self.stamp.0.saturating_sub(self.base)
    }

    /// Time since new bytes last completed a record (`None` before the first one).
    pub fn since_growth(&self) -> Option<Duration> {
        self.last_growth.map(|t| t.elapsed())
    }

    /// Receive time of the last message read.
    pub fn last_time(&self) -> Option<RosTime> {
        self.last_time
    }

    fn stat(&self) -> Result<Stamp, FollowError> {
        let meta = self.file.metadata().map_err(|source| FollowError::Io {
            path: self.path.clone(),
            source,
        })?;
        Ok((meta.len(), meta.modified().ok()))
    }

    /// True when the file's size or modification time changed since the last poll.
    pub fn changed(&self) -> Result<bool, FollowError> {
        Ok(self.stat()? != self.stamp)
    }

    /// Sleeps until the file changes (checked every [`POLL_INTERVAL`] with one `fstat`: no
    /// CPU to speak of while the writer is idle) or `timeout` passes. True when it changed.
    pub fn wait(&self, timeout: Duration) -> Result<bool, FollowError> {
        let start = Instant::now();
        loop {
            if self.changed()? {
                return Ok(true);
            }
            let left = timeout.saturating_sub(start.elapsed());
            if left.is_zero() {
                return Ok(false);
            }
            std::thread::sleep(left.min(POLL_INTERVAL));
        }
    }

    /// Reads what was added since the last poll; returns the new messages, stopping once
    /// they hold about `budget` bytes of data ([`Update::more`] then says to poll again).
    pub fn poll(&mut self, budget: usize) -> Result<Update, FollowError> {
        let mut update = Update::default();
        if self.finished {
            update.finished = true;
            return Ok(update);
        }
        if let Some(gone) = self.gone {
            return Err(gone.error(&self.path));
        }
        // Looked at before reading: whatever the open file holds is still read first.
        let gone = self.name_moved()?;
        let stamp = self.stat()?;
        let len = stamp.0;
        let read_to = self.base.saturating_add(self.buf.len() as u64);
        if len < read_to && self.pending_chunk.is_none() {
            return Err(FollowError::Shrunk {
                path: self.path.clone(),
                read: read_to,
                now: len,
            });
        }
        if stamp != self.stamp || !self.started {
            self.stamp = stamp;
            if !self.read_bag_header(len)? {
                return Ok(update);
            }
        }
        let before = self.base;
        loop {
            if let Some(pos) = self.pending_chunk {
                if !self.chunk_closed(pos)? {
                    break;
                }
            }
            let read_to = self.base.saturating_add(self.buf.len() as u64);
            if read_to < len {
                let n = usize::try_from((len - read_to).min(READ_STEP)).unwrap_or(0);
                let old = self.buf.len();
                self.buf.resize(old + n, 0);
                let got = read_at(
                    &self.file,
                    self.buf.get_mut(old..).unwrap_or_default(),
                    read_to,
                )
                .map_err(|source| FollowError::Io {
                    path: self.path.clone(),
                    source,
                })?;
                self.buf.truncate(old + got);
                if got == 0 {
                    break;
                }
            }
            let data: usize = update.messages.iter().map(|m| m.data.len()).sum();
            if self.mcap.is_some() {
                self.parse_mcap(&mut update, budget.saturating_sub(data));
                if self.mcap_closed() {
                    break;
                }
            } else {
                self.parse(&mut update, budget.saturating_sub(data));
            }
            let data: usize = update.messages.iter().map(|m| m.data.len()).sum();
            if data >= budget {
                update.more = true;
                break;
            }
            if self.pending_chunk.is_some() {
                continue;
            }
            if self.base.saturating_add(self.buf.len() as u64) >= len {
                break;
            }
        }
        if self.base > before {
            self.last_growth = Some(Instant::now());
        }
        if let Some(m) = update.messages.last() {
            self.last_time = Some(m.time);
        }
        if (self.index_pos > 0 || self.mcap_closed()) && !update.more {
            // The writer closed the bag: what is left unread is damage.
            let end = self.base.saturating_add(self.buf.len() as u64);
            if !self.buf.is_empty() || self.pending_chunk.is_some() {
                let from = self.pending_chunk.unwrap_or(self.base);
                update.losses.push(Loss {
                    offset: from,
                    bytes: end.saturating_sub(from).max(1),
                    messages: None,
                    reason: "the recording was closed with this record incomplete".into(),
                });
                self.buf.clear();
                self.pending_chunk = None;
            }
            self.finished = true;
            update.finished = true;
        }
        let room = MAX_LOSSES.saturating_sub(self.losses.len());
        self.losses.extend(update.losses.iter().take(room).cloned());
        self.share_counts();
        let in_memory = self.pending_chunk.is_some()
            || self.mcap.as_ref().is_some_and(|m| m.chunked && !m.closed);
        self.pending_seen = in_memory.then(|| self.pending_seen.unwrap_or_else(Instant::now));
        if !update.finished && !update.more {
            self.gone = gone;
        }
        Ok(update)
    }

    /// Moves the counts of the chunks closed since the last poll (all but the last chunk:
    /// only the last one still changes) into one shared table, so that a snapshot copies
    /// them without an allocation per chunk and frees them without a free per chunk.
    /// Work proportional to the chunks closed since.
    fn share_counts(&mut self) {
        let closed = self.chunks.len().saturating_sub(1);
        let Some(new) = self.chunks.get_mut(self.shared..closed) else {
            return;
        };
        if new.is_empty() {
            return;
        }
        self.closed.add(new, self.connections.len());
        let table = super::counts::TableHandle::own(
            new.iter().flat_map(|c| c.counts.iter().copied()).collect(),
        );
        let mut at = 0;
        for c in new {
            let len = c.counts.len();
            c.counts = super::counts::Counts::shared(&table, at, len);
            at += len;
        }
        let n = closed - self.shared;
        let keep = self.keep_entries;
        self.kept_entries.extend(
            self.open_entries
                .drain(..n.min(self.open_entries.len()))
                .map(|e| keep.then(|| Arc::from(super::read::entries::finish(e)))),
        );
        self.shared = closed;
    }

    /// Reads the version line and the bag header (again, to see the index position the writer
    /// sets when it closes the bag). False while the header is not yet complete.
    fn read_bag_header(&mut self, len: u64) -> Result<bool, FollowError> {
        if self.mcap.is_some() {
            // An MCAP file's header is never rewritten: nothing to look at again.
            return Ok(true);
        }
        let mut head = vec![0u8; usize::try_from(len.min(64 << 10)).unwrap_or(0)];
        let got = read_at(&self.file, &mut head, 0).map_err(|source| FollowError::Io {
            path: self.path.clone(),
            source,
        })?;
        head.truncate(got);
        let not_bag = |what: String| FollowError::NotABag {
            path: self.path.clone(),
            what,
        };
        let (version, start) = match crate::format::detect(&head) {
            Ok(v) => v,
            Err(_) if head.len() < 64 && !self.started => return Ok(false),
            Err(e) => return Err(not_bag(e.to_string())),
        };
        if version == Version::Mcap {
            if !self.started {
                self.base = start as u64;
                self.started = true;
                self.mcap = Some(Box::default());
            }
            return Ok(true);
        }
        if version != Version::V2_0 {
            return Err(FollowError::Version {
                path: self.path.clone(),
                version,
            });
        }
        let Ok(h) = read_head(&head, start, 0) else {
            if self.started {
                return Ok(true);
            }
            // Still being written (the header is padded to 4 KB and written at once).
            return Ok(false);
        };
        let header =
            BagHeader::from_header(&h.header, h.offset).map_err(|e| not_bag(e.to_string()))?;
        self.index_pos = header.index_pos;
        if !self.started {
            let end = h.end();
            if end > len {
                return Ok(false);
            }
            self.base = end;
            self.started = true;
        }
        Ok(true)
    }
}

/// A positioned read that retries until `buf` is full or the file ends.
fn read_at(file: &File, buf: &mut [u8], offset: u64) -> std::io::Result<usize> {
    match crate::bag::source::fill_at(file, buf, offset) {
        (_, Some(e)) => Err(e),
        (done, None) => Ok(done),
    }
}
