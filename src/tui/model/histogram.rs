//! Message density over a time window, from chunk infos alone: each chunk's count (for the
//! selected connections) is spread over its time range. Chunks whose message list is already
//! in memory contribute exact times instead.

use crate::catalog::{BagConn, Catalog};
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
    let mut bins = vec![0.0; width];
    let mut exact = true;
    let (w0, w1) = window;
    let span = w1.nanos_since(w0).max(1) as f64;
    let bin_of = |t: RosTime| -> Option<usize> {
        if t < w0 || t > w1 || width == 0 {
            return None;
        }
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        Some(((t.nanos_since(w0) as f64 / span * width as f64) as usize).min(width - 1))
    };
    // Exact times cost a pass over the entries: keep the UI thread's work bounded on huge bags.
    let mut budget = EXACT_BUDGET;
    for (c, count) in catalog.chunks_holding(connections) {
        let chunk = c.chunk;
        if chunk.end < w0 || chunk.start > w1 {
            continue;
        }
        if let Some(entries) = c
            .source
            .loaded_entries(chunk.index)
            .filter(|e| e.len() <= budget)
        {
            budget -= entries.len();
            for e in entries
                .iter()
                .filter(|e| BagConn::new(c.bag, e.conn).is_in(connections))
            {
                if let Some(b) = bin_of(e.time).and_then(|b| bins.get_mut(b)) {
                    *b += 1.0;
                }
            }
            continue;
        }
        exact = false;
        spread(&mut bins, chunk.start, chunk.end, count as f64, window);
    }
    Histogram {
        bins,
        window,
        exact,
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
