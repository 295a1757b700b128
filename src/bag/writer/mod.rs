//! Writing V2.0 bags, streaming, with the official writer's layout.
//!
//! ```no_run
//! use bagscope::bag::writer::{BagWriter, WriterOptions};
//! use bagscope::format::{Compression, ConnectionHeader};
//! use bagscope::time::RosTime;
//!
//! let options = WriterOptions { compression: Compression::Lz4, ..WriterOptions::default() };
//! let mut bag = BagWriter::create("out.bag", options)?;
//! let header = ConnectionHeader::build(
//!     "/chatter", "std_msgs/String", "992ce8a1687cec8c8bd883ec73ca41d1", "string data\n",
//!     Some("/talker"), Some("0"),
//! );
//! let conn = bag.add_connection("/chatter", &header)?;
//! bag.write(conn, RosTime::new(1_700_000_000, 0), b"\x02\x00\x00\x00hi")?;
//! let summary = bag.finish()?; // only now does out.bag appear
//! # Ok::<(), bagscope::bag::writer::WriteError>(())
//! ```
//!
//! Layout (as `rosbag record` and the Python writer produce it): the version line, the bag
//! header padded to 4096 bytes (written first with `index_pos = 0`, rewritten at the end),
//! then per chunk the chunk record — holding the connection record of each connection the
//! first time it is used in the bag, and the message data records — followed by one index
//! data record per connection of the chunk (order of first appearance in the chunk, entries
//! sorted by time). At `index_pos`: every used connection record again (by id), then one chunk
//! info record per chunk. A chunk is closed after the message that takes its uncompressed size
//! past [`WriterOptions::chunk_size`].
//!
//! The bag is written to a temporary file in the target's directory, synced and renamed over
//! the target by [`BagWriter::finish`]; a writer dropped before that (or an error) removes the
//! temporary file. A FIFO or character device at the target (`/dev/stdout` into a pipe) gets
//! the finished bag streamed into it instead (see [`AtomicFile`]). Memory: one chunk and its
//! index, plus a few bytes per chunk and connection.

mod atomic;
mod cleanup;
mod dir;
mod error;
mod kind;
mod open_chunk;
mod out_dir;
mod replace;
mod stream;
mod target;
mod temp_output;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::format::{
    BagHeader, ChunkHeader, ChunkInfo, Compression, ConnectionHeader, MessageDataHeader, Version,
    compression, connection, index_data,
};
use crate::time::RosTime;

pub use atomic::AtomicFile;
pub use cleanup::{remove_temp_files, remove_temp_files_on_signals};
pub use error::WriteError;
pub use kind::FileKind;
pub use out_dir::OutputDir;
pub use stream::READER_WAIT;
pub use target::ensure_distinct;

use open_chunk::{ClosedChunk, OpenChunk};
use temp_output::TempOutput;

/// The official recorder's chunk threshold: 768 KiB of uncompressed records.
pub const DEFAULT_CHUNK_SIZE: u32 = 768 * 1024;

/// How to write a bag.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WriterOptions {
    /// Chunk compression.
    pub compression: Compression,
    /// A chunk is closed after the message that takes its uncompressed size past this many
    /// bytes (so chunks overshoot by up to one message; 0 gives one message per chunk).
    pub chunk_size: u32,
}

impl Default for WriterOptions {
    fn default() -> Self {
        WriterOptions {
            compression: Compression::None,
            chunk_size: DEFAULT_CHUNK_SIZE,
        }
    }
}

/// What [`BagWriter::finish`] wrote.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WriteSummary {
    /// The bag's path.
    pub path: PathBuf,
    /// Messages written.
    pub messages: u64,
    /// Connections written (those that carry at least one message).
    pub connections: u32,
    /// Chunks written.
    pub chunks: u32,
    /// File size in bytes.
    pub bytes: u64,
    /// Total uncompressed size of the chunks.
    pub uncompressed: u64,
    /// Earliest and latest message time, if any message was written.
    pub range: Option<(RosTime, RosTime)>,
}

/// A connection as the writer keeps it.
#[derive(Debug)]
struct Registered {
    id: u32,
    topic: String,
    /// The raw connection header (record data), exactly as given.
    raw: Vec<u8>,
    /// True once its connection record went into a chunk.
    used: bool,
}

/// A V2.0 bag being written. See the [module documentation](self).
pub struct BagWriter {
    out: TempOutput,
    options: WriterOptions,
    connections: Vec<Registered>,
    by_id: HashMap<u32, usize>,
    next_id: u32,
    chunk: OpenChunk,
    infos: Vec<ChunkInfo>,
    messages: u64,
    uncompressed: u64,
    range: Option<(RosTime, RosTime)>,
    scratch: Vec<u8>,
}

impl std::fmt::Debug for BagWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BagWriter")
            .field("target", &self.out.target())
            .field("options", &self.options)
            .field("connections", &self.connections.len())
            .field("chunks", &self.infos.len())
            .field("messages", &self.messages)
            .finish_non_exhaustive()
    }
}

/// Offset of the bag header record: just after the version line.
const HEADER_POS: u64 = b"#ROSBAG V2.0\n".len() as u64;

impl BagWriter {
    /// Starts a bag that [`BagWriter::finish`] will move to `path` (through a symbolic link
    /// at `path`, to the file it points to). Nothing appears at `path` before that; an
    /// existing file there is replaced only then. A FIFO or character device at `path` gets
    /// the whole bag written into it by [`BagWriter::finish`].
    pub fn create(path: impl AsRef<Path>, options: WriterOptions) -> Result<Self, WriteError> {
        let mut out = TempOutput::create(path.as_ref())?;
        out.write(Version::V2_0.line())?;
        out.write(&placeholder_header())?;
        Ok(BagWriter {
            out,
            options,
            connections: Vec::new(),
            by_id: HashMap::new(),
            next_id: 0,
            chunk: OpenChunk::default(),
            infos: Vec::new(),
            messages: 0,
            uncompressed: 0,
            range: None,
            scratch: Vec::new(),
        })
    }

    /// The path the bag will have.
    pub fn target(&self) -> &Path {
        self.out.target()
    }

    /// Adds a connection on `topic` (the record's topic, which wins over any `topic` field in
    /// the header) and returns its id: one more than the largest id so far. The header's
    /// [`raw`](ConnectionHeader::raw) bytes are written unchanged, so a connection copied
    /// from another bag keeps its fields, their order and any extra fields; a header with
    /// empty `raw` is encoded from its parsed fields.
    ///
    /// A connection that never gets a message is left out of the bag, as the official reader
    /// would drop it.
    pub fn add_connection(
        &mut self,
        topic: &str,
        header: &ConnectionHeader,
    ) -> Result<u32, WriteError> {
        let id = self.next_id;
        self.add_connection_with_id(id, topic, header)
    }

    /// Adds a connection with a chosen id (e.g. to keep the ids of a bag being copied).
    pub fn add_connection_with_id(
        &mut self,
        id: u32,
        topic: &str,
        header: &ConnectionHeader,
    ) -> Result<u32, WriteError> {
        if self.by_id.contains_key(&id) {
            return Err(WriteError::DuplicateConnection {
                path: self.target().to_path_buf(),
                conn: id,
            });
        }
        let raw = if header.raw.is_empty() {
            ConnectionHeader::build(
                topic,
                &header.datatype,
                &header.md5sum,
                &header.message_definition,
                header.callerid.as_deref(),
                header.latching.as_deref(),
            )
            .raw
        } else {
            header.raw.clone()
        };
        self.check_len("connection header", raw.len())?;
        self.by_id.insert(id, self.connections.len());
        self.connections.push(Registered {
            id,
            topic: topic.to_string(),
            raw,
            used: false,
        });
        self.next_id = self.next_id.max(id.saturating_add(1));
        Ok(id)
    }

    fn check_len(&self, what: &'static str, len: usize) -> Result<u32, WriteError> {
        u32::try_from(len).map_err(|_| WriteError::TooLarge {
            path: self.target().to_path_buf(),
            what,
            len: len as u64,
        })
    }

    /// Writes one message of connection `conn`, received at `time`, with serialized `payload`.
    /// Messages may come in any time order (the index entries are sorted per chunk).
    pub fn write(&mut self, conn: u32, time: RosTime, payload: &[u8]) -> Result<(), WriteError> {
        let slot = *self
            .by_id
            .get(&conn)
            .ok_or_else(|| WriteError::UnknownConnection {
                path: self.target().to_path_buf(),
                conn,
            })?;
        self.check_len("message", payload.len())?;
        let mut record = std::mem::take(&mut self.scratch);
        record.clear();
        if let Some(c) = self.connections.get(slot).filter(|c| !c.used) {
            encode_connection(c, &mut record);
        }
        let message_at = record.len();
        MessageDataHeader { conn, time }.encode(&mut record, payload);
        // Offsets and the chunk size are 32-bit: start a new chunk rather than overflow one.
        let fits = |len: usize| u32::try_from(len).is_ok();
        if !self.chunk.is_empty() && !fits(self.chunk.data.len() + record.len()) {
            self.close_chunk()?;
        }
        let offset = self.chunk.data.len() + message_at;
        let offset = self.check_len("chunk", offset)?;
        self.check_len("chunk", self.chunk.data.len() + record.len())?;
        self.chunk.data.extend_from_slice(&record);
        self.scratch = record;
        self.chunk.add(conn, time, offset);
        if let Some(c) = self.connections.get_mut(slot) {
            c.used = true;
        }
        self.messages += 1;
        self.range = Some(match self.range {
            None => (time, time),
            Some((s, e)) => (s.min(time), e.max(time)),
        });
        if self.chunk.data.len() > self.options.chunk_size as usize {
            self.close_chunk()?;
        }
        Ok(())
    }

    /// Compresses and writes the open chunk and its index data records.
    fn close_chunk(&mut self) -> Result<(), WriteError> {
        if self.chunk.is_empty() {
            return Ok(());
        }
        let ClosedChunk {
            data,
            start,
            end,
            index,
        } = self.chunk.close();
        let size = self.check_len("chunk", data.len())?;
        let packed = match self.options.compression {
            Compression::None => None,
            method => {
                Some(
                    compression::compress(method, &data).map_err(|source| WriteError::Io {
                        path: self.target().to_path_buf(),
                        what: "cannot compress a chunk",
                        source,
                    })?,
                )
            }
        };
        let body = packed.as_deref().unwrap_or(&data);
        let body_len = self.check_len("compressed chunk", body.len())?;
        if u32::try_from(self.infos.len()).is_err() {
            return Err(WriteError::TooMany {
                path: self.target().to_path_buf(),
                what: "chunks",
            });
        }
        let chunk_pos = self.out.pos();
        let mut head = Vec::with_capacity(64);
        ChunkHeader {
            compression: self.options.compression,
            size,
        }
        .encode_head(&mut head, body_len);
        self.out.write(&head)?;
        self.out.write(body)?;
        let mut records = Vec::with_capacity(64 * index.len());
        let mut counts = Vec::with_capacity(index.len());
        for (conn, entries) in &index {
            index_data::encode_v1(&mut records, *conn, entries);
            counts.push((*conn, u32::try_from(entries.len()).unwrap_or(u32::MAX)));
        }
        self.out.write(&records)?;
        self.infos.push(ChunkInfo {
            offset: 0,
            chunk_pos,
            start_time: start,
            end_time: end,
            counts,
            end: 0,
        });
        self.uncompressed += u64::from(size);
        self.chunk.recycle(data);
        Ok(())
    }

    /// Closes the last chunk, writes the index section (connection records, chunk infos),
    /// rewrites the bag header, syncs the file and renames it to the target.
    pub fn finish(mut self) -> Result<WriteSummary, WriteError> {
        self.close_chunk()?;
        let index_pos = self.out.pos();
        let mut used: Vec<&Registered> = self.connections.iter().filter(|c| c.used).collect();
        used.sort_by_key(|c| c.id);
        let conn_count = u32::try_from(used.len()).map_err(|_| WriteError::TooMany {
            path: self.target().to_path_buf(),
            what: "connections",
        })?;
        let mut tail = Vec::new();
        for c in used {
            encode_connection(c, &mut tail);
        }
        for info in &self.infos {
            info.encode(&mut tail);
        }
        self.out.write(&tail)?;
        let chunk_count = u32::try_from(self.infos.len()).unwrap_or(u32::MAX);
        let header = BagHeader {
            index_pos,
            conn_count: Some(conn_count),
            chunk_count: Some(chunk_count),
        }
        .encode();
        let path = self.target().to_path_buf();
        let bytes = self.out.finish(HEADER_POS, &header)?;
        Ok(WriteSummary {
            path,
            messages: self.messages,
            connections: conn_count,
            chunks: chunk_count,
            bytes,
            uncompressed: self.uncompressed,
            range: self.range,
        })
    }
}

/// The bag header of a bag being written: `index_pos`, `conn_count` and `chunk_count` zero,
/// the state a reader recognises as "not closed".
fn placeholder_header() -> Vec<u8> {
    BagHeader {
        index_pos: 0,
        conn_count: Some(0),
        chunk_count: Some(0),
    }
    .encode()
}

fn encode_connection(c: &Registered, out: &mut Vec<u8>) {
    connection::encode_record(out, c.id, &c.topic, &c.raw);
}

#[cfg(test)]
mod tests;
