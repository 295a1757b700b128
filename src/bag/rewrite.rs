//! Copying the messages of an open bag into a new V2.0 bag: what `bagscope filter` and
//! `bagscope reindex` do.
//!
//! Messages are read in receive-time order (the order the official reader gives) from every
//! chunk the reader could recover, and written with their connections' headers unchanged
//! (2.0 input). Bags of version 1.2 and older get connection headers built from what they
//! store; where that lacks a message definition (1.1, 1.0, 0) it is asked of a
//! [`DefinitionSource`], and left empty — and reported — when the source does not know it.

use std::collections::HashMap;
use std::path::Path;

use crate::format::{ConnectionHeader, Version};
use crate::time::RosTime;

use super::connection::{ConnId, Connection};
use super::definitions::DefinitionSource;
use super::handle::Bag;
use super::query::Query;
use super::unread::Unread;
use super::writer::{BagWriter, WriteError, WriteSummary, WriterOptions, ensure_distinct};

/// How connection ids are assigned in the copy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConnectionIds {
    /// Keep each connection's id from the input (reindex: the copy matches the original).
    Keep,
    /// Number the connections 0, 1, … in order of first use (filter, as the official writer).
    Renumber,
}

/// What to copy and how to write it.
pub struct RewriteOptions<'a> {
    /// The messages to copy.
    pub query: Query,
    /// Compression and chunk size of the copy.
    pub writer: WriterOptions,
    /// Connection ids of the copy.
    pub ids: ConnectionIds,
    /// Definitions for connections whose bag does not store one.
    pub definitions: &'a dyn DefinitionSource,
    /// Copy only the messages (connection, receive time, payload) this returns true for,
    /// asked in receive-time order; `None`: all.
    pub keep: Option<&'a Keep<'a>>,
}

/// A test of which messages (connection, receive time, payload) to copy.
pub type Keep<'a> = dyn Fn(ConnId, RosTime, &[u8]) -> bool + 'a;

/// Where the copy has got to (for progress display).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Progress {
    /// Receive time of the last message copied.
    pub time: RosTime,
    /// Messages copied so far.
    pub messages: u64,
}

/// A connection written without its message definition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MissingDefinition {
    /// Topic.
    pub topic: String,
    /// Message type.
    pub datatype: String,
    /// md5sum of the type.
    pub md5sum: String,
    /// Why no definition was found.
    pub reason: String,
}

/// What a rewrite did.
#[derive(Debug)]
pub struct RewriteReport {
    /// What was written.
    pub summary: WriteSummary,
    /// Messages (or whole chunks) that the reader found but could not read.
    pub unreadable: Unread,
    /// Connections of an old bag written with an empty definition.
    pub missing_definitions: Vec<MissingDefinition>,
    /// Connections of an old bag whose definition came from the [`DefinitionSource`].
    pub filled_definitions: usize,
}

/// Copies the messages `options.query` selects from `bag` into a new V2.0 bag at `output`.
/// Fails before writing anything when `output` is the input file (see [`ensure_distinct`]);
/// on any write error nothing is left at `output`. Messages the reader cannot read are
/// skipped and listed in the report. `progress` is called after every message (keep it
/// cheap).
pub fn rewrite(
    bag: &Bag,
    output: &Path,
    options: &RewriteOptions<'_>,
    progress: &mut dyn FnMut(Progress),
) -> Result<RewriteReport, WriteError> {
    ensure_distinct(output, &[bag.path()])?;
    let mut writer = BagWriter::create(output, options.writer)?;
    let mut conns = OutputConnections {
        ids: HashMap::new(),
        missing: Vec::new(),
        filled: 0,
    };
    let mut unreadable = Unread::default();
    let mut copied = 0u64;
    let query = options.query.clone().parallel(true);
    for message in bag.messages(&query) {
        let message = match message {
            Ok(m) => m,
            Err(e) => {
                unreadable.note(e);
                continue;
            }
        };
        let entry = message.entry;
        if options
            .keep
            .is_some_and(|keep| !keep(entry.conn, entry.time, &message.data))
        {
            continue;
        }
        let Some(id) = conns.id_for(bag, entry.conn, options, &mut writer)? else {
            unreadable.note(
                bag.error(super::error::BagErrorKind::UnknownConnection { conn: entry.conn }),
            );
            continue;
        };
        writer.write(id, entry.time, &message.data)?;
        copied += 1;
        progress(Progress {
            time: entry.time,
            messages: copied,
        });
    }
    let summary = writer.finish()?;
    Ok(RewriteReport {
        summary,
        unreadable,
        missing_definitions: conns.missing,
        filled_definitions: conns.filled,
    })
}

/// The connections added to the output so far.
struct OutputConnections {
    /// Input connection → output connection id.
    ids: HashMap<ConnId, u32>,
    missing: Vec<MissingDefinition>,
    filled: usize,
}

impl OutputConnections {
    /// The output id of input connection `conn`, adding it to `writer` on first use; `None`
    /// when the bag has no such connection.
    fn id_for(
        &mut self,
        bag: &Bag,
        conn: ConnId,
        options: &RewriteOptions<'_>,
        writer: &mut BagWriter,
    ) -> Result<Option<u32>, WriteError> {
        if let Some(&id) = self.ids.get(&conn) {
            return Ok(Some(id));
        }
        let Some(c) = bag.connection(conn) else {
            return Ok(None);
        };
        let header = match output_header(bag.version(), c, options.definitions) {
            Ok(Some(h)) => {
                self.filled += 1;
                h
            }
            Ok(None) => c.header.clone(),
            Err(reason) => {
                self.missing.push(MissingDefinition {
                    topic: c.topic.clone(),
                    datatype: c.datatype.clone(),
                    md5sum: c.md5sum.clone(),
                    reason,
                });
                c.header.clone()
            }
        };
        let id = match options.ids {
            ConnectionIds::Keep => writer.add_connection_with_id(c.file_id, &c.topic, &header)?,
            ConnectionIds::Renumber => writer.add_connection(&c.topic, &header)?,
        };
        self.ids.insert(conn, id);
        Ok(Some(id))
    }
}

/// The md5sum of a message type without fields or constants (`std_msgs/Empty`).
const EMPTY_MD5: &str = "d41d8cd98f00b204e9800998ecf8427e";

/// The connection header to write for `conn`: `Ok(None)` to keep the one the reader has
/// (always for 2.0 bags, whose headers are copied unchanged), `Ok(Some(..))` for an old bag's
/// connection completed with a definition from `definitions`, `Err(why)` when none is known.
fn output_header(
    version: Version,
    conn: &Connection,
    definitions: &dyn DefinitionSource,
) -> Result<Option<ConnectionHeader>, String> {
    // 2.0 and 1.2 bags store their definitions (a 1.2 topic without one was already reported
    // by the reader); a type whose md5sum is that of empty text has no fields, and its
    // definition is rightly empty.
    let stores_definitions = matches!(version, Version::V2_0 | Version::V1_2);
    if stores_definitions || !conn.message_definition.is_empty() || conn.md5sum == EMPTY_MD5 {
        return Ok(None);
    }
    let text = definitions.full_text(&conn.datatype, &conn.md5sum)?;
    Ok(Some(ConnectionHeader::build(
        &conn.topic,
        &conn.datatype,
        &conn.md5sum,
        &text,
        conn.callerid.as_deref(),
        conn.latching.as_deref(),
    )))
}
