//! A rosbag2 `.db3` storage file opened through the bundled SQLite ([`open_db`]) and its
//! tables read: topics, message definitions, messages in the order asked for (the
//! conversion into an MCAP is `db3.rs`).
//!
//! Inputs are never modified. A file without a write-ahead log (no `-wal` beside it, or an
//! empty one) is opened `immutable=1` and read-only: SQLite then takes no lock and writes no
//! `-shm`/`-wal` companion. A file with a non-empty `-wal` (a recording that did not close
//! cleanly, or is still being written) is copied with its log into a private temporary
//! directory and opened there, so that the log's messages are seen and the originals stay
//! as they are.
//!
//! Tables read: `topics` (id, name, type, serialization_format[, offered_qos_profiles][,
//! type_description_hash]), `messages` (topic_id, timestamp, data, in one of the orders of
//! [`MessageOrder`]) and, where present, `message_definitions` (topic_type, encoding,
//! encoded_message_definition).

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use rusqlite::types::ValueRef;
use rusqlite::{Connection, OpenFlags};

use super::error::Ros2Error;
use super::types::TopicFacts;

/// An open `.db3` and the private directory that holds its copy, if one was needed.
pub struct Db {
    conn: Connection,
    /// The storage file as the directory holds it (for errors).
    shown: PathBuf,
    _private: Option<tempfile::TempDir>,
}

/// The order in which [`Db::each_message`] reads `messages`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MessageOrder {
    /// Row id order (the order the recorder inserted them): one scan of the table.
    Table,
    /// (timestamp, row id) order through an index on `timestamp` (rosbag2's
    /// `timestamp_idx`): no sorting.
    Index,
    /// (timestamp, row id) order through a private temporary table of (timestamp, row id)
    /// pairs, built in SQLite's temporary files (no index on `timestamp`): memory stays
    /// SQLite's page cache; the temporary disk space is about 20 bytes a message.
    Keys,
}

/// One row of `messages`, as SQLite hands it out (borrowed until the next row).
pub struct MessageRow<'a> {
    /// `topic_id`.
    pub topic_id: ValueRef<'a>,
    /// `timestamp`.
    pub time: ValueRef<'a>,
    /// `data`.
    pub data: ValueRef<'a>,
    /// `rowid`.
    pub rowid: i64,
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
pub fn sidecar(file: &Path, suffix: &str) -> PathBuf {
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
pub struct TopicRow {
    /// `id`.
    pub id: i64,
    /// Name, type, serialization format and QoS.
    pub facts: TopicFacts,
    /// `type_description_hash`, where the table has one and it is not empty.
    pub type_description_hash: Option<String>,
}

impl Db {
    /// The storage file as the directory holds it.
    pub fn shown(&self) -> &Path {
        &self.shown
    }

    /// Whether an index serves `messages` in (timestamp, row id) order, by SQLite's own
    /// query plan (no temporary B-tree for the `ORDER BY`).
    pub fn time_index(&self) -> Result<bool, Ros2Error> {
        let plan = self.plan(MessageOrder::Index)?;
        Ok(!plan.contains("TEMP B-TREE") && plan.contains("INDEX"))
    }

    /// SQLite's query plan for reading `messages` in `order`, one line per step (for
    /// [`MessageOrder::Keys`], once [`Db::each_message`] made its key table).
    pub fn plan(&self, order: MessageOrder) -> Result<String, Ros2Error> {
        let mut stmt = self
            .conn
            .prepare(&format!("EXPLAIN QUERY PLAN {}", message_query(order)))
            .map_err(|e| self.sqlite(e))?;
        let mut rows = stmt.query([]).map_err(|e| self.sqlite(e))?;
        let mut plan = String::new();
        while let Some(row) = rows.next().map_err(|e| self.sqlite(e))? {
            plan.push_str(&text(row.get_ref(3).map_err(|e| self.sqlite(e))?));
            plan.push('\n');
        }
        Ok(plan)
    }

    /// Hands `each` every row of `messages` in `order` (for [`MessageOrder::Keys`], those
    /// with a timestamp: rows whose timestamp is NULL are counted by
    /// [`Db::null_timestamps`]), until it returns `Ok(false)` or an error.
    pub fn each_message(
        &self,
        order: MessageOrder,
        each: &mut dyn FnMut(MessageRow<'_>) -> Result<bool, Ros2Error>,
    ) -> Result<(), Ros2Error> {
        if order == MessageOrder::Keys {
            self.conn
                .execute_batch(
                    "PRAGMA temp_store = FILE;
                     DROP TABLE IF EXISTS temp.bagscope_order;
                     CREATE TEMP TABLE bagscope_order(t, r, PRIMARY KEY (t, r)) WITHOUT ROWID;
                     INSERT INTO temp.bagscope_order
                         SELECT timestamp, rowid FROM main.messages WHERE timestamp IS NOT NULL;",
                )
                .map_err(|e| self.sqlite(e))?;
        }
        let mut stmt = self
            .conn
            .prepare(message_query(order))
            .map_err(|e| self.sqlite(e))?;
        let mut rows = stmt.query([]).map_err(|e| self.sqlite(e))?;
        while let Some(row) = rows.next().map_err(|e| self.sqlite(e))? {
            let get = |i| row.get_ref(i).map_err(|e| self.sqlite(e));
            let message = MessageRow {
                topic_id: get(0)?,
                time: get(1)?,
                data: get(2)?,
                rowid: row.get(3).map_err(|e| self.sqlite(e))?,
            };
            if !each(message)? {
                break;
            }
        }
        Ok(())
    }

    /// Rows of `messages` whose timestamp is NULL.
    pub fn null_timestamps(&self) -> Result<u64, Ros2Error> {
        self.conn
            .query_row(
                "SELECT count(*) FROM messages WHERE timestamp IS NULL",
                [],
                |row| row.get::<_, i64>(0),
            )
            .map(|n| u64::try_from(n).unwrap_or(0))
            .map_err(|e| self.sqlite(e))
    }

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
    pub fn definitions(&self) -> Result<HashMap<String, (String, Vec<u8>)>, Ros2Error> {
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

    /// `topics`, in id order.
    pub fn topics(&self) -> Result<Vec<TopicRow>, Ros2Error> {
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

/// The query reading `messages` in `order`: topic id, timestamp, data, row id.
fn message_query(order: MessageOrder) -> &'static str {
    match order {
        MessageOrder::Table => {
            "SELECT topic_id, timestamp, data, rowid FROM messages ORDER BY rowid"
        }
        MessageOrder::Index => {
            "SELECT topic_id, timestamp, data, rowid FROM messages ORDER BY timestamp, rowid"
        }
        // CROSS JOIN: SQLite keeps the key table as the outer loop, read in its key order.
        MessageOrder::Keys => {
            "SELECT m.topic_id, m.timestamp, m.data, m.rowid FROM temp.bagscope_order AS k \
             CROSS JOIN main.messages AS m ON m.rowid = k.r ORDER BY k.t, k.r"
        }
    }
}

/// A text column (a BLOB or number read as text too, invalid UTF-8 replaced).
pub fn text(v: ValueRef<'_>) -> String {
    match v {
        ValueRef::Text(t) | ValueRef::Blob(t) => String::from_utf8_lossy(t).into_owned(),
        ValueRef::Integer(i) => i.to_string(),
        ValueRef::Real(r) => r.to_string(),
        ValueRef::Null => String::new(),
    }
}

/// A BLOB column (text as its bytes; anything else empty).
pub fn bytes(v: ValueRef<'_>) -> &[u8] {
    match v {
        ValueRef::Text(t) | ValueRef::Blob(t) => t,
        _ => &[],
    }
}
