//! Bag → RoCKIn YAML: every message, in the order the bag stores them, decoded with its
//! connection's definition and written as a list item.

use std::io::Write;
use std::path::Path;
use std::sync::Arc;

use crate::bag::{Bag, BagErrorKind, Unread};
use crate::msg::{Registry, Schema};

use super::emit::write_item;
use super::error::ConvertError;
use super::to_bag::TopicCount;
use super::topics::topic_type;

/// What a conversion to YAML wrote.
#[derive(Clone, Debug, Default)]
pub struct ToYamlReport {
    /// Messages written.
    pub messages: u64,
    /// Bytes of YAML written.
    pub bytes: u64,
    /// Messages per topic and type, in order of first appearance.
    pub topics: Vec<TopicCount>,
    /// What could not be read (skipped; the rest is converted).
    pub unread: Unread,
}

/// Writes every message of `bag` to `out` as a RoCKIn YAML list. Messages come in the order
/// they are stored (chunk by chunk, record by record: for a bag made from YAML, the YAML's
/// order). An item gets a `type` key when its topic is not in the RoCKIn table with that
/// type. `out_name` names the output in errors. Old bags without definitions take them
/// from `registry`. Messages that cannot be read (a chunk that does not decompress, a
/// message the index lists that is not there) are skipped and listed in the report's
/// `unread`, as the other commands do; a bag that shrinks or is replaced while it is read
/// ends the conversion there, with every message not converted counted in `unread`.
pub fn bag_to_yaml<W: Write>(
    bag: &Bag,
    registry: &Registry,
    out: &mut W,
    out_name: &Path,
) -> Result<ToYamlReport, ConvertError> {
    let write = |out: &mut W, text: &str| {
        out.write_all(text.as_bytes())
            .map_err(|source| ConvertError::Io {
                path: out_name.to_path_buf(),
                what: "cannot write",
                source,
            })
    };
    let mut report = ToYamlReport::default();
    let mut schemas: Vec<Option<Arc<Schema>>> = vec![None; bag.connections().len()];
    let mut chunks: Vec<_> = bag.chunks().iter().collect();
    chunks.sort_by_key(|c| (c.pos, c.index));
    let mut text = String::new();
    for (at, chunk) in chunks.iter().enumerate() {
        if chunk.message_count() == 0 {
            continue;
        }
        let mut entries = bag.chunk_entries(chunk.index).to_vec();
        entries.sort_by_key(|e| e.offset);
        let missing = bag.unfound(chunk.index, |_| true);
        if missing > 0 {
            report.unread.note(
                bag.error(BagErrorKind::NotFound { lost: missing })
                    .at(chunk.pos),
            );
        }
        let bytes = match bag.chunk_bytes(chunk.index) {
            Ok(b) => b,
            Err(e) => {
                let e = match &*e.kind {
                    BagErrorKind::Format(reason) => bag.error(BagErrorKind::ChunkDamaged {
                        lost: entries.len() as u64,
                        reason: reason.clone(),
                    }),
                    // The file shrank or was replaced: nothing after this can be trusted,
                    // so the conversion stops, and every message not converted — this
                    // chunk's and the later chunks' — is counted as lost.
                    BagErrorKind::ChangedOnDisk { changed, .. } => {
                        let later: u64 = chunks
                            .get(at + 1..)
                            .unwrap_or_default()
                            .iter()
                            .map(|c| c.message_count())
                            .sum();
                        report.unread.note(
                            bag.error(BagErrorKind::ChangedOnDisk {
                                changed: *changed,
                                unread: entries.len() as u64 + later,
                            })
                            .at(chunk.pos),
                        );
                        break;
                    }
                    _ => e,
                };
                report.unread.note(e);
                continue;
            }
        };
        for entry in &entries {
            let msg = match bag.read_with(entry, &bytes) {
                Ok(m) => m,
                Err(e) => {
                    report.unread.note(e);
                    continue;
                }
            };
            let Some(conn) = bag.connection(entry.conn) else {
                continue;
            };
            let slot = schemas.get_mut(entry.conn as usize);
            let schema = match slot {
                Some(Some(s)) => Arc::clone(s),
                Some(slot) => {
                    let s = Schema::for_connection(
                        &conn.datatype,
                        &conn.message_definition,
                        &conn.md5sum,
                        registry,
                    )
                    .map_err(|source| ConvertError::Definition {
                        path: bag.path().to_path_buf(),
                        topic: conn.topic.clone(),
                        datatype: conn.datatype.clone(),
                        source: Box::new(source),
                    })?;
                    *slot = Some(Arc::clone(&s));
                    s
                }
                None => continue,
            };
            let value =
                crate::msg::decode(&schema, &msg.data).map_err(|source| ConvertError::Decode {
                    path: bag.path().to_path_buf(),
                    topic: conn.topic.clone(),
                    datatype: conn.datatype.clone(),
                    time: entry.time,
                    source: Box::new(source),
                })?;
            let datatype = schema.datatype();
            let typed = (topic_type(&conn.topic) != Some(datatype)).then_some(datatype);
            text.clear();
            write_item(&mut text, &conn.topic, typed, entry.time, &value);
            write(out, &text)?;
            report.bytes += text.len() as u64;
            report.messages += 1;
            match report
                .topics
                .iter_mut()
                .find(|t| t.topic == conn.topic && t.datatype == datatype)
            {
                Some(t) => t.messages += 1,
                None => report.topics.push(TopicCount {
                    topic: conn.topic.clone(),
                    datatype: datatype.to_string(),
                    messages: 1,
                }),
            }
        }
    }
    if report.messages == 0 {
        write(out, "[]\n")?;
        report.bytes += 3;
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bag::writer::{BagWriter, WriterOptions};
    use crate::format::{Compression, ConnectionHeader};
    use crate::time::RosTime;

    /// A bag of 40 chunks of 25 `std_msgs/String` messages each.
    fn string_bag(path: &Path) -> u64 {
        let options = WriterOptions {
            compression: Compression::None,
            chunk_size: 25 * 1000,
        };
        let mut w = BagWriter::create(path, options).unwrap();
        let header = ConnectionHeader::build(
            "/text",
            "std_msgs/String",
            "992ce8a1687cec8c8bd883ec73ca41d1",
            "string data\n",
            None,
            None,
        );
        let conn = w.add_connection("/text", &header).unwrap();
        for i in 0..1000u64 {
            let mut payload = 960u32.to_le_bytes().to_vec();
            payload.extend(std::iter::repeat_n(b'a' + (i % 26) as u8, 960));
            w.write(
                conn,
                RosTime::from_nanos(1_000_000_000 + i * 1_000_000),
                &payload,
            )
            .unwrap();
        }
        w.finish().unwrap().messages
    }

    #[test]
    fn a_bag_that_shrinks_mid_read_counts_every_lost_message() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("shrinks.bag");
        let total = string_bag(&path);
        let bag = Bag::open(&path).unwrap();
        assert!(bag.chunks().len() > 30);
        // Cut to a third: the first chunks read, the rest gone.
        let f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        f.set_len(bag.size() / 3).unwrap();
        let mut out = Vec::new();
        let report =
            bag_to_yaml(&bag, &Registry::bundled(), &mut out, Path::new("o.yaml")).unwrap();
        let written = String::from_utf8(out).unwrap().matches("\n- ").count() as u64 + 1;
        assert!(report.messages > 0 && report.messages < total, "{report:?}");
        assert_eq!(written, report.messages);
        // What was not written is counted as lost, message by message, in one error.
        assert_eq!(
            report.messages + report.unread.messages(),
            total,
            "{:?}",
            report.unread
        );
        assert_eq!(report.unread.errors().len(), 1, "{:?}", report.unread);
        assert!(
            matches!(
                *report.unread.errors()[0].kind,
                BagErrorKind::ChangedOnDisk { .. }
            ),
            "{:?}",
            report.unread
        );
    }
}
