//! What the rest of the program asks of a bag's chunk list again and again — its message
//! count, first and last times, and each connection's time span — computed once when the bag
//! is assembled, so the questions cost O(1) (O(connections) for the spans) instead of a pass
//! over every chunk. A followed recording's snapshots are assembled on the follow thread:
//! the UI thread that swaps them in then never walks the chunk list for these.

use crate::time::RosTime;

use super::chunk::Chunk;
use super::connection::{ConnId, Connection};

/// Totals over a bag's chunks.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Totals {
    /// Messages in all chunks.
    pub messages: u64,
    /// Earliest start of a chunk holding messages.
    pub start: Option<RosTime>,
    /// Latest end of a chunk holding messages.
    pub end: Option<RosTime>,
    /// Per connection (by dense id): the earliest start and latest end of the chunks
    /// holding its messages.
    pub spans: Vec<Option<(RosTime, RosTime)>>,
}

impl Totals {
    /// One pass over `chunks`, for a bag of `connections` connections.
    pub fn of(chunks: &[Chunk], connections: usize) -> Totals {
        let mut t = Totals {
            spans: vec![None; connections],
            ..Totals::default()
        };
        t.add(chunks);
        t
    }

    /// Adds `chunks` to the totals (a connection beyond [`Totals::spans`] is counted, not
    /// spanned: see [`Totals::widen_to`]). A followed recording adds the chunks closed since
    /// its last snapshot instead of passing over all of them again.
    pub fn add(&mut self, chunks: &[Chunk]) {
        for c in chunks {
            self.add_chunk(c, |_, _| {});
        }
    }

    /// Adds chunk `c`, handing each of its `(connection, messages)` counts to `each`.
    fn add_chunk(&mut self, c: &Chunk, mut each: impl FnMut(ConnId, u32)) {
        let mut any = false;
        for &(conn, n) in c.counts.iter().filter(|&&(_, n)| n > 0) {
            any = true;
            each(conn, n);
            self.messages += u64::from(n);
            if let Some(span) = self.spans.get_mut(conn as usize) {
                *span = Some(widen(*span, (c.start, c.end)));
            }
        }
        if any {
            self.widen_time(c.start, c.end);
        }
    }

    /// Widens the bag's time span to `start..end`.
    fn widen_time(&mut self, start: RosTime, end: RosTime) {
        self.start = Some(self.start.map_or(start, |s| s.min(start)));
        self.end = Some(self.end.map_or(end, |e| e.max(end)));
    }

    /// Adds the totals of other chunks of the same bag (a pass split across threads).
    fn merge(&mut self, other: &Totals) {
        self.messages += other.messages;
        if let (Some(start), Some(end)) = (other.start, other.end) {
            self.widen_time(start, end);
        }
        for (mine, theirs) in self.spans.iter_mut().zip(&other.spans) {
            if let Some(theirs) = *theirs {
                *mine = Some(widen(*mine, theirs));
            }
        }
    }

    /// Makes room for the spans of `connections` connections (new ones span nothing yet).
    pub fn widen_to(&mut self, connections: usize) {
        if self.spans.len() < connections {
            self.spans.resize(connections, None);
        }
    }
}

/// Sets each connection's `message_count` to its messages over `chunks` (by dense id) and
/// returns the totals of `chunks`: one pass for both.
pub(super) fn count_and_total(connections: &mut [Connection], chunks: &[Chunk]) -> Totals {
    let mut tally = Tally::new(connections);
    for c in chunks {
        tally.add(c);
    }
    tally.set_message_counts(connections);
    tally.totals
}

/// The totals of some of a bag's chunks and each connection's messages in them, summed in one
/// pass; the tallies of the parts of a pass split across threads add up with
/// [`Tally::merge`].
#[derive(Clone, Debug, Default)]
pub(super) struct Tally {
    /// The totals (spans for the bag's connections).
    pub totals: Totals,
    /// Messages per connection, by dense id.
    messages: Vec<u64>,
}

impl Tally {
    /// Nothing counted yet, for a bag of `connections`.
    pub fn new(connections: &[Connection]) -> Tally {
        let ids = connections
            .iter()
            .map(|c| c.id as usize + 1)
            .max()
            .unwrap_or(0);
        Tally {
            totals: Totals {
                spans: vec![None; connections.len()],
                ..Totals::default()
            },
            messages: vec![0; ids],
        }
    }

    /// Adds chunk `c`.
    pub fn add(&mut self, c: &Chunk) {
        let messages = &mut self.messages;
        self.totals.add_chunk(c, |conn, n| count(messages, conn, n));
    }

    /// Adds the tally of other chunks of the same bag.
    pub fn merge(&mut self, other: &Tally) {
        self.totals.merge(&other.totals);
        for (mine, theirs) in self.messages.iter_mut().zip(&other.messages) {
            *mine += theirs;
        }
    }

    /// Sets each connection's `message_count` to its messages counted.
    pub fn set_message_counts(&self, connections: &mut [Connection]) {
        for c in connections {
            c.message_count = self.messages.get(c.id as usize).copied().unwrap_or(0);
        }
    }
}

/// Adds `n` messages to connection `conn`'s count in `messages` (by dense id).
fn count(messages: &mut [u64], conn: ConnId, n: u32) {
    if let Some(total) = messages.get_mut(conn as usize) {
        *total += u64::from(n);
    }
}

fn widen(span: Option<(RosTime, RosTime)>, (a, b): (RosTime, RosTime)) -> (RosTime, RosTime) {
    span.map_or((a, b), |(lo, hi)| (lo.min(a), hi.max(b)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bag::Bag;

    /// The totals equal the passes over the chunks they replace, on indexed, recovered and
    /// crashed recordings (every `.bag` and `.bag.active` fixture).
    #[test]
    fn totals_equal_a_pass_over_the_chunks() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
        let mut seen = 0;
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.to_string_lossy();
            if !(name.ends_with(".bag") || name.ends_with(".bag.active")) {
                continue;
            }
            let Ok(bag) = Bag::open(&path) else { continue };
            seen += 1;
            let full: Vec<&Chunk> = bag
                .chunks()
                .iter()
                .filter(|c| c.message_count() > 0)
                .collect();
            let messages: u64 = bag.chunks().iter().map(Chunk::message_count).sum();
            assert_eq!(bag.message_count(), messages, "{name}");
            assert_eq!(
                bag.start_time(),
                full.iter().map(|c| c.start).min(),
                "{name}"
            );
            assert_eq!(bag.end_time(), full.iter().map(|c| c.end).max(), "{name}");
            for c in bag.connections() {
                let holding = full.iter().filter(|ch| ch.count_for(c.id) > 0);
                let lo = holding.clone().map(|ch| ch.start).min();
                let hi = holding.map(|ch| ch.end).max();
                assert_eq!(bag.connection_span(c.id), lo.zip(hi), "{name} {}", c.topic);
            }
        }
        assert!(seen >= 5, "{seen} fixtures");
    }
}
