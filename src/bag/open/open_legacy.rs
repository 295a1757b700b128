//! Opening bags older than 1.2 (`#ROSRECORD V1.1`, `#ROSLOG V1.1`, `#ROSLOG V1.0`, version 0):
//! no index and no message definitions, so the file is walked message by message. One
//! connection per (topic, type, md5sum); the definitions must come from elsewhere (the bundled
//! library or `--msg-path`), matched by type and md5sum.

use std::collections::HashMap;
use std::sync::Arc;

use crate::format::{
    ConnectionHeader, Version,
    legacy::{LegacyMessage, TopicEntry, read_v10_message, read_v10_topic_table, read_v11_message},
};

use crate::bag::chunk::{ChunkLayout, IndexEntry};
use crate::bag::connection::{ConnId, Connection};
use crate::bag::error::Warning;
use crate::bag::open::open_v12::whole_file_chunk;
use crate::bag::opened::Opened;
use crate::bag::recovery::{Recovery, skip_damaged};

#[derive(Default)]
struct Conns {
    list: Vec<Connection>,
    by_key: HashMap<(String, String, String), ConnId>,
}

impl Conns {
    fn get(&mut self, topic: &str, datatype: &str, md5sum: &str) -> ConnId {
        let key = (topic.to_string(), datatype.to_string(), md5sum.to_string());
        if let Some(&id) = self.by_key.get(&key) {
            return id;
        }
        let id = ConnId::try_from(self.list.len()).unwrap_or(ConnId::MAX);
        self.list.push(Connection {
            id,
            file_id: id,
            topic: topic.to_string(),
            datatype: datatype.to_string(),
            md5sum: md5sum.to_string(),
            message_definition: String::new(),
            callerid: None,
            latching: None,
            header: ConnectionHeader::build(topic, datatype, md5sum, "", None, None),
            message_count: 0,
            message_encoding: "ros1".into(),
            schema_encoding: "ros1msg".into(),
        });
        self.by_key.insert(key, id);
        id
    }
}

/// Opens a pre-1.2 bag whose messages start at `start`.
pub(crate) fn open(buf: &[u8], version: Version, start: usize) -> Opened {
    let mut conns = Conns::default();
    let mut entries = Vec::new();
    let mut losses = Vec::new();
    let mut warnings = Vec::new();
    let mut pos = start;
    let mut table: HashMap<String, TopicEntry> = HashMap::new();
    let layout = if version == Version::V1_0 {
        match read_v10_topic_table(buf, start, 0) {
            Ok((topics, end)) => {
                for t in topics {
                    conns.get(&t.topic, &t.datatype, &t.md5sum);
                    table.insert(t.topic.clone(), t);
                }
                pos = end;
            }
            Err(e) => warnings.push(Warning::at(
                e.offset,
                format!("the 1.0 topic table is unreadable: {e}"),
            )),
        }
        ChunkLayout::V10
    } else {
        ChunkLayout::V11
    };
    while pos < buf.len() {
        let read = if layout == ChunkLayout::V10 {
            read_v10_message(buf, pos, 0)
        } else {
            read_v11_message(buf, pos, 0)
        };
        match read {
            Ok(m) => {
                let conn = connection_for(&mut conns, &table, &m);
                entries.push(IndexEntry {
                    time: m.time,
                    conn,
                    chunk: 0,
                    offset: pos as u64,
                });
                pos = usize::try_from(m.end()).unwrap_or(usize::MAX);
            }
            Err(e) => match skip_damaged(
                &mut losses,
                pos,
                resync(buf, pos + 1, layout),
                buf.len(),
                e.to_string(),
            ) {
                Some(n) => pos = n,
                None => break,
            },
        }
    }
    entries.sort_unstable();
    let mut counts = vec![0u32; conns.list.len()];
    for e in &entries {
        if let Some(n) = counts.get_mut(e.conn as usize) {
            *n += 1;
        }
    }
    for (c, n) in conns.list.iter_mut().zip(&counts) {
        c.message_count = u64::from(*n);
    }
    let chunk = whole_file_chunk(layout, &entries, &counts);
    let map = conns.list.iter().map(|c| (c.file_id, c.id)).collect();
    Opened {
        connections: conns.list,
        conn_map: map,
        chunks: vec![chunk],
        heads: crate::bag::open::open_v12::whole_file_head(buf.len()),
        entries: vec![Some(Arc::from(entries))],
        warnings,
        recovery: Some(Recovery {
            reason: format!(
                "version {version} bags have no index: the file was read message by message"
            ),
            complete_chunks: 0,
            partial_chunks: 0,
            losses,
            scanned: None,
            unfinished: None,
        }),
        totals: None,
        mcap: None,
    }
}

fn connection_for(
    conns: &mut Conns,
    table: &HashMap<String, TopicEntry>,
    m: &LegacyMessage<'_>,
) -> ConnId {
    let s = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    let topic = s(m.topic);
    match (m.datatype, m.md5sum) {
        (Some(t), Some(md5)) => conns.get(&topic, &s(t), &s(md5)),
        _ => match table.get(&topic) {
            Some(t) => conns.get(&topic, &t.datatype, &t.md5sum),
            None => conns.get(&topic, "", ""),
        },
    }
}

/// Finds the next position from which a message reads cleanly (topics start with `/`).
fn resync(buf: &[u8], from: usize, layout: ChunkLayout) -> Option<usize> {
    let mut p = from;
    while p < buf.len() {
        let rest = buf.get(p..)?;
        let q = p + rest.iter().position(|&b| b == b'/')?;
        let ok = if layout == ChunkLayout::V10 {
            read_v10_message(buf, q, 0).is_ok()
        } else {
            read_v11_message(buf, q, 0).is_ok()
        };
        if ok {
            return Some(q);
        }
        p = q + 1;
    }
    None
}
