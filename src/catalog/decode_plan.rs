//! One decode plan per connection: the compiled schema of its type (shared by every connection
//! of the type, see [`TypePlans`]) and, when an expression selects messages by content, the
//! expression compiled for it. A message is decoded once through its plan, tested, and the
//! same decoded value is handed on (printed, exported, plotted), instead of being decoded once
//! to test and again to use.

use std::collections::HashMap;
use std::sync::Arc;

use crate::bag::{Bag, BagError, Bytes, Connection, IndexEntry};
use crate::msg::expr::{Expr, ExprError, Filter};
use crate::msg::{DecodeError, Decoded, Registry, Schema};

use super::bag_conn::BagConn;
use super::type_plans::TypePlans;

/// How to decode (and test) the messages of one connection.
#[derive(Clone, Debug)]
pub struct DecodePlan {
    schema: Arc<Schema>,
    filter: Option<Arc<Filter>>,
}

/// What a plan made of one message.
#[derive(Debug)]
pub enum Kept<'d> {
    /// Decoded, and the expression holds (or there is none): the decoded message.
    Yes(Decoded<'d>),
    /// Decoded, and the expression does not hold.
    No,
    /// The payload does not decode with the connection's schema.
    Undecodable(DecodeError),
}

impl DecodePlan {
    /// The plan of a connection of type `schema`, testing `filter` when given.
    pub fn new(schema: Arc<Schema>, filter: Option<Arc<Filter>>) -> Self {
        DecodePlan { schema, filter }
    }

    /// The compiled schema.
    pub fn schema(&self) -> &Arc<Schema> {
        &self.schema
    }

    /// The expression compiled for the connection's type, if any.
    pub fn filter(&self) -> Option<&Arc<Filter>> {
        self.filter.as_ref()
    }

    /// Decodes `payload`.
    pub fn decode<'d>(&'d self, payload: &'d [u8]) -> Result<Decoded<'d>, DecodeError> {
        count_decode();
        crate::msg::decode(&self.schema, payload)
    }

    /// Decodes `payload` (once) and tests the expression on it, as on a topic's first
    /// message: an expression with `diff()`/`rate()` ([`Filter::is_stateful`]) needs the
    /// topic's previous message, so its readers decode and call [`Filter::eval`] in order.
    pub fn keep<'d>(&'d self, payload: &'d [u8]) -> Kept<'d> {
        match self.decode(payload) {
            Ok(d) if self.filter.as_ref().is_none_or(|f| f.matches(d.root())) => Kept::Yes(d),
            Ok(_) => Kept::No,
            Err(e) => Kept::Undecodable(e),
        }
    }
}

/// Why an indexed message gave no decoded value.
#[derive(Debug)]
pub enum Lost {
    /// It could not be read from its chunk.
    Unreadable(BagError),
    /// Its payload does not decode with the connection's schema.
    Undecodable(DecodeError),
}

impl Lost {
    /// True when the message could not be read (rather than decoded).
    pub fn is_unreadable(&self) -> bool {
        matches!(self, Lost::Unreadable(_))
    }

    /// What to tell about the loss of message `entry` of `bag` (a `what`, e.g. "log
    /// message"): the read error as it is, or `FILE: WHAT at TIME does not decode: WHY`.
    pub fn note(&self, bag: &Bag, entry: &IndexEntry, what: &str) -> String {
        match self {
            Lost::Unreadable(e) => e.to_string(),
            Lost::Undecodable(e) => format!(
                "{}: {what} at {} does not decode: {e}",
                bag.path().display(),
                entry.time
            ),
        }
    }
}

impl DecodePlan {
    /// Reads the message `entry` of `bag` from its chunk's decompressed `bytes`, decodes it
    /// (once) and hands the decoded message to `use_it`; what `use_it` returns, or why the
    /// message gave none. The readers that go chunk by chunk (search, series, log) share it.
    pub fn read<R>(
        &self,
        bag: &Bag,
        entry: &IndexEntry,
        bytes: &Bytes,
        use_it: impl FnOnce(&Decoded<'_>) -> R,
    ) -> Result<R, Lost> {
        let message = bag.read_with(entry, bytes).map_err(Lost::Unreadable)?;
        let decoded = self.decode(&message.data).map_err(Lost::Undecodable)?;
        Ok(use_it(&decoded))
    }
}

/// Why an expression cannot be planned for a connection: it does not fit the connection's
/// type (a field it names is missing, a comparison of the wrong kind).
#[derive(Debug, thiserror::Error)]
#[error("topic '{topic}' ({datatype}): {error}")]
pub struct PlanError {
    /// The connection's topic.
    pub topic: String,
    /// The connection's type.
    pub datatype: String,
    /// What does not fit.
    pub error: Box<ExprError>,
}

/// The decode plans of many connections (of several bags), by (bag, connection).
#[derive(Clone, Debug, Default)]
pub struct DecodePlans {
    plans: HashMap<BagConn, DecodePlan>,
}

impl DecodePlans {
    /// The plans of `conns` (bag index, connection) for `expr` (none: decode only), with
    /// `registry` for types the connections do not define. A connection without a schema
    /// gets no plan (its messages cannot be decoded); `Err` for the first connection the
    /// expression does not fit.
    pub fn new<'c>(
        conns: impl IntoIterator<Item = (usize, &'c Connection)>,
        expr: Option<&Expr>,
        registry: &Registry,
    ) -> Result<Self, PlanError> {
        let mut plans = HashMap::new();
        let Some(expr) = expr else {
            let mut types = TypePlans::schemas_only(registry);
            for (bag, conn) in conns {
                if let Ok(schema) = types.schema(conn) {
                    plans.insert(BagConn::new(bag, conn.id), DecodePlan::new(schema, None));
                }
            }
            return Ok(DecodePlans { plans });
        };
        let mut types = TypePlans::new(expr, registry);
        for (bag, conn) in conns {
            let plan = types.plan(conn).map_err(|error| PlanError {
                topic: conn.topic.clone(),
                datatype: conn.datatype.clone(),
                error: Box::new(error),
            })?;
            if let Some((schema, filter)) = plan {
                plans.insert(
                    BagConn::new(bag, conn.id),
                    DecodePlan::new(schema, Some(filter)),
                );
            }
        }
        Ok(DecodePlans { plans })
    }

    /// The plan of connection `conn`; `None` when it has no schema (or was not planned).
    pub fn get(&self, conn: BagConn) -> Option<&DecodePlan> {
        self.plans.get(&conn)
    }

    /// How many connections have a plan.
    pub fn len(&self) -> usize {
        self.plans.len()
    }

    /// True when no connection has a plan.
    pub fn is_empty(&self) -> bool {
        self.plans.is_empty()
    }
}

#[cfg(test)]
thread_local! {
    static DECODES: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// Counts a decode on this thread (tests only).
fn count_decode() {
    #[cfg(test)]
    DECODES.with(|n| n.set(n.get() + 1));
}

/// How many messages plans decoded on this thread so far (tests only).
#[cfg(test)]
pub fn decodes_on_this_thread() -> u64 {
    DECODES.with(std::cell::Cell::get)
}
