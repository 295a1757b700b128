//! Tests of the chunks by time carried from snapshot to snapshot of a recording: at every
//! step they walk like a pass over every chunk, and what did not change is shared.

#![allow(
    clippy::indexing_slicing,
    clippy::cast_precision_loss,
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss
)]

use std::io::Write;
use std::sync::Arc;

use super::tests::Bins;
use super::*;

/// Walks of `cat` over a few windows and connection sets agree with a pass over every chunk.
fn walks_agree(cat: &Catalog, step: usize) {
    let (Some(s), Some(e)) = (cat.start_time(), cat.end_time()) else {
        return;
    };
    let at = |f: f64| RosTime::from_nanos(s.as_nanos() + (e.nanos_since(s) as f64 * f) as u64);
    let conns: Vec<BagConn> = cat
        .bag(0)
        .map(|b| {
            b.connections()
                .iter()
                .map(|c| BagConn { bag: 0, conn: c.id })
                .collect()
        })
        .unwrap_or_default();
    let one = conns.first().copied().into_iter().collect::<Vec<_>>();
    for set in [None, Some(conns.as_slice()), Some(one.as_slice())] {
        for (w0, w1, width) in [(s, e, 150), (at(0.2), at(0.7), 37), (at(0.95), e, 9)] {
            let mut walk = Bins::new((w0, w1), width);
            cat.walk_window(set, (w0, w1), &mut walk);
            let mut every = Bins::new((w0, w1), width);
            cat.walk_every_chunk(set, (w0, w1), &mut every);
            for (i, (x, y)) in walk.bins.iter().zip(&every.bins).enumerate() {
                assert!(
                    (x - y).abs() < 1e-6,
                    "step {step}, bin {i}: {x} vs {y} ({set:?})"
                );
            }
        }
    }
}

/// The lists and run sums of `a` and `b` are the same.
fn same(a: &BagTimes, b: &BagTimes, step: usize) {
    let runs = |r: &Runs| (r.chunks.clone(), r.counts.clone(), r.levels.clone(), r.tail);
    assert_eq!(runs(&a.all), runs(&b.all), "step {step}: all chunks");
    let mut ids: Vec<_> = a.by_conn.keys().collect();
    ids.sort_unstable();
    let mut theirs: Vec<_> = b.by_conn.keys().collect();
    theirs.sort_unstable();
    assert_eq!(ids, theirs, "step {step}");
    for id in ids {
        assert_eq!(
            runs(&a.by_conn[id]),
            runs(&b.by_conn[id]),
            "step {step}: connection {id}"
        );
    }
}

#[test]
fn grown_from_snapshot_to_snapshot_they_walk_like_every_chunk() {
    let dir = tempfile::tempdir().unwrap();
    // Tiny chunks (over 1024, so runs of runs too), a topic that stops early, one that
    // starts late (a connection new to a later snapshot), and times that jump back once: the
    // chunks after the jump start before the ones kept, so the lists are built anew there.
    let mut msgs = Vec::new();
    for i in 0..6000u32 {
        let t = if i < 4000 { i } else { i - 2500 };
        msgs.push(("/fast", 100 + t / 10, (t % 10) * 100_000_000));
        if i < 1500 && i % 4 == 0 {
            msgs.push(("/early", 100 + t / 10, (t % 10) * 100_000_000 + 7));
        }
        if i > 2500 && i % 5 == 0 {
            msgs.push(("/late", 100 + t / 10, (t % 10) * 100_000_000 + 9));
        }
    }
    super::super::tests::write_bag(dir.path(), "full.bag", &msgs, 100);
    let full = std::fs::read(dir.path().join("full.bag")).unwrap();
    let (path, mut follower, live) = crate::catalog::tests::recording(dir.path(), &full);
    let mut times: Option<Arc<BagTimes>> = None;
    let (mut steps, mut shared, mut chunks) = (0, 0, 0);
    let mut written = 0;
    let mut size = 97;
    while written < live.len() {
        let end = (written + size).min(live.len());
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        file.write_all(&live[written..end]).unwrap();
        written = end;
        size = size * 3 / 2 + 50;
        while follower.poll(1 << 20).unwrap().more {}
        let snap = follower.snapshot();
        let stable = follower.closed_chunks();
        let grown = match &times {
            Some(t) => t.grow(&snap, stable),
            None => BagTimes::growing(&snap, stable),
        };
        if let (Some(before), Some(early)) = (
            &times,
            snap.connections().iter().find(|c| c.topic == "/early"),
        ) {
            if let (Some(a), Some(b)) =
                (before.by_conn.get(&early.id), grown.by_conn.get(&early.id))
            {
                shared += usize::from(Arc::ptr_eq(a, b));
            }
        }
        chunks = snap.chunks().len();
        // The same as built from scratch (the chunks sort after the ones kept, ties in index
        // order, so the lists come out the same).
        same(&grown, &BagTimes::growing(&snap, stable), steps);
        let grown = Arc::new(grown);
        times = Some(Arc::clone(&grown));
        let cat = Catalog::default().with_grown(vec![snap], 0, &grown);
        assert!(
            cat.times.get().is_some(),
            "the grown chunks by time are the catalog's"
        );
        walks_agree(&cat, steps);
        steps += 1;
    }
    assert!(
        steps > 10 && chunks > 1024,
        "{steps} steps over {chunks} chunks"
    );
    assert!(
        shared > 0,
        "the runs of a topic that stopped are shared, not copied"
    );
    // The finished bag, opened from its index, walks the same with its own chunks by time.
    let done = Catalog::new(vec![Bag::open(dir.path().join("full.bag")).unwrap()]);
    walks_agree(&done, steps);
}
