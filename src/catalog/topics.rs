//! The topics of a catalog, merged across bags.

use std::collections::{BTreeMap, HashMap};

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
    /// covered by the chunks holding its messages, from chunk infos alone. One pass over every
    /// chunk's per-connection counts: proportional to the size of the index, whatever the
    /// number of topics.
    pub fn topic_spans(&self, topics: &[CatalogTopic]) -> Vec<Option<(RosTime, RosTime)>> {
        let mut owner: HashMap<BagConn, usize> = HashMap::new();
        for (ti, t) in topics.iter().enumerate() {
            for &key in &t.connections {
                owner.insert(key, ti);
            }
        }
        let mut spans: Vec<Option<(RosTime, RosTime)>> = vec![None; topics.len()];
        for c in self.chunks() {
            for (key, _) in c.counts() {
                let Some(span) = owner.get(&key).and_then(|&ti| spans.get_mut(ti)) else {
                    continue;
                };
                let (start, end) = (c.chunk.start, c.chunk.end);
                *span = Some(match *span {
                    None => (start, end),
                    Some((lo, hi)) => (lo.min(start), hi.max(end)),
                });
            }
        }
        spans
    }
}
