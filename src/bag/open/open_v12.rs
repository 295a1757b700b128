//! Opening `#ROSRECORD V1.2` bags: from the per-topic index records when the bag header points
//! to them, else by walking the message definition and message data records.
//!
//! The whole file is one pseudo-chunk with absolute offsets. Connections are per topic, as in
//! the official reader; a topic whose definition record is missing borrows the definition of
//! another topic of the same type.

use std::collections::HashMap;
use std::sync::Arc;

use crate::format::{
    BagHeader, ConnectionHeader, IndexData, Op, read_head, read_record,
    v12::{MessageData12, MessageDefinition12},
};

use crate::bag::chunk::{Chunk, ChunkLayout, ChunkState, IndexEntry};
use crate::bag::connection::{ConnId, Connection};
use crate::bag::error::Warning;
use crate::bag::opened::Opened;
use crate::bag::read::heads::{ChunkHead, Heads};
use crate::bag::recovery::{Recovery, skip_damaged};
use crate::bag::resync::find_next_record;

/// Builds per-topic connections as records are met.
#[derive(Default)]
struct Topics {
    conns: Vec<Connection>,
    by_topic: HashMap<String, ConnId>,
}

impl Topics {
    fn define(&mut self, def: MessageDefinition12) -> ConnId {
        if let Some(&id) = self.by_topic.get(&def.topic) {
            return id;
        }
        let id = ConnId::try_from(self.conns.len()).unwrap_or(ConnId::MAX);
        let header = ConnectionHeader::build(
            &def.topic,
            &def.datatype,
            &def.md5sum,
            &def.definition,
            None,
            None,
        );
        self.conns.push(Connection {
            id,
            file_id: id,
            topic: def.topic.clone(),
            datatype: def.datatype,
            md5sum: def.md5sum,
            message_definition: def.definition,
            callerid: None,
            latching: None,
            header,
            message_count: 0,
            message_encoding: "ros1".into(),
            schema_encoding: "ros1msg".into(),
        });
        self.by_topic.insert(def.topic, id);
        id
    }

    /// The connection of a message, creating one from its header when its topic had no
    /// definition record.
    fn for_message(
        &mut self,
        m: &MessageData12,
        offset: u64,
        warnings: &mut Vec<Warning>,
    ) -> ConnId {
        if let Some(&id) = self.by_topic.get(&m.topic) {
            return id;
        }
        let datatype = m.datatype.clone().unwrap_or_default();
        let borrowed = self
            .conns
            .iter()
            .find(|c| c.datatype == datatype && !datatype.is_empty())
            .cloned();
        let (md5sum, definition) = if let Some(c) = borrowed {
            (c.md5sum, c.message_definition)
        } else {
            warnings.push(Warning::at(
                offset,
                format!("topic '{}' has no message definition record", m.topic),
            ));
            (m.md5sum.clone().unwrap_or_default(), String::new())
        };
        self.define(MessageDefinition12 {
            topic: m.topic.clone(),
            md5sum,
            datatype,
            definition,
        })
    }
}

/// Opens a 1.2 bag whose records start at `start` (just after the version line).
pub(crate) fn open(buf: &[u8], start: usize) -> Opened {
    let mut warnings = Vec::new();
    // An optional bag header makes the bag "indexed".
    let header = read_head(buf, start, 0)
        .ok()
        .filter(|h| matches!(h.op(), Ok(Ok(Op::BagHeader))))
        .map(|h| (BagHeader::from_header(&h.header, h.offset), h.end()));
    let had_header = header.is_some();
    let (index_pos, first) = match header {
        Some((Ok(h), end)) => (
            Some(h.index_pos),
            usize::try_from(end).unwrap_or(usize::MAX),
        ),
        Some((Err(e), end)) => {
            warnings.push(Warning::at(
                start as u64,
                format!("bag header unreadable: {e}"),
            ));
            (None, usize::try_from(end).unwrap_or(usize::MAX))
        }
        None => (None, start),
    };
    if let Some(pos) = index_pos.filter(|&p| p > 0) {
        match from_index(buf, pos) {
            Ok(mut opened) => {
                opened.warnings.extend(warnings);
                return opened;
            }
            Err(why) => warnings.push(Warning::general(format!(
                "the 1.2 index cannot be used ({why}); reading the file sequentially"
            ))),
        }
    }
    let reason = if had_header {
        "the 1.2 index is missing or unusable: the file was read record by record".to_string()
    } else {
        "an unindexed 1.2 bag: the file was read record by record".to_string()
    };
    let mut opened = scan(buf, first, reason);
    opened.warnings.splice(0..0, warnings);
    opened
}

/// Reads the per-topic index records at `index_pos`; each topic's first entry points at its
/// message definition record.
fn from_index(buf: &[u8], index_pos: u64) -> Result<Opened, String> {
    let len = buf.len() as u64;
    if index_pos >= len {
        return Err(format!(
            "index_pos {index_pos} is beyond the end of the file ({len} bytes)"
        ));
    }
    let mut pos = usize::try_from(index_pos).map_err(|e| e.to_string())?;
    let mut topics = Topics::default();
    let mut entries = Vec::new();
    while pos < buf.len() {
        let idx = IndexData::read(buf, pos, 0)
            .map_err(|e| format!("{e} (at byte {})", e.file_offset()))?;
        if idx.ver != 0 {
            return Err(format!("index record version {} at byte {pos}", idx.ver));
        }
        let list: Vec<_> = idx.v0_entries().collect();
        let Some(&(_, first)) = list.first() else {
            pos = usize::try_from(idx.end).unwrap_or(usize::MAX);
            continue;
        };
        let at = usize::try_from(first).map_err(|e| e.to_string())?;
        let rec = read_record(buf, at, 0).map_err(|e| format!("{e} (at byte {first})"))?;
        if rec.op() != Ok(Ok(Op::MessageDefinition)) {
            return Err(format!(
                "the first index entry of '{}' does not point to its definition",
                idx.topic.unwrap_or_default()
            ));
        }
        let def = MessageDefinition12::from_header(&rec.header).map_err(|e| e.to_string())?;
        let conn = topics.define(def);
        for (time, offset) in list {
            if offset >= len {
                return Err(format!(
                    "an index entry points to byte {offset}, beyond the end of the file"
                ));
            }
            entries.push(IndexEntry {
                time,
                conn,
                chunk: 0,
                offset,
            });
        }
        pos = usize::try_from(idx.end).unwrap_or(usize::MAX);
    }
    Ok(finish(buf, topics, entries, Vec::new(), None))
}

/// Walks the records from `start`.
fn scan(buf: &[u8], start: usize, reason: String) -> Opened {
    let mut topics = Topics::default();
    let mut entries = Vec::new();
    let mut warnings = Vec::new();
    let mut losses = Vec::new();
    let mut pos = start;
    while pos < buf.len() {
        let parsed = read_record(buf, pos, 0).and_then(|rec| {
            match rec.op()? {
                Ok(Op::MessageDefinition) => {
                    topics.define(MessageDefinition12::from_header(&rec.header)?);
                }
                Ok(Op::MessageData) => {
                    let m = MessageData12::from_header(&rec.header)?;
                    let conn = topics.for_message(&m, pos as u64, &mut warnings);
                    entries.push(IndexEntry {
                        time: m.time,
                        conn,
                        chunk: 0,
                        offset: pos as u64,
                    });
                }
                _ => {}
            }
            Ok(rec.end())
        });
        match parsed {
            Ok(end) => pos = usize::try_from(end).unwrap_or(usize::MAX),
            Err(e) => match skip_damaged(
                &mut losses,
                pos,
                find_next_record(buf, pos + 1),
                buf.len(),
                e.to_string(),
            ) {
                Some(n) => pos = n,
                None => break,
            },
        }
    }
    let recovery = Recovery {
        reason,
        complete_chunks: 0,
        partial_chunks: 0,
        losses,
        scanned: None,
        unfinished: None,
    };
    finish(buf, topics, entries, warnings, Some(recovery))
}

fn finish(
    buf: &[u8],
    topics: Topics,
    mut entries: Vec<IndexEntry>,
    warnings: Vec<Warning>,
    recovery: Option<Recovery>,
) -> Opened {
    entries.sort_unstable();
    let mut conns = topics.conns;
    let mut counts = vec![0u32; conns.len()];
    for e in &entries {
        if let Some(n) = counts.get_mut(e.conn as usize) {
            *n += 1;
        }
    }
    for (c, n) in conns.iter_mut().zip(&counts) {
        c.message_count = u64::from(*n);
    }
    let chunk = whole_file_chunk(ChunkLayout::V12, &entries, &counts);
    let map = conns.iter().map(|c| (c.file_id, c.id)).collect();
    Opened {
        connections: conns,
        conn_map: map,
        chunks: vec![chunk],
        heads: whole_file_head(buf.len()),
        entries: vec![Some(Arc::from(entries))],
        warnings,
        recovery,
        totals: None,
        mcap: None,
    }
}

/// The pseudo-chunk covering a whole file of an old layout.
pub(crate) fn whole_file_chunk(
    layout: ChunkLayout,
    entries: &[IndexEntry],
    counts: &[u32],
) -> Chunk {
    Chunk {
        index: 0,
        pos: 0,
        layout,
        state: ChunkState::Complete,
        start: entries.iter().map(|e| e.time).min().unwrap_or_default(),
        end: entries.iter().map(|e| e.time).max().unwrap_or_default(),
        counts: counts
            .iter()
            .enumerate()
            .filter(|(_, n)| **n > 0)
            .map(|(i, n)| (ConnId::try_from(i).unwrap_or(ConnId::MAX), *n))
            .collect(),
    }
}

/// The head of the pseudo-chunk covering a whole file of `len` bytes.
pub(crate) fn whole_file_head(len: usize) -> Heads {
    Heads::known(
        [ChunkHead {
            data_offset: 0,
            compressed_size: len as u64,
            uncompressed_size: len as u64,
            compression: crate::format::Compression::None,
            index_data_pos: None,
        }]
        .into_iter(),
    )
}
