//! The topic list's bandwidth over the visible window (`catalog::window_bytes::compute`, run
//! after every zoom or pan while zoomed): its cost by window size, from chunk infos alone
//! (estimates, before the index scan) and exact from loaded index entries.
//!
//! ```sh
//! cargo bench --bench bandwidth    # on the bags of bench-data/ that exist
//! ```
//!
//! Bags: `bench-data/chunks_1000000.bag` (`cargo bench --bench chunks` writes it: 1 M chunks)
//! and `bench-data/imu_1m.bag` (`benches/make_imu_bag.py`: 1 M Imu messages in ~500 chunks);
//! a missing one is skipped with a note.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::pedantic
)]

mod common;

use std::path::Path;
use std::time::{Duration, Instant};

use bagscope::bag::{Bag, OpenOptions};
use bagscope::catalog::Catalog;
use bagscope::catalog::window_bytes::{EXACT_BUDGET, compute};
use bagscope::time::RosTime;
use bagscope::tui::model::histogram;

fn window(cat: &Catalog, from: f64, len: f64) -> (RosTime, RosTime) {
    let (a, b) = (cat.start_time().unwrap(), cat.end_time().unwrap());
    let span = b.nanos_since(a) as f64;
    let s = a.as_nanos() + (span * from) as u64;
    let e = s + (span * len) as u64;
    (RosTime::from_nanos(s), RosTime::from_nanos(e))
}

fn time(cat: &Catalog, label: &str) {
    for (name, from, len) in [("90 %", 0.05, 0.9), ("10 %", 0.45, 0.1), ("1 %", 0.5, 0.01)] {
        let w = window(cat, from, len);
        let mut took = Vec::new();
        let mut exact = false;
        for _ in 0..20 {
            let s = Instant::now();
            let b = compute(cat, w, EXACT_BUDGET);
            took.push(s.elapsed());
            exact = b.exact;
        }
        took.sort();
        let mut hist = Vec::new();
        for _ in 0..20 {
            let s = Instant::now();
            std::hint::black_box(histogram::compute(cat, None, w, 150));
            hist.push(s.elapsed());
        }
        hist.sort();
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        println!(
            "| {label} | {name} | {} | {:.2} ms | {:.2} ms | {:.2} ms |",
            if exact { "exact" } else { "estimate" },
            ms(took[took.len() / 2]),
            ms(took[took.len() - 1]),
            ms(hist[hist.len() / 2]),
        );
    }
}

fn main() {
    println!("load: {}", common::load());
    println!(
        "| bag | window | result | bandwidth: median | max of 20 | histogram (150 bins): median |"
    );
    println!("|---|---|---|---|---|---|");
    for (file, entries) in [("chunks_1000000.bag", false), ("imu_1m.bag", true)] {
        let path = Path::new("bench-data").join(file);
        if !path.exists() {
            println!("(skipped {}: missing)", path.display());
            continue;
        }
        let cat = Catalog::new(vec![Bag::open_with(&path, OpenOptions::default()).unwrap()]);
        let chunks = cat.chunks().count();
        // Before the chunks by time are built (a big catalog walks every chunk), then the
        // build (done on the opening thread after the first frame).
        let (a, b) = (cat.start_time().unwrap(), cat.end_time().unwrap());
        let s = Instant::now();
        std::hint::black_box(histogram::compute(&cat, None, (a, b), 150));
        let before = s.elapsed();
        let heap0 = common::rss_anon_kb();
        let s = Instant::now();
        cat.index_by_time();
        println!(
            "({file}: a whole-bag histogram before the chunks by time are built {:.1} ms; building them {:.1} ms, heap +{} KiB)",
            before.as_secs_f64() * 1e3,
            s.elapsed().as_secs_f64() * 1e3,
            common::rss_anon_kb().saturating_sub(heap0)
        );
        time(&cat, &format!("{file}, {chunks} chunks, chunk infos only"));
        if entries {
            for c in cat.chunks() {
                let _ = c.source.chunk_entries(c.chunk.index);
            }
            time(&cat, &format!("{file}, index entries loaded"));
        }
    }
}
