//! Message density over a time window, from chunk infos alone: a chunk (or a run of
//! chunks, see [`crate::catalog::time_index`]) whose time span lies inside one bin adds its
//! count to that bin, which is exact; a chunk straddling bins contributes the exact times of
//! its message list when that is in memory, and otherwise its count (for the selected
//! connections) spread over its time range. O(bins · log chunks) per window.

use crate::bag::ConnId;
use crate::catalog::time_index::Visit;
use crate::catalog::{BagChunk, BagConn, Catalog};
use crate::time::RosTime;

/// Entries looked at per histogram before falling back to spreading chunk counts.
const EXACT_BUDGET: usize = 200_000;

/// Counts per bin over a window.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Histogram {
    /// Messages per bin (fractional where chunks were spread).
    pub bins: Vec<f64>,
    /// The window.
    pub window: (RosTime, RosTime),
    /// True when every counted chunk contributed exact times.
    pub exact: bool,
}

impl Histogram {
    /// The largest bin.
    pub fn max(&self) -> f64 {
        self.bins.iter().copied().fold(0.0, f64::max)
    }

    /// Messages in the window.
    pub fn total(&self) -> f64 {
        self.bins.iter().sum()
    }
}

/// Bins the messages of `connections` (all when `None`) over `window` into `width` bins.
pub fn compute(
    catalog: &Catalog,
    connections: Option<&[BagConn]>,
    window: (RosTime, RosTime),
    width: usize,
) -> Histogram {
    let mut binner = Binner {
        bins: vec![0.0; width],
        window,
        span: window.1.nanos_since(window.0).max(1) as f64,
        exact: true,
        // Exact times cost a pass over the entries: keep the work bounded on huge bags.
        budget: EXACT_BUDGET,
    };
    if width > 0 {
        catalog.walk_window(connections, window, &mut binner);
    }
    Histogram {
        bins: binner.bins,
        window,
        exact: binner.exact,
    }
}

/// The bins being filled by a walk over the window.
struct Binner {
    bins: Vec<f64>,
    window: (RosTime, RosTime),
    /// Nanoseconds in the window (at least 1).
    span: f64,
    exact: bool,
    /// Index entries still to be looked at before falling back to spreading chunk counts.
    budget: usize,
}

impl Binner {
    /// The bin of `t`, `None` outside the window.
    fn bin_of(&self, t: RosTime) -> Option<usize> {
        let (w0, w1) = self.window;
        let width = self.bins.len();
        if t < w0 || t > w1 || width == 0 {
            return None;
        }
        // The same value as `t.nanos_since(w0)` (`t` is not before `w0`) without 128-bit
        // arithmetic: this runs for every chunk of the window, a million times per frame
        // for a recording of a million chunks followed while its time index is rebuilt.
        let since = t.as_nanos().saturating_sub(w0.as_nanos());
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        Some(((since as f64 / self.span * width as f64) as usize).min(width - 1))
    }
}

impl Visit for Binner {
    fn whole(&mut self, start: RosTime, end: RosTime, count: u64) -> bool {
        match (self.bin_of(start), self.bin_of(end)) {
            (Some(a), Some(b)) if a == b => {
                if let Some(bin) = self.bins.get_mut(a) {
                    *bin += count as f64;
                }
                true
            }
            _ => false,
        }
    }

    fn chunk(&mut self, c: BagChunk<'_>, conn: Option<ConnId>, count: u64) {
        let chunk = c.chunk;
        if let Some(entries) = c
            .source
            .loaded_entries(chunk.index)
            .filter(|e| e.len() <= self.budget)
        {
            self.budget -= entries.len();
            for e in entries.iter().filter(|e| conn.is_none_or(|k| e.conn == k)) {
                if let Some(b) = self.bin_of(e.time) {
                    if let Some(bin) = self.bins.get_mut(b) {
                        *bin += 1.0;
                    }
                }
            }
            return;
        }
        self.exact = false;
        spread(
            &mut self.bins,
            chunk.start,
            chunk.end,
            count as f64,
            self.window,
        );
    }
}

/// Adds `count` spread uniformly over `[a, b]` to the bins covering `window`.
fn spread(bins: &mut [f64], a: RosTime, b: RosTime, count: f64, window: (RosTime, RosTime)) {
    let width = bins.len();
    if width == 0 {
        return;
    }
    let (w0, w1) = window;
    let span = w1.nanos_since(w0).max(1) as f64;
    let pos = |t: RosTime| t.nanos_since(w0) as f64 / span * width as f64;
    let (pa, pb) = (pos(a), pos(b));
    if pb - pa < 1e-9 {
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        if let Some(bin) = bins.get_mut((pa.max(0.0) as usize).min(width - 1)) {
            if (0.0..=width as f64).contains(&pa) {
                *bin += count;
            }
        }
        return;
    }
    let density = count / (pb - pa);
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let (first, last) = (
        pa.max(0.0).floor() as usize,
        (pb.min(width as f64).ceil() as usize).min(width),
    );
    for i in first..last {
        let lo = pa.max(i as f64);
        let hi = pb.min((i + 1) as f64);
        if hi > lo {
            if let Some(bin) = bins.get_mut(i) {
                *bin += density * (hi - lo);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spreads_counts_over_overlapping_bins() {
        let w = (RosTime::new(0, 0), RosTime::new(10, 0));
        let mut bins = vec![0.0; 10];
        spread(&mut bins, RosTime::new(2, 0), RosTime::new(4, 0), 20.0, w);
        assert_eq!(
            bins,
            vec![0.0, 0.0, 10.0, 10.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]
        );
        let mut bins = vec![0.0; 10];
        spread(
            &mut bins,
            RosTime::new(9, 500_000_000),
            RosTime::new(15, 500_000_000),
            12.0,
            w,
        );
        assert!(
            (bins[9] - 1.0).abs() < 1e-9,
            "only the visible part counts: {bins:?}"
        );
        let mut bins = vec![0.0; 10];
        spread(&mut bins, RosTime::new(5, 0), RosTime::new(5, 0), 3.0, w);
        assert!((bins[5] - 3.0).abs() < 1e-9);
    }
}
