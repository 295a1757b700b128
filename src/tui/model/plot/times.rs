//! The times of a plotted series, compact and exact: per block of [`TIME_BLOCK`] points one
//! `i64` base (the block's first time) and per point a `u32` offset from it, 4.25 bytes a
//! point instead of 8. A block whose points span more than `u32::MAX` ns (4.29 s: a topic
//! slower than about 7 Hz, or a pause in the recording) keeps its times in full beside the
//! others, so every time round-trips to the nanosecond whatever the data.
//!
//! The bases double as a sparse index: a search over a million times first bisects the
//! 31 250 bases (250 KB, cache-friendly), then one block of 32 offsets (128 bytes), instead
//! of bisecting 8 MB with a cache miss per step.

use std::ops::Range;

/// Points per block.
pub const TIME_BLOCK: usize = 32;

/// Ascending times, stored compactly.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Times {
    /// Per block: its first time.
    bases: Vec<i64>,
    /// Per point: its time minus its block's base (0 in wide blocks).
    offsets: Vec<u32>,
    /// The blocks whose span does not fit in a `u32`, ascending.
    wide_blocks: Vec<usize>,
    /// The times of the wide blocks in full: the `k`-th wide block's at `k · TIME_BLOCK`
    /// (only the last block can be short, so they pack).
    wide: Vec<i64>,
}

impl Times {
    /// The times of `times` (expected ascending; any order is stored exactly, but searches
    /// assume ascending).
    pub fn from_slice(times: &[i64]) -> Times {
        let mut t = Times::default();
        t.extend(times);
        t.shrink_to_fit();
        t
    }

    /// Number of times.
    pub fn len(&self) -> usize {
        self.offsets.len()
    }

    /// True when there are none.
    pub fn is_empty(&self) -> bool {
        self.offsets.is_empty()
    }

    /// Bytes held (capacity included).
    pub fn heap_bytes(&self) -> usize {
        self.bases.capacity() * size_of::<i64>()
            + self.offsets.capacity() * size_of::<u32>()
            + self.wide_blocks.capacity() * size_of::<usize>()
            + self.wide.capacity() * size_of::<i64>()
    }

    /// Frees spare capacity.
    pub fn shrink_to_fit(&mut self) {
        self.bases.shrink_to_fit();
        self.offsets.shrink_to_fit();
        self.wide_blocks.shrink_to_fit();
        self.wide.shrink_to_fit();
    }

    /// Appends `times` (at or after the last one, for searches to work).
    pub fn extend(&mut self, times: &[i64]) {
        self.offsets.reserve(times.len());
        for &t in times {
            self.push(t);
        }
    }

    /// Appends one time.
    pub fn push(&mut self, t: i64) {
        let i = self.offsets.len();
        let block = i / TIME_BLOCK;
        if i % TIME_BLOCK == 0 {
            self.bases.push(t);
            self.offsets.push(0);
            return;
        }
        if self.wide_blocks.last() == Some(&block) {
            self.wide.push(t);
            self.offsets.push(0);
            return;
        }
        let base = self.bases.last().copied().unwrap_or(t);
        if let Some(off) = t.checked_sub(base).and_then(|d| u32::try_from(d).ok()) {
            self.offsets.push(off);
            return;
        }
        // The block no longer fits its offsets: keep its times in full from now on.
        let start = block * TIME_BLOCK;
        for off in self.offsets.get_mut(start..).unwrap_or_default() {
            self.wide
                .push(base.saturating_add(i64::from(std::mem::take(off))));
        }
        self.wide.push(t);
        self.wide_blocks.push(block);
        self.offsets.push(0);
    }

    /// Where block `block`'s times are in `wide`, when it is wide.
    fn wide_start(&self, block: usize) -> Option<usize> {
        if self.wide_blocks.is_empty() {
            return None;
        }
        let k = self.wide_blocks.binary_search(&block).ok()?;
        Some(k * TIME_BLOCK)
    }

    /// The `i`-th time.
    pub fn get(&self, i: usize) -> Option<i64> {
        let off = *self.offsets.get(i)?;
        let block = i / TIME_BLOCK;
        match self.wide_start(block) {
            Some(w) => self.wide.get(w + i % TIME_BLOCK).copied(),
            None => self.bases.get(block)?.checked_add(i64::from(off)),
        }
    }

    /// The first time.
    pub fn first(&self) -> Option<i64> {
        self.bases.first().copied()
    }

    /// The last time.
    pub fn last(&self) -> Option<i64> {
        self.get(self.len().checked_sub(1)?)
    }

    /// The times of `range` in order (clamped to the times held), decoded a block at a
    /// time (a few ns a time).
    pub fn iter(&self, range: Range<usize>) -> TimesIter<'_> {
        let end = range.end.min(self.len());
        TimesIter {
            times: self,
            at: range.start.min(end),
            end,
            base: None,
            wide: None,
        }
    }

    /// Every time, in full (for tests and rebuilds).
    pub fn to_vec(&self) -> Vec<i64> {
        self.iter(0..self.len()).collect()
    }

    /// The first index in `range` whose time does not satisfy `pred` (`range.end` if all
    /// do), for a `pred` that holds for a prefix of the times: [`slice::partition_point`]
    /// over the range. O(log(blocks) + log(TIME_BLOCK)).
    pub fn partition_point(&self, range: Range<usize>, mut pred: impl FnMut(i64) -> bool) -> usize {
        let hi = range.end.min(self.len());
        let lo = range.start.min(hi);
        if lo == hi {
            return lo;
        }
        let (b0, b1) = (lo / TIME_BLOCK, (hi - 1) / TIME_BLOCK);
        // The last block of the range whose first time satisfies `pred` (or the first block):
        // the answer lies in it, or right after it. Galloping from the range's start keeps
        // a search that ends near it (the next pixel column's points) within a few cache
        // lines of bases.
        let later = self.bases.get(b0 + 1..=b1).unwrap_or_default();
        let mut known = 0; // `later[..known]` all satisfy `pred`.
        let mut step = 1;
        while known < later.len() {
            let probe = (known + step).min(later.len());
            if later.get(probe - 1).is_some_and(|&t| pred(t)) {
                known = probe;
                step *= 2;
            } else {
                let within = later
                    .get(known..probe - 1)
                    .unwrap_or_default()
                    .partition_point(|&t| pred(t));
                known += within;
                break;
            }
        }
        let block = b0 + known;
        let start = (block * TIME_BLOCK).max(lo);
        let end = ((block + 1) * TIME_BLOCK).min(hi);
        let within = match (self.wide_start(block), self.bases.get(block)) {
            (Some(w), _) => self
                .wide
                .get(w + start % TIME_BLOCK..w + (end - 1) % TIME_BLOCK + 1)
                .unwrap_or_default()
                .partition_point(|&t| pred(t)),
            (None, Some(&base)) => self
                .offsets
                .get(start..end)
                .unwrap_or_default()
                .partition_point(|&o| pred(base.saturating_add(i64::from(o)))),
            (None, None) => 0,
        };
        start + within
    }
}

/// The times of a range, in order (see [`Times::iter`]).
#[derive(Debug, Clone)]
pub struct TimesIter<'a> {
    times: &'a Times,
    at: usize,
    end: usize,
    /// The current block's base, when narrow (and known).
    base: Option<i64>,
    /// The current block's full times, when wide.
    wide: Option<&'a [i64]>,
}

impl Iterator for TimesIter<'_> {
    type Item = i64;

    fn next(&mut self) -> Option<i64> {
        if self.at >= self.end {
            return None;
        }
        let i = self.at;
        self.at += 1;
        let within = i % TIME_BLOCK;
        if within == 0 || (self.base.is_none() && self.wide.is_none()) {
            let block = i / TIME_BLOCK;
            self.wide = self.times.wide_start(block).and_then(|w| {
                self.times
                    .wide
                    .get(w..(w + TIME_BLOCK).min(self.times.wide.len()))
            });
            self.base = self.times.bases.get(block).copied();
        }
        match self.wide {
            Some(w) => w.get(within).copied(),
            None => self
                .base?
                .checked_add(i64::from(*self.times.offsets.get(i)?)),
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.end - self.at;
        (0, Some(n))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Times with dense runs, long pauses (wide blocks), equal times and extreme values.
    fn awkward() -> Vec<i64> {
        let mut t = Vec::new();
        let mut now = i64::MIN + 5;
        for i in 0..2_000i64 {
            t.push(now);
            now += match i % 300 {
                0 => 0,                          // equal times
                17 => 5_000_000_000,             // a pause longer than u32 ns
                250..=299 => 3_000_000_000,      // a slow stretch: wide blocks in a row
                _ => 1_000_000 + (i % 7) * 1000, // 1 kHz
            };
            if i == 1_000 {
                now = -3; // across zero
            }
        }
        t.push(i64::MAX - 1);
        t.push(i64::MAX);
        t
    }

    #[test]
    fn every_time_round_trips() {
        let t = awkward();
        let c = Times::from_slice(&t);
        assert_eq!(c.len(), t.len());
        assert_eq!(c.to_vec(), t);
        assert_eq!(c.first(), t.first().copied());
        assert_eq!(c.last(), t.last().copied());
        assert_eq!(c.get(t.len()), None);
        for (a, b) in [(0, 0), (3, 40), (31, 33), (64, 65), (1_000, t.len() + 5)] {
            let want: Vec<i64> = t[a..b.min(t.len())].to_vec();
            assert_eq!(c.iter(a..b).collect::<Vec<_>>(), want, "{a}..{b}");
        }
        assert!(c.wide_blocks.len() > 3, "{:?}", c.wide_blocks);
        // Built point by point, the same.
        let mut d = Times::default();
        for &x in &t {
            d.push(x);
        }
        assert_eq!(d.to_vec(), t);
        // Out of order times are still kept exactly.
        let odd = [10, 5, 7, i64::MIN, 3];
        assert_eq!(Times::from_slice(&odd).to_vec(), odd);
    }

    #[test]
    fn searches_match_a_slice() {
        let t = awkward();
        let c = Times::from_slice(&t);
        let n = t.len();
        let probes: Vec<i64> = t
            .iter()
            .step_by(7)
            .flat_map(|&x| [x.saturating_sub(1), x, x.saturating_add(1)])
            .chain([i64::MIN, i64::MAX])
            .collect();
        for (a, b) in [
            (0, n),
            (0, 1),
            (5, 5),
            (31, 33),
            (32, 64),
            (100, 1_377),
            (n - 1, n),
        ] {
            for &p in &probes {
                let want = a + t[a..b].partition_point(|&x| x < p);
                assert_eq!(c.partition_point(a..b, |x| x < p), want, "{a}..{b} < {p}");
                let want = a + t[a..b].partition_point(|&x| x <= p);
                assert_eq!(c.partition_point(a..b, |x| x <= p), want, "{a}..{b} <= {p}");
            }
        }
        assert_eq!(c.partition_point(n + 3..n + 9, |_| true), n);
    }

    #[test]
    fn a_dense_series_costs_about_four_bytes_a_time() {
        let t: Vec<i64> = (0..1_000_000)
            .map(|i| 1_700_000_000_000_000_000 + i * 1_000_000)
            .collect();
        let c = Times::from_slice(&t);
        let per = c.heap_bytes() as f64 / t.len() as f64;
        assert!(per <= 4.26, "{per}");
        assert_eq!(c.get(777_777), Some(t[777_777]));
    }
}
