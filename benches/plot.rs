//! Plot series benchmark: extracting one field of 1 M `sensor_msgs/Imu` messages into a
//! column (uncompressed and lz4 bags), the time to the first partial piece, and the
//! per-frame plot model (envelope at 320 px, legend numbers) over the whole column.
//!
//! ```sh
//! cargo bench --bench plot            # 1 M messages
//! BENCH_MESSAGES=200000 cargo bench --bench plot
//! BENCH_PYTHON=1 cargo bench --bench plot   # also the official reader (rqt_plot's way), slow
//! ```
//!
//! The bags are written with the crate's writer into a temporary directory (about 330 MB
//! uncompressed) and removed at the end. Figures: docs/performance.md, "Plot series".

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::pedantic
)]

use std::hint::black_box;
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use bagscope::bag::writer::{BagWriter, WriterOptions};
use bagscope::bag::{Bag, OpenOptions};
use bagscope::catalog::Catalog;
use bagscope::catalog::series::{SeriesRequest, extract};
use bagscope::format::{Compression, ConnectionHeader};
use bagscope::msg::{Registry, Schema};
use bagscope::time::RosTime;
use bagscope::tui::model::plot::{PlotSeries, TimeView, YMode, frame};

/// One Imu payload (320 bytes): a 100 Hz-ish signal with a spike every 100 000 messages.
fn imu(i: u64, out: &mut Vec<u8>) {
    out.clear();
    out.extend((i as u32).to_le_bytes());
    out.extend((1_700_000_000u32 + (i / 100) as u32).to_le_bytes());
    out.extend((((i % 100) * 10_000_000) as u32).to_le_bytes());
    out.extend(8u32.to_le_bytes());
    out.extend(b"imu_link");
    let z = if i % 100_000 == 99_999 {
        50.0
    } else {
        9.81 + ((i as f64) * 0.01).sin() * 0.2
    };
    for v in [0.0, 0.0, 0.0, 1.0] {
        out.extend(f64::to_le_bytes(v));
    }
    for _ in 0..9 {
        out.extend(0.01f64.to_le_bytes());
    }
    for v in [0.001 * (i % 7) as f64, 0.0, 0.0] {
        out.extend(v.to_le_bytes());
    }
    for _ in 0..9 {
        out.extend(0.02f64.to_le_bytes());
    }
    for v in [0.1, -0.05, z] {
        out.extend(v.to_le_bytes());
    }
    for _ in 0..9 {
        out.extend(0.04f64.to_le_bytes());
    }
}

fn write_bag(path: &Path, n: u64, compression: Compression) {
    let schema = Schema::from_registry("sensor_msgs/Imu", None, &Registry::bundled()).unwrap();
    let header = ConnectionHeader {
        topic: Some("/imu".into()),
        datatype: "sensor_msgs/Imu".into(),
        md5sum: schema.md5sum().into(),
        message_definition: schema.full_text(),
        callerid: Some("/bench".into()),
        latching: None,
        raw: Vec::new(),
    };
    let mut w = BagWriter::create(
        path,
        WriterOptions {
            compression,
            ..WriterOptions::default()
        },
    )
    .unwrap();
    let conn = w.add_connection("/imu", &header).unwrap();
    let mut buf = Vec::with_capacity(512);
    for i in 0..n {
        imu(i, &mut buf);
        let t = RosTime::from_nanos(1_700_000_000_000_000_000 + i * 10_000_000 / 10);
        w.write(conn, t, &buf).unwrap();
    }
    w.finish().unwrap();
}

/// Seconds the official Python reader takes to collect the same field (what rqt_plot and
/// rqt_bag's plot do: `read_messages` and an attribute per message), when asked for and
/// installed.
fn python_seconds(path: &Path) -> Option<f64> {
    std::env::var_os("BENCH_PYTHON")?;
    let script = "import sys, time, rosbag\n\
        t = time.time()\n\
        xs = [m.linear_acceleration.z for _, m, _ in rosbag.Bag(sys.argv[1]).read_messages(topics=['/imu'])]\n\
        print(time.time() - t, len(xs))\n";
    let out = std::process::Command::new("/usr/bin/python3")
        .args(["-c", script])
        .arg(path)
        .output()
        .ok()?;
    if !out.status.success() {
        eprintln!("python: {}", String::from_utf8_lossy(&out.stderr));
        return None;
    }
    String::from_utf8(out.stdout)
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1e3)
}

fn main() {
    let n: u64 = std::env::var("BENCH_MESSAGES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1_000_000);
    let runs: usize = std::env::var("BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3);
    let dir = tempfile::tempdir().unwrap();
    let threads = bagscope::bag::default_threads();
    println!("{n} sensor_msgs/Imu messages, {threads} threads, median of {runs} runs\n");
    println!(
        "| bag | size | extract linear_acceleration.z | first piece | points | official reader |"
    );
    println!("|---|---|---|---|---|---|");
    let mut last = None;
    for (name, compression) in [("none", Compression::None), ("lz4", Compression::Lz4)] {
        let path = dir.path().join(format!("imu_{name}.bag"));
        write_bag(&path, n, compression);
        let size = std::fs::metadata(&path).unwrap().len();
        let mut times = Vec::new();
        let mut firsts = Vec::new();
        let mut column = None;
        for _ in 0..runs {
            // Opened anew each run: no chunk cache or loaded index data carries over.
            let bag = Bag::open_with(&path, OpenOptions::default()).unwrap();
            let catalog = Catalog::new(vec![bag]);
            let request = SeriesRequest::parse(&catalog, "/imu/linear_acceleration/z").unwrap();
            let start = Instant::now();
            let mut first = None;
            let (c, stats) = extract(
                &catalog,
                &request,
                &Registry::bundled(),
                &AtomicBool::new(false),
                |_| {
                    first.get_or_insert_with(|| start.elapsed());
                    true
                },
            )
            .unwrap();
            times.push(start.elapsed());
            firsts.push(first.unwrap_or_default());
            assert_eq!(stats.lost(), 0);
            assert_eq!(c.len() as u64, n);
            column = Some(c);
        }
        let python = python_seconds(&path).map_or("-".to_string(), |s| format!("{s:.1} s"));
        println!(
            "| {name} | {:.0} MB | {} | {} | {} | {python} |",
            size as f64 / 1e6,
            ms(median(times)),
            ms(median(firsts)),
            column.as_ref().map_or(0, |c| c.len())
        );
        last = column;
        std::fs::remove_file(&path).ok();
    }
    let column = last.unwrap();
    let start = Instant::now();
    let series = PlotSeries::new(column);
    let build = start.elapsed();
    let (t0, t1) = series.time_range().unwrap();
    let points = series.column().len();
    println!(
        "\nplot model over {points} points: build (levels, period) {}, {:.2} bytes/point",
        ms(build),
        series.heap_bytes() as f64 / points as f64
    );
    println!("\n| view | envelope 320 px | frame (envelope + legend + axis) | frame, 4 series |");
    println!("|---|---|---|---|");
    for (label, a, b) in [
        ("whole bag", t0, t1),
        (
            "10 %",
            t0 + (t1 - t0) / 2,
            t0 + (t1 - t0) / 2 + (t1 - t0) / 10,
        ),
        (
            "1 s",
            t0 + (t1 - t0) / 3,
            t0 + (t1 - t0) / 3 + 1_000_000_000,
        ),
    ] {
        let view = TimeView {
            start_ns: a,
            end_ns: b,
            width_px: 320,
        };
        let reps = 200;
        let mut env = Vec::new();
        let mut frames = Vec::new();
        let mut frames4 = Vec::new();
        for _ in 0..reps {
            let s = Instant::now();
            black_box(frame(
                &[&series, &series, &series, &series],
                &view,
                Some((a + b) / 2),
                YMode::Normalised,
                10,
            ));
            frames4.push(s.elapsed());
            let s = Instant::now();
            black_box(series.envelope(&view));
            env.push(s.elapsed());
            let s = Instant::now();
            black_box(frame(
                &[&series],
                &view,
                Some((a + b) / 2),
                YMode::Shared,
                10,
            ));
            frames.push(s.elapsed());
        }
        env.sort();
        frames.sort();
        frames4.sort();
        let p = |v: &[Duration], q: f64| v[((v.len() as f64 - 1.0) * q) as usize];
        println!(
            "| {label} | {:.3} ms (p99 {:.3}) | {:.3} ms (p99 {:.3}) | {:.3} ms (p99 {:.3}) |",
            p(&env, 0.5).as_secs_f64() * 1e3,
            p(&env, 0.99).as_secs_f64() * 1e3,
            p(&frames, 0.5).as_secs_f64() * 1e3,
            p(&frames, 0.99).as_secs_f64() * 1e3,
            p(&frames4, 0.5).as_secs_f64() * 1e3,
            p(&frames4, 0.99).as_secs_f64() * 1e3
        );
    }
    // The spike survives the whole-bag view.
    let e = series.envelope(&TimeView {
        start_ns: t0,
        end_ns: t1,
        width_px: 320,
    });
    let max = e
        .buckets
        .iter()
        .flatten()
        .map(|b| b.max)
        .fold(f64::MIN, f64::max);
    assert!(n < 100_000 || max == 50.0, "spike lost: {max}");
}
