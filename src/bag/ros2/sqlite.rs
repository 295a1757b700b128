//! A rosbag2 `.db3` storage file read through the bundled SQLite and turned into an MCAP in
//! memory ([`convert_db3`]).
//!
//! Inputs are never modified. A file without a write-ahead log (no `-wal` beside it, or an
//! empty one) is opened `immutable=1` and read-only: SQLite then takes no lock and writes no
//! `-shm`/`-wal` companion. A file with a non-empty `-wal` (a recording that did not close
//! cleanly, or is still being written) is copied with its log into a private temporary
//! directory and opened there, so that the log's messages are seen and the originals stay
//! as they are.
//!
//! Tables read: `topics` (id, name, type, serialization_format[, offered_qos_profiles][,
//! type_description_hash]), `messages` (topic_id, timestamp, data; in timestamp order, ties
//! by row id, without SQLite's sorter) and, where present, `message_definitions` (topic_type, encoding,
//! encoded_message_definition).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use rusqlite::types::ValueRef;
use rusqlite::{Connection, OpenFlags};

use super::convert::{McapBuilder, SchemaText};
use super::error::Ros2Error;
use super::types::{StorageFacts, TopicFacts};
use super::zstd::decompress_message;

/// An open `.db3` and the private directory that holds its copy, if one was needed.
pub struct Db {
    conn: Connection,
    /// The storage file as the directory holds it (for errors).
    shown: PathBuf,
    _private: Option<tempfile::TempDir>,
}

/// How to convert a `.db3`.
#[derive(Clone, Copy, Debug)]
pub struct ConvertOptions {
    /// Each message's data is zstd-compressed (`compression_mode: MESSAGE`).
    pub message_zstd: bool,
    /// The most one message may decompress to.
    pub max_message: u64,
    /// The most all messages may decompress to.
    pub max_total: u64,
}

/// Opens `file` (read from) as the storage file `shown` (named in errors), never writing
/// beside it. `private`: `file` is already a private copy (a decompressed file), opened
/// as it is.
pub fn open_db(
    file: &Path,
    shown: &Path,
    private: Option<tempfile::TempDir>,
) -> Result<Db, Ros2Error> {
    let sqlite = |source| Ros2Error::Sqlite {
        path: shown.to_path_buf(),
        source,
    };
    let wal = sidecar(file, "-wal");
    let wal_len = std::fs::metadata(&wal).map_or(0, |m| m.len());
    if private.is_none() && wal_len > 0 {
        let dir = tempfile::Builder::new()
            .prefix("bagscope-db3-")
            .tempdir()
            .map_err(|e| Ros2Error::io(shown, "making a private directory for a copy", e))?;
        let copy = dir.path().join("storage.db3");
        std::fs::copy(file, &copy)
            .map_err(|e| Ros2Error::io(shown, "copying to a private directory", e))?;
        std::fs::copy(&wal, sidecar(&copy, "-wal"))
            .map_err(|e| Ros2Error::io(&wal, "copying to a private directory", e))?;
        let conn = Connection::open_with_flags(
            &copy,
            OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(sqlite)?;
        return Ok(Db {
            conn,
            shown: shown.to_path_buf(),
            _private: Some(dir),
        });
    }
    let conn = Connection::open_with_flags(
        immutable_uri(file),
        OpenFlags::SQLITE_OPEN_READ_ONLY
            | OpenFlags::SQLITE_OPEN_URI
            | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(sqlite)?;
    Ok(Db {
        conn,
        shown: shown.to_path_buf(),
        _private: private,
    })
}

/// `file` with `suffix` appended to its name (`x.db3` → `x.db3-wal`).
fn sidecar(file: &Path, suffix: &str) -> PathBuf {
    let mut name = file.as_os_str().to_os_string();
    name.push(suffix);
    PathBuf::from(name)
}

/// `file:PATH?immutable=1`, the path percent-encoded (any byte but unreserved ones and `/`).
fn immutable_uri(file: &Path) -> String {
    let absolute = std::path::absolute(file).unwrap_or_else(|_| file.to_path_buf());
    let mut uri = String::from("file:");
    for &b in absolute.as_os_str().as_encoded_bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'/' | b'-' | b'_' | b'.' | b'~') {
            uri.push(char::from(b));
        } else {
            // Writing to a String cannot fail.
            let _ = write!(uri, "%{b:02X}");
        }
    }
    uri.push_str("?immutable=1");
    uri
}

/// One row of `topics`.
struct TopicRow {
    id: i64,
    facts: TopicFacts,
    type_description_hash: Option<String>,
}

impl Db {
    fn sqlite(&self, source: rusqlite::Error) -> Ros2Error {
        Ros2Error::Sqlite {
            path: self.shown.clone(),
            source,
        }
    }

    fn tables(&self) -> Result<HashSet<String>, Ros2Error> {
        let mut stmt = self
            .conn
            .prepare("SELECT name FROM sqlite_master WHERE type = 'table'")
            .map_err(|e| self.sqlite(e))?;
        let names = stmt
            .query_map([], |row| row.get::<_, String>(0))
            .map_err(|e| self.sqlite(e))?
            .collect::<Result<HashSet<_>, _>>()
            .map_err(|e| self.sqlite(e))?;
        Ok(names)
    }

    fn columns(&self, table: &str) -> Result<HashSet<String>, Ros2Error> {
        let mut stmt = self
            .conn
            .prepare(&format!("PRAGMA table_info({table})"))
            .map_err(|e| self.sqlite(e))?;
        let names = stmt
            .query_map([], |row| row.get::<_, String>(1))
            .map_err(|e| self.sqlite(e))?
            .collect::<Result<HashSet<_>, _>>()
            .map_err(|e| self.sqlite(e))?;
        Ok(names)
    }

    /// `message_definitions`: type → (encoding, text), rows with an empty text left out.
    fn definitions(&self) -> Result<HashMap<String, (String, Vec<u8>)>, Ros2Error> {
        let mut out = HashMap::new();
        if !self.tables()?.contains("message_definitions") {
            return Ok(out);
        }
        let mut stmt = self
            .conn
            .prepare("SELECT topic_type, encoding, encoded_message_definition FROM message_definitions ORDER BY rowid")
            .map_err(|e| self.sqlite(e))?;
        let mut rows = stmt.query([]).map_err(|e| self.sqlite(e))?;
        while let Some(row) = rows.next().map_err(|e| self.sqlite(e))? {
            let name = text(row.get_ref(0).map_err(|e| self.sqlite(e))?);
            let encoding = text(row.get_ref(1).map_err(|e| self.sqlite(e))?);
            let data = bytes(row.get_ref(2).map_err(|e| self.sqlite(e))?).to_vec();
            if !data.is_empty() {
                out.entry(name).or_insert((encoding, data));
            }
        }
        Ok(out)
    }

    fn topics(&self) -> Result<Vec<TopicRow>, Ros2Error> {
        let cols = self.columns("topics")?;
        let qos = if cols.contains("offered_qos_profiles") {
            "offered_qos_profiles"
        } else {
            "''"
        };
        let hash = if cols.contains("type_description_hash") {
            "type_description_hash"
        } else {
            "NULL"
        };
        let sql = format!(
            "SELECT id, name, type, serialization_format, {qos}, {hash} FROM topics ORDER BY id"
        );
        let mut stmt = self.conn.prepare(&sql).map_err(|e| self.sqlite(e))?;
        let mut rows = stmt.query([]).map_err(|e| self.sqlite(e))?;
        let mut out = Vec::new();
        while let Some(row) = rows.next().map_err(|e| self.sqlite(e))? {
            let get = |i| row.get_ref(i).map_err(|e| self.sqlite(e));
            let hash = match get(5)? {
                ValueRef::Null => None,
                v => Some(text(v)).filter(|h| !h.is_empty()),
            };
            out.push(TopicRow {
                id: row.get(0).map_err(|e| self.sqlite(e))?,
                facts: TopicFacts {
                    name: text(get(1)?),
                    datatype: text(get(2)?),
                    serialization_format: text(get(3)?),
                    offered_qos_profiles: text(get(4)?),
                    message_count: None,
                },
                type_description_hash: hash,
            });
        }
        Ok(out)
    }
}

/// Reads the `.db3` `db` and writes its messages into an MCAP in memory. Returns the MCAP,
/// what it holds, and notes on rows that could not be converted.
pub fn convert_db3(
    db: &Db,
    options: ConvertOptions,
) -> Result<(Vec<u8>, StorageFacts, Vec<String>), Ros2Error> {
    let shown = db.shown.as_path();
    let definitions = db.definitions()?;
    let topics = db.topics()?;
    let mut builder = McapBuilder::new(shown)?;
    let mut index: HashMap<i64, usize> = HashMap::new();
    for row in topics {
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
        let at = builder.add_topic(row.facts, schema, &metadata)?;
        index.insert(row.id, at);
    }
    let mut notes = Vec::new();
    let mut take = Take {
        shown,
        index: &index,
        options,
        unknown_topic: 0,
        negative: 0,
        null_data: 0,
        total: 0,
    };
    // Rows in (timestamp, rowid) order without SQLite's sorter (which would copy every
    // message's data into temporary files): the row ids and times first; when the table is
    // in time order already (a recorder inserts as it receives), one scan in rowid order,
    // else each row looked up by rowid in time order.
    let mut keys: Vec<(i64, i64)> = Vec::new();
    {
        let mut stmt = db
            .conn
            .prepare("SELECT timestamp, rowid FROM messages ORDER BY rowid")
            .map_err(|e| db.sqlite(e))?;
        let mut rows = stmt.query([]).map_err(|e| db.sqlite(e))?;
        while let Some(row) = rows.next().map_err(|e| db.sqlite(e))? {
            keys.push((
                row.get(0).map_err(|e| db.sqlite(e))?,
                row.get(1).map_err(|e| db.sqlite(e))?,
            ));
        }
    }
    if keys.is_sorted() {
        drop(keys);
        let mut stmt = db
            .conn
            .prepare("SELECT topic_id, timestamp, data, rowid FROM messages ORDER BY rowid")
            .map_err(|e| db.sqlite(e))?;
        let mut rows = stmt.query([]).map_err(|e| db.sqlite(e))?;
        while let Some(row) = rows.next().map_err(|e| db.sqlite(e))? {
            let get = |i| row.get_ref(i).map_err(|e| db.sqlite(e));
            take.row(&mut builder, get(0)?, get(1)?, get(2)?, get(3)?)?;
        }
    } else {
        keys.sort_unstable();
        let mut stmt = db
            .conn
            .prepare("SELECT topic_id, timestamp, data, rowid FROM messages WHERE rowid = ?1")
            .map_err(|e| db.sqlite(e))?;
        for (_, rowid) in keys {
            let mut rows = stmt.query([rowid]).map_err(|e| db.sqlite(e))?;
            if let Some(row) = rows.next().map_err(|e| db.sqlite(e))? {
                let get = |i| row.get_ref(i).map_err(|e| db.sqlite(e));
                take.row(&mut builder, get(0)?, get(1)?, get(2)?, get(3)?)?;
            }
        }
    }
    let Take {
        unknown_topic,
        negative,
        null_data,
        ..
    } = take;
    if unknown_topic > 0 {
        notes.push(format!(
            "{}: {unknown_topic} message(s) refer to a topic id the topics table does not hold: left out",
            shown.display()
        ));
    }
    if negative > 0 {
        notes.push(format!(
            "{}: {negative} message(s) have a negative or non-integer timestamp: left out",
            shown.display()
        ));
    }
    if null_data > 0 {
        notes.push(format!(
            "{}: {null_data} message(s) have no data (NULL): kept as empty messages",
            shown.display()
        ));
    }
    let (bytes, facts) = builder.finish()?;
    Ok((bytes, facts, notes))
}

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
    /// Writes one row (`topic_id`, `timestamp`, `data`, `rowid`) into `builder`.
    fn row(
        &mut self,
        builder: &mut McapBuilder,
        topic_id: ValueRef<'_>,
        time: ValueRef<'_>,
        data: ValueRef<'_>,
        rowid: ValueRef<'_>,
    ) -> Result<(), Ros2Error> {
        let Some(&topic) = topic_id.as_i64().ok().and_then(|id| self.index.get(&id)) else {
            self.unknown_topic += 1;
            return Ok(());
        };
        let Some(time) = time.as_i64().ok().and_then(|t| u64::try_from(t).ok()) else {
            self.negative += 1;
            return Ok(());
        };
        if matches!(data, ValueRef::Null) {
            self.null_data += 1;
        }
        let data = bytes(data);
        if self.options.message_zstd {
            let id = rowid.as_i64().unwrap_or_default();
            let limit = self
                .options
                .max_message
                .min(self.options.max_total.saturating_sub(self.total));
            let plain = decompress_message(self.shown, data, limit, || format!("message id {id}"))?;
            self.total += plain.len() as u64;
            builder.write(topic, time, time, 0, &plain)
        } else {
            builder.write(topic, time, time, 0, data)
        }
    }
}

/// A text column (a BLOB or number read as text too, invalid UTF-8 replaced).
fn text(v: ValueRef<'_>) -> String {
    match v {
        ValueRef::Text(t) | ValueRef::Blob(t) => String::from_utf8_lossy(t).into_owned(),
        ValueRef::Integer(i) => i.to_string(),
        ValueRef::Real(r) => r.to_string(),
        ValueRef::Null => String::new(),
    }
}

/// A BLOB column (text as its bytes; anything else empty).
fn bytes(v: ValueRef<'_>) -> &[u8] {
    match v {
        ValueRef::Text(t) | ValueRef::Blob(t) => t,
        _ => &[],
    }
}
