//! Summaries computed from the index alone: topics and compression statistics.

use std::collections::BTreeMap;

use crate::format::Compression;

use super::compression_stats::CompressionStats;
use super::connection::ConnId;
use super::handle::Bag;

/// One topic and the connections that carry it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TopicSummary {
    /// Topic name.
    pub topic: String,
    /// Connections on this topic, in file order.
    pub connections: Vec<ConnId>,
    /// Type of the first connection (what `rosbag info` shows).
    pub datatype: String,
    /// True when the connections disagree on type or md5sum.
    pub conflicting_types: bool,
    /// Messages on all its connections.
    pub message_count: u64,
}

impl Bag {
    /// Topics sorted by name.
    pub fn topics(&self) -> Vec<TopicSummary> {
        let mut by_topic: BTreeMap<&str, Vec<ConnId>> = BTreeMap::new();
        for c in self.connections() {
            by_topic.entry(c.topic.as_str()).or_default().push(c.id);
        }
        by_topic
            .into_iter()
            .map(|(topic, connections)| {
                let conns: Vec<_> = connections
                    .iter()
                    .filter_map(|&id| self.connection(id))
                    .collect();
                let first = conns.first();
                TopicSummary {
                    topic: topic.to_string(),
                    datatype: first.map(|c| c.datatype.clone()).unwrap_or_default(),
                    conflicting_types: conns.iter().any(|c| {
                        first.is_some_and(|f| f.datatype != c.datatype || f.md5sum != c.md5sum)
                    }),
                    message_count: conns.iter().map(|c| c.message_count).sum(),
                    connections,
                }
            })
            .collect()
    }

    /// Compression statistics over the chunk records (empty for layouts without chunks).
    /// Reads the chunk record headers not read yet ([`Bag::read_heads`]); chunks whose
    /// header is bad (see [`Bag::warnings`]) are left out. Statistics given with
    /// [`Bag::know_compression_stats`] are returned instead, without reading.
    pub fn compression_stats(&self) -> Vec<CompressionStats> {
        if let Some(known) = self.inner.known_stats.get() {
            return known.clone();
        }
        self.read_heads();
        let mut map: BTreeMap<Compression, CompressionStats> = BTreeMap::new();
        let records = self.chunks().iter().filter(|c| c.is_record());
        for c in records.filter_map(|c| self.chunk_head(c.index)) {
            let s = map.entry(c.compression).or_insert(CompressionStats {
                compression: c.compression,
                chunks: 0,
                compressed: 0,
                uncompressed: 0,
            });
            s.chunks += 1;
            s.compressed += c.compressed_size;
            s.uncompressed += c.uncompressed_size;
        }
        let stats: Vec<CompressionStats> = map.into_values().collect();
        if self.pending_heads() == 0 {
            // Every header is read: the answer cannot change any more.
            let _ = self.inner.known_stats.set(stats.clone());
        }
        stats
    }

    /// Takes `stats` as this bag's compression statistics from now on (remembered from an
    /// earlier read of the same, unchanged file: [`super::stats_cache`]), so that
    /// [`Bag::compression_stats`] reads no chunk record header. Only the first call counts.
    pub fn know_compression_stats(&self, stats: Vec<CompressionStats>) {
        let _ = self.inner.known_stats.set(stats);
    }
}

impl Bag {
    /// The receive times of the messages on `connections`, sorted. Reads only index data.
    pub fn receive_times(&self, connections: &[ConnId]) -> Vec<crate::time::RosTime> {
        let mut times = Vec::new();
        for chunk in self.chunks() {
            if !chunk
                .counts
                .iter()
                .any(|(c, n)| *n > 0 && connections.contains(c))
            {
                continue;
            }
            times.extend(
                self.chunk_entries(chunk.index)
                    .iter()
                    .filter(|e| connections.contains(&e.conn))
                    .map(|e| e.time),
            );
        }
        times.sort_unstable();
        times
    }

    /// The receive times of the messages of each group of connections, sorted: `group_of`
    /// gives each connection's group (by [`ConnId`]; `None`, or no item, for connections
    /// not asked for), and the result has `groups` lists. One pass over the chunks' message
    /// lists, whatever the number of groups (`info --freq` on a bag of 300 000 topics asks
    /// for them all). Reads only index data.
    pub fn receive_times_grouped(
        &self,
        group_of: &[Option<usize>],
        groups: usize,
    ) -> Vec<Vec<crate::time::RosTime>> {
        let mut times: Vec<Vec<crate::time::RosTime>> = vec![Vec::new(); groups];
        let group = |c: ConnId| group_of.get(c as usize).copied().flatten();
        for chunk in self.chunks() {
            if !chunk
                .counts
                .iter()
                .any(|&(c, n)| n > 0 && group(c).is_some())
            {
                continue;
            }
            for e in self.chunk_entries(chunk.index).iter() {
                if let Some(list) = group(e.conn).and_then(|g| times.get_mut(g)) {
                    list.push(e.time);
                }
            }
        }
        for list in &mut times {
            list.sort_unstable();
        }
        times
    }
}
