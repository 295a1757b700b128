//! Message windows: the messages of some connections around a time, complete between two
//! bounds, found by reading the index data of the chunks needed only (the whole catalog is
//! never loaded). The explorer's message list is built from these.

use crate::bag::IndexEntry;
use crate::time::RosTime;

use super::{BagConn, Catalog};

/// A message in a catalog: its bag and index entry. Ordered by time, then bag, then position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MsgRef {
    /// Bag index in the catalog.
    pub bag: usize,
    /// Entry in that bag.
    pub entry: IndexEntry,
}

impl MsgRef {
    /// The message's connection.
    pub fn key(&self) -> BagConn {
        BagConn::new(self.bag, self.entry.conn)
    }
}

impl PartialOrd for MsgRef {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for MsgRef {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (
            self.entry.time,
            self.bag,
            self.entry.conn,
            self.entry.chunk,
            self.entry.offset,
        )
            .cmp(&(
                other.entry.time,
                other.bag,
                other.entry.conn,
                other.entry.chunk,
                other.entry.offset,
            ))
    }
}

/// A slice of some connections' messages that is complete between `from` and `to`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Window {
    /// Entries, sorted.
    pub entries: Vec<MsgRef>,
    /// Every message of the connections with a time in `[from, to]` is in `entries`.
    pub from: RosTime,
    /// See `from`.
    pub to: RosTime,
    /// Nothing exists before `from`.
    pub at_start: bool,
    /// Nothing exists after `to`.
    pub at_end: bool,
}

/// A chunk holding messages of the connections asked about.
#[derive(Clone, Copy, Debug)]
struct Candidate {
    bag: usize,
    chunk: u32,
    start: RosTime,
    end: RosTime,
}

/// One side of a window: the messages found, the bound up to which they are complete, and
/// whether nothing lies beyond it.
struct Side {
    found: Vec<MsgRef>,
    bound: RosTime,
    last: bool,
}

impl Catalog {
    /// Finds the messages of `connections` around `center`: at least `before` earlier and
    /// `after` later ones where they exist, complete between the returned bounds. Reads index
    /// data of the chunks it needs only.
    pub fn window(
        &self,
        connections: &[BagConn],
        center: RosTime,
        before: usize,
        after: usize,
    ) -> Window {
        let chunks: Vec<Candidate> = self
            .chunks_holding(Some(connections))
            .map(|(c, _)| Candidate {
                bag: c.bag,
                chunk: c.chunk.index,
                start: c.chunk.start,
                end: c.chunk.end,
            })
            .collect();
        let later = self.later_side(&chunks, connections, center, after);
        let earlier = self.earlier_side(&chunks, connections, center, before);
        let mut entries = earlier.found;
        entries.reverse();
        entries.extend(later.found);
        entries.dedup();
        Window {
            entries,
            from: earlier.bound,
            to: later.bound,
            at_start: earlier.last,
            at_end: later.last,
        }
    }

    /// The messages of `connections` in one candidate chunk.
    fn refs_in(&self, c: &Candidate, connections: &[BagConn]) -> Vec<MsgRef> {
        self.bag(c.bag).map_or_else(Vec::new, |b| {
            b.chunk_entries(c.chunk)
                .iter()
                .map(|&entry| MsgRef { bag: c.bag, entry })
                .filter(|m| connections.contains(&m.key()))
                .collect()
        })
    }

    /// At least `after` (one at least) messages at or after `center`, read forward by chunk
    /// start; sorted.
    fn later_side(
        &self,
        chunks: &[Candidate],
        connections: &[BagConn],
        center: RosTime,
        after: usize,
    ) -> Side {
        let wanted = after.max(1);
        let mut fwd: Vec<_> = chunks.iter().filter(|c| c.end >= center).copied().collect();
        fwd.sort_by_key(|c| (c.start, c.bag, c.chunk));
        let mut later: Vec<MsgRef> = Vec::new();
        let mut to = RosTime::MAX;
        let mut at_end = true;
        for (i, c) in fwd.iter().enumerate() {
            later.extend(
                self.refs_in(c, connections)
                    .into_iter()
                    .filter(|m| m.entry.time >= center),
            );
            later.sort_unstable();
            if later.len() < wanted {
                continue;
            }
            let bound = later.get(wanted - 1).map_or(RosTime::MAX, |m| m.entry.time);
            if fwd.get(i + 1).is_none_or(|next| next.start > bound) {
                to = bound;
                at_end =
                    fwd.get(i + 1).is_none() && later.last().is_some_and(|m| m.entry.time <= bound);
                break;
            }
        }
        if to == RosTime::MAX {
            to = later.last().map_or(center, |m| m.entry.time).max(center);
        } else {
            later.retain(|m| m.entry.time <= to);
        }
        Side {
            found: later,
            bound: to,
            last: at_end,
        }
    }

    /// At least `before` messages before `center`, read backward by chunk end; latest first.
    fn earlier_side(
        &self,
        chunks: &[Candidate],
        connections: &[BagConn],
        center: RosTime,
        before: usize,
    ) -> Side {
        let mut back: Vec<_> = chunks
            .iter()
            .filter(|c| c.start < center)
            .copied()
            .collect();
        back.sort_by_key(|c| std::cmp::Reverse((c.end, c.bag, c.chunk)));
        let mut earlier: Vec<MsgRef> = Vec::new();
        let mut from = RosTime::MIN;
        let mut at_start = true;
        for (i, c) in back.iter().enumerate() {
            earlier.extend(
                self.refs_in(c, connections)
                    .into_iter()
                    .filter(|m| m.entry.time < center),
            );
            earlier.sort_unstable_by(|a, b| b.cmp(a));
            if before == 0 || earlier.len() < before {
                continue;
            }
            let bound = earlier
                .get(before - 1)
                .map_or(RosTime::MIN, |m| m.entry.time);
            if back.get(i + 1).is_none_or(|next| next.end < bound) {
                from = bound;
                at_start = back.get(i + 1).is_none()
                    && earlier.last().is_some_and(|m| m.entry.time >= bound);
                break;
            }
        }
        if before == 0 {
            from = center;
            at_start = back.is_empty();
            earlier.clear();
        } else if from == RosTime::MIN {
            from = earlier.last().map_or(center, |m| m.entry.time).min(center);
        } else {
            earlier.retain(|m| m.entry.time >= from);
        }
        Side {
            found: earlier,
            bound: from,
            last: at_start,
        }
    }
}
