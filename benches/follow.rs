//! The explorer following a growing recording, headless (ratatui `TestBackend` at 160×48, the
//! event loop's work done here: events handled, a frame drawn after each change).
//!
//! A recording of N one-message chunks (`.bag.active`, the bag header's index position still
//! 0, as `rosbag record` leaves it) is opened and followed (`F` is on for `.active`). Then:
//!
//! - **idle**, 10 s with nothing written: CPU of the process, of the UI thread and of the
//!   follow thread;
//! - **busy**, 10 s of a writer appending 10 chunks (10 messages) every 100 ms: the latency
//!   from a write to its messages counted in the topic list (median, p99, max), the UI
//!   thread's time per refresh (one snapshot swapped in: catalog, topic rows, time axis,
//!   histogram), and the same CPU figures.
//!
//! `cargo bench --bench follow` (N = 12 500 and 130 000), or `-- N...` for other sizes.
//! Figures: docs/performance.md, "Following a recording".

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::pedantic
)]

mod common;

use std::io::Write;
use std::path::Path;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bagscope::bag::writer::{BagWriter, WriterOptions};
use bagscope::bag::{Bag, OpenOptions};
use bagscope::catalog::Catalog;
use bagscope::format::{Compression, ConnectionHeader};
use bagscope::time::RosTime;
use bagscope::tui::app::App;
use bagscope::tui::jobs::worker::Worker;
use bagscope::tui::term::event::AppEvent;
use bagscope::tui::theme::Theme;
use bagscope::tui::ui;
use ratatui::Terminal;
use ratatui::backend::TestBackend;

/// Chunks written per step of the busy phase, and the pause between steps.
const STEP_CHUNKS: usize = 10;
const STEP_EVERY: Duration = Duration::from_millis(100);
const PHASE: Duration = Duration::from_secs(10);
/// Chunks written after the base during the busy phase (with room to spare).
const EXTRA: usize = 2 * STEP_CHUNKS * 100;

/// A finished bag of `n` one-message chunks on `/a` and `/b`; its bytes and chunk offsets.
fn finished(path: &Path, n: usize) -> (Vec<u8>, Vec<u64>) {
    let mut w = BagWriter::create(
        path,
        WriterOptions {
            compression: Compression::None,
            chunk_size: 1,
        },
    )
    .unwrap();
    let header = |topic: &str| {
        ConnectionHeader::build(
            topic,
            "std_msgs/String",
            "992ce8a1687cec8c8bd883ec73ca41d1",
            "string data\n",
            Some("/talker"),
            Some("0"),
        )
    };
    let a = w.add_connection("/a", &header("/a")).unwrap();
    let b = w.add_connection("/b", &header("/b")).unwrap();
    for i in 0..n {
        let text = format!("message {i:08}");
        let mut data = u32::try_from(text.len()).unwrap().to_le_bytes().to_vec();
        data.extend_from_slice(text.as_bytes());
        let t = RosTime::from_nanos(1_700_000_000_000_000_000 + i as u64 * 10_000_000);
        w.write(if i % 2 == 0 { a } else { b }, t, &data).unwrap();
    }
    w.finish().unwrap();
    let bag = Bag::open(path).unwrap();
    let pos = bag.chunks().iter().map(|c| c.pos).collect();
    (std::fs::read(path).unwrap(), pos)
}

/// CPU seconds of the threads named `name` (from `/proc/self/task/*/stat`).
fn thread_cpu_named(name: &str) -> f64 {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return 0.0;
    };
    let mut total = 0.0;
    for t in tasks.flatten() {
        let comm = std::fs::read_to_string(t.path().join("comm")).unwrap_or_default();
        if comm.trim() != name {
            continue;
        }
        let stat = std::fs::read_to_string(t.path().join("stat")).unwrap_or_default();
        let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
        let f: Vec<&str> = rest.split_whitespace().collect();
        let tick = |i: usize| f.get(i).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0) / 100.0;
        total += tick(11) + tick(12);
    }
    total
}

fn visible_count(app: &App) -> u64 {
    app.views.topics.list.rows().iter().map(|r| r.count).sum()
}

/// The event loop's work: waits for events until `until`, handles each, draws after
/// changes; `after` sees the app after each event, with the UI thread's CPU time for it when
/// it swapped in a snapshot, and returns true to stop early.
struct Loop {
    app: App,
    events: mpsc::Receiver<AppEvent>,
    terminal: Terminal<TestBackend>,
}

impl Loop {
    fn run(&mut self, until: Instant, mut after: impl FnMut(&App, Option<Duration>) -> bool) {
        loop {
            let left = until.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return;
            }
            let ev = match self.events.recv_timeout(left) {
                Ok(ev) => ev,
                Err(RecvTimeoutError::Timeout) => return,
                Err(RecvTimeoutError::Disconnected) => panic!("events disconnected"),
            };
            let swap = matches!(&ev, AppEvent::Follow(n) if n.snapshot.is_some());
            let t0 = common::thread_cpu();
            let mut changed = self.app.handle(ev);
            let took = common::thread_cpu().saturating_sub(t0);
            while let Ok(ev) = self.events.try_recv() {
                changed |= self.app.handle(ev);
            }
            if changed {
                self.terminal
                    .draw(|f| ui::draw(f, &self.app, Theme::mono()))
                    .unwrap();
            }
            if after(&self.app, swap.then_some(took)) {
                return;
            }
        }
    }
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let i = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1e3)
}

struct Cpu {
    process: f64,
    ui: Duration,
    follow: f64,
}

fn cpu_now() -> Cpu {
    Cpu {
        process: common::cpu_seconds(),
        ui: common::thread_cpu(),
        follow: thread_cpu_named("follow"),
    }
}

fn cpu_since(c: &Cpu) -> String {
    let now = cpu_now();
    format!(
        "process {:.2} s, UI thread {:.3} s, follow thread {:.2} s",
        now.process - c.process,
        (now.ui - c.ui).as_secs_f64(),
        now.follow - c.follow
    )
}

fn run(n: usize) {
    let dir = tempfile::tempdir().unwrap();
    let (mut bytes, pos) = finished(&dir.path().join("full.bag"), n + EXTRA);
    let name = b"index_pos=";
    let at = bytes.windows(name.len()).position(|w| w == name).unwrap() + name.len();
    bytes[at..at + 8].fill(0);
    let path = dir.path().join("rec.bag.active");
    let cut = |k: usize| usize::try_from(pos[k]).unwrap();
    std::fs::write(&path, &bytes[..cut(n)]).unwrap();

    let t0 = Instant::now();
    let bag = Bag::open_with(&path, OpenOptions::default()).unwrap();
    let (worker, _requests) = Worker::manual();
    let (tx, events) = mpsc::channel();
    let mut app = App::new(Catalog::new(vec![bag]), worker, 160, 48);
    app.set_events(tx);
    assert!(app.jobs.follow.is_following());
    let terminal = Terminal::new(TestBackend::new(160, 48)).unwrap();
    let mut lp = Loop {
        app,
        events,
        terminal,
    };
    // Catching up: the follower reads the recording from its start.
    let mut caught = None;
    lp.run(Instant::now() + Duration::from_secs(120), |app, _| {
        if visible_count(app) >= n as u64 {
            caught = Some(t0.elapsed());
        }
        caught.is_some()
    });
    println!(
        "{n} chunks ({:.1} MB): opened and counted in {:.2} s",
        cut(n) as f64 / 1e6,
        caught.map_or(f64::NAN, |d| d.as_secs_f64())
    );
    // Settle, then idle.
    lp.run(Instant::now() + Duration::from_secs(1), |_, _| false);
    let c = cpu_now();
    lp.run(Instant::now() + PHASE, |_, _| false);
    println!("  idle 10 s: {}", cpu_since(&c));

    // Busy: a writer appends STEP_CHUNKS chunks every STEP_EVERY.
    let writes: Arc<Mutex<Vec<(Instant, u64)>>> = Arc::new(Mutex::new(Vec::new()));
    let w = Arc::clone(&writes);
    let wpath = path.clone();
    let pos2 = pos.clone();
    let bytes2 = bytes.clone();
    let writer = std::thread::spawn(move || {
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&wpath)
            .unwrap();
        let start = Instant::now();
        let mut k = n;
        let mut step = 0u32;
        while start.elapsed() < PHASE && k + STEP_CHUNKS < pos2.len() {
            let (a, b) = (pos2[k] as usize, pos2[k + STEP_CHUNKS] as usize);
            f.write_all(&bytes2[a..b]).unwrap();
            k += STEP_CHUNKS;
            w.lock().unwrap().push((Instant::now(), k as u64));
            step += 1;
            let next = start + STEP_EVERY * step;
            std::thread::sleep(next.saturating_duration_since(Instant::now()));
        }
    });
    let c = cpu_now();
    let mut latencies = Vec::new();
    let mut swaps = Vec::new();
    let mut seen = 0usize;
    lp.run(
        Instant::now() + PHASE + Duration::from_millis(600),
        |app, swap| {
            if let Some(d) = swap {
                swaps.push(d);
            }
            let visible = visible_count(app);
            let now = Instant::now();
            let w = writes.lock().unwrap();
            while let Some(&(t, count)) = w.get(seen) {
                if count > visible {
                    break;
                }
                latencies.push(now - t);
                seen += 1;
            }
            false
        },
    );
    let busy_cpu = cpu_since(&c);
    writer.join().unwrap();
    let written = writes.lock().unwrap().len();
    latencies.sort();
    swaps.sort();
    println!(
        "  busy 10 s ({written} writes of {STEP_CHUNKS} messages, {} seen): {busy_cpu}",
        latencies.len()
    );
    println!(
        "  write -> counted: median {}, p99 {}, max {}",
        ms(percentile(&latencies, 0.5)),
        ms(percentile(&latencies, 0.99)),
        ms(latencies.last().copied().unwrap_or_default()),
    );
    println!(
        "  UI thread CPU per refresh ({} refreshes): median {}, p99 {}, max {}",
        swaps.len(),
        ms(percentile(&swaps, 0.5)),
        ms(percentile(&swaps, 0.99)),
        ms(swaps.last().copied().unwrap_or_default()),
    );
}

fn main() {
    let sizes: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let sizes = if sizes.is_empty() {
        vec![12_500, 130_000]
    } else {
        sizes
    };
    println!(
        "follow: load {} ({} cores)",
        common::load(),
        std::thread::available_parallelism().map_or(1, |n| n.get())
    );
    for n in sizes {
        run(n);
    }
}
