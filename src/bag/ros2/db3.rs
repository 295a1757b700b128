//! A `.db3` storage file converted into an MCAP ([`convert_db3`]), streamed into a writer
//! (a file, `output.rs`) in bounded memory whatever the file's size.
//!
//! Messages go out in (timestamp, row id) order without SQLite sorting whole rows (its
//! sorter would copy every message's data into temporary files). First one scan in row id
//! order through a bounded reorder window ([`Reorder`]): a recorder inserts messages as it
//! receives them, so the table is in time order but for a few milliseconds of jitter, which
//! the window absorbs. A table out of order beyond the window is read again, the output
//! started over: through the `timestamp` index where SQLite's plan says one serves the
//! order (rosbag2 has made `timestamp_idx` since Foxy), else through a temporary table of
//! (timestamp, row id) keys that SQLite keeps on disk ([`MessageOrder::Keys`]).
//!
//! Memory: the window ([`Window`], 16 MiB by default), one MCAP chunk (1 MiB), the
//! summary (a chunk index per MiB of messages), SQLite's page cache (2 MiB), and the
//! largest single message.

use std::collections::{BTreeMap, HashMap};
use std::io::{Seek, Write};
use std::path::Path;

use rusqlite::types::ValueRef;

use super::convert::{McapBuilder, SchemaText};
use super::error::Ros2Error;
use super::order::{Reorder, Row, Window};
use super::sqlite::{Db, MessageOrder, MessageRow, bytes};
use super::types::StorageFacts;
use super::zstd::decompress_message;

/// How to convert a `.db3`.
#[derive(Clone, Copy, Debug)]
pub struct ConvertOptions {
    /// Each message's data is zstd-compressed (`compression_mode: MESSAGE`).
    pub message_zstd: bool,
    /// The most one message may decompress to.
    pub max_message: u64,
    /// The most all messages may decompress to.
    pub max_total: u64,
    /// The reorder window of the first scan.
    pub window: Window,
}

/// An output the conversion can start over in (it found the table out of order beyond the
/// window after writing part of it).
pub trait Restart: Write + Seek {
    /// Empties the output and puts its position at the start.
    fn restart(&mut self) -> std::io::Result<()>;
}

impl Restart for std::io::BufWriter<std::fs::File> {
    fn restart(&mut self) -> std::io::Result<()> {
        // Seeking flushes what the buffer holds; then the file is emptied.
        self.seek(std::io::SeekFrom::Start(0))?;
        self.get_ref().set_len(0)
    }
}

impl Restart for std::io::Cursor<Vec<u8>> {
    fn restart(&mut self) -> std::io::Result<()> {
        self.get_mut().clear();
        self.set_position(0);
        Ok(())
    }
}

/// What a conversion made.
pub struct Converted<W> {
    /// The output, holding the whole MCAP.
    pub out: W,
    /// What it holds.
    pub facts: StorageFacts,
    /// Rows that could not be converted, one line each.
    pub notes: Vec<String>,
    /// The order the messages were read in at last (tests and measurements).
    #[cfg_attr(not(test), allow(dead_code))]
    pub order: MessageOrder,
    /// The most bytes of message data the reorder window held at once (tests and
    /// measurements).
    #[cfg_attr(not(test), allow(dead_code))]
    pub peak_window: usize,
}

/// Reads the `.db3` `db` and writes its messages into an MCAP in `out`.
pub fn convert_db3<W: Restart>(
    db: &Db,
    options: ConvertOptions,
    out: W,
) -> Result<Converted<W>, Ros2Error> {
    let shown = db.shown();
    let definitions = db.definitions()?;
    let topics = db.topics()?;
    let mut out = out;
    let mut order = MessageOrder::Table;
    loop {
        let mut builder = McapBuilder::new(shown, out)?;
        let mut index: HashMap<i64, usize> = HashMap::new();
        for row in &topics {
            let schema = definitions
                .get(&row.facts.datatype)
                .map(|(encoding, data)| SchemaText {
                    encoding: if encoding.is_empty() {
                        "ros2msg"
                    } else {
                        encoding
                    },
                    data,
                });
            let mut metadata = BTreeMap::new();
            metadata.insert(
                "offered_qos_profiles".to_string(),
                row.facts.offered_qos_profiles.clone(),
            );
            if let Some(hash) = &row.type_description_hash {
                metadata.insert("type_description_hash".to_string(), hash.clone());
            }
            let at = builder.add_topic(row.facts.clone(), schema, &metadata)?;
            index.insert(row.id, at);
        }
        let mut take = Take {
            shown,
            index: &index,
            options,
            unknown_topic: 0,
            negative: 0,
            null_data: 0,
            total: 0,
        };
        let mut write = |row: Row| builder.write(row.topic, row.time, row.time, 0, &row.data);
        let (beyond, peak) = if order == MessageOrder::Table {
            let mut window = Reorder::new(options.window);
            let mut beyond = false;
            db.each_message(order, &mut |m| {
                let Some(row) = take.row(&m)? else {
                    return Ok(true);
                };
                beyond = window.push(row, &mut write)?.is_err();
                Ok(!beyond)
            })?;
            let peak = if beyond {
                window.peak()
            } else {
                window.finish(&mut write)?
            };
            (beyond, peak)
        } else {
            db.each_message(order, &mut |m| {
                if let Some(row) = take.row(&m)? {
                    write(row)?;
                }
                Ok(true)
            })?;
            if order == MessageOrder::Keys {
                take.negative += db.null_timestamps()?;
            }
            (false, 0)
        };
        if beyond {
            out = builder.abandon();
            out.restart()
                .map_err(|e| Ros2Error::io(shown, "starting the conversion over", e))?;
            order = if db.time_index()? {
                MessageOrder::Index
            } else {
                MessageOrder::Keys
            };
            continue;
        }
        let notes = take.notes();
        let (out, facts) = builder.finish()?;
        return Ok(Converted {
            out,
            facts,
            notes,
            order,
            peak_window: peak,
        });
    }
}

#[cfg(test)]
#[path = "db3_tests.rs"]
pub(super) mod tests;

/// What happens to each row of `messages`, and the counts of rows left out.
struct Take<'a> {
    shown: &'a Path,
    index: &'a HashMap<i64, usize>,
    options: ConvertOptions,
    unknown_topic: u64,
    negative: u64,
    null_data: u64,
    /// Bytes decompressed so far (`MESSAGE` mode).
    total: u64,
}

impl Take<'_> {
    /// The row to write for `m`, `None` when it is left out (counted).
    fn row(&mut self, m: &MessageRow<'_>) -> Result<Option<Row>, Ros2Error> {
        let Some(&topic) = m.topic_id.as_i64().ok().and_then(|id| self.index.get(&id)) else {
            self.unknown_topic += 1;
            return Ok(None);
        };
        let Some(time) = m.time.as_i64().ok().and_then(|t| u64::try_from(t).ok()) else {
            self.negative += 1;
            return Ok(None);
        };
        if matches!(m.data, ValueRef::Null) {
            self.null_data += 1;
        }
        let data = bytes(m.data);
        let data = if self.options.message_zstd {
            let limit = self
                .options
                .max_message
                .min(self.options.max_total.saturating_sub(self.total));
            let id = m.rowid;
            let plain = decompress_message(self.shown, data, limit, || format!("message id {id}"))?;
            self.total += plain.len() as u64;
            plain
        } else {
            data.to_vec()
        };
        Ok(Some(Row {
            time,
            rowid: m.rowid,
            topic,
            data,
        }))
    }

    /// One line per kind of row left out.
    fn notes(&self) -> Vec<String> {
        let shown = self.shown.display();
        let mut notes = Vec::new();
        if self.unknown_topic > 0 {
            notes.push(format!(
                "{shown}: {} message(s) refer to a topic id the topics table does not hold: left out",
                self.unknown_topic
            ));
        }
        if self.negative > 0 {
            notes.push(format!(
                "{shown}: {} message(s) have a negative or non-integer timestamp: left out",
                self.negative
            ));
        }
        if self.null_data > 0 {
            notes.push(format!(
                "{shown}: {} message(s) have no data (NULL): kept as empty messages",
                self.null_data
            ));
        }
        notes
    }
}
