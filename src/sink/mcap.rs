//! MCAP output: profile `ros1`, one schema per message type (`ros1msg`, the full definition
//! text the bag stores), one channel per topic and publisher (`ros1`, with `callerid`,
//! `latching` and `md5sum` in its metadata), the message bytes exactly as in the bag,
//! chunked and compressed, with message indexes and the summary section (Foxglove's `mcap`
//! crate writes them). Written front to back, never seeking (each chunk is gathered in
//! memory, then written whole): to a temporary file beside the target and renamed when
//! complete, or straight into a FIFO or device (`-o /dev/stdout` into a pipe). Memory is
//! one chunk (1 MiB before compression) plus the summary.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use ::mcap::records::MessageHeader;
use ::mcap::write::NoSeek;
use ::mcap::{Compression, WriteOptions, Writer};

use crate::bag::writer::AtomicFile;
use crate::bag::{ConnId, Connection, DefinitionSource};
use crate::wording::count;

use super::{Finished, MessageSink, SinkError, SinkMessage};

/// The md5sum of a type without fields (`std_msgs/Empty`): its definition is rightly empty.
const EMPTY_MD5: &str = "d41d8cd98f00b204e9800998ecf8427e";

/// How the chunks are compressed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum McapCompression {
    /// Zstandard (the default: smallest files, what Foxglove writes).
    #[default]
    Zstd,
    /// LZ4 (faster to read and write, larger).
    Lz4,
    /// Uncompressed chunks.
    None,
}

/// An MCAP file being written.
pub struct McapSink<'d> {
    writer: Writer<NoSeek<AtomicFile>>,
    path: PathBuf,
    /// Channel of each (bag, connection), with its next sequence number.
    channels: HashMap<(usize, ConnId), (u16, u32)>,
    definitions: &'d dyn DefinitionSource,
    messages: u64,
}

impl<'d> McapSink<'d> {
    /// Starts writing `path` (through a temporary file); `definitions` completes connections
    /// of old bags, which store no definitions.
    pub fn create(
        path: &Path,
        compression: McapCompression,
        definitions: &'d dyn DefinitionSource,
    ) -> Result<Self, SinkError> {
        Self::create_with_profile(path, compression, definitions, "ros1")
    }

    /// [`McapSink::create`] with the header's `profile` (`ros1`, `ros2`, or empty for
    /// channels of several encodings).
    pub fn create_with_profile(
        path: &Path,
        compression: McapCompression,
        definitions: &'d dyn DefinitionSource,
        profile: &str,
    ) -> Result<Self, SinkError> {
        let file = AtomicFile::create(path)?;
        let compression = match compression {
            McapCompression::Zstd => Some(Compression::Zstd),
            McapCompression::Lz4 => Some(Compression::Lz4),
            McapCompression::None => None,
        };
        let options = WriteOptions::new()
            .profile(profile)
            .library(concat!("bagscope ", env!("CARGO_PKG_VERSION")))
            .compression(compression)
            // One thread: the compression runs beside the reading, not on every core.
            .compression_threads(0)
            // Each chunk gathered in memory and written whole: no going back, so a pipe works.
            .disable_seeking(true);
        let writer = options
            .create(NoSeek::new(file))
            .map_err(|source| mcap_error(path, "cannot start the file", source))?;
        Ok(McapSink {
            writer,
            path: path.to_path_buf(),
            channels: HashMap::new(),
            definitions,
            messages: 0,
        })
    }

    /// The channel of `conn` of bag `bag`, added (with its schema) on first use.
    fn channel(
        &mut self,
        bag: usize,
        conn: &Connection,
        source: Option<&crate::bag::mcap::McapInfo>,
    ) -> Result<&mut (u16, u32), SinkError> {
        let key = (bag, conn.id);
        if !self.channels.contains_key(&key) && conn.message_encoding != "ros1" {
            // A channel of an MCAP file in another encoding (CDR, JSON, ...): its schema and
            // metadata as they were.
            let schema = if conn.schema_encoding.is_empty() && conn.message_definition.is_empty() {
                0
            } else {
                self.writer
                    .add_schema(
                        &conn.datatype,
                        &conn.schema_encoding,
                        conn.message_definition.as_bytes(),
                    )
                    .map_err(|e| mcap_error(&self.path, &format!("schema {}", conn.datatype), e))?
            };
            let metadata = source
                .and_then(|m| m.channel_metadata.get(&conn.file_id))
                .cloned()
                .unwrap_or_default();
            let id = self
                .writer
                .add_channel(schema, &conn.topic, &conn.message_encoding, &metadata)
                .map_err(|e| mcap_error(&self.path, &format!("channel {}", conn.topic), e))?;
            self.channels.insert(key, (id, 0));
        }
        if !self.channels.contains_key(&key) {
            let definition = if conn.message_definition.is_empty() && conn.md5sum != EMPTY_MD5 {
                self.definitions
                    .full_text(&conn.datatype, &conn.md5sum)
                    .map_err(|why| {
                        SinkError::Usage(format!(
                            "{}: the bag stores no definition of {} ({}), and none is known: {why} (give --msg-path)",
                            conn.topic, conn.datatype, conn.md5sum
                        ))
                    })?
            } else {
                conn.message_definition.clone()
            };
            let schema = self
                .writer
                .add_schema(&conn.datatype, "ros1msg", definition.as_bytes())
                .map_err(|e| mcap_error(&self.path, &format!("schema {}", conn.datatype), e))?;
            let id = self
                .writer
                .add_channel(schema, &conn.topic, "ros1", &channel_metadata(conn))
                .map_err(|e| mcap_error(&self.path, &format!("channel {}", conn.topic), e))?;
            self.channels.insert(key, (id, 0));
        }
        self.channels
            .get_mut(&key)
            .ok_or_else(|| SinkError::Usage("channel table lost an entry".into()))
    }
}

/// The channel metadata of the `ros1` profile (`callerid`, `latching` as `true`/`false`),
/// and the md5sum so that a bag can be written back.
fn channel_metadata(conn: &Connection) -> BTreeMap<String, String> {
    let mut m = BTreeMap::new();
    if let Some(c) = &conn.callerid {
        m.insert("callerid".to_string(), c.clone());
    }
    if conn.latching.is_some() {
        m.insert("latching".to_string(), conn.is_latching().to_string());
    }
    m.insert("md5sum".to_string(), conn.md5sum.clone());
    m
}

fn mcap_error(path: &Path, what: &str, source: ::mcap::McapError) -> SinkError {
    SinkError::Mcap {
        path: path.to_path_buf(),
        what: what.to_string(),
        source,
    }
}

impl MessageSink for McapSink<'_> {
    fn write(&mut self, m: &SinkMessage<'_>) -> Result<(), SinkError> {
        let (channel_id, seq) = {
            let entry = self.channel(m.bag, m.conn, m.mcap)?;
            let current = *entry;
            entry.1 = entry.1.wrapping_add(1);
            current
        };
        let nanos = m.time.as_nanos();
        let header = MessageHeader {
            channel_id,
            sequence: seq,
            log_time: nanos,
            // A bag records only the receive time.
            publish_time: nanos,
        };
        self.writer
            .write_to_known_channel(&header, m.data)
            .map_err(|e| mcap_error(&self.path, "cannot write a message", e))?;
        self.messages += 1;
        Ok(())
    }

    fn finish(mut self: Box<Self>) -> Result<Finished, SinkError> {
        let summary = self
            .writer
            .finish()
            .map_err(|e| mcap_error(&self.path, "cannot write the summary", e))?;
        let chunks = summary.chunk_indexes.len();
        let channels = summary.channels.len();
        let schemas = summary.schemas.len();
        let messages = self.messages;
        let path = self.path.clone();
        let this = *self;
        let file = this.writer.into_inner().into_inner();
        file.commit()?;
        Ok(Finished {
            wrote: vec![format!(
                "wrote {} on {} ({}, {}) to {}",
                count(messages, "message"),
                count(channels as u64, "channel"),
                count(schemas as u64, "schema"),
                count(chunks as u64, "chunk"),
                path.display()
            )],
            left_out: Vec::new(),
        })
    }
}
