//! Scale by chunk count: a bag with 1 000 000 chunks (one tiny message each).
//!
//! ```sh
//! cargo bench --bench chunks                    # 1 M chunks, writes bench-data/chunks_1000000.bag once
//! cargo bench --bench chunks -- --chunks 130000 # another size
//! cargo bench --bench chunks -- --no-rosbag     # skip Debian's `rosbag info` (18 s at 1 M chunks)
//! cargo bench --bench chunks -- --cold          # a 5 GB bag with its pages dropped (below)
//! ```
//!
//! Measures, each in a fresh process (this benchmark runs itself with `--child`):
//! the explorer's first full frame (open → `App::new` → first draw into a 160×48 `TestBackend`,
//! warm page cache) and its heap (`RssAnon` of `/proc/self/status`: anonymous resident memory,
//! the page cache of the file does not count) right after that frame and once the worker's
//! first requests are served; then `bagscope info` as a whole process (median of 5) against
//! Debian's `rosbag info` on the same file (once); then `echo` and `export --format csv` of
//! one topic against `rostopic echo -b` and `-p`, and `info --freq` (every chunk's index
//! data) against `rosbag info --freq` (outputs compared).
//!
//! `--cold` instead writes `bench-data/cold_5g.bag` once (`benches/make_big_bag.py --size-mb 5200
//! --compression none`, the official writer, ~7 000 chunks of 768 KiB), then three times: drops
//! the file's pages from the page cache (`dd iflag=nocache count=0`, which is
//! `posix_fadvise(POSIX_FADV_DONTNEED)` on the whole file, no privileges needed; `fincore`
//! shows what stayed), and times the explorer's first full frame in a fresh process, with the
//! read calls it made before that frame (`syscr` of `/proc/self/io`) and the bytes they read
//! from the disk (`read_bytes`).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::pedantic
)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use bagscope::bag::Bag;
use bagscope::bag::writer::{BagWriter, WriterOptions};
use bagscope::catalog::Catalog;
use bagscope::format::{Compression, ConnectionHeader};
use bagscope::time::RosTime;
use bagscope::tui::app::App;
use bagscope::tui::jobs::worker::decode::Decoder;
use bagscope::tui::jobs::worker::{self, Worker};
use bagscope::tui::term::event::AppEvent;
use bagscope::tui::theme::Theme;
use bagscope::tui::ui;
use ratatui::Terminal;
use ratatui::backend::TestBackend;

/// Writes `n` chunks of one `std_msgs/UInt64` each, 100 Hz, alternating over three topics.
fn generate(path: &Path, n: u64) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let mut w = BagWriter::create(
        path,
        WriterOptions {
            compression: Compression::None,
            chunk_size: 0,
        },
    )
    .unwrap();
    let conns: Vec<u32> = ["/tick", "/tock", "/status"]
        .iter()
        .map(|topic| {
            let h = ConnectionHeader::build(
                topic,
                "std_msgs/UInt64",
                "1b2a79973e8bf53d7b53acb71299cb57",
                "uint64 data\n",
                Some("/bench"),
                Some("0"),
            );
            w.add_connection(topic, &h).unwrap()
        })
        .collect();
    for i in 0..n {
        let t = RosTime::new(
            1_700_000_000 + (i / 100) as u32,
            (i % 100) as u32 * 10_000_000,
        );
        let conn = conns[(i % 3) as usize];
        w.write(conn, t, &i.to_le_bytes()).unwrap();
    }
    w.finish().unwrap();
}

fn rss_anon_mb() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("RssAnon:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or(f64::NAN, |kb| kb / 1024.0)
}

/// `syscr` (read calls), `rchar` (bytes asked for) and `read_bytes` (bytes from the disk)
/// of `/proc/self/io`.
fn io_counts() -> [f64; 3] {
    let io = std::fs::read_to_string("/proc/self/io").unwrap_or_default();
    let field = |name: &str| {
        io.lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.trim().parse::<f64>().ok())
            .unwrap_or(f64::NAN)
    };
    [field("syscr:"), field("rchar:"), field("read_bytes:")]
}

/// In a fresh process: open, build the app, draw once; print the time and the heap.
fn child(path: &str) {
    let (w, h) = (160, 48);
    let io0 = io_counts();
    let t0 = Instant::now();
    let bag = Bag::open(path).unwrap();
    let opened = t0.elapsed();
    let (worker, requests) = Worker::manual();
    let mut app = App::new(Catalog::new(vec![bag]), worker, w, h);
    let built = t0.elapsed();
    let mut term = Terminal::new(TestBackend::new(w, h)).unwrap();
    term.draw(|f| ui::draw(f, &app, Theme::from_env())).unwrap();
    let first = t0.elapsed();
    let io1 = io_counts();
    let heap_first = rss_anon_mb();
    let t = Instant::now();
    let mut decoder = Decoder::new();
    while let Ok(r) = requests.try_recv() {
        let reply = worker::serve(&app.catalog, &mut decoder, r);
        app.handle(AppEvent::Worker(reply));
    }
    term.draw(|f| ui::draw(f, &app, Theme::from_env())).unwrap();
    let served = t.elapsed();
    println!(
        "{} {} {} {} {} {} {} {} {}",
        opened.as_secs_f64(),
        built.as_secs_f64(),
        first.as_secs_f64(),
        heap_first,
        served.as_secs_f64(),
        rss_anon_mb(),
        io1[0] - io0[0],
        io1[1] - io0[1],
        io1[2] - io0[2],
    );
}

fn run_child(path: &Path) -> Vec<f64> {
    let out = Command::new(std::env::current_exe().unwrap())
        .arg("--child")
        .arg(path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .map(|v| v.parse().unwrap())
        .collect()
}

fn time_process(cmd: &mut Command) -> Duration {
    let t = Instant::now();
    let status = cmd.stdout(Stdio::null()).status().unwrap();
    let d = t.elapsed();
    assert!(status.success(), "{cmd:?} failed");
    d
}

/// The first frame of a multi-GB bag whose pages were dropped from the page cache.
fn cold() {
    let path = PathBuf::from("bench-data/cold_5g.bag");
    if !path.exists() {
        let t = Instant::now();
        let status = Command::new("/usr/bin/python3")
            .args(["benches/make_big_bag.py", "--size-mb", "5200"])
            .args(["--compression", "none", "-q", "--out"])
            .arg(&path)
            .status()
            .unwrap();
        assert!(status.success(), "make_big_bag.py failed");
        println!(
            "wrote {} in {:.0} s",
            path.display(),
            t.elapsed().as_secs_f64()
        );
    }
    let size = std::fs::metadata(&path).unwrap().len();
    let chunks = Bag::open(&path).unwrap().chunks().len();
    println!(
        "bag: {} ({chunks} chunks, {} MB)",
        path.display(),
        size / 1_000_000
    );
    for _ in 0..3 {
        // Dirty pages cannot be dropped: write them first.
        Command::new("sync").status().unwrap();
        let dropped = Command::new("dd")
            .arg(format!("if={}", path.display()))
            .args(["iflag=nocache", "count=0", "status=none"])
            .status()
            .unwrap();
        assert!(dropped.success(), "dd iflag=nocache failed");
        let cached = Command::new("fincore")
            .args(["--bytes", "--noheadings", "--output", "RES"])
            .arg(&path)
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
            .unwrap_or_default();
        let r = run_child(&path);
        println!(
            "cold (cached before: {cached} bytes): first full frame (160x48) {:.0} ms (open {:.0} ms), \
             {} read calls ({:.1} MB asked, {:.1} MB from disk) before it, heap {:.0} MB",
            r[2] * 1e3,
            r[0] * 1e3,
            r[6],
            r[7] / 1e6,
            r[8] / 1e6,
            r[3]
        );
    }
    let r = run_child(&path);
    println!(
        "warm: first full frame {:.0} ms, {} read calls before it",
        r[2] * 1e3,
        r[6]
    );
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--child") {
        return child(&args[i + 1]);
    }
    if args.iter().any(|a| a == "--cold") {
        return cold();
    }
    let n: u64 = args
        .iter()
        .position(|a| a == "--chunks")
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(1_000_000);
    let rosbag = !args.iter().any(|a| a == "--no-rosbag");
    let path = PathBuf::from(format!("bench-data/chunks_{n}.bag"));
    if !path.exists() {
        let t = Instant::now();
        generate(&path, n);
        println!(
            "wrote {} in {:.1} s",
            path.display(),
            t.elapsed().as_secs_f64()
        );
    }
    let size = std::fs::metadata(&path).unwrap().len();
    println!(
        "bag: {} ({n} chunks, {} MB)",
        path.display(),
        size / 1_000_000
    );
    // Warm the page cache, then three fresh processes.
    let _ = run_child(&path);
    for _ in 0..3 {
        let r = run_child(&path);
        println!(
            "explorer: open {:.0} ms, app built {:.0} ms, first full frame (160x48) {:.0} ms, heap {:.0} MB, \
             {} read calls; first worker requests served in {:.0} ms, heap then {:.0} MB",
            r[0] * 1e3,
            r[1] * 1e3,
            r[2] * 1e3,
            r[3],
            r[6],
            r[4] * 1e3,
            r[5]
        );
    }
    let exe = env!("CARGO_BIN_EXE_bagscope");
    let mut runs: Vec<Duration> = (0..5)
        .map(|_| time_process(Command::new(exe).arg("info").arg(&path)))
        .collect();
    runs.sort();
    let ours = runs[runs.len() / 2];
    println!(
        "bagscope info (process): median {:.0} ms (min {:.0}, max {:.0})",
        ours.as_secs_f64() * 1e3,
        runs[0].as_secs_f64() * 1e3,
        runs[runs.len() - 1].as_secs_f64() * 1e3
    );
    if rosbag {
        let theirs = time_process(
            Command::new("rosbag")
                .arg("info")
                .arg(&path)
                .env("TZ", "UTC"),
        );
        println!(
            "rosbag info (process): {:.2} s; ratio {:.0}x",
            theirs.as_secs_f64(),
            theirs.as_secs_f64() / ours.as_secs_f64()
        );
    }
    text_output(exe, &path, rosbag);
}

/// `echo` and `export --format csv` of one topic (a third of the chunks, one message each) as
/// processes, median of 3, against `rostopic echo -b` / `rostopic echo -b -p` once, outputs
/// compared byte for byte: the merge's cost per chunk, at a million chunks.
fn text_output(exe: &str, path: &Path, rosbag: bool) {
    let out = |name: &str| std::env::temp_dir().join(format!("bench-chunks-{name}"));
    // (name, our arguments, the official tool and its arguments before the bag, after it)
    type Job<'a> = (
        &'a str,
        &'a [&'a str],
        &'a str,
        &'a [&'a str],
        &'a [&'a str],
    );
    let jobs: [Job; 3] = [
        (
            "echo",
            &["echo", "-t", "/tick"],
            "rostopic",
            &["echo", "-b"],
            &["/tick"],
        ),
        (
            "csv",
            &["export", "--format", "csv", "-t", "/tick"],
            "rostopic",
            &["echo", "-p", "-b"],
            &["/tick"],
        ),
        // Every message's time (the index data of every chunk) for the median rates.
        (
            "freq",
            &["info", "--freq"],
            "rosbag",
            &["info", "--freq"],
            &[],
        ),
    ];
    for (name, ours_args, tool, theirs_args, tail) in jobs {
        let mine = out(&format!("{name}.ours"));
        let mut runs: Vec<Duration> = (0..3)
            .map(|_| {
                let file = std::fs::File::create(&mine).unwrap();
                let t = Instant::now();
                let status = Command::new(exe)
                    .args(ours_args)
                    .arg(path)
                    .env("TZ", "UTC")
                    .stdout(file)
                    .status()
                    .unwrap();
                assert!(status.success());
                t.elapsed()
            })
            .collect();
        runs.sort();
        let ours = runs[1];
        print!(
            "bagscope {} (process): median {:.2} s (min {:.2}, max {:.2})",
            ours_args.join(" "),
            ours.as_secs_f64(),
            runs[0].as_secs_f64(),
            runs[2].as_secs_f64()
        );
        if rosbag {
            let theirs_file = out(&format!("{name}.rostopic"));
            let file = std::fs::File::create(&theirs_file).unwrap();
            let t = Instant::now();
            let status = Command::new(tool)
                .args(theirs_args)
                .arg(path)
                .args(tail)
                .env("TZ", "UTC")
                .stdout(file)
                .status()
                .unwrap();
            let theirs = t.elapsed();
            assert!(status.success());
            let same = std::fs::read(&mine).unwrap() == std::fs::read(&theirs_file).unwrap();
            print!(
                "; {tool} {}: {:.1} s, ratio {:.0}x, output {}",
                theirs_args.join(" "),
                theirs.as_secs_f64(),
                theirs.as_secs_f64() / ours.as_secs_f64(),
                if same { "identical" } else { "DIFFERENT" }
            );
            let _ = std::fs::remove_file(&theirs_file);
        }
        println!();
        let _ = std::fs::remove_file(&mine);
    }
}
