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

use super::chunk_scan::BagChunk;
use super::{BagConn, Catalog};
use crate::bag::{Bag, Chunk, ConnId};
use crate::time::RosTime;

/// Runs summed together at each level.
const FAN: usize = 32;

/// A run of chunks: its earliest start, latest end and message count.
#[derive(Clone, Copy, Debug)]
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
}

impl Runs {
    /// Runs over `items` (chunk index, count), already sorted by the chunks' start times.
    fn new(chunks_of: Vec<u32>, counts: Vec<u32>, chunks: &[Chunk]) -> Runs {
        // Level 0 straight from the chunks, a run of `FAN` at a time.
        let mut level: Vec<Run> = chunks_of
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
            .collect();
        let mut levels = Vec::new();
        while level.len() > FAN {
            let next = level.chunks(FAN).map(sum).collect();
            levels.push(std::mem::replace(&mut level, next));
        }
        levels.push(level);
        Runs {
            chunks: chunks_of,
            counts,
            levels,
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
    by_conn: HashMap<ConnId, Runs>,
}

impl BagTimes {
    pub(super) fn new(bag: &Bag) -> BagTimes {
        let chunks = bag.chunks();
        let n = u32::try_from(chunks.len()).unwrap_or(u32::MAX);
        let mut order: Vec<u32> = (0..n).collect();
        if !chunks.windows(2).all(|w| match w {
            [a, b] => a.start <= b.start,
            _ => true,
        }) {
            order.sort_by_key(|&i| chunks.get(i as usize).map(|c| c.start));
        }
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
        let mut lists: Vec<(Vec<u32>, Vec<u32>)> = vec![(Vec::new(), Vec::new()); ids.len()];
        let mut totals: Vec<u32> = Vec::with_capacity(order.len());
        for &i in &order {
            let Some(c) = chunks.get(i as usize) else {
                totals.push(0);
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
            totals.push(total);
        }
        let all = Runs::new(order, totals, chunks);
        let by_conn = ids
            .into_iter()
            .zip(lists)
            .filter(|(_, (is, _))| !is.is_empty())
            .map(|(id, (is, ns))| (id, Runs::new(is, ns, chunks)))
            .collect();
        BagTimes { all, by_conn }
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
            Some(c) => self.by_conn.get(&c),
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
    pub fn index_by_time(&self) -> &[BagTimes] {
        self.times
            .get_or_init(|| self.bags().iter().map(BagTimes::new).collect())
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

#[cfg(test)]
#[allow(
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    clippy::cast_precision_loss,
    clippy::struct_field_names,
    clippy::indexing_slicing
)]
mod tests {
    use super::*;

    /// Bins a window like the explorer's histogram, spreading chunks that are not whole.
    struct Bins {
        window: (RosTime, RosTime),
        bins: Vec<f64>,
        wholes: usize,
        chunks: usize,
    }

    impl Bins {
        fn new(window: (RosTime, RosTime), width: usize) -> Bins {
            Bins {
                window,
                bins: vec![0.0; width],
                wholes: 0,
                chunks: 0,
            }
        }

        fn pos(&self, t: RosTime) -> f64 {
            let (w0, w1) = self.window;
            t.nanos_since(w0) as f64 / w1.nanos_since(w0).max(1) as f64 * self.bins.len() as f64
        }

        fn spread(&mut self, a: RosTime, b: RosTime, count: f64) {
            let (pa, pb) = (self.pos(a), self.pos(b));
            let n = self.bins.len() as f64;
            if pb - pa < 1e-9 {
                if (0.0..=n).contains(&pa) {
                    let i = (pa.max(0.0) as usize).min(self.bins.len() - 1);
                    self.bins[i] += count;
                }
                return;
            }
            for (i, bin) in self.bins.iter_mut().enumerate() {
                let lo = pa.max(i as f64);
                let hi = pb.min((i + 1) as f64);
                if hi > lo {
                    *bin += count / (pb - pa) * (hi - lo);
                }
            }
        }
    }

    impl Visit for Bins {
        fn whole(&mut self, start: RosTime, end: RosTime, count: u64) -> bool {
            let n = self.bins.len();
            let bin = |p: f64| (p as usize).min(n - 1);
            let (a, b) = (bin(self.pos(start)), bin(self.pos(end)));
            if a != b {
                return false;
            }
            self.wholes += 1;
            self.bins[a] += count as f64;
            true
        }

        fn chunk(&mut self, c: BagChunk<'_>, _: Option<ConnId>, count: u64) {
            self.chunks += 1;
            self.spread(c.chunk.start, c.chunk.end, count as f64);
        }
    }

    #[test]
    fn a_walk_bins_like_a_pass_over_every_chunk() {
        let dir = tempfile::tempdir().unwrap();
        // Two bags of small chunks (a few messages each), three topics at uneven rates and a
        // pause; the second bag overlaps the first in time.
        let mut a = Vec::new();
        let mut b = Vec::new();
        for i in 0..3000u32 {
            let t = if i < 1500 { i } else { i + 700 };
            a.push(("/fast", t / 10, (t % 10) * 100_000_000));
            if i % 7 == 0 {
                a.push(("/slow", t / 10, (t % 10) * 100_000_000 + 1));
            }
            if i % 3 == 0 {
                b.push(("/other", 100 + i / 20, (i % 20) * 50_000_000));
            }
        }
        let cat = Catalog::new(vec![
            super::super::tests::write_bag(dir.path(), "a.bag", &a, 300),
            super::super::tests::write_bag(dir.path(), "b.bag", &b, 300),
        ]);
        assert!(cat.chunks().count() > 500, "many small chunks");
        let fast: Vec<BagConn> = cat
            .chunks()
            .flat_map(|c| c.counts().map(|(k, _)| k).collect::<Vec<_>>())
            .filter(|k| {
                cat.bag(k.bag)
                    .and_then(|b| b.connections().iter().find(|c| c.id == k.conn))
                    .is_some_and(|c| c.topic == "/fast" || c.topic == "/other")
            })
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect();
        let (s, e) = (cat.start_time().unwrap(), cat.end_time().unwrap());
        let at = |f: f64| RosTime::from_nanos(s.as_nanos() + (e.nanos_since(s) as f64 * f) as u64);
        for set in [None, Some(fast.as_slice())] {
            for (w0, w1, width) in [
                (s, e, 150),
                (at(0.1), at(0.6), 37),
                (at(0.4), at(0.41), 80),
                (at(0.999), e, 5),
            ] {
                let mut walk = Bins::new((w0, w1), width);
                cat.walk_window(set, (w0, w1), &mut walk);
                // The pass over every chunk (before the chunks by time are built) agrees.
                let mut linear = Bins::new((w0, w1), width);
                cat.walk_every_chunk(set, (w0, w1), &mut linear);
                for (x, y) in walk.bins.iter().zip(&linear.bins) {
                    assert!((x - y).abs() < 1e-6, "{x} vs {y} ({set:?})");
                }
                let mut every = Bins::new((w0, w1), width);
                for (c, n) in cat.chunks_holding(set) {
                    if c.chunk.end >= w0 && c.chunk.start <= w1 {
                        every.spread(c.chunk.start, c.chunk.end, n as f64);
                    }
                }
                for (i, (x, y)) in walk.bins.iter().zip(&every.bins).enumerate() {
                    assert!((x - y).abs() < 1e-6, "bin {i}: {x} vs {y} ({set:?})");
                }
                let total: f64 = walk.bins.iter().sum();
                assert!(total > 0.0);
                if width == 150 && set.is_none() {
                    assert!(
                        walk.wholes > 0 && walk.chunks < cat.chunks().count() / 4,
                        "runs taken whole: {} wholes, {} chunks",
                        walk.wholes,
                        walk.chunks
                    );
                }
            }
        }
    }
}
