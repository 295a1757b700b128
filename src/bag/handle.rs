//! The open bag, [`Bag`]: a cheap shared handle on what opening found (connections, chunks,
//! their lazily read record headers and message lists, warnings, the recovery report) and
//! the file, with random access to single messages through a cache of decompressed chunks.
//! Opening lives in [`super::open`], the readers in [`super::read`]. How a bag is opened,
//! [`OpenOptions`], is here too, with what a recovery scan hands out while it runs
//! ([`PartialScan`] through a [`PartialFn`]): the options hold the callback that receives a
//! bag, and the bag keeps its options.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};

use crate::format::Version;
use crate::time::RosTime;

use super::budget::DEFAULT_DECODE_BUDGET;
use super::budget::{Budget, Permit};
use super::bytes::Bytes;
use super::chunk::{Chunk, ChunkState, IndexEntry};
use super::compression_stats::CompressionStats;
use super::connection::{ConnId, Connection};
use super::error::{BagError, BagErrorKind, Warning};
use super::parallel::default_threads;
use super::read::cache::ChunkCache;
use super::read::entries;
use super::read::heads;
use super::read::load::read_message;
use super::recovery::ProgressFn;
use super::recovery::Recovery;
use super::slots;
use super::source::{FileStamp, Source};
use super::totals;
use crate::format::compression::DEFAULT_MAX_CHUNK_SIZE;

/// One message: where it is and its payload.
#[derive(Clone, Debug)]
pub struct Message {
    /// Position, time and connection.
    pub entry: IndexEntry,
    /// The serialized message (a range of its chunk's bytes).
    pub data: Bytes,
}

pub(in crate::bag) struct Inner {
    pub(in crate::bag) path: Arc<Path>,
    pub(in crate::bag) source: Arc<Source>,
    pub(in crate::bag) version: Version,
    pub(in crate::bag) connections: Vec<Connection>,
    pub(in crate::bag) conn_map: HashMap<u32, ConnId>,
    pub(in crate::bag) chunks: Vec<Chunk>,
    pub(in crate::bag) heads: heads::Heads,
    pub(in crate::bag) entries: slots::Slots<Arc<[IndexEntry]>>,
    pub(in crate::bag) warnings: Vec<Warning>,
    pub(in crate::bag) late_warnings: Mutex<Vec<Warning>>,
    /// Per chunk whose index data did not check out: messages per connection that its chunk
    /// info lists but walking the chunk did not find.
    pub(in crate::bag) unfound: Mutex<HashMap<u32, Vec<(ConnId, u64)>>>,
    pub(in crate::bag) recovery: Option<Recovery>,
    pub(in crate::bag) cache: Mutex<ChunkCache>,
    pub(in crate::bag) budget: Arc<Budget>,
    pub(in crate::bag) options: OpenOptions,
    /// Message count, first and last times, per-connection spans (computed once).
    pub(in crate::bag) totals: totals::Totals,
    /// Compression statistics known without reading the chunk record headers (remembered
    /// from an earlier read of the same file: [`stats_cache`]).
    pub(in crate::bag) known_stats: std::sync::OnceLock<Vec<CompressionStats>>,
    /// What an MCAP file holds besides messages (`None` for bags).
    pub(in crate::bag) mcap: Option<Arc<crate::bag::mcap::McapInfo>>,
}

/// An open bag. Cheap to clone (shared); safe to use from several threads.
#[derive(Clone)]
pub struct Bag {
    pub(in crate::bag) inner: Arc<Inner>,
}

impl std::fmt::Debug for Bag {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Bag")
            .field("path", &self.inner.path)
            .field("version", &self.inner.version)
            .field("connections", &self.inner.connections.len())
            .field("chunks", &self.inner.chunks.len())
            .finish_non_exhaustive()
    }
}

impl Bag {
    /// The file this bag was opened from.
    pub fn path(&self) -> &Path {
        &self.inner.path
    }

    /// The on-disk version.
    pub fn version(&self) -> Version {
        self.inner.version
    }

    /// File size in bytes.
    pub fn size(&self) -> u64 {
        self.inner.source.len()
    }

    /// The file's identity and change times when it was opened (`None` for bytes in memory).
    pub fn stamp(&self) -> Option<FileStamp> {
        self.inner.source.stamp()
    }

    /// The error to end with once a read found the file shorter than when it was opened
    /// (another process truncated or rewrote it): [`BagErrorKind::ChangedOnDisk`].
    pub fn changed_on_disk(&self) -> Option<BagError> {
        self.inner.source.changed().then(|| {
            self.error(BagErrorKind::ChangedOnDisk {
                changed: self.inner.source.short_read(),
                unread: 0,
            })
        })
    }

    /// What an MCAP file holds besides messages: profile, library, attachments, metadata
    /// (`None` for a ROS1 bag).
    pub fn mcap(&self) -> Option<&crate::bag::mcap::McapInfo> {
        self.inner.mcap.as_deref()
    }

    /// True when the bag was opened from a complete, consistent index.
    pub fn is_indexed(&self) -> bool {
        self.inner.recovery.is_none()
    }

    /// How the bag was read when it was not opened from an index.
    pub fn recovery(&self) -> Option<&Recovery> {
        self.inner.recovery.as_ref()
    }

    /// Connections, ordered by their id in the file.
    pub fn connections(&self) -> &[Connection] {
        &self.inner.connections
    }

    /// One connection.
    pub fn connection(&self, id: ConnId) -> Option<&Connection> {
        self.inner.connections.get(id as usize)
    }

    /// The dense id of the connection with file id `file_id`.
    pub fn conn_by_file_id(&self, file_id: u32) -> Option<ConnId> {
        self.inner.conn_map.get(&file_id).copied()
    }

    /// Chunks (2.0) or the whole-file pseudo-chunk (older layouts).
    pub fn chunks(&self) -> &[Chunk] {
        &self.inner.chunks
    }

    /// Warnings noticed while opening, and since (lazily read index data and chunk record
    /// headers).
    pub fn warnings(&self) -> Vec<Warning> {
        let mut all = self.inner.warnings.clone();
        all.extend(self.head_warnings());
        all.extend(
            self.inner
                .late_warnings
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .iter()
                .cloned(),
        );
        all
    }

    /// Adds warnings found about this bag from outside it (what a ROS 2 bag directory's
    /// metadata says that its storage files contradict).
    pub fn add_warnings(&self, warnings: impl IntoIterator<Item = Warning>) {
        for w in warnings {
            self.warn(w);
        }
    }

    pub(in crate::bag) fn warn(&self, w: Warning) {
        let mut late = self
            .inner
            .late_warnings
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if !late.contains(&w) {
            late.push(w);
        }
    }

    /// Total messages (computed once, when the bag was opened).
    pub fn message_count(&self) -> u64 {
        self.inner.totals.messages
    }

    /// Earliest receive time of any message (minimum over chunk start times).
    pub fn start_time(&self) -> Option<RosTime> {
        self.inner.totals.start
    }

    /// Latest receive time of any message (maximum over chunk end times).
    pub fn end_time(&self) -> Option<RosTime> {
        self.inner.totals.end
    }

    /// The time range of the chunks holding messages of connection `id`: from the earliest
    /// start to the latest end (`None` when it has none). Computed once.
    pub fn connection_span(&self, id: ConnId) -> Option<(RosTime, RosTime)> {
        self.inner.totals.spans.get(id as usize).copied().flatten()
    }

    /// An error about this bag.
    pub fn error(&self, kind: BagErrorKind) -> BagError {
        BagError::new(&self.inner.path, kind)
    }

    /// The messages of chunk `chunk`, in reading order. Read from the chunk's index data
    /// records the first time (no decompression), falling back to walking the chunk when that
    /// index is inconsistent (problems become [`Bag::warnings`]).
    pub fn chunk_entries(&self, chunk: u32) -> Arc<[IndexEntry]> {
        self.inner
            .entries
            .get_or_init(chunk as usize, || self.load_entries(chunk))
            .cloned()
            .unwrap_or_else(|| Arc::from(Vec::new()))
    }

    /// Messages of the selected connections that the index (chunk info) lists in chunk `chunk`
    /// but that its entries do not hold: the chunk's index data did not check out and walking
    /// its records found fewer. 0 for chunks read from consistent index data or recovered.
    pub fn unfound(&self, chunk: u32, wants: impl Fn(ConnId) -> bool) -> u64 {
        // Entries are loaded (and shortfalls noted) on first use.
        let _ = self.chunk_entries(chunk);
        self.inner
            .unfound
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&chunk)
            .map_or(0, |list| {
                list.iter()
                    .filter(|&&(conn, _)| wants(conn))
                    .map(|&(_, n)| n)
                    .sum()
            })
    }

    /// The messages of chunk `chunk` if they are already in memory (never reads the file).
    pub fn loaded_entries(&self, chunk: u32) -> Option<Arc<[IndexEntry]>> {
        self.inner.entries.get(chunk as usize).cloned()
    }

    pub(in crate::bag) fn load_entries(&self, index: u32) -> Arc<[IndexEntry]> {
        let Some(chunk) = self.inner.chunks.get(index as usize) else {
            return Arc::from(Vec::new());
        };
        let Ok(head) = self.head_of(index) else {
            // The file no longer holds it: the readers end with `changed_on_disk`.
            return Arc::from(Vec::new());
        };
        // A chunk whose header is bad is reported by `warnings` and loads as nothing: all its
        // messages are unfound.
        let window = head
            .as_ref()
            .ok()
            .and_then(|h| self.entries_window(index, h));
        // No index data position known (the chunk a followed recorder is still writing, a
        // run of loose records): its records are walked, as below, with nothing to warn of.
        let indexed = head
            .as_ref()
            .ok()
            .filter(|h| h.index_data_pos.is_some())
            .map(|h| {
                let source = &self.inner.source;
                entries::from_index_data(source, chunk, h, &self.inner.conn_map, window.as_ref())
            });
        match indexed {
            None => {}
            // The file no longer holds it: the readers end with `changed_on_disk`.
            Some(Err(_)) if self.inner.source.changed() => return Arc::from(Vec::new()),
            Some(Ok(e)) => {
                if let Some(w) = &window {
                    self.entries_ahead(index, w);
                }
                return Arc::from(entries::finish(e));
            }
            // Index data cut by the end of the file: still being written (a followed
            // recording) or lost in a crash (the recovery scan reports that). The records are
            // walked instead, as below, and nothing is missing.
            Some(Err(why)) if why == entries::CUT_BY_END => {}
            Some(Err(why)) => self.warn(Warning::at(
                chunk.pos,
                format!("the index data of this chunk is inconsistent ({why}); its records were walked instead"),
            )),
        }
        let Ok(loaded) = self.load_chunk_uncached(chunk) else {
            return Arc::from(Vec::new());
        };
        let scan = self.walk_chunk(chunk, &loaded.bytes);
        let expected = chunk.state == ChunkState::Complete;
        // A chunk the file ends in, or that the recorder has not closed, ends in a record cut
        // short: the record still being written (a followed recording), or the loss the
        // recovery scan already reports. Anything else wrong in it is a warning.
        let cut_short = |e: &crate::format::FormatError| {
            !expected && matches!(e.kind, crate::format::ErrorKind::Truncated { .. })
        };
        if let Some(e) = loaded
            .error
            .filter(|_| expected && head.is_ok())
            .or(scan.error.filter(|e| !cut_short(e)))
        {
            self.warn(Warning::at(
                e.file_offset(),
                format!("chunk partly unreadable: {e}"),
            ));
        }
        let list = scan
            .messages
            .iter()
            .filter_map(|&(time, file_id, offset)| {
                Some(IndexEntry {
                    time,
                    conn: *self.inner.conn_map.get(&file_id)?,
                    chunk: index,
                    offset,
                })
            })
            .collect::<Vec<IndexEntry>>();
        // What the chunk info lists that the walk did not find.
        let mut found: HashMap<ConnId, u64> = HashMap::new();
        for e in &list {
            *found.entry(e.conn).or_default() += 1;
        }
        let short: Vec<(ConnId, u64)> = chunk
            .counts
            .iter()
            .map(|&(conn, n)| {
                let got = found.get(&conn).copied().unwrap_or(0);
                (conn, u64::from(n).saturating_sub(got))
            })
            .filter(|&(_, n)| n > 0)
            .collect();
        if !short.is_empty() {
            self.inner
                .unfound
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .insert(index, short);
        }
        Arc::from(entries::finish(list))
    }

    /// Walks the records of a chunk's uncompressed data (a bag chunk's or an MCAP chunk's).
    fn walk_chunk(&self, chunk: &Chunk, bytes: &[u8]) -> entries::ChunkScan {
        if chunk.layout != crate::bag::chunk::ChunkLayout::Mcap {
            return entries::scan_records(bytes, self.origin(chunk));
        }
        // Loose messages of an unchunked file are a run of the file, not a chunk's data.
        let in_chunk = self
            .chunk_head(chunk.index)
            .is_none_or(|h| h.data_offset != chunk.pos);
        let w =
            crate::bag::mcap::index::walk(bytes, in_chunk.then_some(chunk.pos), chunk.pos, false);
        entries::ChunkScan {
            connections: Vec::new(),
            messages: w.messages,
            error: w.error,
            unread: w.unread,
        }
    }

    /// Where the uncompressed data of `chunk` lives, for error offsets.
    pub(in crate::bag) fn origin(&self, chunk: &Chunk) -> entries::Origin {
        match self.chunk_head(chunk.index) {
            Some(h) => entries::Origin::of(chunk, &h),
            None => entries::Origin::Chunk(chunk.pos),
        }
    }

    /// The uncompressed bytes of chunk `index`, from the cache when possible.
    pub fn chunk_bytes(&self, index: u32) -> Result<Bytes, BagError> {
        if let Some(b) = self.cache().get(index) {
            return Ok(b);
        }
        let (bytes, _permit) = self.chunk_bytes_held(index)?;
        self.cache().put(index, bytes.clone());
        Ok(bytes)
    }

    /// The uncompressed bytes of chunk `index`, read for one pass (never from or into the
    /// cache), with the [`Permit`] that holds them against the bag's decode budget: keep it
    /// while working on the chunk on a worker thread, so that all workers together stay
    /// within [`OpenOptions::decode_budget`].
    pub fn chunk_bytes_held(&self, index: u32) -> Result<(Bytes, Option<Permit>), BagError> {
        let chunk = self
            .inner
            .chunks
            .get(index as usize)
            .ok_or_else(|| self.error(BagErrorKind::Unreadable(format!("no chunk {index}"))))?;
        let loaded = self.load_chunk_uncached(chunk).map_err(|c| {
            self.error(BagErrorKind::ChangedOnDisk {
                changed: c,
                unread: 1,
            })
        })?;
        if let Some(e) = loaded.error.filter(|_| chunk.state == ChunkState::Complete) {
            // What decoded is still useful for the messages it holds, but say why the rest
            // is missing.
            if loaded.bytes.is_empty() {
                return Err(self.error(e.into()));
            }
            self.warn(Warning::at(
                e.file_offset(),
                format!("chunk partly unreadable: {e}"),
            ));
        }
        Ok((loaded.bytes, loaded.permit))
    }

    pub(in crate::bag) fn cache(&self) -> std::sync::MutexGuard<'_, ChunkCache> {
        self.inner
            .cache
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Reads the message at `entry` (random access, through the chunk cache).
    pub fn read(&self, entry: &IndexEntry) -> Result<Message, BagError> {
        let bytes = self.chunk_bytes(entry.chunk)?;
        self.read_in(entry, &bytes)
    }

    /// Reads the message at `entry` from its chunk's bytes (from [`Bag::chunk_bytes`]).
    pub fn read_with(&self, entry: &IndexEntry, bytes: &Bytes) -> Result<Message, BagError> {
        self.read_in(entry, bytes)
    }

    /// Walks a 2.0 chunk's records: the number of message data records, and the error that
    /// stopped the walk early, if any.
    pub fn count_message_records(
        &self,
        chunk: &Chunk,
        bytes: &Bytes,
    ) -> (usize, Option<crate::format::FormatError>) {
        let scan = self.walk_chunk(chunk, bytes);
        let expected_end = chunk.state == ChunkState::Complete;
        (scan.messages.len(), scan.error.filter(|_| expected_end))
    }

    /// Worker threads used for decompression.
    pub fn threads(&self) -> usize {
        self.inner.options.threads
    }

    /// Reads the message at `entry` from its chunk's already loaded bytes.
    pub(crate) fn read_in(&self, entry: &IndexEntry, bytes: &Bytes) -> Result<Message, BagError> {
        let chunk = self.inner.chunks.get(entry.chunk as usize).ok_or_else(|| {
            self.error(BagErrorKind::Unreadable(format!(
                "no chunk {}",
                entry.chunk
            )))
        })?;
        let raw = read_message(chunk, bytes, entry.offset).map_err(|e| self.error(e.into()))?;
        let conn = self.connection(entry.conn);
        let mismatch = match (&raw.file_conn, &raw.topic, conn) {
            (Some(fc), _, Some(c)) if *fc != c.file_id => {
                Some(format!("a message of connection {fc}"))
            }
            (_, Some(t), Some(c)) if t.as_slice() != c.topic.as_bytes() => Some(format!(
                "a message on topic '{}'",
                String::from_utf8_lossy(t)
            )),
            _ if raw.time != entry.time => Some(format!("a message received at {}", raw.time)),
            _ => None,
        };
        if let Some(found) = mismatch {
            let at = if chunk.is_record() {
                chunk.pos
            } else {
                entry.offset
            };
            return Err(self
                .error(BagErrorKind::IndexMismatch {
                    time: entry.time,
                    conn: conn.map_or(entry.conn, |c| c.file_id),
                    found,
                })
                .at(at));
        }
        Ok(Message {
            entry: *entry,
            data: raw.data,
        })
    }

    pub(crate) fn options(&self) -> &OpenOptions {
        &self.inner.options
    }

    pub(crate) fn source(&self) -> &Arc<Source> {
        &self.inner.source
    }

    pub(crate) fn budget(&self) -> &Arc<Budget> {
        &self.inner.budget
    }
}

/// The chunk count from which an indexed bag's chunk record headers are read after opening
/// (1024 chunks of the default 768 KiB: 768 MiB).
pub const DEFAULT_LAZY_HEADS_FROM: usize = 1024;

/// Settings for opening a bag.
#[derive(Clone, Debug)]
pub struct OpenOptions {
    /// Largest uncompressed chunk accepted (bytes).
    pub max_chunk_size: u64,
    /// Budget of the decompressed-chunk cache used for random access (bytes).
    pub cache_bytes: usize,
    /// Threads for decompression during recovery scans and parallel iteration.
    pub threads: usize,
    /// Bytes of decompressed chunk data that the threads may hold together (see
    /// [`Budget`]); a single chunk larger than this is decoded alone.
    pub decode_budget: u64,
    /// Told how a recovery scan advances (bags without a usable index), if set.
    pub progress: Option<ProgressFn>,
    /// Handed partial results while a recovery scan runs (bags without a usable index), if
    /// set: the bag as found so far, to show before the scan is done.
    pub partial: Option<PartialFn>,
    /// Indexed bags of at least this many chunks are opened from their index section alone:
    /// their chunk record headers are read later (see [`Bag::head`], [`Bag::read_heads`]).
    /// Those of smaller bags are read and checked while opening.
    pub lazy_heads_from: usize,
    /// Where rosbag2 storage files converted into MCAP (`.db3`, compressed files) are kept
    /// between runs, so that the next open of the same unchanged file reads the MCAP at
    /// once (see `bag::ros2`); `None`: each conversion goes into an unlinked temporary file.
    pub ros2_cache: Option<std::path::PathBuf>,
}

impl Default for OpenOptions {
    fn default() -> Self {
        OpenOptions {
            max_chunk_size: DEFAULT_MAX_CHUNK_SIZE,
            cache_bytes: 64 << 20,
            threads: default_threads(),
            decode_budget: DEFAULT_DECODE_BUDGET,
            progress: None,
            partial: None,
            lazy_heads_from: DEFAULT_LAZY_HEADS_FROM,
            ros2_cache: None,
        }
    }
}

/// What a recovery scan has found so far (see [`PartialFn`]): a bag of the chunks and
/// connections found up to some point of the file, with the losses and warnings found so far.
/// Its counts are partial: the scan goes on.
#[derive(Clone, Debug)]
pub struct PartialScan {
    /// The bag as found so far (its [`Bag::recovery`](Bag::recovery) lists the losses
    /// found so far).
    pub bag: Bag,
    /// Bytes of the file walked.
    pub done: u64,
    /// The file's size.
    pub total: u64,
}

/// A callback handed partial results of a recovery scan while it runs: the first soon after
/// the first chunks are read, then at most every [`PARTIAL_EVERY`] (less often when building
/// a snapshot takes long), from the thread that opens the bag. Returning false cancels the
/// scan: opening then fails with [`BagErrorKind::Cancelled`](super::error::BagErrorKind::Cancelled).
/// The finished bag is what opening returns. Set in
/// [`OpenOptions::partial`](OpenOptions::partial); indexed bags never call it.
#[derive(Clone)]
pub struct PartialFn(pub std::sync::Arc<dyn Fn(PartialScan) -> bool + Send + Sync>);

impl std::fmt::Debug for PartialFn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("PartialFn")
    }
}

/// The shortest time between two partial results of a recovery scan (see [`PartialFn`]).
pub const PARTIAL_EVERY: std::time::Duration = std::time::Duration::from_millis(250);
