//! Bytes of each topic's message records inside a time window: exact where the chunk's index
//! entries are in memory (a record's size is the distance to the next record, as the health
//! scan measures it), estimated elsewhere from chunk infos (the topic's count in the chunk,
//! times the part of the chunk's time range inside the window, times the chunk's mean record
//! size). The messages of each topic in the window are counted the same way (exact for a chunk
//! wholly inside the window too). Nothing is read from the file: cheap enough for the UI
//! thread.

use std::collections::HashMap;

use crate::bag::{ChunkLayout, ConnId, IndexEntry};
use crate::catalog::Catalog;
use crate::time::RosTime;

/// Entries looked at before falling back to estimates (bounds the work on huge bags).
pub const EXACT_BUDGET: usize = 200_000;

/// Bytes per topic inside a window.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WindowBytes {
    /// The window (both ends included).
    pub window: (RosTime, RosTime),
    /// Bytes of message records per topic (topics without any are absent).
    pub bytes: HashMap<String, f64>,
    /// True when every chunk overlapping the window was counted from its index entries.
    pub exact: bool,
    /// Messages per topic inside the window (estimates are fractional).
    pub messages: HashMap<String, f64>,
    /// True when `messages` is exact: every chunk overlapping the window lies wholly inside
    /// it or was counted from its index entries.
    pub messages_exact: bool,
}

impl WindowBytes {
    /// Bytes per second of `topic` over the window.
    pub fn rate(&self, topic: &str) -> f64 {
        let seconds = self.window.1.nanos_since(self.window.0) as f64 / 1e9;
        let bytes = self.bytes.get(topic).copied().unwrap_or(0.0);
        if seconds > 0.0 { bytes / seconds } else { 0.0 }
    }
}

/// Counts the bytes of every topic's messages in `window` (exact for chunks whose entries are
/// loaded, while `budget` entries last). O(chunks + entries looked at), no allocation per
/// chunk or entry: topics are summed by number and named once at the end.
pub fn compute(catalog: &Catalog, window: (RosTime, RosTime), mut budget: usize) -> WindowBytes {
    let (w0, w1) = window;
    // Each (bag, connection) to the number of its topic.
    let mut names: Vec<&str> = Vec::new();
    let mut number: HashMap<&str, usize> = HashMap::new();
    let mut topic_of: HashMap<(usize, ConnId), usize> = HashMap::new();
    for (b, bag) in catalog.bags().iter().enumerate() {
        for k in bag.connections() {
            let t = *number.entry(k.topic.as_str()).or_insert_with(|| {
                names.push(&k.topic);
                names.len() - 1
            });
            topic_of.insert((b, k.id), t);
        }
    }
    let mut sums = vec![0.0f64; names.len()];
    let mut counts = vec![0.0f64; names.len()];
    let mut add = |bag: usize, conn: ConnId, bytes: f64, messages: f64| {
        if let Some(&t) = topic_of.get(&(bag, conn)) {
            if let Some(s) = sums.get_mut(t) {
                *s += bytes;
            }
            if let Some(n) = counts.get_mut(t) {
                *n += messages;
            }
        }
    };
    let mut exact = true;
    let mut messages_exact = true;
    let mut entries: Vec<IndexEntry> = Vec::new();
    for c in catalog.chunks() {
        let chunk = c.chunk;
        if chunk.end < w0 || chunk.start > w1 || chunk.message_count() == 0 {
            continue;
        }
        if let Some(loaded) = c
            .source
            .loaded_entries(chunk.index)
            .filter(|e| e.len() <= budget)
        {
            budget -= loaded.len();
            entries.clear();
            entries.extend_from_slice(&loaded);
            entries.sort_unstable_by_key(|e| e.offset);
            let end_of_data = if chunk.layout == ChunkLayout::V2 {
                // Known: loading the entries read it (else nothing is counted past the last).
                c.source
                    .chunk_head(chunk.index)
                    .map_or(0, |h| h.uncompressed_size)
            } else {
                c.source.size()
            };
            for (i, e) in entries.iter().enumerate() {
                if e.time < w0 || e.time > w1 {
                    continue;
                }
                let next = entries.get(i + 1).map_or(end_of_data, |n| n.offset);
                add(c.bag, e.conn, next.saturating_sub(e.offset) as f64, 1.0);
            }
            continue;
        }
        exact = false;
        let whole = chunk.start >= w0 && chunk.end <= w1;
        messages_exact &= whole;
        // The part of the chunk's time range inside the window (all of it for an instant).
        let span = chunk.end.nanos_since(chunk.start) as f64;
        let inside = if span <= 0.0 || whole {
            1.0
        } else {
            let lo = chunk.start.max(w0);
            let hi = chunk.end.min(w1);
            hi.nanos_since(lo) as f64 / span
        };
        // A chunk whose header is not read yet (a bag of many chunks, just opened): the
        // bag's mean bytes per message, until it is.
        let mean = if let Some(h) = c.source.chunk_head(chunk.index) {
            h.uncompressed_size as f64 / chunk.message_count() as f64
        } else {
            let n: u64 = c.source.connections().iter().map(|k| k.message_count).sum();
            c.source.size() as f64 / n.max(1) as f64
        };
        for &(conn, n) in &chunk.counts {
            add(
                c.bag,
                conn,
                f64::from(n) * inside * mean,
                f64::from(n) * inside,
            );
        }
    }
    let named = |values: &[f64]| -> HashMap<String, f64> {
        names
            .iter()
            .zip(values)
            .filter(|(_, v)| **v > 0.0)
            .map(|(n, v)| ((*n).to_string(), *v))
            .collect()
    };
    WindowBytes {
        window,
        bytes: named(&sums),
        exact,
        messages: named(&counts),
        messages_exact,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One chunk: `/a` each second from 1 s to 40 s, `/b` at 1.5 s, 4.5 s, 8.5 s, … 40.5 s. Each
    /// record (a `std_msgs/String` "ok") is 4 + 38 (op, conn, time fields) + 4 + 6 = 52 bytes.
    fn catalog(dir: &std::path::Path) -> Catalog {
        let mut msgs = Vec::new();
        for i in 1..=40u32 {
            msgs.push(("/a", i, 0));
            if i == 1 || i % 4 == 0 {
                msgs.push(("/b", i, 500_000_000));
            }
        }
        Catalog::new(vec![super::super::tests::write_bag(
            dir,
            "w.bag",
            &msgs,
            1 << 20,
        )])
    }

    #[test]
    fn exact_bytes_in_a_window_match_a_hand_count() {
        let dir = tempfile::tempdir().unwrap();
        let cat = catalog(dir.path());
        for c in cat.chunks() {
            let _ = c.source.chunk_entries(c.chunk.index);
        }
        let window = (RosTime::new(10, 0), RosTime::new(20, 0));
        let w = compute(&cat, window, EXACT_BUDGET);
        assert!(w.exact);
        // /a at 10…20 s: 11 records; /b at 12.5 and 16.5 s: 2 records.
        assert_eq!(w.bytes.get("/a").copied(), Some(11.0 * 52.0));
        assert_eq!(w.bytes.get("/b").copied(), Some(2.0 * 52.0));
        assert!((w.rate("/a") - 57.2).abs() < 1e-9);
        assert!((w.rate("/b") - 10.4).abs() < 1e-9);
        assert!((w.rate("/c")).abs() < 1e-9, "an absent topic has none");
        assert!(w.messages_exact);
        assert_eq!(w.messages.get("/a").copied(), Some(11.0));
        assert_eq!(w.messages.get("/b").copied(), Some(2.0));
    }

    #[test]
    fn messages_are_exact_for_a_chunk_wholly_inside_and_estimated_across_an_edge() {
        let dir = tempfile::tempdir().unwrap();
        let cat = catalog(dir.path());
        // No entries loaded: the chunk (1 s … 40.5 s) is wholly inside.
        let whole = compute(
            &cat,
            (RosTime::new(0, 0), RosTime::new(50, 0)),
            EXACT_BUDGET,
        );
        assert!(!whole.exact, "bytes are estimates");
        assert!(whole.messages_exact);
        assert_eq!(whole.messages.get("/a").copied(), Some(40.0));
        assert_eq!(whole.messages.get("/b").copied(), Some(11.0));
        // Across the chunk's edge: an estimate, and said to be one.
        let part = compute(
            &cat,
            (RosTime::new(1, 0), RosTime::new(10, 875_000_000)),
            EXACT_BUDGET,
        );
        assert!(!part.messages_exact);
        assert_eq!(part.messages.get("/a").copied(), Some(10.0));
    }

    #[test]
    fn without_index_entries_the_chunk_is_spread_and_marked_estimated() {
        let dir = tempfile::tempdir().unwrap();
        let cat = catalog(dir.path());
        let chunk_bytes: u64 = cat
            .chunks()
            .map(|c| c.source.head(c.chunk.index).unwrap().uncompressed_size)
            .sum();
        let whole = compute(
            &cat,
            (RosTime::new(0, 0), RosTime::new(50, 0)),
            EXACT_BUDGET,
        );
        assert!(!whole.exact);
        let sum: f64 = whole.bytes.values().sum();
        assert!(
            (sum - chunk_bytes as f64).abs() < 1e-6,
            "a chunk wholly inside counts all its bytes: {sum} vs {chunk_bytes}"
        );
        // A quarter of the chunk's time range (1 s … 40.5 s) holds a quarter of it.
        let part = compute(
            &cat,
            (RosTime::new(1, 0), RosTime::new(10, 875_000_000)),
            EXACT_BUDGET,
        );
        let sum: f64 = part.bytes.values().sum();
        assert!((sum - chunk_bytes as f64 / 4.0).abs() < 1e-6, "{sum}");
        // No budget: estimates even where entries are loaded.
        for c in cat.chunks() {
            let _ = c.source.chunk_entries(c.chunk.index);
        }
        assert!(!compute(&cat, whole.window, 0).exact);
        assert!(compute(&cat, whole.window, EXACT_BUDGET).exact);
    }
}
