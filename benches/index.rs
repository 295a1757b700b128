//! Index benchmark: build time over 12 bags (≈3 GB, 10 hours) and the latency of locating a
//! 1 s interval in the 10-hour index, then reading it.
//!
//! ```sh
//! cargo bench --bench index            # generates bench-data/index/*.bag on first run
//! ```

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::pedantic
)]

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use bagscope::bag::writer::{BagWriter, WriterOptions};
use bagscope::bag::{IndexEntry, OpenOptions};
use bagscope::catalog::index::{self, Index};
use bagscope::format::{Compression, ConnectionHeader};
use bagscope::time::RosTime;

const BAGS: u32 = 12;
const SECONDS_PER_BAG: u32 = 3000; // 12 × 50 min = 10 h
const START: u32 = 1_700_000_000;

/// Writes one bag: IMU 200 Hz, odometry and tf 50 Hz, a 10 Hz "camera" of 80 KB frames.
fn generate(path: &Path, n: u32) {
    let mut w = BagWriter::create(
        path,
        WriterOptions {
            compression: Compression::Lz4,
            ..WriterOptions::default()
        },
    )
    .unwrap();
    let conn = |w: &mut BagWriter, topic: &str, ty: &str| {
        let h = ConnectionHeader::build(topic, ty, "*", "", Some("/bench"), Some("0"));
        w.add_connection(topic, &h).unwrap()
    };
    let imu = conn(&mut w, "/imu", "sensor_msgs/Imu");
    let odom = conn(&mut w, "/odom", "nav_msgs/Odometry");
    let tf = conn(&mut w, "/tf", "tf2_msgs/TFMessage");
    let cam = conn(&mut w, "/camera", "sensor_msgs/CompressedImage");
    let mut seed = 0x9e37_79b9_7f4a_7c15u64 ^ u64::from(n);
    let mut frame = vec![0u8; 80_000];
    let base = START + n * SECONDS_PER_BAG;
    for s in 0..SECONDS_PER_BAG {
        for tick in 0..200u32 {
            let t = RosTime::new(base + s, tick * 5_000_000);
            w.write(imu, t, &[7u8; 320]).unwrap();
            if tick % 4 == 0 {
                w.write(odom, t, &[3u8; 700]).unwrap();
                w.write(tf, t, &[5u8; 200]).unwrap();
            }
            if tick % 20 == 0 {
                for b in frame.iter_mut().step_by(7) {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    *b = seed as u8;
                }
                w.write(cam, t, &frame).unwrap();
            }
        }
    }
    w.finish().unwrap();
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let dir = PathBuf::from("bench-data/index");
    std::fs::create_dir_all(&dir).unwrap();
    let bags: Vec<PathBuf> = (0..BAGS)
        .map(|i| dir.join(format!("run{i:02}.bag")))
        .collect();
    for (i, b) in bags.iter().enumerate() {
        if !b.exists() {
            eprintln!("generating {}", b.display());
            generate(b, i as u32);
        }
    }
    let total: u64 = bags
        .iter()
        .map(|b| std::fs::metadata(b).unwrap().len())
        .sum();
    let idx = dir.join("all.idx");
    // Warm the page cache once, then time the build.
    index::build(&idx, &bags, &[], &mut |_| {}).unwrap();
    let t = Instant::now();
    let report = index::build(&idx, &bags, &[], &mut |_| {}).unwrap();
    let build = t.elapsed();
    // Open (checks header, metadata, every bag's size and time) and locate 1 s intervals at
    // random places of the 10 hours.
    let opens: Vec<Duration> = (0..20)
        .map(|_| {
            let t = Instant::now();
            drop(Index::open(&idx).unwrap());
            t.elapsed()
        })
        .collect();
    let ix = Index::open(&idx).unwrap();
    let mut seed = 12345u64;
    let mut locate = Vec::new();
    let mut first_msgs = Vec::new();
    for _ in 0..200 {
        seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
        let s = START + (seed >> 33) as u32 % (BAGS * SECONDS_PER_BAG - 1);
        let t = Instant::now();
        let mut q = ix.query(&["/imu".into()], RosTime::new(s, 0), RosTime::new(s + 1, 0));
        let first = q.next().unwrap().unwrap();
        locate.push(t.elapsed());
        std::hint::black_box(first);
        let t = Instant::now();
        let mut q = ix.query(&[], RosTime::new(s, 0), RosTime::new(s + 1, 0));
        std::hint::black_box(q.next());
        first_msgs.push(t.elapsed());
    }
    // Reading a 60 s interval of every topic through the index.
    let catalog = ix.catalog().unwrap();
    let s = START + 5 * 3600;
    let t = Instant::now();
    let (mut n, mut bytes) = (0u64, 0u64);
    for e in ix.query(&[], RosTime::new(s, 0), RosTime::new(s + 60, 0)) {
        let e = e.unwrap();
        let bag = catalog.bag(e.file as usize).unwrap();
        let entry = IndexEntry {
            time: RosTime::from_nanos(e.time),
            conn: bag.conn_by_file_id(e.conn).unwrap(),
            chunk: e.chunk,
            offset: e.offset,
        };
        let m = bag.read(&entry).unwrap();
        n += 1;
        bytes += m.data.len() as u64;
    }
    let read = t.elapsed();
    let _ = OpenOptions::default();
    println!(
        "bags: {BAGS}, {:.2} GB, {} h of data",
        total as f64 / 1e9,
        BAGS * SECONDS_PER_BAG / 3600
    );
    println!(
        "build: {:.2} s for {} messages, {} topics; index {:.1} MB",
        build.as_secs_f64(),
        report.entries,
        report.topics,
        report.bytes as f64 / 1e6
    );
    println!(
        "open the index (header, metadata, stat of every bag): median {:.3} ms",
        median(opens).as_secs_f64() * 1e3
    );
    println!(
        "locate a 1 s interval of /imu: median {:.1} µs, max {:.1} µs",
        median(locate.clone()).as_secs_f64() * 1e6,
        locate.iter().max().unwrap().as_secs_f64() * 1e6
    );
    println!(
        "locate a 1 s interval of all topics: median {:.1} µs, max {:.1} µs",
        median(first_msgs.clone()).as_secs_f64() * 1e6,
        first_msgs.iter().max().unwrap().as_secs_f64() * 1e6
    );
    println!(
        "read 60 s of all topics through the index: {n} messages, {:.0} MB in {:.3} s ({:.2} GB/s)",
        bytes as f64 / 1e6,
        read.as_secs_f64(),
        bytes as f64 / read.as_secs_f64() / 1e9
    );
}
