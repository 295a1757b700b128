//! Many bags as one: a merged view of their topics and a single time-ordered message stream.
//!
//! Every command that takes `BAG...` and the terminal explorer go through a [`Catalog`], so one
//! bag and many bags behave the same.

mod bag_conn;
mod chunk_batches;
mod chunk_scan;
mod decode_plan;
pub mod export;
pub mod health;
pub mod index;
pub mod log;
pub mod log_record;
mod merge;
mod schemas;
pub mod search;
mod selected;
pub mod series;
mod series_order;
mod series_request;
#[cfg(test)]
mod tests;
pub mod time_index;
mod topics;
mod type_plans;
mod window;
pub mod window_bytes;

use std::path::{Path, PathBuf};

pub use bag_conn::BagConn;
pub use chunk_scan::BagChunk;
#[cfg(test)]
pub use decode_plan::decodes_on_this_thread;
pub use decode_plan::{DecodePlan, DecodePlans, Kept, Lost, PlanError};
pub use merge::{CatalogMessage, CatalogMessages};
pub use schemas::{SchemaEntry, Schemas, compile};
pub use topics::CatalogTopic;
pub use type_plans::{SchemaResult, TypePlans};
pub use window::{MsgRef, Window};

use crate::bag::{Bag, BagError, OpenOptions, Query};
use crate::time::RosTime;

/// Several open bags.
#[derive(Clone, Debug, Default)]
pub struct Catalog {
    bags: Vec<Bag>,
    /// The chunks by time, built on first use (shared by clones: the bags do not change).
    times: std::sync::Arc<std::sync::OnceLock<Vec<std::sync::Arc<time_index::BagTimes>>>>,
}

/// A selection over a catalog: topics by name (all when empty) and an inclusive time range.
#[derive(Clone, Debug, Default)]
pub struct Selection {
    /// Topic names; empty selects every topic.
    pub topics: Vec<String>,
    /// Earliest receive time.
    pub start: Option<RosTime>,
    /// Latest receive time.
    pub end: Option<RosTime>,
    /// Decompress ahead on worker threads.
    pub parallel: bool,
}

impl Catalog {
    /// A catalog of already opened bags.
    pub fn new(bags: Vec<Bag>) -> Self {
        Catalog {
            bags,
            times: std::sync::Arc::default(),
        }
    }

    /// Opens every path; bags that cannot be opened are returned as errors beside the catalog.
    pub fn open(paths: &[PathBuf], options: &OpenOptions) -> (Catalog, Vec<BagError>) {
        let mut bags = Vec::new();
        let mut errors = Vec::new();
        for input in paths {
            let dir = crate::bag::inputs::storage_files(input).filter(|f| !f.is_empty());
            let files = dir.clone().unwrap_or_else(|| vec![input.clone()]);
            let first = bags.len();
            for p in &files {
                match Bag::open_with(p, options.clone()) {
                    Ok(b) => bags.push(b),
                    Err(e) => errors.push(e),
                }
            }
            // A ROS 2 bag directory: what its metadata says that the storage contradicts.
            if let (Some(_), Some(opened)) = (&dir, bags.get(first..)) {
                if let Some(head) = opened.first() {
                    let lines = crate::bag::ros2::disagreements_of(input, opened);
                    head.add_warnings(lines.into_iter().map(crate::bag::Warning::general));
                }
            }
        }
        (Catalog::new(bags), errors)
    }

    /// The bags, in the order given.
    pub fn bags(&self) -> &[Bag] {
        &self.bags
    }

    /// One bag.
    pub fn bag(&self, index: usize) -> Option<&Bag> {
        self.bags.get(index)
    }

    /// True when the catalog holds no bag.
    pub fn is_empty(&self) -> bool {
        self.bags.is_empty()
    }

    /// Paths of the bags.
    pub fn paths(&self) -> Vec<&Path> {
        self.bags.iter().map(Bag::path).collect()
    }

    /// Earliest message time over all bags.
    pub fn start_time(&self) -> Option<RosTime> {
        self.bags.iter().filter_map(Bag::start_time).min()
    }

    /// Latest message time over all bags.
    pub fn end_time(&self) -> Option<RosTime> {
        self.bags.iter().filter_map(Bag::end_time).max()
    }

    /// Total messages.
    pub fn message_count(&self) -> u64 {
        self.bags.iter().map(Bag::message_count).sum()
    }

    /// The per-bag query for a selection (`None` when the bag has none of the topics).
    pub fn bag_query(&self, bag: usize, selection: &Selection) -> Option<Query> {
        let b = self.bags.get(bag)?;
        let query = if selection.topics.is_empty() {
            Query::all()
        } else {
            let conns: Vec<_> = b
                .connections()
                .iter()
                .filter(|c| selection.topics.iter().any(|t| topic_matches(t, &c.topic)))
                .map(|c| c.id)
                .collect();
            if conns.is_empty() {
                return None;
            }
            Query::all().connections(conns)
        };
        Some(
            query
                .time_range(selection.start, selection.end)
                .parallel(selection.parallel),
        )
    }

    /// Every selected message of every bag in receive-time order (ties: bag order).
    pub fn messages(&self, selection: &Selection) -> CatalogMessages {
        let streams = (0..self.bags.len())
            .filter_map(|i| {
                let q = self.bag_query(i, selection)?;
                Some((i, self.bags.get(i)?.messages(&q)))
            })
            .collect();
        CatalogMessages::new(self.clone(), streams)
    }
}

/// True when a topic given on the command line names `topic` (a missing leading `/` is
/// tolerated, as ROS tools canonicalise names).
pub fn topic_matches(given: &str, topic: &str) -> bool {
    given == topic || given.trim_start_matches('/') == topic.trim_start_matches('/')
}
