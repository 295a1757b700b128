//! Which messages to read: connections and an inclusive time range.

use crate::time::RosTime;

use super::chunk::{Chunk, IndexEntry};
use super::connection::ConnId;

/// A selection of messages. The default selects everything.
#[derive(Clone, Debug, Default)]
pub struct Query {
    /// Connections to read (`None`: all).
    pub connections: Option<Vec<ConnId>>,
    /// Earliest receive time (inclusive).
    pub start: Option<RosTime>,
    /// Latest receive time (inclusive).
    pub end: Option<RosTime>,
    /// Decompress chunks on several threads ahead of the reader (full scans).
    pub parallel: bool,
}

impl Query {
    /// Every message.
    pub fn all() -> Self {
        Query::default()
    }

    /// Restricts to `connections`.
    #[must_use]
    pub fn connections(mut self, connections: impl IntoIterator<Item = ConnId>) -> Self {
        let mut v: Vec<ConnId> = connections.into_iter().collect();
        v.sort_unstable();
        v.dedup();
        self.connections = Some(v);
        self
    }

    /// Restricts to `[start, end]`.
    #[must_use]
    pub fn time_range(mut self, start: Option<RosTime>, end: Option<RosTime>) -> Self {
        self.start = start;
        self.end = end;
        self
    }

    /// Enables parallel decompression.
    #[must_use]
    pub fn parallel(mut self, yes: bool) -> Self {
        self.parallel = yes;
        self
    }

    /// True when `conn` is selected.
    pub fn wants_conn(&self, conn: ConnId) -> bool {
        self.connections
            .as_ref()
            .is_none_or(|c| c.binary_search(&conn).is_ok())
    }

    /// True when `entry` is selected.
    pub fn wants(&self, entry: &IndexEntry) -> bool {
        self.wants_conn(entry.conn)
            && self.start.is_none_or(|s| entry.time >= s)
            && self.end.is_none_or(|e| entry.time <= e)
    }

    /// True when `chunk` may hold selected messages (by its summary).
    pub fn may_touch(&self, chunk: &Chunk) -> bool {
        let conn_ok = chunk
            .counts
            .iter()
            .any(|&(c, n)| n > 0 && self.wants_conn(c));
        let time_ok =
            self.start.is_none_or(|s| chunk.end >= s) && self.end.is_none_or(|e| chunk.start <= e);
        conn_ok && time_ok
    }
}
