//! Reader benchmark: time to open a bag and produce `info`, and full read-and-decompress
//! throughput, beside the official tools on the same files, in the same run.
//!
//! ```sh
//! cargo bench --bench reader -- bench-data/big_lz4.bag bench-data/big_none.bag
//! ```
//!
//! Without arguments it uses every `bench-data/*.bag`. Prints a Markdown table (see
//! docs/performance.md for the figures and how the bags were made).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::pedantic
)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use bagscope::bag::{Bag, Query};
use bagscope::cli::info::summary::text_summary;

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn time<T>(f: impl FnOnce() -> T) -> (Duration, T) {
    let t = Instant::now();
    let r = f();
    (t.elapsed(), r)
}

fn have(cmd: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {cmd}")])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Touches every payload byte (so the read is real) and returns (messages, payload bytes).
fn read_all(bag: &Bag, parallel: bool) -> (u64, u64) {
    let mut n = 0u64;
    let mut bytes = 0u64;
    let mut acc = 0u64;
    for m in bag.messages(&Query::all().parallel(parallel)) {
        let m = m.unwrap();
        n += 1;
        bytes += m.data.len() as u64;
        // One byte per cache line: every line of the payload is fetched, cheaply.
        acc = m
            .data
            .iter()
            .step_by(64)
            .fold(acc, |a, &b| a.wrapping_add(u64::from(b)));
    }
    std::hint::black_box(acc);
    (n, bytes)
}

fn python_read(path: &Path) -> Option<Duration> {
    if !Path::new("/usr/bin/python3").exists() {
        return None;
    }
    let script = "import sys, rosbag\nn=0\nfor t, raw, ts in rosbag.Bag(sys.argv[1]).read_messages(raw=True):\n    n += len(raw[1])\nprint(n)";
    let (d, out) = time(|| {
        Command::new("/usr/bin/python3")
            .args(["-c", script])
            .arg(path)
            .output()
    });
    out.ok().filter(|o| o.status.success()).map(|_| d)
}

fn main() {
    let mut bags: Vec<PathBuf> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .map(PathBuf::from)
        .collect();
    if bags.is_empty() {
        if let Ok(rd) = std::fs::read_dir("bench-data") {
            bags = rd
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "bag"))
                .collect();
            bags.sort();
        }
    }
    if bags.is_empty() {
        eprintln!("no bags: generate them with benches/make_big_bag.py (see benches/README.md)");
        return;
    }
    let rosbag = have("rosbag");
    let threads = bagscope::bag::default_threads();
    println!("threads: {threads}\n");
    println!(
        "| bag | size | chunks | open+info (warm, median of 20) | `rosbag info` (median of 3) | speed-up | full read, 1 thread | full read, {threads} threads | throughput (uncompressed bytes / s) | Python `read_messages(raw=True)` |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for path in &bags {
        let size = std::fs::metadata(path).unwrap().len();
        // Warm the page cache and check the bag opens from its index.
        let bag = Bag::open(path).unwrap();
        assert!(bag.is_indexed(), "{} is not indexed", path.display());
        let chunks = bag.chunks().len();
        let uncompressed: u64 = bag
            .chunks()
            .iter()
            .map(|c| bag.head(c.index).unwrap().uncompressed_size)
            .sum();
        drop(bag);
        let opens: Vec<Duration> = (0..20)
            .map(|_| {
                time(|| {
                    let bag = Bag::open(path).unwrap();
                    std::hint::black_box(text_summary(&bag, &path.display().to_string(), false));
                })
                .0
            })
            .collect();
        let open = median(opens);
        let rosbag_info = rosbag.then(|| {
            median(
                (0..3)
                    .map(|_| {
                        time(|| {
                            Command::new("rosbag")
                                .arg("info")
                                .arg(path)
                                .output()
                                .unwrap()
                        })
                        .0
                    })
                    .collect(),
            )
        });
        let bag = Bag::open(path).unwrap();
        let (seq, (n, payload)) = time(|| read_all(&bag, false));
        let par = median((0..3).map(|_| time(|| read_all(&bag, true)).0).collect());
        let py = python_read(path);
        let fmt = |d: Duration| format!("{:.1} ms", d.as_secs_f64() * 1e3);
        let secs = |d: Duration| format!("{:.2} s", d.as_secs_f64());
        println!(
            "| {} | {:.0} MB | {chunks} | {} | {} | {} | {} | {} | {:.2} GB/s ({n} msgs, {:.0} MB payload) | {} |",
            path.file_name().unwrap().to_string_lossy(),
            size as f64 / 1e6,
            fmt(open),
            rosbag_info.map_or("n/a".into(), secs),
            rosbag_info.map_or("n/a".into(), |r| format!(
                "{:.0}x",
                r.as_secs_f64() / open.as_secs_f64()
            )),
            secs(seq),
            secs(par),
            uncompressed as f64 / par.as_secs_f64() / 1e9,
            payload as f64 / 1e6,
            py.map_or("n/a".into(), secs),
        );
    }
}
