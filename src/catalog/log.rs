//! The log lines of a catalog: every ROS1 `rosgraph_msgs/Log` (and the old `roslib/Log`) and
//! ROS 2 `rcl_interfaces/msg/Log` message of the log topics, decoded into compact
//! [`LogLine`]s for the explorer's log view and for `info --health`. Both kinds' levels are
//! mapped to the same five [`LogLevel`]s.
//!
//! Only the chunks holding the log topics' connections are read, on the bags' worker threads,
//! in batches taken in time order; each batch is delivered as a time-sorted piece so a view
//! fills in while the rest is read. Messages that cannot be read or decoded are counted, not
//! fatal.
//!
//! When a catalog has both `/rosout` and `/rosout_agg` (ROS1's aggregated copy of the same
//! lines; ROS 2 has none), only `/rosout` is read: [`log_topics`] says which were left out.

use std::collections::HashMap;
use std::sync::atomic::AtomicBool;

use crate::bag::{Bag, ConnId};
use crate::msg::Registry;
use crate::time::RosTime;

use super::chunk_batches::{ChunkJob, read_batches};
use super::log_record::{LogKind, LogRecord};
use super::{BagConn, Catalog, DecodePlan, compile};

/// The message types read as log lines (ROS 2's also as `rcl_interfaces/Log`: see
/// [`is_log_type`]).
pub const LOG_TYPES: [&str; 3] = ["rosgraph_msgs/Log", "roslib/Log", "rcl_interfaces/msg/Log"];

/// True for the message types read as log lines ([`LOG_TYPES`], either spelling of a ROS 2
/// name).
pub fn is_log_type(datatype: &str) -> bool {
    LogKind::of(datatype).is_some()
}

/// A log line's severity: `rosgraph_msgs/Log` numbers it 1, 2, 4, 8, 16,
/// `rcl_interfaces/msg/Log` 10, 20, 30, 40, 50.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LogLevel {
    /// 1.
    #[default]
    Debug,
    /// 2.
    Info,
    /// 4.
    Warn,
    /// 8.
    Error,
    /// 16.
    Fatal,
}

impl LogLevel {
    /// Every level, the least severe first.
    pub const ALL: [LogLevel; 5] = [
        LogLevel::Debug,
        LogLevel::Info,
        LogLevel::Warn,
        LogLevel::Error,
        LogLevel::Fatal,
    ];

    /// The level of a `level` field; a value that is no level is the nearest one below it
    /// (0 and negative values are DEBUG), as rqt_console shows unknown levels.
    pub fn from_number(n: i64) -> LogLevel {
        match n {
            i64::MIN..=1 => LogLevel::Debug,
            2..=3 => LogLevel::Info,
            4..=7 => LogLevel::Warn,
            8..=15 => LogLevel::Error,
            _ => LogLevel::Fatal,
        }
    }

    /// The level of a ROS 2 `level` field (10, 20, 30, 40, 50); a value that is no level is
    /// the nearest one below it (0, rcutils' UNSET, and anything below 20 are DEBUG).
    pub fn from_ros2_number(n: i64) -> LogLevel {
        match n {
            i64::MIN..=19 => LogLevel::Debug,
            20..=29 => LogLevel::Info,
            30..=39 => LogLevel::Warn,
            40..=49 => LogLevel::Error,
            _ => LogLevel::Fatal,
        }
    }

    /// The level of `record`, by the numbering of its kind.
    pub fn of(record: &LogRecord<'_>) -> LogLevel {
        match record.kind {
            LogKind::Ros1 => LogLevel::from_number(record.level),
            LogKind::Ros2 => LogLevel::from_ros2_number(record.level),
        }
    }

    /// The name rqt_console and `rosconsole` print: `DEBUG`, `INFO`, `WARN`, `ERROR`, `FATAL`.
    pub fn name(self) -> &'static str {
        match self {
            LogLevel::Debug => "DEBUG",
            LogLevel::Info => "INFO",
            LogLevel::Warn => "WARN",
            LogLevel::Error => "ERROR",
            LogLevel::Fatal => "FATAL",
        }
    }

    /// The next more severe level, wrapping from FATAL to DEBUG.
    #[must_use]
    pub fn next(self) -> LogLevel {
        match self {
            LogLevel::Debug => LogLevel::Info,
            LogLevel::Info => LogLevel::Warn,
            LogLevel::Warn => LogLevel::Error,
            LogLevel::Error => LogLevel::Fatal,
            LogLevel::Fatal => LogLevel::Debug,
        }
    }

    /// Index in [`LogLevel::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }
}

/// One log message, compact: the node is an index into [`LogLines::nodes`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogLine {
    /// Receive time (the timeline's time).
    pub time: RosTime,
    /// Severity.
    pub level: LogLevel,
    /// Index of the node's name in [`LogLines::nodes`].
    pub node: u32,
    /// Index of the line's topic in the topics given to [`extract`].
    pub topic: u16,
    /// The message text (lossily UTF-8; escape it before showing it).
    pub text: Box<str>,
    /// `file:line (function)` when the message says, else empty.
    pub origin: Box<str>,
}

/// Log lines in time order, with the node names they refer to.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LogLines {
    /// The lines, by receive time.
    pub lines: Vec<LogLine>,
    /// Node names (`name` field), each once.
    pub nodes: Vec<Box<str>>,
}

impl LogLines {
    /// The node name of `line`.
    pub fn node(&self, line: &LogLine) -> &str {
        self.nodes.get(line.node as usize).map_or("", |n| n)
    }

    /// Adds a piece (its own node table) and keeps the lines in time order.
    pub fn merge(&mut self, piece: LogLines) {
        let mut map: Vec<u32> = Vec::with_capacity(piece.nodes.len());
        for name in piece.nodes {
            let at = if let Some(i) = self.nodes.iter().position(|n| *n == name) {
                i
            } else {
                self.nodes.push(name);
                self.nodes.len() - 1
            };
            map.push(u32::try_from(at).unwrap_or(u32::MAX));
        }
        let ordered = match (self.lines.last(), piece.lines.first()) {
            (Some(a), Some(b)) => a.time <= b.time,
            _ => true,
        };
        self.lines.extend(piece.lines.into_iter().map(|mut l| {
            l.node = map.get(l.node as usize).copied().unwrap_or(u32::MAX);
            l
        }));
        if !ordered {
            self.lines.sort_by_key(|l| l.time);
        }
    }

    /// Lines per node and level: `(node, [count per level of LogLevel::ALL])`, by node name.
    pub fn counts_by_node(&self) -> Vec<(String, [u64; 5])> {
        let mut counts: HashMap<u32, [u64; 5]> = HashMap::new();
        for l in &self.lines {
            if let Some(c) = counts.entry(l.node).or_default().get_mut(l.level.index()) {
                *c += 1;
            }
        }
        let mut out: Vec<(String, [u64; 5])> = counts
            .into_iter()
            .map(|(n, c)| {
                let name = self.nodes.get(n as usize).map_or("", |s| s);
                (name.to_string(), c)
            })
            .collect();
        out.sort();
        out
    }
}

/// The topics read as log lines, and the ones left out because they repeat another.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LogTopics {
    /// Topics whose type is one of [`LOG_TYPES`], sorted (without the left out ones).
    pub topics: Vec<String>,
    /// `/rosout_agg`, when `/rosout` is there too (the same lines, aggregated).
    pub left_out: Vec<String>,
}

/// The log topics of `catalog`.
pub fn log_topics(catalog: &Catalog) -> LogTopics {
    let mut topics: Vec<String> = catalog
        .bags()
        .iter()
        .flat_map(|b| b.connections().iter())
        .filter(|c| is_log_type(&c.datatype))
        .map(|c| c.topic.clone())
        .collect();
    topics.sort();
    topics.dedup();
    let mut left_out = Vec::new();
    if topics.iter().any(|t| t == "/rosout") {
        topics.retain(|t| {
            let agg = t == "/rosout_agg";
            if agg {
                left_out.push(t.clone());
            }
            !agg
        });
    }
    LogTopics { topics, left_out }
}

/// What reading the log lines lost.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LogStats {
    /// Messages that could not be read (damaged chunk, missing from the index).
    pub unreadable: u64,
    /// Messages that did not decode as a log message.
    pub undecodable: u64,
    /// The first problem, in words.
    pub first_problem: Option<String>,
}

impl LogStats {
    fn add(&mut self, other: LogStats) {
        self.unreadable += other.unreadable;
        self.undecodable += other.undecodable;
        if self.first_problem.is_none() {
            self.first_problem = other.first_problem;
        }
    }

    fn note(&mut self, what: String) {
        self.first_problem.get_or_insert(what);
    }

    /// Messages lost.
    pub fn lost(&self) -> u64 {
        self.unreadable + self.undecodable
    }
}

/// One delivery of [`extract`]: a time-sorted piece and the progress.
#[derive(Clone, Debug, Default)]
pub struct LogPiece {
    /// New lines (with their own node table; [`LogLines::merge`] them).
    pub piece: LogLines,
    /// Fraction of the log messages read so far.
    pub fraction: f64,
    /// Losses so far.
    pub stats: LogStats,
    /// The last piece.
    pub done: bool,
}

/// How a connection's messages are read.
struct Plan {
    decode: DecodePlan,
    topic: u16,
}

/// Every log line of `topics` (see [`log_topics`]) with the losses, read at once.
pub fn read_all(catalog: &Catalog, topics: &[String], registry: &Registry) -> (LogLines, LogStats) {
    let mut all = LogLines::default();
    let stats = extract(catalog, topics, registry, &AtomicBool::new(false), |p| {
        all.merge(p.piece);
        true
    });
    all.lines.shrink_to_fit();
    (all, stats)
}

/// Reads the log lines of `topics` (see [`log_topics`]): hands `on_piece` each batch's lines
/// (return `false` to stop; the last piece has `done` set) and returns the losses. Stops at
/// the next batch when `cancel` is set.
pub fn extract(
    catalog: &Catalog,
    topics: &[String],
    registry: &Registry,
    cancel: &AtomicBool,
    mut on_piece: impl FnMut(LogPiece) -> bool,
) -> LogStats {
    let mut schemas: Vec<HashMap<ConnId, Option<Plan>>> = Vec::new();
    let mut usable = Vec::new();
    let mut stats = LogStats::default();
    for (bag, b) in catalog.bags().iter().enumerate() {
        let mut conns = HashMap::new();
        for c in b
            .connections()
            .iter()
            .filter(|c| topics.contains(&c.topic) && is_log_type(&c.datatype))
        {
            let topic = topics.iter().position(|t| *t == c.topic).unwrap_or(0);
            let schema = compile(c, registry).schema.ok().map(|schema| Plan {
                decode: DecodePlan::new(schema, None),
                topic: u16::try_from(topic).unwrap_or(u16::MAX),
            });
            if schema.is_some() {
                usable.push(BagConn::new(bag, c.id));
            } else {
                stats.note(format!(
                    "{}: no usable definition of {}",
                    c.topic, c.datatype
                ));
            }
            conns.insert(c.id, schema);
        }
        schemas.push(conns);
    }
    read_batches(
        catalog,
        &usable,
        cancel,
        |bag, job| Some(read_chunk(bag, job, schemas.get(job.bag)?)),
        |batch| {
            let mut piece = LogLines::default();
            for (lines, s) in batch.results {
                piece.merge(lines);
                stats.add(s);
            }
            on_piece(LogPiece {
                piece,
                fraction: batch.fraction,
                stats: stats.clone(),
                done: batch.done,
            })
        },
    );
    stats
}

/// Reads the log lines of one chunk, sorted by time.
fn read_chunk(
    bag: &Bag,
    job: &ChunkJob,
    schemas: &HashMap<ConnId, Option<Plan>>,
) -> (LogLines, LogStats) {
    let mut stats = LogStats::default();
    let mut out = LogLines::default();
    let wanted = |c: ConnId| matches!(schemas.get(&c), Some(Some(_)));
    let entries = bag.chunk_entries(job.chunk);
    let (bytes, _permit) = match bag.chunk_bytes_held(job.chunk) {
        Ok(b) => b,
        Err(e) => {
            let listed = entries.iter().filter(|e| wanted(e.conn)).count() as u64;
            let lost = listed.max(job.messages);
            stats.unreadable += lost;
            stats.note(format!("{lost} log message(s) unreadable: {e}"));
            return (out, stats);
        }
    };
    let unfound = bag.unfound(job.chunk, wanted);
    if unfound > 0 {
        stats.unreadable += unfound;
        stats.note(format!(
            "{}: {unfound} log message(s) listed in the index of chunk {} are missing",
            bag.path().display(),
            job.chunk
        ));
    }
    let mut nodes: HashMap<Box<str>, u32> = HashMap::new();
    for entry in entries.iter() {
        let Some(Some(plan)) = schemas.get(&entry.conn) else {
            continue;
        };
        let read = plan.decode.read(bag, entry, &bytes, |d| {
            let record = LogRecord::read(&d.root());
            let name: Box<str> = String::from_utf8_lossy(record.name).into();
            let next = u32::try_from(nodes.len()).unwrap_or(u32::MAX);
            let node = *nodes.entry(name).or_insert(next);
            out.lines.push(LogLine {
                time: entry.time,
                level: LogLevel::of(&record),
                node,
                topic: plan.topic,
                text: String::from_utf8_lossy(record.msg).into(),
                origin: record.origin().into(),
            });
        });
        if let Err(lost) = read {
            if lost.is_unreadable() {
                stats.unreadable += 1;
            } else {
                stats.undecodable += 1;
            }
            stats.note(lost.note(bag, entry, "log message"));
        }
    }
    let mut names: Vec<(Box<str>, u32)> = nodes.into_iter().collect();
    names.sort_by_key(|(_, i)| *i);
    out.nodes = names.into_iter().map(|(n, _)| n).collect();
    if !out.lines.is_sorted_by_key(|l| l.time) {
        out.lines.sort_by_key(|l| l.time);
    }
    (out, stats)
}

#[cfg(test)]
#[path = "log_tests.rs"]
mod tests;
