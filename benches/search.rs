//! Content search benchmark: what the explorer's `f` runs on its search thread
//! ([`bagscope::catalog::search::search`], the same function `tui/jobs/searcher.rs` calls), timed to
//! the first batch of matches (the first marks on the timeline) and to the end, with the
//! process's CPU time beside the wall time (the machine may be shared).
//!
//! Cases (each bag is skipped with a note when missing):
//! - a field of one topic over 1 M small messages: `linear_acceleration.z > 9.9` and a string
//!   comparison on `/imu` of `bench-data/imu_1m.bag` and `imu_1m_lz4.bag`
//!   (`benches/make_imu_bag.py`);
//! - text across every string field of every topic of a 1 GB bag: a bare `"…"` over
//!   `bench-data/big1g_none.bag` and `big1g_lz4.bag` (`benches/make_big_bag.py --size-mb 1024`).
//!
//! ```sh
//! /usr/bin/python3 benches/make_imu_bag.py --count 1000000 --out bench-data/imu_1m.bag
//! /usr/bin/python3 benches/make_imu_bag.py --count 1000000 --lz4 --out bench-data/imu_1m_lz4.bag
//! /usr/bin/python3 benches/make_big_bag.py --size-mb 1024 --compression none --out bench-data/big1g_none.bag
//! /usr/bin/python3 benches/make_big_bag.py --size-mb 1024 --compression lz4 --out bench-data/big1g_lz4.bag
//! cargo bench --bench search
//! ```
//!
//! Figures: docs/performance.md, "Content search".

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::pedantic
)]

mod common;

use common::{cpu_seconds, load};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use bagscope::bag::OpenOptions;
use bagscope::catalog::Catalog;
use bagscope::catalog::search::{SearchRequest, search};
use bagscope::msg::Registry;
use bagscope::msg::expr::Expr;

struct Run {
    first: Duration,
    total: Duration,
    cpu: f64,
    matched: u64,
    tested: u64,
    updates: usize,
}

fn run(catalog: &Catalog, topics: &[&str], expr: &str) -> Run {
    let request = SearchRequest {
        topics: topics.iter().map(|t| (*t).to_string()).collect(),
        expr: Expr::parse(expr).unwrap(),
    };
    let registry = Registry::bundled();
    let cpu0 = cpu_seconds();
    let t = Instant::now();
    let mut first = None;
    let mut updates = 0;
    let (all, stats) = search(catalog, &request, &registry, &AtomicBool::new(false), |u| {
        updates += 1;
        if first.is_none() && !u.matches.is_empty() {
            first = Some(t.elapsed());
        }
        true
    })
    .unwrap();
    let total = t.elapsed();
    assert_eq!(all.len() as u64, stats.matched);
    Run {
        first: first.unwrap_or(total),
        total,
        cpu: cpu_seconds() - cpu0,
        matched: stats.matched,
        tested: stats.tested,
        updates,
    }
}

fn case(path: &Path, topics: &[&str], expr: &str) {
    if !path.exists() {
        println!(
            "{}: missing, skipped (see the header of benches/search.rs)",
            path.display()
        );
        return;
    }
    let (catalog, errors) = Catalog::open(&[path.to_path_buf()], &OpenOptions::default());
    assert!(errors.is_empty(), "{errors:?}");
    // Warm the page cache: the figures are for a bag that has been opened (the explorer's case).
    let _ = run(&catalog, topics, expr);
    let mut runs: Vec<Run> = (0..3).map(|_| run(&catalog, topics, expr)).collect();
    runs.sort_by_key(|r| r.total);
    let r = &runs[1];
    println!(
        "{} {:?} {expr}: {} of {} messages match; first marks {:.1} ms, done {:.0} ms (median of 3; \
         min {:.0}, max {:.0}); CPU {:.2} s; {} updates; load {}",
        path.file_name().unwrap().to_string_lossy(),
        topics,
        r.matched,
        r.tested,
        r.first.as_secs_f64() * 1e3,
        r.total.as_secs_f64() * 1e3,
        runs[0].total.as_secs_f64() * 1e3,
        runs[2].total.as_secs_f64() * 1e3,
        r.cpu,
        r.updates,
        load(),
    );
}

fn main() {
    let dir = std::env::var_os("BENCH_DATA").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("bench-data"),
        PathBuf::from,
    );
    for bag in ["imu_1m.bag", "imu_1m_lz4.bag"] {
        let path = dir.join(bag);
        case(&path, &["/imu"], "linear_acceleration.z > 9.9");
        case(
            &path,
            &["/imu"],
            "header.frame_id == \"imu_link\" and angular_velocity.z > 0.22",
        );
    }
    for bag in ["big1g_none.bag", "big1g_lz4.bag"] {
        let path = dir.join(bag);
        case(&path, &[], "\"heartbeat 42,\"");
        case(&path, &[], "\"lidar\"");
    }
}
