//! Explorer benchmark: time from opening a bag to the first full frame, and the UI thread's
//! work per frame (handling an input, then drawing) at 160x48, on a TestBackend.
//!
//! ```sh
//! cargo bench --bench tui -- bench-data/big_lz4.bag
//! ```
//!
//! Worker requests are served between frames and not counted: that work is off the UI thread.
//!
//! `cargo bench --bench tui -- --topics 300000` writes a bag of that many topics (one
//! connection and two messages each) to a temporary directory, then times opening it, building
//! the app and drawing the first frame, a few key presses (moving, filtering, sorting, the
//! health view), and applying the health scan's reply, all on the UI thread.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::pedantic
)]

use std::time::{Duration, Instant};

use bagscope::bag::Bag;
use bagscope::catalog::Catalog;
use bagscope::tui::action::{Action, Pane};
use bagscope::tui::app::App;
use bagscope::tui::jobs::worker::decode::Decoder;
use bagscope::tui::jobs::worker::{self, Worker};
use bagscope::tui::term::event::AppEvent;
use bagscope::tui::theme::Theme;
use bagscope::tui::ui;
use ratatui::Terminal;
use ratatui::backend::TestBackend;

fn pct(v: &mut [Duration], p: f64) -> Duration {
    v.sort();
    v[((v.len() - 1) as f64 * p) as usize]
}

#[path = "../tests/common/many_topics.rs"]
#[allow(dead_code)]
mod many_topics;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--topics") {
        let n: usize = args
            .get(i + 1)
            .and_then(|n| n.parse().ok())
            .unwrap_or(300_000);
        return bench_many_topics(n);
    }
    let path = std::env::args()
        .skip(1)
        .find(|a| !a.starts_with("--"))
        .unwrap_or_else(|| "assets/demo.bag".into());
    let (w, h) = (160, 48);
    // Warm the page cache.
    drop(Bag::open(&path).unwrap());
    let t0 = Instant::now();
    let bag = Bag::open(&path).unwrap();
    let (worker, requests) = Worker::manual();
    let mut app = App::new(Catalog::new(vec![bag]), worker, w, h);
    let mut term = Terminal::new(TestBackend::new(w, h)).unwrap();
    term.draw(|f| ui::draw(f, &app, Theme::from_env())).unwrap();
    let first_frame = t0.elapsed();
    // Serve the worker's first requests (window, decode): off the UI thread in the real app.
    let mut decoder = Decoder::new();
    let mut serve = |app: &mut App| -> Duration {
        let mut ui_time = Duration::ZERO;
        while let Ok(r) = requests.try_recv() {
            let reply = worker::serve(&app.catalog, &mut decoder, r);
            let t = Instant::now();
            app.handle(AppEvent::Worker(reply));
            ui_time += t.elapsed();
        }
        ui_time
    };
    serve(&mut app);
    let script: Vec<Action> = [
        vec![Action::Down; 6],
        vec![Action::Focus(Pane::Histogram)],
        vec![Action::Right; 20],
        vec![
            Action::ZoomIn,
            Action::ZoomIn,
            Action::Left,
            Action::ZoomOut,
        ],
        vec![Action::Focus(Pane::Messages)],
        vec![Action::Down; 40],
        vec![Action::PageDown; 5],
        vec![Action::Focus(Pane::Inspector), Action::ExpandAll],
        vec![Action::Down; 30],
        vec![
            Action::Focus(Pane::Topics),
            Action::StartFilter,
            Action::Input('i'),
            Action::Input('m'),
            Action::Enter,
        ],
        vec![
            Action::CycleTimeFormat,
            Action::CycleSort,
            Action::ToggleHealth,
            Action::ToggleHealth,
        ],
    ]
    .concat();
    let mut frames = Vec::new();
    let mut replies = Vec::new();
    for _ in 0..5 {
        for a in &script {
            let t = Instant::now();
            app.apply(*a);
            term.draw(|f| ui::draw(f, &app, Theme::from_env())).unwrap();
            frames.push(t.elapsed());
            let ui = serve(&mut app);
            let t = Instant::now();
            term.draw(|f| ui::draw(f, &app, Theme::from_env())).unwrap();
            replies.push(ui + t.elapsed());
        }
    }
    println!(
        "bag: {path} ({} chunks)",
        app.catalog.bags()[0].chunks().len()
    );
    println!(
        "open to first full frame ({w}x{h}): {:.2} ms",
        first_frame.as_secs_f64() * 1e3
    );
    println!(
        "input handling + draw per frame: median {:.3} ms, p99 {:.3} ms, max {:.3} ms ({} frames)",
        pct(&mut frames, 0.5).as_secs_f64() * 1e3,
        pct(&mut frames, 0.99).as_secs_f64() * 1e3,
        pct(&mut frames, 1.0).as_secs_f64() * 1e3,
        frames.len()
    );
    println!(
        "worker reply handling + draw per frame: median {:.3} ms, p99 {:.3} ms, max {:.3} ms",
        pct(&mut replies, 0.5).as_secs_f64() * 1e3,
        pct(&mut replies, 0.99).as_secs_f64() * 1e3,
        pct(&mut replies, 1.0).as_secs_f64() * 1e3
    );
}

/// Opening, the first frame and a few key presses with `n` topics.
fn bench_many_topics(n: usize) {
    use bagscope::tui::jobs::worker::Reply;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("many_topics.bag");
    let t = Instant::now();
    many_topics::write(&path, n, 2);
    println!(
        "wrote {n} topics, {} messages, {} MB in {:.1} s",
        2 * n,
        std::fs::metadata(&path).unwrap().len() / 1_000_000,
        t.elapsed().as_secs_f64()
    );
    let (w, h) = (160, 48);
    drop(Bag::open(&path).unwrap());
    let t0 = Instant::now();
    let bag = Bag::open(&path).unwrap();
    let opened = t0.elapsed();
    let (worker, requests) = Worker::manual();
    let mut app = App::new(Catalog::new(vec![bag]), worker, w, h);
    // Filtering runs on a background thread whose results come back as events.
    let (events, filtered) = std::sync::mpsc::channel();
    app.set_events(events);
    let built = t0.elapsed();
    let mut term = Terminal::new(TestBackend::new(w, h)).unwrap();
    term.draw(|f| ui::draw(f, &app, Theme::from_env())).unwrap();
    let first_frame = t0.elapsed();
    println!(
        "open {:.0} ms, app built {:.0} ms, first frame ({w}x{h}) {:.0} ms after opening started",
        opened.as_secs_f64() * 1e3,
        built.as_secs_f64() * 1e3,
        first_frame.as_secs_f64() * 1e3
    );
    let mut decoder = Decoder::new();
    let mut serve = |app: &mut App| {
        while let Ok(r) = requests.try_recv() {
            let reply = worker::serve(&app.catalog, &mut decoder, r);
            app.handle(AppEvent::Worker(reply));
        }
    };
    serve(&mut app);
    // The health scan runs on the worker; applying its report is UI work.
    let t = Instant::now();
    let report = bagscope::catalog::health::compute(&app.catalog, &mut |_| {});
    let scan = t.elapsed();
    let t = Instant::now();
    app.handle(AppEvent::Worker(Reply::Scanned(Box::new(report))));
    term.draw(|f| ui::draw(f, &app, Theme::from_env())).unwrap();
    println!(
        "health scan (worker) {:.0} ms; applying its report + draw (UI) {:.0} ms",
        scan.as_secs_f64() * 1e3,
        t.elapsed().as_secs_f64() * 1e3
    );
    let keys: Vec<(&str, Vec<Action>)> = vec![
        ("Down", vec![Action::Down]),
        ("End", vec![Action::Bottom]),
        ("PageUp", vec![Action::PageUp]),
        ("/ s", vec![Action::StartFilter, Action::Input('s')]),
        (
            "type 'ensor_042'",
            "ensor_042".chars().map(Action::Input).collect(),
        ),
        ("Esc", vec![Action::Back]),
        ("s (sort by count)", vec![Action::CycleSort]),
        ("! (health view)", vec![Action::ToggleHealth]),
        ("G in health", vec![Action::Bottom]),
        ("Esc", vec![Action::Back]),
        ("t (time format)", vec![Action::CycleTimeFormat]),
        ("q", vec![Action::Quit]),
    ];
    for (name, actions) in keys {
        let t = Instant::now();
        for a in &actions {
            app.apply(*a);
            term.draw(|f| ui::draw(f, &app, Theme::from_env())).unwrap();
        }
        let per = t.elapsed() / u32::try_from(actions.len()).unwrap();
        // A filter computed in the background: how long until its rows are shown.
        let background = app.views.topics.list.is_filtering();
        while app.views.topics.list.is_filtering() {
            match filtered.recv_timeout(Duration::from_secs(60)) {
                Ok(ev @ AppEvent::Filtered(_)) => {
                    app.handle(ev);
                }
                Ok(_) => {}
                Err(e) => panic!("no filter result: {e}"),
            }
        }
        if background {
            term.draw(|f| ui::draw(f, &app, Theme::from_env())).unwrap();
        }
        let until_shown = t.elapsed();
        serve(&mut app);
        if background {
            println!(
                "  {name}: {:.1} ms per key (input + draw); rows shown {:.0} ms after the first key",
                per.as_secs_f64() * 1e3,
                until_shown.as_secs_f64() * 1e3
            );
        } else {
            println!(
                "  {name}: {:.1} ms per key (input + draw)",
                per.as_secs_f64() * 1e3
            );
        }
    }
    assert!(app.quit);
}
