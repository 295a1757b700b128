//! `--where EXPR` of `echo`, `export` and `filter`: keep only the messages an expression
//! (docs/search.md) holds for, compiled once per message type (connections of one type share
//! the schema and the filter, and every filter shares the expression's regular expressions).
//!
//! An expression with `diff()` or `rate()` compares a message with its topic's previous one:
//! [`Where`] then keeps a [`Memory`] per topic (by name, across bags and connections), and
//! the messages must be asked about in receive-time order ([`Where::is_stateful`]).

use std::collections::HashMap;
use std::io::Write;
use std::sync::Mutex;

use clap::Args;

use crate::bag::Connection;
use crate::catalog::{BagConn, DecodePlans, Kept, Schemas};
use crate::msg::Decoded;
use crate::msg::expr::{Expr, ExprError, Memory};
use crate::time::RosTime;

/// The `--where` option.
#[derive(Args, Debug, Clone, Default)]
pub struct WhereArgs {
    /// Keep only messages for which EXPR holds, e.g. `level >= WARN`,
    /// `header.frame_id == "base"`, `transforms[*].child_frame_id ~ "arm"`,
    /// `norm(twist.twist.linear) > 1`, `rate(header.seq) < 9` (docs/search.md). Every selected
    /// topic's type must have the fields it names.
    #[arg(long = "where", value_name = "EXPR")]
    pub expr: Option<String>,
}

/// The compiled `--where` filter of every selected connection: its decode plan (see
/// [`DecodePlans`]), so that a kept message is decoded once, to test and to use.
pub struct Where {
    plans: DecodePlans,
    /// Messages that could not be decoded to test (not kept).
    undecodable: std::sync::atomic::AtomicU64,
    /// True when the expression uses `diff()` or `rate()`.
    stateful: bool,
    /// The topic (an index into `memories`) of each connection, when stateful.
    topics: HashMap<BagConn, usize>,
    /// Each topic's memory of its previous message, when stateful.
    memories: Mutex<Vec<Memory>>,
    /// The topics' names, in the order of `memories`.
    names: Vec<String>,
}

impl WhereArgs {
    /// The filter for `conns` (bag index, connection), or `Ok(None)` without `--where`.
    /// `Err` holds the lines to print when the expression does not parse or does not fit a
    /// topic's type.
    pub fn compile<'c>(
        &self,
        conns: impl IntoIterator<Item = (usize, &'c Connection)>,
        schemas: &Schemas,
    ) -> Result<Option<Where>, WhereError> {
        let Some(text) = &self.expr else {
            return Ok(None);
        };
        let expr = Expr::parse(text).map_err(|e| WhereError {
            context: String::new(),
            error: Box::new(e),
        })?;
        let conns: Vec<(usize, &Connection)> = conns.into_iter().collect();
        // A connection without a schema cannot be decoded: it gets no plan, its messages
        // are reported when reading and never match.
        let plans = DecodePlans::new(conns.iter().copied(), Some(&expr), schemas.registry())
            .map_err(|e| WhereError {
                context: format!("topic '{}' ({}): ", e.topic, e.datatype),
                error: e.error,
            })?;
        let stateful = conns.iter().any(|(bag, c)| {
            plans
                .get(BagConn::new(*bag, c.id))
                .and_then(|p| p.filter())
                .is_some_and(|f| f.is_stateful())
        });
        let mut topics = HashMap::new();
        let mut names: HashMap<&str, usize> = HashMap::new();
        if stateful {
            for (bag, c) in &conns {
                let next = names.len();
                let index = *names.entry(c.topic.as_str()).or_insert(next);
                topics.insert(BagConn::new(*bag, c.id), index);
            }
        }
        let mut order: Vec<(&str, usize)> = names.into_iter().collect();
        order.sort_by_key(|(_, i)| *i);
        Ok(Some(Where {
            plans,
            undecodable: std::sync::atomic::AtomicU64::new(0),
            stateful,
            topics,
            memories: Mutex::new(vec![Memory::new(); order.len()]),
            names: order.into_iter().map(|(n, _)| n.to_string()).collect(),
        }))
    }
}

impl Where {
    /// True when the expression uses `diff()` or `rate()`: [`Where::keep`] must then be asked
    /// about each topic's messages in receive-time order (on one thread).
    pub fn is_stateful(&self) -> bool {
        self.stateful
    }

    /// True when the message `data` of connection `conn`, received at `time`, satisfies the
    /// expression; a message that does not decode does not (it is counted and reported by
    /// [`Where::report`]).
    pub fn keep(&self, conn: BagConn, time: RosTime, data: &[u8]) -> bool {
        self.decode_kept(conn, time, data).is_some()
    }

    /// The message `data` of connection `conn` (received at `time`) decoded, when it
    /// satisfies the expression: [`Where::keep`] that hands on what it decoded.
    pub fn decode_kept<'d>(
        &'d self,
        conn: BagConn,
        time: RosTime,
        data: &'d [u8],
    ) -> Option<Decoded<'d>> {
        let plan = self.plans.get(conn)?;
        if !self.stateful {
            return match plan.keep(data) {
                Kept::Yes(decoded) => Some(decoded),
                Kept::No => None,
                Kept::Undecodable(_) => {
                    self.count_undecodable();
                    None
                }
            };
        }
        let topic = *self.topics.get(&conn)?;
        let mut memories = self
            .memories
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let memory = memories.get_mut(topic)?;
        if let Ok(decoded) = plan.decode(data) {
            let ns = i64::try_from(time.as_nanos()).unwrap_or(i64::MAX);
            let kept = plan
                .filter()
                .is_some_and(|f| f.eval(decoded.root(), ns, memory));
            kept.then_some(decoded)
        } else {
            // Its values are unknown: the next message has no previous one to compare.
            memory.clear();
            self.count_undecodable();
            None
        }
    }

    /// Forgets every topic's previous message (messages were lost to damage, which topics'
    /// is unknown): `diff()` and `rate()` of the next message of each topic have no value.
    pub fn forget(&self) {
        let mut memories = self
            .memories
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        memories.iter_mut().for_each(Memory::clear);
    }

    /// Takes over what `old` (the same expression compiled for fewer connections)
    /// remembers of each topic and how many messages it could not decode: a followed
    /// recording's filter is compiled again when connections appear.
    pub fn take_over(&mut self, old: Where) {
        let n = old.undecodable.into_inner();
        self.undecodable
            .fetch_add(n, std::sync::atomic::Ordering::Relaxed);
        let memories = old
            .memories
            .into_inner()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let mine = self
            .memories
            .get_mut()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        for (name, memory) in old.names.iter().zip(memories) {
            if let Some(i) = self.names.iter().position(|n| n == name) {
                if let Some(slot) = mine.get_mut(i) {
                    *slot = memory;
                }
            }
        }
    }

    fn count_undecodable(&self) {
        self.undecodable
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }

    /// How many messages could not be decoded to test (none of them kept).
    pub fn undecodable(&self) -> u64 {
        self.undecodable.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Prints how many messages could not be tested, if any.
    pub fn report(&self) {
        let n = self.undecodable.load(std::sync::atomic::Ordering::Relaxed);
        if n > 0 {
            super::term::print_warning(format_args!(
                "--where: {n} messages could not be decoded to test the expression: none kept"
            ));
        }
    }
}

/// Why `--where` cannot be used.
#[derive(Debug)]
pub struct WhereError {
    context: String,
    error: Box<ExprError>,
}

impl std::fmt::Display for WhereError {
    /// The first line of the error: what does not fit, and where.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "--where: {}{}", self.context, self.error.message())
    }
}

impl std::error::Error for WhereError {}

impl WhereError {
    /// Prints the error, then the expression with a `^` under the column, on stderr.
    pub fn print(&self) {
        super::term::print_error(self);
        let mut err = std::io::stderr().lock();
        for line in self.error.pointer().lines() {
            let _ = writeln!(err, "  {}", crate::printable::escape_line(line));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::ConnectionHeader;

    #[test]
    fn one_filter_for_every_connection_of_a_type() {
        let conns: Vec<Connection> = (0..3000u32)
            .map(|id| {
                let topic = format!("/t{id}");
                Connection {
                    id,
                    file_id: id,
                    datatype: "std_msgs/String".into(),
                    md5sum: "992ce8a1687cec8c8bd883ec73ca41d1".into(),
                    message_definition: "string data\n".into(),
                    callerid: None,
                    latching: None,
                    header: ConnectionHeader::build(&topic, "std_msgs/String", "*", "", None, None),
                    topic,
                    message_count: 1,
                    message_encoding: "ros1".into(),
                    schema_encoding: "ros1msg".into(),
                }
            })
            .collect();
        let args = WhereArgs {
            expr: Some(r#"data =~ "\w{20}""#.into()),
        };
        let w = args
            .compile(conns.iter().map(|c| (0, c)), &Schemas::default())
            .unwrap()
            .unwrap();
        let first = w.plans.get(BagConn::new(0, 0)).unwrap();
        let (schema, filter) = (first.schema(), first.filter().unwrap());
        assert_eq!(w.plans.len(), 3000);
        assert!((0..3000).all(|id| {
            let p = w.plans.get(BagConn::new(0, id)).unwrap();
            std::sync::Arc::ptr_eq(p.schema(), schema)
                && std::sync::Arc::ptr_eq(p.filter().unwrap(), filter)
        }));
        let mut payload = 21u32.to_le_bytes().to_vec();
        payload.extend(b"a_word_of_twenty_one_");
        assert!(w.keep(BagConn::new(0, 2999), RosTime::MIN, &payload));
        assert!(!w.keep(BagConn::new(0, 2999), RosTime::MIN, &[1, 0, 0, 0, b'a']));
        assert!(!w.is_stateful());
    }
}
