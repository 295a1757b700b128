//! The MCAP written from a storage file that cannot be read in place (a `.db3`, per-message
//! compression): profile `ros2`, library `bagscope`, one schema per message type, one channel
//! per topic, chunks of about 1 MiB ([`CHUNK_SIZE`], [`COMPRESSION`]) with message indexes,
//! chunk indexes and statistics in the summary, so that the reader opens it from its summary
//! at once. It streams into any seekable writer (a file: see `output.rs`): what it holds in
//! memory is one chunk and the summary (a chunk index per chunk, a few dozen bytes each).

use std::collections::{BTreeMap, HashMap};
use std::io::{Seek, Write};
use std::path::{Path, PathBuf};

use mcap::records::MessageHeader;
use mcap::{WriteOptions, Writer};

use super::error::Ros2Error;
use super::types::{StorageFacts, TopicFacts};

/// Target uncompressed size of a chunk.
pub const CHUNK_SIZE: u64 = 1 << 20;

/// How the chunks are compressed: not at all. Measured on a 1.5 GB `.db3` of camera
/// images, point clouds and IMU messages (docs/ros2-bags.md): lz4 made the conversion
/// 1.5× slower and `verify` 2× slower, for a file 0.5 % smaller (CDR sensor data gives
/// lz4 little to take).
pub const COMPRESSION: Option<mcap::Compression> = None;

/// A schema: its encoding (`ros2msg`, `ros2idl`, ...) and text.
pub struct SchemaText<'a> {
    /// `ros2msg`, `ros2idl`, or what the storage says.
    pub encoding: &'a str,
    /// The definition (empty: none known).
    pub data: &'a [u8],
}

/// Writes an MCAP into `W`, keeping what it holds ([`StorageFacts`]).
pub struct McapBuilder<W: Write + Seek> {
    path: PathBuf,
    writer: Writer<W>,
    /// Message type to schema id: the first definition of a type wins.
    schemas: HashMap<String, u16>,
    channels: Vec<u16>,
    topics: Vec<TopicFacts>,
    count: u64,
    span: Option<(u64, u64)>,
}

impl<W: Write + Seek> McapBuilder<W> {
    /// A new MCAP for the storage file `path` (named in errors), written into `out`.
    pub fn new(path: &Path, out: W) -> Result<Self, Ros2Error> {
        let options = WriteOptions::new()
            .profile("ros2")
            .library("bagscope")
            .compression(COMPRESSION)
            .chunk_size(Some(CHUNK_SIZE));
        let writer = options.create(out).map_err(|e| mcap_error(path, e))?;
        Ok(McapBuilder {
            path: path.to_path_buf(),
            writer,
            schemas: HashMap::new(),
            channels: Vec::new(),
            topics: Vec::new(),
            count: 0,
            span: None,
        })
    }

    /// Adds a topic (its count is kept by [`Self::write`]); `schema` is its type's
    /// definition, where known (else an empty `ros2msg` schema). `metadata` is the channel's.
    /// Returns the topic's index for [`Self::write`].
    pub fn add_topic(
        &mut self,
        topic: TopicFacts,
        schema: Option<SchemaText<'_>>,
        metadata: &BTreeMap<String, String>,
    ) -> Result<usize, Ros2Error> {
        let schema_id = if let Some(&id) = self.schemas.get(&topic.datatype) {
            id
        } else {
            if self.schemas.len() >= usize::from(u16::MAX) {
                return Err(self.too_many("message types", self.schemas.len() + 1));
            }
            let (encoding, data) = schema.map_or(("ros2msg", &[][..]), |s| (s.encoding, s.data));
            let id = self
                .writer
                .add_schema(&topic.datatype, encoding, data)
                .map_err(|e| mcap_error(&self.path, e))?;
            self.schemas.insert(topic.datatype.clone(), id);
            id
        };
        if self.channels.len() >= usize::from(u16::MAX) {
            return Err(self.too_many("topics", self.channels.len() + 1));
        }
        let channel = self
            .writer
            .add_channel(
                schema_id,
                &topic.name,
                &topic.serialization_format,
                metadata,
            )
            .map_err(|e| mcap_error(&self.path, e))?;
        self.channels.push(channel);
        self.topics.push(TopicFacts {
            message_count: Some(0),
            ..topic
        });
        Ok(self.topics.len() - 1)
    }

    /// Writes one message of topic `topic` (an index from [`Self::add_topic`]) at `time_ns`
    /// (log and publish time), sequence `sequence`.
    pub fn write(
        &mut self,
        topic: usize,
        time_ns: u64,
        publish_ns: u64,
        sequence: u32,
        data: &[u8],
    ) -> Result<(), Ros2Error> {
        let Some(&channel_id) = self.channels.get(topic) else {
            return Ok(());
        };
        let header = MessageHeader {
            channel_id,
            sequence,
            log_time: time_ns,
            publish_time: publish_ns,
        };
        self.writer
            .write_to_known_channel(&header, data)
            .map_err(|e| mcap_error(&self.path, e))?;
        if let Some(t) = self.topics.get_mut(topic) {
            t.message_count = Some(t.message_count.unwrap_or(0) + 1);
        }
        self.count += 1;
        self.span = Some(match self.span {
            None => (time_ns, time_ns),
            Some((a, b)) => (a.min(time_ns), b.max(time_ns)),
        });
        Ok(())
    }

    /// Gives the writer back without ending the file (what it holds is not an MCAP: the
    /// conversion starts over).
    pub fn abandon(self) -> W {
        self.writer.into_inner()
    }

    /// Ends the file: the writer it went into, and what it holds.
    pub fn finish(mut self) -> Result<(W, StorageFacts), Ros2Error> {
        self.writer
            .finish()
            .map_err(|e| mcap_error(&self.path, e))?;
        let out = self.writer.into_inner();
        Ok((
            out,
            StorageFacts {
                topics: self.topics,
                message_count: Some(self.count),
                span_ns: self.span,
            },
        ))
    }

    fn too_many(&self, what: &'static str, count: usize) -> Ros2Error {
        Ros2Error::TooMany {
            path: self.path.clone(),
            what,
            count,
        }
    }
}

/// An mcap crate error about `path`.
pub fn mcap_error(path: &Path, source: mcap::McapError) -> Ros2Error {
    Ros2Error::Mcap {
        path: path.to_path_buf(),
        source,
    }
}
