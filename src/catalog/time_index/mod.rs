//! The chunks of a catalog by time, for questions about a time window asked on every zoom
//! or pan (the explorer's histogram and lanes): per bag, its chunks sorted by start time —
//! all of them, and those of each connection — with the message counts summed over runs of
//! 32 chunks, runs of 32 runs, and so on. A walk over a window skips a run wholly outside it,
//! takes a run whose time span lies inside one bin as one sum (every message of its chunks is
//! in that bin, so the sum is exact), and looks at single chunks only where they straddle a
//! bin's edge: O(bins · log chunks) instead of O(chunks), with the same result as looking at
//! every chunk. Built once per catalog, on first use, in O(chunks + chunk-connection pairs),
//! about 4.3 bytes a chunk and 8.3 per chunk-connection pair.

use std::collections::HashMap;
use std::sync::Arc;

use super::chunk_scan::BagChunk;
use super::{BagConn, Catalog};
use crate::bag::{Bag, Chunk, ConnId};
use crate::time::RosTime;

/// Runs summed together at each level.
const FAN: usize = 32;

/// A run of chunks: its earliest start, latest end and message count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Run {
    start: RosTime,
    end: RosTime,
    count: u64,
}

/// Chunks of one bag sorted by start time with their counts, and sums over runs of them.
#[derive(Debug, Default)]
struct Runs {
    /// Chunk indices (into the bag's chunks), by start time.
    chunks: Vec<u32>,
    /// Messages (of the connection, or all) in each of those chunks.
    counts: Vec<u32>,
    /// `levels[0]`: runs of `FAN` chunks; `levels[k]`: runs of `FAN` runs of level `k - 1`;
    /// the last level has at most `FAN` runs.
    levels: Vec<Vec<Run>>,
    /// For a recording still growing: how many of the last entries are chunks that may
    /// still change (at or after the [`BagTimes`]' stable chunks), when those are the last
    /// entries; `None` when one of them sorts before a stable chunk (the runs are then built
    /// anew as the recording grows, see [`grow`]).
    tail: Option<usize>,
}

impl Runs {
    /// Runs over `items` (chunk index, count), already sorted by the chunks' start times;
    /// chunks from `stable` on may still change.
    fn new(chunks_of: Vec<u32>, counts: Vec<u32>, chunks: &[Chunk], stable: usize) -> Runs {
        let level = level_zero(&chunks_of, &counts, chunks);
        let tail = tail_from(&chunks_of, 0, stable);
        Runs {
            levels: levels_over(level, None, 0),
            chunks: chunks_of,
            counts,
            tail,
        }
    }

    /// Walks the chunks overlapping `window` (see [`super::Catalog::walk_window`]).
    fn walk(&self, at: &Walk<'_>, window: (RosTime, RosTime), visit: &mut dyn Visit) {
        let Some(top) = self.levels.len().checked_sub(1) else {
            return;
        };
        let n = self.levels.get(top).map_or(0, Vec::len);
        for g in 0..n {
            self.walk_run(at, window, top, g, visit);
        }
    }

    fn walk_run(
        &self,
        at: &Walk<'_>,
        (w0, w1): (RosTime, RosTime),
        level: usize,
        g: usize,
        visit: &mut dyn Visit,
    ) {
        let Some(run) = self.levels.get(level).and_then(|l| l.get(g)) else {
            return;
        };
        if run.end < w0 || run.start > w1 || run.count == 0 {
            return;
        }
        if run.start >= w0 && run.end <= w1 && visit.whole(run.start, run.end, run.count) {
            return;
        }
        let children = g * FAN..(g + 1) * FAN;
        if level > 0 {
            for c in children {
                self.walk_run(at, (w0, w1), level - 1, c, visit);
            }
            return;
        }
        for k in children {
            let (Some(&i), Some(&n)) = (self.chunks.get(k), self.counts.get(k)) else {
                break;
            };
            let Some(chunk) = at.source.chunks().get(i as usize) else {
                continue;
            };
            if chunk.end < w0 || chunk.start > w1 || n == 0 {
                continue;
            }
            if chunk.start >= w0
                && chunk.end <= w1
                && visit.whole(chunk.start, chunk.end, u64::from(n))
            {
                continue;
            }
            let c = BagChunk {
                bag: at.bag,
                source: at.source,
                chunk,
            };
            visit.chunk(c, at.conn, u64::from(n));
        }
    }
}

/// The run of `runs` as one.
fn sum(runs: &[Run]) -> Run {
    let mut out = Run {
        start: RosTime::MAX,
        end: RosTime::MIN,
        count: 0,
    };
    for r in runs {
        out.start = out.start.min(r.start);
        out.end = out.end.max(r.end);
        out.count += r.count;
    }
    out
}

/// Level-0 runs over `chunks_of` (chunk index) and `counts`, `FAN` at a time.
fn level_zero(chunks_of: &[u32], counts: &[u32], chunks: &[Chunk]) -> Vec<Run> {
    chunks_of
        .chunks(FAN)
        .zip(counts.chunks(FAN))
        .map(|(is, ns)| {
            let mut run = Run {
                start: RosTime::MAX,
                end: RosTime::MIN,
                count: 0,
            };
            for (&i, &n) in is.iter().zip(ns) {
                if let Some(c) = chunks.get(i as usize) {
                    run.start = run.start.min(c.start);
                    run.end = run.end.max(c.end);
                    run.count += u64::from(n);
                }
            }
            run
        })
        .collect()
}

/// Every level over `level` (level 0). With `prev`, the levels of runs whose level-0 runs
/// before `changed` are the same: their sums over those are taken as they are.
fn levels_over(
    mut level: Vec<Run>,
    prev: Option<&[Vec<Run>]>,
    mut changed: usize,
) -> Vec<Vec<Run>> {
    let mut levels = Vec::new();
    while level.len() > FAN {
        // The runs above that sum level runs before `changed` only are unchanged (a level
        // that was the top one before has no such runs yet).
        let above = prev.and_then(|p| p.get(levels.len() + 1));
        let from = above.map_or(0, |a| (changed / FAN).min(a.len()));
        let mut next: Vec<Run> =
            above.map_or_else(Vec::new, |a| a.iter().take(from).copied().collect());
        next.extend(
            level
                .get(from * FAN..)
                .unwrap_or_default()
                .chunks(FAN)
                .map(sum),
        );
        levels.push(std::mem::replace(&mut level, next));
        changed = from;
    }
    levels.push(level);
    levels
}

/// How many of the last entries of `chunks_of` are chunks at or after `stable`, when they
/// are all of those from `from` on (the entries before `from` are known to be before it).
fn tail_from(chunks_of: &[u32], from: usize, stable: usize) -> Option<usize> {
    let rest = chunks_of.get(from..).unwrap_or_default();
    let tail = rest
        .iter()
        .rev()
        .take_while(|&&i| i as usize >= stable)
        .count();
    let before = rest.get(..rest.len() - tail).unwrap_or_default();
    before
        .iter()
        .all(|&i| (i as usize) < stable)
        .then_some(tail)
}

/// What a walk over a window does with what it finds.
pub trait Visit {
    /// Messages `count` all received within `start..=end` (inside the window): true when
    /// taken as one (e.g. the span is inside one bin), false to be shown the chunks.
    fn whole(&mut self, start: RosTime, end: RosTime, count: u64) -> bool;
    /// A chunk overlapping the window, not taken as a whole, with `count` messages of
    /// connection `conn` (of every connection when `None`).
    fn chunk(&mut self, chunk: BagChunk<'_>, conn: Option<ConnId>, count: u64);
}

/// Where a walk is: which bag, and which connection of it (all when `None`).
struct Walk<'a> {
    bag: usize,
    source: &'a Bag,
    conn: Option<ConnId>,
}

/// One bag's chunks by time: all of them and per connection (see the module's doc).
#[derive(Debug, Default)]
pub struct BagTimes {
    all: Runs,
    /// Shared with the next [`BagTimes`] of a growing recording while unchanged.
    by_conn: HashMap<ConnId, Arc<Runs>>,
    /// Chunks before this one never change (all of a closed bag's chunks).
    stable: usize,
}

/// Chunks in the order given with their message counts: all those holding messages, and
/// those holding messages of each connection.
struct Lists {
    order: Vec<u32>,
    totals: Vec<u32>,
    by_conn: Vec<(ConnId, Vec<u32>, Vec<u32>)>,
}

impl Lists {
    /// The lists for the chunks `order` of `bag`.
    fn new(bag: &Bag, order: Vec<u32>) -> Lists {
        let chunks = bag.chunks();
        // Each connection's list, found by id through a table when the ids are small (they
        // count up from 0 in a bag), through a map otherwise.
        let ids: Vec<ConnId> = bag.connections().iter().map(|k| k.id).collect();
        let dense = ids.iter().all(|&id| id < 1 << 16);
        let mut slot_of: HashMap<ConnId, usize> = HashMap::new();
        let mut table: Vec<usize> = Vec::new();
        for (slot, &id) in ids.iter().enumerate() {
            if dense {
                let at = id as usize;
                if table.len() <= at {
                    table.resize(at + 1, usize::MAX);
                }
                if let Some(t) = table.get_mut(at) {
                    *t = slot;
                }
            } else {
                slot_of.insert(id, slot);
            }
        }
        let slot = |id: ConnId| {
            if dense {
                table.get(id as usize).copied().filter(|&s| s != usize::MAX)
            } else {
                slot_of.get(&id).copied()
            }
        };
        // Each list sized once (grown by doubling, a million chunks left tens of MB of freed
        // blocks the allocator keeps).
        let mut sizes = vec![0usize; ids.len()];
        for c in order.iter().filter_map(|&i| chunks.get(i as usize)) {
            for &(conn, n) in &c.counts {
                if let Some(size) = slot(conn).and_then(|s| sizes.get_mut(s)).filter(|_| n > 0) {
                    *size += 1;
                }
            }
        }
        let mut lists: Vec<(Vec<u32>, Vec<u32>)> = sizes
            .into_iter()
            .map(|n| (Vec::with_capacity(n), Vec::with_capacity(n)))
            .collect();
        // Chunks without messages are left out: a walk has nothing to count in them, and
        // the one a recording has just begun (no message time yet) would sort first.
        let mut all = Vec::with_capacity(order.len());
        let mut totals: Vec<u32> = Vec::with_capacity(order.len());
        for i in order {
            let Some(c) = chunks.get(i as usize) else {
                continue;
            };
            let mut total = 0u32;
            for &(conn, n) in &c.counts {
                total = total.saturating_add(n);
                if let Some(list) = slot(conn).and_then(|s| lists.get_mut(s)).filter(|_| n > 0) {
                    list.0.push(i);
                    list.1.push(n);
                }
            }
            if total > 0 {
                all.push(i);
                totals.push(total);
            }
        }
        let by_conn = ids
            .into_iter()
            .zip(lists)
            .filter(|(_, (is, _))| !is.is_empty())
            .map(|(id, (is, ns))| (id, is, ns))
            .collect();
        Lists {
            order: all,
            totals,
            by_conn,
        }
    }
}

/// The chunks `range` of `chunks` by start time (chunks starting together in index order).
fn by_start(chunks: &[Chunk], range: std::ops::Range<usize>) -> Vec<u32> {
    let from = u32::try_from(range.start).unwrap_or(u32::MAX);
    let to = u32::try_from(range.end).unwrap_or(u32::MAX);
    let mut order: Vec<u32> = (from..to).collect();
    let part = chunks.get(range).unwrap_or_default();
    if !part.windows(2).all(|w| match w {
        [a, b] => a.start <= b.start,
        _ => true,
    }) {
        order.sort_by_key(|&i| chunks.get(i as usize).map(|c| c.start));
    }
    order
}

impl BagTimes {
    pub(super) fn new(bag: &Bag) -> BagTimes {
        BagTimes::growing(bag, bag.chunks().len())
    }

    /// The chunks by time of a recording whose chunks from `stable` on may still change
    /// (see [`BagTimes::grow`]).
    pub fn growing(bag: &Bag, stable: usize) -> BagTimes {
        let chunks = bag.chunks();
        let stable = stable.min(chunks.len());
        let lists = Lists::new(bag, by_start(chunks, 0..chunks.len()));
        let all = Runs::new(lists.order, lists.totals, chunks, stable);
        let by_conn = lists
            .by_conn
            .into_iter()
            .map(|(id, is, ns)| (id, Arc::new(Runs::new(is, ns, chunks, stable))))
            .collect();
        BagTimes {
            all,
            by_conn,
            stable,
        }
    }

    /// Walks the chunks of `conn` (all chunks when `None`) of bag `bag` (`source`)
    /// overlapping `window`.
    pub(super) fn walk(
        &self,
        (bag, source): (usize, &Bag),
        conn: Option<ConnId>,
        window: (RosTime, RosTime),
        visit: &mut dyn Visit,
    ) {
        let runs = match conn {
            None => Some(&self.all),
            Some(c) => self.by_conn.get(&c).map(Arc::as_ref),
        };
        if let Some(r) = runs {
            r.walk(&Walk { bag, source, conn }, window, visit);
        }
    }
}

/// Catalogs of at most this many chunks build their chunks by time on first use (a few
/// ms); bigger ones walk every chunk until [`Catalog::index_by_time`] has run.
const BUILD_INLINE: usize = 65_536;

impl Catalog {
    /// Builds the chunks by time (O(chunks + chunk-connection pairs): about 80 ms at a
    /// million chunks), once; later calls and clones share it. Call it off the UI thread for
    /// a big catalog: until it has run, walks over it visit every chunk.
    pub fn index_by_time(&self) -> &[Arc<BagTimes>] {
        self.times.get_or_init(|| {
            self.bags()
                .iter()
                .map(|b| Arc::new(BagTimes::new(b)))
                .collect()
        })
    }

    /// A catalog of `bags`, which are this catalog's with bag `index` replaced by a later
    /// snapshot of a recording, whose chunks by time `times` are already built (see
    /// [`BagTimes::grow`]): the other bags' are taken from this catalog when it has built
    /// them (else the new catalog builds its own, as any other).
    #[must_use]
    pub fn with_grown(&self, bags: Vec<Bag>, index: usize, times: &Arc<BagTimes>) -> Catalog {
        let catalog = Catalog::new(bags);
        let built = self.times.get();
        let all: Option<Vec<Arc<BagTimes>>> = (0..catalog.bags().len())
            .map(|i| {
                if i == index {
                    Some(Arc::clone(times))
                } else {
                    built.and_then(|t| t.get(i)).cloned()
                }
            })
            .collect();
        if let Some(all) = all {
            let _ = catalog.times.set(all);
        }
        catalog
    }

    /// Chunks over all bags.
    fn chunk_count(&self) -> usize {
        self.bags().iter().map(|b| b.chunks().len()).sum()
    }

    /// Walks the chunks holding messages of the connections of `set` (every connection when
    /// `None`) that overlap `window`: runs of them whose span is inside the window are
    /// offered whole first ([`Visit::whole`]), the chunks of runs not taken are visited
    /// one by one ([`Visit::chunk`], once per connection of `set` they hold). The chunks by
    /// time are built on the first call (O(chunks)); each walk is O(what is not taken whole).
    pub fn walk_window(
        &self,
        set: Option<&[BagConn]>,
        window: (RosTime, RosTime),
        visit: &mut dyn Visit,
    ) {
        let times = match self.times.get() {
            Some(t) => t,
            None if self.chunk_count() <= BUILD_INLINE => self.index_by_time(),
            None => {
                // Not built yet (a big catalog builds it on a thread of its own, see
                // `index_by_time`).
                self.walk_every_chunk(set, window, visit);
                return;
            }
        };
        for (b, (source, t)) in self.bags().iter().zip(times).enumerate() {
            match set {
                None => t.walk((b, source), None, window, visit),
                Some(set) => {
                    for k in set.iter().filter(|k| k.bag == b) {
                        t.walk((b, source), Some(k.conn), window, visit);
                    }
                }
            }
        }
    }

    /// [`Catalog::walk_window`] as a pass over every chunk (before the chunks by time are
    /// built): each chunk inside the window is offered whole, the others visited.
    fn walk_every_chunk(
        &self,
        set: Option<&[BagConn]>,
        window: (RosTime, RosTime),
        visit: &mut dyn Visit,
    ) {
        for (c, n) in self.chunks_holding(set) {
            let chunk = c.chunk;
            if chunk.end < window.0 || chunk.start > window.1 {
                continue;
            }
            let inside = chunk.start >= window.0 && chunk.end <= window.1;
            if inside && visit.whole(chunk.start, chunk.end, n) {
                continue;
            }
            match set {
                None => visit.chunk(c, None, n),
                Some(set) => {
                    for k in set.iter().filter(|k| k.bag == c.bag) {
                        let n = chunk.count_for(k.conn);
                        if n > 0 {
                            visit.chunk(c, Some(k.conn), u64::from(n));
                        }
                    }
                }
            }
        }
    }
}

mod grow;
#[cfg(test)]
mod grow_tests;
#[cfg(test)]
mod tests;
