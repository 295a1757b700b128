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

/// Which side of the center a search reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Side {
    /// At or after the center, forward by chunk start.
    Later,
    /// Before the center, backward by chunk end.
    Earlier,
}

impl Side {
    /// True when chunk `c` may hold messages on this side of `center`.
    fn may_hold(self, c: &Candidate, center: RosTime) -> bool {
        match self {
            Side::Later => c.end >= center,
            Side::Earlier => c.start < center,
        }
    }

    /// True when a message at `t` lies on this side of `center`.
    fn holds(self, t: RosTime, center: RosTime) -> bool {
        match self {
            Side::Later => t >= center,
            Side::Earlier => t < center,
        }
    }

    /// True when a message at `t` is no further from the center than `bound`.
    fn within(self, t: RosTime, bound: RosTime) -> bool {
        match self {
            Side::Later => t <= bound,
            Side::Earlier => t >= bound,
        }
    }

    /// True when chunk `c`, read next, holds nothing within `bound`.
    fn beyond(self, c: &Candidate, bound: RosTime) -> bool {
        match self {
            Side::Later => c.start > bound,
            Side::Earlier => c.end < bound,
        }
    }

    /// Orders chunks in reading order: nearest the center first.
    fn order(self, chunks: &mut [Candidate]) {
        match self {
            Side::Later => chunks.sort_by_key(|c| (c.start, c.bag, c.chunk)),
            Side::Earlier => chunks.sort_by_key(|c| std::cmp::Reverse((c.end, c.bag, c.chunk))),
        }
    }

    /// Orders messages nearest the center first.
    fn sort(self, found: &mut [MsgRef]) {
        match self {
            Side::Later => found.sort_unstable(),
            Side::Earlier => found.sort_unstable_by(|a, b| b.cmp(a)),
        }
    }
}

/// What a search on one side found: messages nearest the center first; the bound up to
/// which they are complete, when reached; whether nothing lies beyond it; and whether the
/// side had any chunk to read.
struct Searched {
    found: Vec<MsgRef>,
    bound: Option<RosTime>,
    last: bool,
    any_chunk: bool,
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
        let mut later = self.search(&chunks, connections, center, after.max(1), Side::Later);
        let to = match later.bound {
            Some(to) => {
                later.found.retain(|m| m.entry.time <= to);
                to
            }
            None => later
                .found
                .last()
                .map_or(center, |m| m.entry.time)
                .max(center),
        };
        let mut earlier = self.search(&chunks, connections, center, before, Side::Earlier);
        let (from, at_start) = match earlier.bound {
            _ if before == 0 => {
                earlier.found.clear();
                (center, !earlier.any_chunk)
            }
            Some(from) => {
                earlier.found.retain(|m| m.entry.time >= from);
                (from, earlier.last)
            }
            None => {
                let from = earlier.found.last().map_or(center, |m| m.entry.time);
                (from.min(center), earlier.last)
            }
        };
        let mut entries = earlier.found;
        entries.reverse();
        entries.extend(later.found);
        entries.dedup();
        Window {
            entries,
            from,
            to,
            at_start,
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

    /// Reads the chunks on `side` of `center`, nearest first, until `wanted` messages are
    /// found and no further chunk can hold one as near as the `wanted`th (that message's time
    /// is the bound). With `wanted` 0, every chunk of the side is read and no bound is set.
    fn search(
        &self,
        chunks: &[Candidate],
        connections: &[BagConn],
        center: RosTime,
        wanted: usize,
        side: Side,
    ) -> Searched {
        let mut order: Vec<Candidate> = chunks
            .iter()
            .filter(|c| side.may_hold(c, center))
            .copied()
            .collect();
        side.order(&mut order);
        let mut found: Vec<MsgRef> = Vec::new();
        for (i, c) in order.iter().enumerate() {
            found.extend(
                self.refs_in(c, connections)
                    .into_iter()
                    .filter(|m| side.holds(m.entry.time, center)),
            );
            side.sort(&mut found);
            let Some(bound) = wanted.checked_sub(1).and_then(|k| found.get(k)) else {
                continue;
            };
            let bound = bound.entry.time;
            let next = order.get(i + 1);
            if next.is_none_or(|next| side.beyond(next, bound)) {
                let last = next.is_none()
                    && found
                        .last()
                        .is_some_and(|m| side.within(m.entry.time, bound));
                return Searched {
                    found,
                    bound: Some(bound),
                    last,
                    any_chunk: true,
                };
            }
        }
        Searched {
            found,
            bound: None,
            last: true,
            any_chunk: !order.is_empty(),
        }
    }
}
