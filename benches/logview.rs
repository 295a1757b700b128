//! Log view benchmark: opening the view (`r`, first frame) over 100 000 log lines already
//! read, and a frame while scrolling (`↓` then drawing), at 160x48 on a TestBackend — the UI
//! thread's work. Reading the lines is background work and not counted here.
//!
//! ```sh
//! cargo bench --bench logview
//! ```

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::pedantic
)]

mod common;

use common::{cpu_seconds, thread_cpu};
use std::time::{Duration, Instant};

use bagscope::bag::{Bag, OpenOptions};
use bagscope::catalog::Catalog;
use bagscope::catalog::log::{LogLevel, LogLine, LogLines, LogPiece};
use bagscope::time::RosTime;
use bagscope::tui::action::Action;
use bagscope::tui::app::App;
use bagscope::tui::jobs::worker::Worker;
use bagscope::tui::theme::Theme;
use bagscope::tui::ui;
use ratatui::Terminal;
use ratatui::backend::TestBackend;

const LINES: u32 = 100_000;

fn pct(v: &mut [Duration], p: f64) -> Duration {
    v.sort();
    v[((v.len() - 1) as f64 * p) as usize]
}

fn lines() -> LogLines {
    let nodes: Vec<Box<str>> = (0..40).map(|i| format!("/node_{i}").into()).collect();
    let lines = (0..LINES)
        .map(|i| LogLine {
            time: RosTime::new(1_700_000_000 + i / 100, (i % 100) * 10_000_000),
            level: LogLevel::ALL[(i % 5) as usize],
            node: i % 40,
            topic: 0,
            text: format!(
                "message {i}: something happened while doing the thing number {i} of many"
            )
            .into(),
            origin: "node.cpp:42 (run)".into(),
        })
        .collect();
    LogLines { lines, nodes }
}

fn main() {
    let bytes = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/assets/demo.bag")).unwrap();
    let bag = Bag::from_bytes("demo.bag", bytes, OpenOptions::default()).unwrap();
    let (worker, _requests) = Worker::manual();
    let mut app = App::new(Catalog::new(vec![bag]), worker, 160, 48);
    let mut terminal = Terminal::new(TestBackend::new(160, 48)).unwrap();
    // The catalog's log topics, as the background reader would have found them.
    app.views.log.view.topics.topics = vec!["/rosout".into()];
    let t = Instant::now();
    app.log_piece(LogPiece {
        piece: lines(),
        fraction: 1.0,
        stats: Default::default(),
        done: true,
    });
    println!("adding {LINES} lines (merge + filter): {:?}", t.elapsed());
    let t = Instant::now();
    app.apply(Action::ToggleLog);
    terminal
        .draw(|f| ui::draw(f, &app, Theme::from_env()))
        .unwrap();
    println!("opening the log view (r + first frame): {:?}", t.elapsed());
    let mut frames = Vec::new();
    let mut frame_cpu = Vec::new();
    let cpu0 = cpu_seconds();
    for i in 0..2000 {
        let c = thread_cpu();
        let t = Instant::now();
        app.apply(if i % 500 == 499 {
            Action::PageDown
        } else {
            Action::Down
        });
        terminal
            .draw(|f| ui::draw(f, &app, Theme::from_env()))
            .unwrap();
        frames.push(t.elapsed());
        frame_cpu.push(thread_cpu().saturating_sub(c));
    }
    let cpu = (cpu_seconds() - cpu0) / frames.len() as f64;
    println!(
        "scrolling, per frame (↓ + draw): p50 {:?}, p99 {:?}, max {:?}; CPU {:.3} ms per frame; load {}",
        pct(&mut frames, 0.5),
        pct(&mut frames, 0.99),
        pct(&mut frames, 1.0),
        cpu * 1e3,
        std::fs::read_to_string("/proc/loadavg")
            .unwrap_or_default()
            .trim()
    );
    println!(
        "scrolling, this thread's CPU per frame: p50 {:?}, p99 {:?}, max {:?}",
        pct(&mut frame_cpu, 0.5),
        pct(&mut frame_cpu, 0.99),
        pct(&mut frame_cpu, 1.0)
    );
    let t = Instant::now();
    app.apply(Action::LogLevel);
    terminal
        .draw(|f| ui::draw(f, &app, Theme::from_env()))
        .unwrap();
    println!("minimum level changed (filter + frame): {:?}", t.elapsed());
}
