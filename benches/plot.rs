//! Plot series benchmark: extracting one field of 1 M `sensor_msgs/Imu` messages into a
//! column (uncompressed and lz4 bags), the time to the first partial piece, and the
//! per-frame plot model (envelope at 320 px, legend numbers) over the whole column, the
//! explorer's input + draw per frame at 160×48 with 4 series of 1 M points (ratatui's
//! `TestBackend`), and one XY-mode frame over 1 M pairs; and series computed per message
//! (`/imu: norm(linear_acceleration)`, `diff`, `rate`: the last two finished in receive-time
//! order) over the lz4 bag. CPU time (user + system, from
//! `/proc/self/stat`) is printed beside wall time: the machine may be shared.
//!
//! ```sh
//! cargo bench --bench plot            # 1 M messages
//! BENCH_MESSAGES=200000 cargo bench --bench plot
//! BENCH_PYTHON=1 cargo bench --bench plot   # also the official reader (rqt_plot's way), slow
//! # one field of a given recording (an MCAP file or ROS 2 bag directory), then nothing else:
//! BENCH_RECORDING=bench-data/ros2_1g BENCH_FIELD=/imu/data/linear_acceleration/z \
//!     cargo bench --profile release --bench plot
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

mod common;

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
use bagscope::tui::action::{Action, Pane};
use bagscope::tui::app::App;
use bagscope::tui::jobs::worker::Worker;
use bagscope::tui::model::plot::xy::xy_frame;
use bagscope::tui::model::plot::{PlotSeries, TimeView, YMode, frame};
use bagscope::tui::theme::Theme;
use bagscope::tui::ui;
use ratatui::Terminal;
use ratatui::backend::TestBackend;

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

/// User and system CPU seconds of this process so far (all threads), from `/proc/self/stat`.
fn cpu_seconds() -> (f64, f64) {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the `(comm)`: state is field 3, utime 14, stime 15 (1-based).
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let f: Vec<&str> = rest.split_whitespace().collect();
    let tick = |i: usize| f.get(i).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0) / 100.0;
    (tick(11), tick(12))
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1e3)
}

/// `BENCH_RECORDING`: one field (`BENCH_FIELD`) of the given recording (an MCAP file, a ROS 2
/// bag directory, a bag), opened anew each run; median of `BENCH_RUNS`.
fn recording(path: &str) {
    let field =
        std::env::var("BENCH_FIELD").unwrap_or_else(|_| "/imu/data/linear_acceleration/z".into());
    let runs: usize = std::env::var("BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3);
    let mut times = Vec::new();
    let mut points = 0;
    for _ in 0..runs {
        let (catalog, errors) =
            Catalog::open(&[std::path::PathBuf::from(path)], &OpenOptions::default());
        assert!(errors.is_empty(), "{errors:?}");
        let request = SeriesRequest::parse(&catalog, &field).unwrap();
        let start = Instant::now();
        let (c, stats) = extract(
            &catalog,
            &request,
            &Registry::bundled(),
            &AtomicBool::new(false),
            |_| true,
        )
        .unwrap();
        times.push(start.elapsed());
        assert_eq!(stats.lost(), 0);
        points = c.len();
    }
    times.sort();
    println!(
        "{path} {field}: {points} points, median {:.0} ms of {runs} runs",
        times[runs / 2].as_secs_f64() * 1e3
    );
}

fn main() {
    if let Ok(path) = std::env::var("BENCH_RECORDING") {
        recording(&path);
        return;
    }
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
    let mut last_path = None;
    for (name, compression) in [("none", Compression::None), ("lz4", Compression::Lz4)] {
        let path = dir.path().join(format!("imu_{name}.bag"));
        write_bag(&path, n, compression);
        let size = std::fs::metadata(&path).unwrap().len();
        let mut times = Vec::new();
        let mut firsts = Vec::new();
        let mut column = None;
        let cpu0 = cpu_seconds();
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
        let cpu1 = cpu_seconds();
        let cpu = format!(
            "user {:.2} s + sys {:.2} s",
            (cpu1.0 - cpu0.0) / runs as f64,
            (cpu1.1 - cpu0.1) / runs as f64
        );
        let python = python_seconds(&path).map_or("-".to_string(), |s| format!("{s:.1} s"));
        println!(
            "| {name} | {:.0} MB | {} ({cpu} per run) | {} | {} | {python} |",
            size as f64 / 1e6,
            ms(median(times)),
            ms(median(firsts)),
            column.as_ref().map_or(0, |c| c.len())
        );
        last = column;
        if name == "none" {
            std::fs::remove_file(&path).ok();
        } else {
            last_path = Some(path);
        }
    }
    let column = last.unwrap();
    let start = Instant::now();
    let series = PlotSeries::new(column);
    let build = start.elapsed();
    let (t0, t1) = series.time_range().unwrap();
    let points = series.len();
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
    computed_series(last_path.as_deref().unwrap(), runs, n);
    explorer_frames(last_path.as_deref().unwrap(), &series);
    xy_frames(&series);
    xy_explorer_frames(last_path.as_deref().unwrap(), &series);
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

/// Input + draw of the explorer at 160×48 with 4 series of the whole column plotted: each
/// frame applies one key's action (cursor step, zoom in / out, alternately) and draws the
/// whole screen into ratatui's `TestBackend` (what a real terminal backend adds is writing
/// the changed cells out). Worker requests the actions cause are dropped untimed (in the
/// explorer they run on the worker thread).
fn explorer_frames(path: &Path, series: &PlotSeries) {
    let bag = Bag::open_with(path, OpenOptions::default()).unwrap();
    let (worker, requests) = Worker::manual();
    let mut app = App::new(Catalog::new(vec![bag]), worker, 160, 48);
    for label in ["/imu/a", "/imu/b", "/imu/c", "/imu/d"] {
        assert!(app.add_plot(label, series.clone(), None));
    }
    app.apply(Action::Focus(Pane::Histogram));
    let mut term = Terminal::new(TestBackend::new(160, 48)).unwrap();
    let theme = Theme { color: true };
    let keys = [
        Action::Right,
        Action::Right,
        Action::ZoomIn,
        Action::Left,
        Action::ZoomOut,
        Action::Left,
    ];
    let frames = 1000;
    let mut took = Vec::with_capacity(frames);
    let cpu0 = cpu_seconds();
    let wall0 = Instant::now();
    for i in 0..frames {
        let s = Instant::now();
        app.apply(keys[i % keys.len()]);
        term.draw(|f| ui::draw(f, &app, theme)).unwrap();
        took.push(s.elapsed());
        while requests.try_recv().is_ok() {}
    }
    let wall = wall0.elapsed();
    let cpu1 = cpu_seconds();
    took.sort();
    let p = |q: f64| took[((took.len() as f64 - 1.0) * q) as usize];
    println!(
        "\nexplorer input + draw, 160x48, 4 series x {} points, {frames} frames: median {:.3} ms, p99 {:.3} ms, max {:.3} ms (wall {:.2} s, CPU user {:.2} s + sys {:.2} s)",
        series.len(),
        p(0.5).as_secs_f64() * 1e3,
        p(0.99).as_secs_f64() * 1e3,
        p(1.0).as_secs_f64() * 1e3,
        wall.as_secs_f64(),
        cpu1.0 - cpu0.0,
        cpu1.1 - cpu0.1
    );
}

/// One XY-mode frame (pairing + equal-aspect raster) over the whole column against itself,
/// 320×168 pixels (a 160×48 explorer's plot pane).
fn xy_frames(series: &PlotSeries) {
    let (t0, t1) = series.time_range().unwrap();
    let mut took = Vec::new();
    for _ in 0..50 {
        let s = Instant::now();
        black_box(xy_frame(
            series,
            series,
            (t0, t1),
            Some((t0 + t1) / 2),
            (320, 168),
            1.0,
            (20, 20),
        ));
        took.push(s.elapsed());
    }
    took.sort();
    println!(
        "XY frame over {} pairs, 320x168 px: median {:.2} ms, p99 {:.2} ms",
        series.len(),
        took[took.len() / 2].as_secs_f64() * 1e3,
        took[(took.len() - 1) * 99 / 100].as_secs_f64() * 1e3
    );
}

/// XY mode in the explorer at 160×48 over 1 M pairs: each frame applies one key's action
/// (cursor steps, zoom in / out) and draws the screen (the UI thread's work, timed); a zoom
/// asks the painter thread for a new picture, whose arrival is awaited untimed for the frame
/// and reported as the picture's latency.
fn xy_explorer_frames(path: &Path, series: &PlotSeries) {
    use bagscope::tui::jobs::notify::Notify;
    let bag = Bag::open_with(path, OpenOptions::default()).unwrap();
    let (worker, requests) = Worker::manual();
    let mut app = App::new(Catalog::new(vec![bag]), worker, 160, 48);
    let (tx, rx) = std::sync::mpsc::channel();
    app.set_xy_notify(Notify::from(tx));
    for label in ["/imu/x", "/imu/y"] {
        assert!(app.add_plot(label, series.clone(), None));
        app.views.plot.plots.set_topic(label, "/imu");
    }
    app.apply(Action::Focus(Pane::Histogram));
    app.apply(Action::TogglePlotXy);
    assert!(app.views.plot.plots.xy);
    let first = rx.recv_timeout(Duration::from_secs(60)).unwrap();
    app.handle(bagscope::tui::term::event::AppEvent::Xy(first));
    let mut term = Terminal::new(TestBackend::new(160, 48)).unwrap();
    let theme = Theme { color: true };
    let keys = [
        Action::Right,
        Action::Right,
        Action::ZoomIn,
        Action::Left,
        Action::ZoomOut,
        Action::Left,
    ];
    let frames = 600;
    let mut took = Vec::with_capacity(frames);
    let mut latency = Vec::new();
    let cpu0 = common::thread_cpu();
    for i in 0..frames {
        let s = Instant::now();
        app.apply(keys[i % keys.len()]);
        term.draw(|f| ui::draw(f, &app, theme)).unwrap();
        took.push(s.elapsed());
        while requests.try_recv().is_ok() {}
        if app.xy_pending() {
            let r = rx.recv_timeout(Duration::from_secs(60)).unwrap();
            latency.push(s.elapsed());
            app.handle(bagscope::tui::term::event::AppEvent::Xy(r));
            assert!(!app.xy_pending());
        }
    }
    let cpu = (common::thread_cpu() - cpu0).as_secs_f64();
    took.sort();
    latency.sort();
    let p = |v: &[Duration], q: f64| v[((v.len() as f64 - 1.0) * q) as usize].as_secs_f64() * 1e3;
    println!(
        "\nexplorer XY mode, 160x48, {} pairs, {frames} frames: input + draw median {:.3} ms, p99 {:.3} ms, max {:.3} ms (UI thread CPU {:.3} ms a frame); a new picture after a zoom: {} pictures, median {:.1} ms, p99 {:.1} ms",
        series.len(),
        p(&took, 0.5),
        p(&took, 0.99),
        p(&took, 1.0),
        cpu * 1e3 / frames as f64,
        latency.len(),
        p(&latency, 0.5),
        p(&latency, 0.99),
    );
}

/// Series computed per message over the lz4 bag (docs/performance.md, "Computed series"):
/// the plain field written as an expression, a norm, and the two that are finished in
/// receive-time order (`diff`, `rate`). An expression the build cannot compute prints why.
fn computed_series(path: &Path, runs: usize, n: u64) {
    println!("\n| computed series (lz4) | extract | points |");
    println!("|---|---|---|");
    for spec in [
        "/imu: linear_acceleration.z",
        "/imu: norm(linear_acceleration)",
        "/imu: diff(linear_acceleration.z)",
        "/imu: rate(header.seq)",
    ] {
        let mut times = Vec::new();
        let mut points = 0;
        for _ in 0..runs {
            let bag = Bag::open_with(path, OpenOptions::default()).unwrap();
            let catalog = Catalog::new(vec![bag]);
            let result = SeriesRequest::parse(&catalog, spec).and_then(|request| {
                let start = Instant::now();
                let (c, _) = extract(
                    &catalog,
                    &request,
                    &Registry::bundled(),
                    &AtomicBool::new(false),
                    |_| true,
                )?;
                Ok((start.elapsed(), c.len()))
            });
            match result {
                Ok((t, len)) => {
                    times.push(t);
                    points = len;
                }
                Err(e) => {
                    println!("| `{spec}` | {e} | - |");
                    break;
                }
            }
        }
        if times.len() == runs {
            assert!(points as u64 + 1 >= n, "{spec}: {points} points");
            println!("| `{spec}` | {} | {points} |", ms(median(times)));
        }
    }
}
