//! Searching messages by content: the times of the messages of some topics for which an
//! expression ([`crate::msg::expr`]) holds, over every bag of a catalog, and the stretches
//! they form: a [`Stretch`] is a maximal run of consecutive messages of one topic (in receive
//! time, across chunks and bags) for which the expression holds.
//!
//! As for plot series ([`super::series`]), only the chunks that hold the searched connections
//! are read, decompressed and decoded on worker threads, in batches taken in time order
//! (`chunk_batches`). The workers test each message (or, for `diff` / `rate`, gather its
//! numbers); the outcomes are then taken in receive-time order per topic (`series_order`:
//! a message is final once no chunk still to read can hold an earlier one), which decides
//! stateful conditions and where stretches start and end. Each batch is delivered as a
//! [`SearchUpdate`] with its matches (in time order), the stretches that ended, the progress
//! and the count so far, so marks appear while the rest is read; the last update also ends
//! the stretches still open. The work stops at the next batch when cancelled (the flag, or
//! the callback returning `false`).
//! Messages that cannot be read or decoded are counted, not fatal, and end a stretch.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use crate::bag::{Bag, ConnId};
use crate::msg::Registry;
use crate::msg::expr::{Expr, ExprError, Memory};
use crate::time::RosTime;

use super::chunk_batches::{ChunkJob, messages_in, read_batches, usable_and_skipped};
use super::series::time_ns;
use super::series_order::{Gathered, InOrder, Outcome, Place, Record};
use super::{BagConn, Catalog, DecodePlan, Kept, TypePlans, topic_matches};

/// What to search: an expression over the messages of some topics.
#[derive(Debug, Clone)]
pub struct SearchRequest {
    /// The topics searched; empty: every topic.
    pub topics: Vec<String>,
    /// The expression.
    pub expr: Expr,
}

/// Why a search cannot run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SearchError {
    /// The expression does not fit the type of any searched topic (the first topic's error).
    #[error("{topic} ({datatype}): {error}")]
    Expr {
        /// The topic.
        topic: String,
        /// Its type.
        datatype: String,
        /// What is wrong.
        error: Box<ExprError>,
    },
    /// No searched topic can be decoded, or there is none.
    #[error("no topic to search")]
    NoTopic,
}

/// One message that matched.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Match {
    /// Its receive time.
    pub time: RosTime,
    /// Its connection.
    pub conn: BagConn,
}

/// Counts of a search so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SearchStats {
    /// Messages tested.
    pub tested: u64,
    /// Messages that matched.
    pub matched: u64,
    /// Messages that could not be read.
    pub unreadable: u64,
    /// Messages that could not be decoded.
    pub undecodable: u64,
    /// Messages on searched topics whose type the expression does not fit (not tested).
    pub skipped: u64,
    /// Messages that came after later ones of the catalog were taken (a chunk whose index
    /// times are wrong): tested in the order read, not in receive-time order.
    pub late: u64,
}

/// A maximal run of consecutive messages of one topic (of those searched, in receive time)
/// for which the expression holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stretch {
    /// The receive time of its first message.
    pub start: RosTime,
    /// The receive time of its last message.
    pub end: RosTime,
    /// Its messages.
    pub count: u64,
    /// The connection of its first message.
    pub conn: BagConn,
    /// The topic.
    pub topic: Arc<str>,
}

impl Stretch {
    /// Its first message.
    pub fn first(&self) -> Match {
        Match {
            time: self.start,
            conn: self.conn,
        }
    }

    /// From its first message to its last, in nanoseconds (0 for one message).
    pub fn nanos(&self) -> i128 {
        self.end.nanos_since(self.start).max(0)
    }

    /// The order stretches are listed in: by start, then topic.
    pub fn order(a: &Stretch, b: &Stretch) -> std::cmp::Ordering {
        (a.start, &a.topic, a.conn).cmp(&(b.start, &b.topic, b.conn))
    }
}

impl SearchStats {
    fn add(&mut self, o: SearchStats) {
        self.tested += o.tested;
        self.matched += o.matched;
        self.unreadable += o.unreadable;
        self.undecodable += o.undecodable;
        self.skipped += o.skipped;
        self.late += o.late;
    }
}

/// One step of a search.
#[derive(Debug, Clone)]
pub struct SearchUpdate {
    /// The matches found in this batch, in time order (after those of earlier updates,
    /// unless a chunk's index times are wrong, see [`SearchStats::late`]).
    pub matches: Vec<Match>,
    /// The stretches that ended with this batch (on the last update, also those still
    /// open), sorted by [`Stretch::order`]; one may start before a stretch of an earlier
    /// update.
    pub stretches: Vec<Stretch>,
    /// Fraction of the searched messages read so far, 0..=1.
    pub fraction: f64,
    /// Counts so far.
    pub stats: SearchStats,
    /// True on the last update.
    pub done: bool,
}

/// How one searched connection is read.
#[derive(Debug)]
struct ConnPlan {
    decode: DecodePlan,
    /// Its topic's number among the searched topics.
    stream: u32,
}

/// Per bag: the searched connections and their plan (`None`: the expression does not fit).
type Plans = Vec<HashMap<ConnId, Option<ConnPlan>>>;

/// The plans, and the searched topics by stream number.
struct Planned {
    plans: Plans,
    topics: Vec<Arc<str>>,
    stateful: bool,
}

/// Compiles the request for every searched connection (once per message type): an error
/// when it fits none.
fn plan(
    catalog: &Catalog,
    request: &SearchRequest,
    registry: &Registry,
) -> Result<Planned, SearchError> {
    let mut plans = Vec::new();
    let mut topics: Vec<Arc<str>> = Vec::new();
    let mut streams: HashMap<&str, u32> = HashMap::new();
    let mut stateful = false;
    let mut first_error = None;
    let mut usable = 0usize;
    let mut types = TypePlans::new(&request.expr, registry);
    for bag in catalog.bags() {
        let mut conns = HashMap::new();
        for c in bag.connections().iter().filter(|c| {
            request.topics.is_empty() || request.topics.iter().any(|t| topic_matches(t, &c.topic))
        }) {
            let plan = match types.plan(c) {
                Ok(Some((schema, filter))) => {
                    stateful |= filter.is_stateful();
                    let stream = *streams.entry(c.topic.as_str()).or_insert_with(|| {
                        topics.push(Arc::from(c.topic.as_str()));
                        u32::try_from(topics.len() - 1).unwrap_or(u32::MAX)
                    });
                    Some(ConnPlan {
                        decode: DecodePlan::new(schema, Some(filter)),
                        stream,
                    })
                }
                Ok(None) => None,
                Err(error) => {
                    first_error.get_or_insert(SearchError::Expr {
                        topic: c.topic.clone(),
                        datatype: c.datatype.clone(),
                        error: Box::new(error),
                    });
                    None
                }
            };
            usable += usize::from(plan.is_some());
            conns.insert(c.id, plan);
        }
        plans.push(conns);
    }
    if usable == 0 {
        return Err(first_error.unwrap_or(SearchError::NoTopic));
    }
    Ok(Planned {
        plans,
        topics,
        stateful,
    })
}

/// Checks the request against the catalog without reading any message: the error a
/// [`search`] would start with.
pub fn validate(
    catalog: &Catalog,
    request: &SearchRequest,
    registry: &Registry,
) -> Result<(), SearchError> {
    plan(catalog, request, registry).map(|_| ())
}

/// A search checked and compiled against the catalog's topics (its regular expressions
/// compiled once), ready to run; [`SearchPlan::new`] reads no message.
pub struct SearchPlan {
    planned: Planned,
}

/// Everything a search found.
#[derive(Debug, Clone, Default)]
pub struct Found {
    /// Every match, in time order.
    pub matches: Vec<Match>,
    /// Every stretch, sorted by [`Stretch::order`].
    pub stretches: Vec<Stretch>,
    /// The counts.
    pub stats: SearchStats,
}

impl SearchPlan {
    /// Compiles `request` for every searched connection, one plan per message type; the
    /// error a search would start with when it fits none.
    pub fn new(
        catalog: &Catalog,
        request: &SearchRequest,
        registry: &Registry,
    ) -> Result<SearchPlan, SearchError> {
        Ok(SearchPlan {
            planned: plan(catalog, request, registry)?,
        })
    }

    /// True when the expression uses `diff()` or `rate()` for some searched topic.
    pub fn is_stateful(&self) -> bool {
        self.planned.stateful
    }

    /// Runs the search over `catalog` (the one planned for): calls `on_update` after each
    /// batch (return `false` to stop) and returns every match, in time order, with the
    /// counts.
    pub fn run(
        &self,
        catalog: &Catalog,
        cancel: &AtomicBool,
        on_update: impl FnMut(&SearchUpdate) -> bool,
    ) -> (Vec<Match>, SearchStats) {
        let found = self.run_all(catalog, cancel, on_update);
        (found.matches, found.stats)
    }

    /// [`SearchPlan::run`], giving the stretches too.
    pub fn run_all(
        &self,
        catalog: &Catalog,
        cancel: &AtomicBool,
        mut on_update: impl FnMut(&SearchUpdate) -> bool,
    ) -> Found {
        let planned = &self.planned;
        let plans = &planned.plans;
        let mut stats = SearchStats::default();
        let (usable, skipped) = usable_and_skipped(plans);
        stats.skipped = messages_in(catalog, &skipped);
        let mut found = Found::default();
        let mut order = InOrder::new();
        let mut runs = Runs::new(planned);
        read_batches(
            catalog,
            &usable,
            cancel,
            |bag, job| Some(read_chunk(bag, job, plans.get(job.bag)?, planned.stateful)),
            |batch| {
                for (g, s) in batch.results {
                    order.add(g);
                    stats.add(s);
                }
                let mut matches = Vec::new();
                let mut stretches = Vec::new();
                order.release(batch.next.map(time_ns), |r, numbers| {
                    runs.take(r, numbers, &mut matches, &mut stretches);
                });
                if batch.done {
                    runs.close_all(&mut stretches);
                }
                stretches.sort_by(Stretch::order);
                stats.matched += matches.len() as u64;
                stats.late = order.late();
                found.matches.extend_from_slice(&matches);
                found.stretches.extend_from_slice(&stretches);
                on_update(&SearchUpdate {
                    matches,
                    stretches,
                    fraction: batch.fraction,
                    stats,
                    done: batch.done,
                })
            },
        );
        if !found.matches.is_sorted() {
            found.matches.sort_unstable();
        }
        found.stretches.sort_by(Stretch::order);
        found.stats = stats;
        found
    }
}

/// The open stretch of each topic, and the memory of `diff` / `rate`, as the messages are
/// taken in receive-time order.
struct Runs<'p> {
    planned: &'p Planned,
    open: Vec<Option<Stretch>>,
    memories: Vec<Memory>,
}

impl<'p> Runs<'p> {
    fn new(planned: &'p Planned) -> Self {
        Runs {
            planned,
            open: vec![None; planned.topics.len()],
            memories: vec![Memory::new(); planned.topics.len()],
        }
    }

    /// Takes the next message of its topic: a match extends (or starts) the topic's
    /// stretch, anything else ends it.
    fn take(
        &mut self,
        r: &Record,
        numbers: &[f64],
        matches: &mut Vec<Match>,
        stretches: &mut Vec<Stretch>,
    ) {
        let s = r.stream as usize;
        let time = RosTime::from_nanos(u64::try_from(r.place.time_ns).unwrap_or(0));
        let conn = BagConn::new(r.place.bag as usize, r.conn);
        let holds = match r.outcome {
            Outcome::Yes => true,
            Outcome::No | Outcome::Lost => false,
            Outcome::Numbers { .. } => {
                let filter = self
                    .planned
                    .plans
                    .get(conn.bag)
                    .and_then(|p| p.get(&conn.conn))
                    .and_then(Option::as_ref)
                    .and_then(|p| p.decode.filter());
                match (filter, self.memories.get_mut(s)) {
                    (Some(f), Some(memory)) => f.finish(numbers, r.place.time_ns, memory),
                    _ => false,
                }
            }
        };
        let Some(open) = self.open.get_mut(s) else {
            return;
        };
        if holds {
            matches.push(Match { time, conn });
            match open {
                Some(run) => {
                    run.end = run.end.max(time);
                    run.count += 1;
                }
                None => {
                    *open = Some(Stretch {
                        start: time,
                        end: time,
                        count: 1,
                        conn,
                        topic: self
                            .planned
                            .topics
                            .get(s)
                            .cloned()
                            .unwrap_or_else(|| Arc::from("")),
                    });
                }
            }
        } else if let Some(run) = open.take() {
            stretches.push(run);
        }
    }

    /// Ends every open stretch (nothing is left to read).
    fn close_all(&mut self, stretches: &mut Vec<Stretch>) {
        stretches.extend(self.open.iter_mut().filter_map(Option::take));
    }
}

/// Plans and runs the search ([`SearchPlan`]): calls `on_update` after each batch (return
/// `false` to stop) and returns every match, in time order, with the counts.
pub fn search(
    catalog: &Catalog,
    request: &SearchRequest,
    registry: &Registry,
    cancel: &AtomicBool,
    on_update: impl FnMut(&SearchUpdate) -> bool,
) -> Result<(Vec<Match>, SearchStats), SearchError> {
    Ok(SearchPlan::new(catalog, request, registry)?.run(catalog, cancel, on_update))
}

/// Plans and runs the search ([`SearchPlan::run_all`]) to the end: every match and stretch.
pub fn find_all(
    catalog: &Catalog,
    request: &SearchRequest,
    registry: &Registry,
    cancel: &AtomicBool,
) -> Result<Found, SearchError> {
    Ok(SearchPlan::new(catalog, request, registry)?.run_all(catalog, cancel, |_| true))
}

/// Tests the searched messages of one chunk (or gathers their numbers, for a `stateful`
/// expression): one record per message, lost ones included (they end a stretch).
fn read_chunk(
    bag: &Bag,
    job: &ChunkJob,
    plans: &HashMap<ConnId, Option<ConnPlan>>,
    stateful: bool,
) -> (Gathered, SearchStats) {
    let mut stats = SearchStats::default();
    let mut g = Gathered::default();
    let entries = bag.chunk_entries(job.chunk);
    let bag_index = u32::try_from(job.bag).unwrap_or(u32::MAX);
    let place = |index: usize, time: RosTime| Place {
        time_ns: time_ns(time),
        bag: bag_index,
        chunk: job.chunk,
        index: u32::try_from(index).unwrap_or(u32::MAX),
    };
    let Ok((bytes, _permit)) = bag.chunk_bytes_held(job.chunk) else {
        stats.unreadable += job.messages;
        // Where they were is known from the index: each ends its topic's stretch.
        for (i, e) in entries.iter().enumerate() {
            if let Some(Some(plan)) = plans.get(&e.conn) {
                g.push(place(i, e.time), plan.stream, e.conn, Outcome::Lost);
            }
        }
        return (g, stats);
    };
    let wanted = |c: ConnId| matches!(plans.get(&c), Some(Some(_)));
    stats.unreadable += bag.unfound(job.chunk, wanted);
    for (i, entry) in entries.iter().enumerate() {
        let Some(Some(plan)) = plans.get(&entry.conn) else {
            continue;
        };
        let at = place(i, entry.time);
        let Ok(message) = bag.read_with(entry, &bytes) else {
            stats.unreadable += 1;
            g.push(at, plan.stream, entry.conn, Outcome::Lost);
            continue;
        };
        if stateful && let Some(filter) = plan.decode.filter() {
            if let Ok(d) = plan.decode.decode(&message.data) {
                stats.tested += 1;
                g.push_numbers(at, plan.stream, entry.conn);
                filter.gather(d.root(), &mut g.numbers);
                g.close_numbers();
            } else {
                stats.undecodable += 1;
                g.push(at, plan.stream, entry.conn, Outcome::Lost);
            }
            continue;
        }
        // One decode per message, through the connection's plan (shared per type).
        let outcome = match plan.decode.keep(&message.data) {
            Kept::Yes(_) => Outcome::Yes,
            Kept::No => Outcome::No,
            Kept::Undecodable(_) => {
                stats.undecodable += 1;
                Outcome::Lost
            }
        };
        if outcome != Outcome::Lost {
            stats.tested += 1;
        }
        g.push(at, plan.stream, entry.conn, outcome);
    }
    (g, stats)
}

#[cfg(test)]
#[path = "search_tests.rs"]
mod tests;
