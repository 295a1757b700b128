//! One quantity of one topic over time, across bags: a compact column of `(time, value)` for
//! plotting. The quantity is a field path (`/imu/linear_acceleration/z`) or an expression
//! (`/odom: norm(twist.twist.linear)`), compiled per message type
//! ([`crate::msg::expr::Expr::compile_quantity`]).
//!
//! Only the chunks that hold the topic's connections are read; they are decompressed and
//! decoded on the bags' worker threads (within each bag's decode budget), in batches taken
//! in time order, each batch delivered as a sorted [`SeriesUpdate::piece`] with the progress
//! so far, so a plot fills in while the rest is read. The work stops at the next chunk when
//! cancelled (a flag, a callback returning `false`, or the receiver of [`spawn`] dropped).
//! A quantity that depends on the topic's previous message (`diff`, `rate`) is gathered on
//! the workers and finished on the calling thread in receive-time order (`series_order`),
//! so it is right when chunks overlap in time and when several bags interleave.
//! Chunks or messages that cannot be read or decoded are counted in [`SeriesStats`], not
//! fatal: the good part is plotted, the losses are reported.
//!
//! ```no_run
//! use std::sync::atomic::AtomicBool;
//! use bagscope::catalog::{Catalog, series::{SeriesRequest, extract}};
//! use bagscope::msg::Registry;
//! # fn f(catalog: &Catalog) -> Result<(), Box<dyn std::error::Error>> {
//! let request = SeriesRequest::parse(catalog, "/imu/linear_acceleration/z")?;
//! let (column, stats) = extract(catalog, &request, &Registry::bundled(), &AtomicBool::new(false), |_| true)?;
//! println!("{} points, {} lost", column.len(), stats.lost());
//! # Ok(()) }
//! ```

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::thread::JoinHandle;

use crate::bag::{Bag, ConnId, IndexEntry};
use crate::msg::expr::{ExprError, Memory, Quantity};
use crate::msg::{Decoded, Registry};
use crate::time::RosTime;

use super::chunk_batches::{ChunkJob, messages_in, read_batches_from, usable_and_skipped};
use super::series_order::{Gathered, InOrder, Place, finish_in_order};
pub use super::series_request::{Resume, SeriesError, SeriesRequest, SeriesValue};
use super::{Catalog, DecodePlan, compile, topic_matches};

/// Receive times and values, in time order: 16 bytes per point.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Column {
    /// Receive times, nanoseconds since the epoch, ascending.
    pub times: Vec<i64>,
    /// The value at each time.
    pub values: Vec<f64>,
}

impl Column {
    /// An empty column.
    pub fn new() -> Self {
        Column::default()
    }

    /// A column of `points`, sorted by time (stable: equal times keep their order).
    pub fn from_points(mut points: Vec<(i64, f64)>) -> Self {
        if !points.is_sorted_by_key(|p| p.0) {
            points.sort_by_key(|p| p.0);
        }
        let (times, values) = points.into_iter().unzip();
        Column { times, values }
    }

    /// Number of points.
    pub fn len(&self) -> usize {
        self.times.len().min(self.values.len())
    }

    /// True when there are no points.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes held by the points (capacity included).
    pub fn heap_bytes(&self) -> usize {
        self.times.capacity() * size_of::<i64>() + self.values.capacity() * size_of::<f64>()
    }

    /// Adds the points of `piece` (itself in time order) keeping the column in time order:
    /// appended when it starts at or after the last point (the common case), else merged.
    pub fn merge(&mut self, piece: Column) {
        let (Some(&last), Some(&first)) = (self.times.last(), piece.times.first()) else {
            if self.is_empty() {
                *self = piece;
            }
            return;
        };
        if first >= last {
            self.times.extend(piece.times);
            self.values.extend(piece.values);
            return;
        }
        let total = self.len() + piece.len();
        let mut times = Vec::with_capacity(total);
        let mut values = Vec::with_capacity(total);
        let mut ours = self.times.iter().zip(&self.values).peekable();
        let mut theirs = piece.times.iter().zip(&piece.values).peekable();
        loop {
            let take_ours = match (ours.peek(), theirs.peek()) {
                (Some(x), Some(y)) => x.0 <= y.0,
                (Some(_), None) => true,
                (None, Some(_)) => false,
                (None, None) => break,
            };
            let next = if take_ours {
                ours.next()
            } else {
                theirs.next()
            };
            if let Some((t, v)) = next {
                times.push(*t);
                values.push(*v);
            }
        }
        *self = Column { times, values };
    }
}

/// A time as nanoseconds since the epoch (the column's time unit).
pub fn time_ns(t: RosTime) -> i64 {
    i64::from(t.sec) * 1_000_000_000 + i64::from(t.nsec)
}

/// What was read, and what could not be.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SeriesStats {
    /// Messages of the topic that were decoded.
    pub messages: u64,
    /// Messages that decoded but hold no value at the path (an index past the end).
    pub no_value: u64,
    /// Messages in chunks that could not be read (damaged, changed on disk).
    pub unreadable: u64,
    /// Messages that did not decode.
    pub undecodable: u64,
    /// Messages of connections whose type does not have the path or has no definition.
    pub skipped: u64,
    /// The first few problems, worded for the user.
    pub problems: Vec<String>,
}

/// Problems kept word for word; the rest are only counted.
const MAX_PROBLEMS: usize = 8;

impl SeriesStats {
    /// Messages lost to damage (unreadable or undecodable).
    pub fn lost(&self) -> u64 {
        self.unreadable + self.undecodable
    }

    fn add(&mut self, other: SeriesStats) {
        self.messages += other.messages;
        self.no_value += other.no_value;
        self.unreadable += other.unreadable;
        self.undecodable += other.undecodable;
        self.skipped += other.skipped;
        for p in other.problems {
            self.note(p);
        }
    }

    fn note(&mut self, problem: String) {
        if self.problems.len() < MAX_PROBLEMS {
            self.problems.push(problem);
        }
    }
}

/// One step of an extraction.
#[derive(Debug, Clone)]
pub struct SeriesUpdate {
    /// New points, in time order (merge them with [`Column::merge`]).
    pub piece: Column,
    /// Points delivered so far, this piece included.
    pub points: usize,
    /// Fraction of the topic's messages read so far, 0..=1.
    pub fraction: f64,
    /// Counts so far.
    pub stats: SeriesStats,
    /// True on the last update.
    pub done: bool,
    /// The latest receive time the extraction covers (the end of the latest chunk holding
    /// the topic): every message of the topic up to it is read by the end. `None` without
    /// any such chunk.
    pub through: Option<RosTime>,
}

/// The decode plan for one connection.
struct ConnPlan {
    decode: DecodePlan,
    quantity: Quantity,
    /// Its topic's stream number (the order and the memory of `diff` are per topic).
    stream: u32,
}

/// Extracts the series: calls `on_update` after each batch (return `false` to stop) and
/// returns the whole column with the counts. Stops early, with what was read, when `cancel`
/// is set.
pub fn extract(
    catalog: &Catalog,
    request: &SeriesRequest,
    registry: &Registry,
    cancel: &AtomicBool,
    on_update: impl FnMut(&SeriesUpdate) -> bool,
) -> Result<(Column, SeriesStats), SeriesError> {
    extract_with(catalog, request, registry, cancel, on_update, false)
}

/// [`extract`], taking the quantity through the receive-time order (as `diff` and `rate`
/// need) even when it does not need it: how tests check and time that path with any
/// quantity.
#[cfg(test)]
pub(crate) fn extract_in_order(
    catalog: &Catalog,
    request: &SeriesRequest,
    registry: &Registry,
    on_update: impl FnMut(&SeriesUpdate) -> bool,
) -> Result<(Column, SeriesStats), SeriesError> {
    extract_with(
        catalog,
        request,
        registry,
        &AtomicBool::new(false),
        on_update,
        true,
    )
}

fn extract_with(
    catalog: &Catalog,
    request: &SeriesRequest,
    registry: &Registry,
    cancel: &AtomicBool,
    mut on_update: impl FnMut(&SeriesUpdate) -> bool,
    in_order: bool,
) -> Result<(Column, SeriesStats), SeriesError> {
    let plans = plan(catalog, request, registry)?;
    let stateful = in_order
        || plans
            .iter()
            .flat_map(HashMap::values)
            .flatten()
            .any(|p| p.quantity.is_stateful());
    let mut stats = SeriesStats::default();
    // The topic's connections that can be plotted, and those skipped (wrong type).
    let (usable, skipped) = usable_and_skipped(&plans);
    stats.skipped = messages_in(catalog, &skipped);
    let mut column = Column::new();
    let from = request.from.map(|r| r.time);
    // Points at exactly the resume time that the caller has already.
    let mut skip = request.from.map_or(0, |r| r.skip);
    let from_ns = from.map_or(i64::MIN, time_ns);
    let through = catalog
        .chunks_holding(Some(&usable))
        .map(|(c, _)| c.chunk.end)
        .max();
    // With `diff` or `rate`: the gathered numbers wait here until their turn, and each topic
    // remembers its previous message.
    let mut order = InOrder::new();
    let mut memories: Vec<Memory> = Vec::new();
    read_batches_from(
        catalog,
        &usable,
        from,
        cancel,
        |bag, job| {
            let plans = plans.get(job.bag)?;
            Some(if stateful {
                let (g, s) = gather_chunk(bag, job, plans, from);
                (Vec::new(), Some(g), s)
            } else {
                let (p, s) = read_chunk(bag, job, plans, from);
                (p, None, s)
            })
        },
        |batch| {
            let mut points = Vec::new();
            let mut batch_stats = SeriesStats::default();
            for (p, g, s) in batch.results {
                points.extend(p);
                if let Some(g) = g {
                    order.add(g);
                }
                batch_stats.add(s);
            }
            if stateful {
                let below = batch.next.map(time_ns);
                let (finished, no_value) =
                    finish_in_order(&mut order, below, &mut memories, |r, numbers, memory| {
                        let plan = plans
                            .get(r.place.bag as usize)
                            .and_then(|p| p.get(&r.conn))
                            .and_then(Option::as_ref)?;
                        plan.quantity.finish(numbers, r.place.time_ns, memory)
                    });
                points = finished;
                batch_stats.no_value += no_value;
            }
            let mut piece = Column::from_points(points);
            if skip > 0 {
                // Sorted, and nothing before `from`: the ones at `from` lead.
                let n = piece
                    .times
                    .iter()
                    .take(skip)
                    .filter(|&&t| t == from_ns)
                    .count();
                piece.times.drain(..n);
                piece.values.drain(..n);
                skip -= n;
            }
            stats.add(batch_stats);
            column.merge(piece.clone());
            on_update(&SeriesUpdate {
                piece,
                points: column.len(),
                fraction: batch.fraction,
                stats: stats.clone(),
                done: batch.done,
                through,
            })
        },
    );
    if order.late() > 0 {
        stats.note(format!(
            "{} message(s) came after later ones (a chunk's index times are wrong): \
             computed in the order read",
            order.late()
        ));
    }
    column.times.shrink_to_fit();
    column.values.shrink_to_fit();
    Ok((column, stats))
}

/// Checks that `request` can be extracted (the path exists in at least one connection's type
/// and names a plottable leaf, or the expression computes a number) without reading any
/// message: the error an [`extract`] would start with.
pub fn validate(
    catalog: &Catalog,
    request: &SeriesRequest,
    registry: &Registry,
) -> Result<(), SeriesError> {
    plan(catalog, request, registry).map(|_| ())
}

/// Per bag: the topic's connections and their plan (`None`: skipped, with why in `stats`).
type Plans = Vec<HashMap<ConnId, Option<ConnPlan>>>;

fn plan(
    catalog: &Catalog,
    request: &SeriesRequest,
    registry: &Registry,
) -> Result<Plans, SeriesError> {
    let topic = request.topic.clone();
    let mut plans = Vec::new();
    let mut first_error: Option<SeriesError> = None;
    let mut usable = 0usize;
    let mut streams: Vec<String> = Vec::new();
    for bag in catalog.bags() {
        let mut conns = HashMap::new();
        for c in bag
            .connections()
            .iter()
            .filter(|c| topic_matches(&request.topic, &c.topic))
        {
            let stream = streams
                .iter()
                .position(|t| *t == c.topic)
                .unwrap_or_else(|| {
                    streams.push(c.topic.clone());
                    streams.len() - 1
                });
            let plan = match compile(c, registry).schema {
                Err(e) => Err(SeriesError::NoSchema {
                    topic: topic.clone(),
                    why: e.to_string(),
                }),
                Ok(schema) => quantity(request, &schema, &c.topic).map(|quantity| ConnPlan {
                    decode: DecodePlan::new(schema, None),
                    quantity,
                    stream: u32::try_from(stream).unwrap_or(u32::MAX),
                }),
            };
            let plan = match plan {
                Ok(p) => {
                    usable += 1;
                    Some(p)
                }
                Err(e) => {
                    first_error.get_or_insert(e);
                    None
                }
            };
            conns.insert(c.id, plan);
        }
        plans.push(conns);
    }
    if usable == 0 {
        return Err(first_error.unwrap_or(SeriesError::NoTopic(request.topic.clone())));
    }
    Ok(plans)
}

/// The request's quantity compiled for one message type: a field path checked as a path
/// first (its errors name the path's fields), then compiled as an expression.
fn quantity(
    request: &SeriesRequest,
    schema: &crate::msg::Schema,
    topic: &str,
) -> Result<Quantity, SeriesError> {
    let value = &request.path;
    if let Some(plain) = value.path() {
        let path = plain
            .resolve(schema.root())
            .map_err(|error| SeriesError::Path {
                topic: request.topic.clone(),
                error,
            })?;
        if !path.leaf().is_plottable() {
            return Err(SeriesError::NotPlottable {
                topic: request.topic.clone(),
                path: path.text().to_string(),
                leaf: path.leaf(),
            });
        }
    }
    let expr_error = |error: Box<ExprError>| SeriesError::Expr {
        topic: request.topic.clone(),
        error,
    };
    let expr = value.expr().map_err(|e| expr_error(Box::new(e.clone())))?;
    expr.compile_quantity(schema.root(), topic)
        .map_err(|e| expr_error(Box::new(e)))
}

/// Goes through the planned messages of one chunk received at or after `from`: `each` gets
/// each message's position among the chunk's entries, its entry and plan, and its decoded
/// value (`None`: lost, counted in the stats returned).
fn each_message(
    bag: &Bag,
    job: &ChunkJob,
    plans: &HashMap<ConnId, Option<ConnPlan>>,
    from: Option<RosTime>,
    mut each: impl FnMut(u32, &IndexEntry, &ConnPlan, Option<&Decoded<'_>>),
) -> (SeriesStats, u64) {
    let chunk = job.chunk;
    let mut stats = SeriesStats::default();
    let wanted = |c: ConnId| matches!(plans.get(&c), Some(Some(_)));
    let entries = bag.chunk_entries(chunk);
    let recent = |t: RosTime| from.is_none_or(|f| t >= f);
    let listed = entries
        .iter()
        .filter(|e| wanted(e.conn) && recent(e.time))
        .count() as u64;
    // Held against the bag's decode budget while the chunk is decoded.
    let (bytes, _permit) = match bag.chunk_bytes_held(chunk) {
        Ok(b) => b,
        Err(e) => {
            // What the chunk info promised, when its entries could not be listed either.
            let lost = listed.max(job.messages);
            stats.unreadable += lost;
            stats.note(format!("{lost} message(s) unreadable: {e}"));
            return (stats, 0);
        }
    };
    let unfound = bag.unfound(chunk, wanted);
    if unfound > 0 {
        stats.unreadable += unfound;
        stats.note(format!(
            "{}: {unfound} message(s) listed in the index of chunk {chunk} are missing",
            bag.path().display()
        ));
    }
    for (index, entry) in entries.iter().enumerate() {
        if !recent(entry.time) {
            continue;
        }
        let Some(Some(plan)) = plans.get(&entry.conn) else {
            continue;
        };
        let index = u32::try_from(index).unwrap_or(u32::MAX);
        match plan
            .decode
            .read(bag, entry, &bytes, |d| each(index, entry, plan, Some(d)))
        {
            Ok(()) => stats.messages += 1,
            Err(lost) => {
                if lost.is_unreadable() {
                    stats.unreadable += 1;
                } else {
                    stats.undecodable += 1;
                }
                stats.note(lost.note(bag, entry, "message"));
                each(index, entry, plan, None);
            }
        }
    }
    (stats, listed)
}

/// Reads one chunk of a quantity without state: the points of the planned connections
/// received at or after `from`, in time order, and the counts.
fn read_chunk(
    bag: &Bag,
    job: &ChunkJob,
    plans: &HashMap<ConnId, Option<ConnPlan>>,
    from: Option<RosTime>,
) -> (Vec<(i64, f64)>, SeriesStats) {
    let mut points = Vec::new();
    let mut numbers = Vec::new();
    // Not used: nothing is remembered without `diff` or `rate`.
    let mut memory = Memory::new();
    let mut no_value = 0u64;
    let (mut stats, _) = each_message(bag, job, plans, from, |_, entry, plan, decoded| {
        let Some(d) = decoded else {
            return;
        };
        numbers.clear();
        plan.quantity.gather(d.root(), &mut numbers);
        let t = time_ns(entry.time);
        match plan.quantity.finish(&numbers, t, &mut memory) {
            Some(v) => points.push((t, v)),
            None => no_value += 1,
        }
    });
    stats.no_value += no_value;
    if !points.is_sorted_by_key(|p| p.0) {
        points.sort_by_key(|p| p.0);
    }
    (points, stats)
}

/// Gathers one chunk of a quantity with state (`diff`, `rate`): the numbers of each message
/// (lost ones recorded as such), to be finished in receive-time order.
fn gather_chunk(
    bag: &Bag,
    job: &ChunkJob,
    plans: &HashMap<ConnId, Option<ConnPlan>>,
    from: Option<RosTime>,
) -> (Gathered, SeriesStats) {
    let mut g = Gathered::default();
    let bag_index = u32::try_from(job.bag).unwrap_or(u32::MAX);
    let (stats, _) = each_message(bag, job, plans, from, |index, entry, plan, decoded| {
        let place = Place {
            time_ns: time_ns(entry.time),
            bag: bag_index,
            chunk: job.chunk,
            index,
        };
        match decoded {
            Some(d) => {
                g.push_numbers(place, plan.stream, entry.conn);
                plan.quantity.gather(d.root(), &mut g.numbers);
                g.close_numbers();
            }
            None => g.push(
                place,
                plan.stream,
                entry.conn,
                super::series_order::Outcome::Lost,
            ),
        }
    });
    (g, stats)
}

/// A series extraction on its own thread.
#[derive(Debug)]
pub struct SeriesJob {
    /// The updates, the last with `done` set.
    pub updates: mpsc::Receiver<Result<SeriesUpdate, SeriesError>>,
    cancel: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl SeriesJob {
    /// Asks the thread to stop at the next chunk.
    pub fn cancel(&self) {
        self.cancel.store(true, Ordering::Relaxed);
    }
}

impl Drop for SeriesJob {
    fn drop(&mut self) {
        self.cancel();
        // Detached: it stops at its next chunk and its sends fail quietly.
        drop(self.thread.take());
    }
}

/// Starts extracting `request` on a new thread; the updates arrive on the job's receiver.
/// Dropping the job (or the receiver) stops the work.
pub fn spawn(
    catalog: Catalog,
    request: SeriesRequest,
    registry: Registry,
) -> std::io::Result<SeriesJob> {
    let cancel = Arc::new(AtomicBool::new(false));
    let (tx, rx) = mpsc::channel();
    let flag = Arc::clone(&cancel);
    let thread = std::thread::Builder::new()
        .name("series".into())
        .spawn(move || {
            let result = extract(&catalog, &request, &registry, &flag, |u| {
                tx.send(Ok(u.clone())).is_ok()
            });
            if let Err(e) = result {
                let _ = tx.send(Err(e));
            }
        })?;
    Ok(SeriesJob {
        updates: rx,
        cancel,
        thread: Some(thread),
    })
}

#[cfg(test)]
#[path = "series_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "series_resume_tests.rs"]
mod resume_tests;
