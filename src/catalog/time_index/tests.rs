//! Tests of the chunks by time: walks agree with a pass over every chunk.

#![allow(
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    clippy::cast_precision_loss,
    clippy::struct_field_names,
    clippy::indexing_slicing
)]

use super::*;

/// Bins a window like the explorer's histogram, spreading chunks that are not whole.
pub(super) struct Bins {
    window: (RosTime, RosTime),
    pub(super) bins: Vec<f64>,
    wholes: usize,
    chunks: usize,
}

impl Bins {
    pub(super) fn new(window: (RosTime, RosTime), width: usize) -> Bins {
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
