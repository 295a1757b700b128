//! Searching messages by content: the times of the messages of some topics for which an
//! expression ([`crate::msg::expr`]) holds, over every bag of a catalog.
//!
//! As for plot series ([`super::series`]), only the chunks that hold the searched connections
//! are read, decompressed and decoded on worker threads, in batches taken in time order
//! (`chunk_batches`); each
//! batch is delivered as a [`SearchUpdate`] with its matches (sorted), the progress and the
//! count so far, so marks appear while the rest is read. The work stops at the next batch when
//! cancelled (the flag, or the callback returning `false`).
//! Messages that cannot be read or decoded are counted, not fatal.

use std::collections::HashMap;
use std::sync::atomic::AtomicBool;

use crate::bag::{Bag, ConnId};
use crate::msg::Registry;
use crate::msg::expr::{Expr, ExprError};
use crate::time::RosTime;

use super::chunk_batches::{ChunkJob, messages_in, read_batches, usable_and_skipped};
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
}

impl SearchStats {
    fn add(&mut self, o: SearchStats) {
        self.tested += o.tested;
        self.matched += o.matched;
        self.unreadable += o.unreadable;
        self.undecodable += o.undecodable;
        self.skipped += o.skipped;
    }
}

/// One step of a search.
#[derive(Debug, Clone)]
pub struct SearchUpdate {
    /// The matches found in this batch, in time order.
    pub matches: Vec<Match>,
    /// Fraction of the searched messages read so far, 0..=1.
    pub fraction: f64,
    /// Counts so far.
    pub stats: SearchStats,
    /// True on the last update.
    pub done: bool,
}

/// Per bag: the searched connections and their plan (`None`: the expression does not fit).
type Plans = Vec<HashMap<ConnId, Option<DecodePlan>>>;

/// Compiles the request for every searched connection (once per message type): an error
/// when it fits none.
fn plan(
    catalog: &Catalog,
    request: &SearchRequest,
    registry: &Registry,
) -> Result<Plans, SearchError> {
    let mut plans = Vec::new();
    let mut first_error = None;
    let mut usable = 0usize;
    let mut types = TypePlans::new(&request.expr, registry);
    for bag in catalog.bags() {
        let mut conns = HashMap::new();
        for c in bag.connections().iter().filter(|c| {
            request.topics.is_empty() || request.topics.iter().any(|t| topic_matches(t, &c.topic))
        }) {
            let plan = match types.plan(c) {
                Ok(Some((schema, filter))) => Some(DecodePlan::new(schema, Some(filter))),
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
    Ok(plans)
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
    plans: Plans,
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
            plans: plan(catalog, request, registry)?,
        })
    }

    /// Runs the search over `catalog` (the one planned for): calls `on_update` after each
    /// batch (return `false` to stop) and returns every match, in time order, with the
    /// counts.
    pub fn run(
        &self,
        catalog: &Catalog,
        cancel: &AtomicBool,
        mut on_update: impl FnMut(&SearchUpdate) -> bool,
    ) -> (Vec<Match>, SearchStats) {
        let plans = &self.plans;
        let mut stats = SearchStats::default();
        let (usable, skipped) = usable_and_skipped(plans);
        stats.skipped = messages_in(catalog, &skipped);
        let mut all = Vec::new();
        read_batches(
            catalog,
            &usable,
            cancel,
            |bag, job| Some(read_chunk(bag, job, plans.get(job.bag)?)),
            |batch| {
                let mut matches = Vec::new();
                for (m, s) in batch.results {
                    matches.extend(m);
                    stats.add(s);
                }
                matches.sort_unstable();
                all.extend_from_slice(&matches);
                on_update(&SearchUpdate {
                    matches,
                    fraction: batch.fraction,
                    stats,
                    done: batch.done,
                })
            },
        );
        // Batches are in chunk start order; chunks may overlap in time.
        if !all.is_sorted() {
            all.sort_unstable();
        }
        (all, stats)
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

/// Tests the searched messages of one chunk.
fn read_chunk(
    bag: &Bag,
    job: &ChunkJob,
    plans: &HashMap<ConnId, Option<DecodePlan>>,
) -> (Vec<Match>, SearchStats) {
    let mut stats = SearchStats::default();
    let mut matches = Vec::new();
    let Ok((bytes, _permit)) = bag.chunk_bytes_held(job.chunk) else {
        stats.unreadable += job.messages;
        return (matches, stats);
    };
    let wanted = |c: ConnId| matches!(plans.get(&c), Some(Some(_)));
    stats.unreadable += bag.unfound(job.chunk, wanted);
    let key_bag = job.bag;
    for entry in bag.chunk_entries(job.chunk).iter() {
        let Some(Some(plan)) = plans.get(&entry.conn) else {
            continue;
        };
        let Ok(message) = bag.read_with(entry, &bytes) else {
            stats.unreadable += 1;
            continue;
        };
        // One decode per message, through the connection's plan (shared per type).
        match plan.keep(&message.data) {
            Kept::Yes(_) => {
                stats.tested += 1;
                stats.matched += 1;
                matches.push(Match {
                    time: entry.time,
                    conn: BagConn::new(key_bag, entry.conn),
                });
            }
            Kept::No => stats.tested += 1,
            Kept::Undecodable(_) => stats.undecodable += 1,
        }
    }
    (matches, stats)
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::bag::{OpenOptions, Query};
    use crate::catalog::compile;
    use std::sync::Arc;

    fn catalog(name: &str) -> Catalog {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures")
            .join(name);
        let (c, errors) = Catalog::open(&[path], &OpenOptions::default());
        assert!(errors.is_empty(), "{errors:?}");
        c
    }

    fn request(topics: &[&str], text: &str) -> SearchRequest {
        SearchRequest {
            topics: topics.iter().map(|t| (*t).to_string()).collect(),
            expr: Expr::parse(text).unwrap(),
        }
    }

    /// The matches found one message at a time, in reading order.
    /// A whole search, nothing cancelled, every update taken.
    fn run(c: &Catalog, r: &SearchRequest) -> (Vec<Match>, SearchStats) {
        search(c, r, &Registry::bundled(), &AtomicBool::new(false), |_| {
            true
        })
        .unwrap()
    }

    fn one_by_one(c: &Catalog, r: &SearchRequest) -> Vec<Match> {
        let registry = Registry::bundled();
        let mut out = Vec::new();
        for (i, bag) in c.bags().iter().enumerate() {
            for m in bag.messages(&Query::all()) {
                let m = m.unwrap();
                let conn = bag.connection(m.entry.conn).unwrap();
                if !(r.topics.is_empty() || r.topics.iter().any(|t| topic_matches(t, &conn.topic)))
                {
                    continue;
                }
                let schema = compile(conn, &registry).schema.unwrap();
                let Ok(filter) = r.expr.compile(schema.root(), &conn.topic) else {
                    continue;
                };
                if filter.matches_payload(&schema, &m.data).unwrap() {
                    out.push(Match {
                        time: m.entry.time,
                        conn: BagConn::new(i, m.entry.conn),
                    });
                }
            }
        }
        out.sort_unstable();
        out
    }

    #[test]
    fn finds_what_a_message_by_message_test_finds() {
        for bag in ["recorded.bag", "recorded_lz4.bag", "recorded_bz2.bag"] {
            let c = catalog(bag);
            for (topics, text) in [
                (&["/chatter"][..], "data ~ \"1\""),
                (&[][..], "\"o\""),
                (&[][..], "header.frame_id == \"odom\" or level >= INFO"),
                (&["/imu"][..], "abs(angular_velocity.z) > 0.01"),
            ] {
                let r = request(topics, text);
                let mut updates = Vec::new();
                let (all, stats) =
                    search(&c, &r, &Registry::bundled(), &AtomicBool::new(false), |u| {
                        updates.push(u.clone());
                        true
                    })
                    .unwrap();
                assert_eq!(all, one_by_one(&c, &r), "{bag} {text}");
                assert_eq!(stats.matched, all.len() as u64);
                let last = updates.last().unwrap();
                assert!(last.done && (last.fraction - 1.0).abs() < 1e-9);
                let streamed: usize = updates.iter().map(|u| u.matches.len()).sum();
                assert_eq!(streamed, all.len());
                assert!(updates.iter().all(|u| u.matches.is_sorted()));
            }
        }
    }

    #[test]
    fn an_expression_that_fits_no_topic_is_an_error_and_others_are_skipped() {
        let c = catalog("recorded.bag");
        let r = request(&["/chatter"], "nothing == 1");
        let e = validate(&c, &r, &Registry::bundled()).unwrap_err();
        assert!(
            e.to_string()
                .contains("has no field 'nothing'; its fields are: data"),
            "{e}"
        );
        let r = request(&[], "data ~ \"x\"");
        let (_, stats) = run(&c, &r);
        assert_eq!(stats.tested, 37);
        assert_eq!(stats.skipped, 159 - 37);
    }

    #[test]
    fn one_regex_and_one_filter_for_many_topics_of_one_type() {
        use crate::bag::writer::{BagWriter, WriterOptions};
        use crate::format::{Compression, ConnectionHeader};
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("many.bag");
        let mut w = BagWriter::create(
            &path,
            WriterOptions {
                compression: Compression::None,
                chunk_size: 4096,
            },
        )
        .unwrap();
        for i in 0..300 {
            let topic = format!("/t{i}");
            let header = ConnectionHeader::build(
                &topic,
                "std_msgs/String",
                "992ce8a1687cec8c8bd883ec73ca41d1",
                "string data\n",
                None,
                None,
            );
            let c = w.add_connection(&topic, &header).unwrap();
            let text = if i % 100 == 7 {
                "a_word_of_twenty_one_"
            } else {
                "short"
            };
            let mut payload = u32::try_from(text.len()).unwrap().to_le_bytes().to_vec();
            payload.extend(text.as_bytes());
            w.write(c, RosTime::new(1_700_000_000, i), &payload)
                .unwrap();
        }
        w.finish().unwrap();
        let (c, errors) = Catalog::open(&[path], &OpenOptions::default());
        assert!(errors.is_empty(), "{errors:?}");
        let r = request(&[], r#"data =~ "\w{20}""#);
        let plans = plan(&c, &r, &Registry::bundled()).unwrap();
        let all: Vec<&DecodePlan> = plans[0].values().map(|p| p.as_ref().unwrap()).collect();
        assert_eq!(all.len(), 300);
        assert!(all.iter().all(
            |p| Arc::ptr_eq(p.filter().unwrap(), all[0].filter().unwrap())
                && Arc::ptr_eq(p.schema(), all[0].schema())
        ));
        assert_eq!(r.expr.regexes_compiled(), 1);
        let (found, stats) = run(&c, &r);
        assert_eq!((found.len(), stats.tested), (3, 300));
    }
}
