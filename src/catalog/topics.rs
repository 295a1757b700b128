//! The topics of a catalog, merged across bags.

use std::collections::BTreeMap;

use crate::time::RosTime;

use super::{BagConn, Catalog};

/// One topic over all bags.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CatalogTopic {
    /// Topic name.
    pub topic: String,
    /// Type of the first connection.
    pub datatype: String,
    /// md5sum of the first connection.
    pub md5sum: String,
    /// The connections carrying the topic.
    pub connections: Vec<BagConn>,
    /// Messages over all bags.
    pub message_count: u64,
    /// True when the connections disagree on type or md5sum.
    pub conflicting_types: bool,
    /// Bags (indices) that hold the topic.
    pub bags: Vec<usize>,
}

impl Catalog {
    /// Topics sorted by name, merged across bags.
    pub fn topics(&self) -> Vec<CatalogTopic> {
        let mut map: BTreeMap<String, CatalogTopic> = BTreeMap::new();
        for (bi, bag) in self.bags().iter().enumerate() {
            for c in bag.connections() {
                let t = map.entry(c.topic.clone()).or_insert_with(|| CatalogTopic {
                    topic: c.topic.clone(),
                    datatype: c.datatype.clone(),
                    md5sum: c.md5sum.clone(),
                    connections: Vec::new(),
                    message_count: 0,
                    conflicting_types: false,
                    bags: Vec::new(),
                });
                if t.datatype != c.datatype || t.md5sum != c.md5sum {
                    t.conflicting_types = true;
                }
                t.connections.push(BagConn::new(bi, c.id));
                t.message_count += c.message_count;
                if !t.bags.contains(&bi) {
                    t.bags.push(bi);
                }
            }
        }
        map.into_values().collect()
    }
}

impl Catalog {
    /// For each topic of `topics` (as [`Catalog::topics`] returns them), the time range
    /// covered by the chunks holding its messages, from chunk infos alone. Each bag keeps its
    /// connections' spans (computed when it is opened): proportional to the number of
    /// connections, whatever the number of chunks.
    pub fn topic_spans(&self, topics: &[CatalogTopic]) -> Vec<Option<(RosTime, RosTime)>> {
        topics
            .iter()
            .map(|t| {
                t.connections
                    .iter()
                    .filter_map(|k| self.bag(k.bag)?.connection_span(k.conn))
                    .reduce(|(lo, hi), (a, b)| (lo.min(a), hi.max(b)))
            })
            .collect()
    }
}
