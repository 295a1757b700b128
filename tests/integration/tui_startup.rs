//! The explorer's start: events that arrive before the app (the worker's first answers, keys)
//! are handed to it in order, never dropped. The order "the worker answers before the app
//! reaches the loop" is forced, not raced: the answers are taken from the channel and put
//! back before the app.

use std::sync::mpsc;
use std::time::{Duration, Instant};

use bagscope::bag::{Bag, OpenOptions};
use bagscope::catalog::Catalog;
use bagscope::tui::jobs::gate::Gate;
use bagscope::tui::jobs::opening::{Bags, Opening};
use bagscope::tui::jobs::worker::Reply;
use bagscope::tui::startup::{self, Wait, Waited};
use bagscope::tui::term::event::{self, AppEvent};
use bagscope::tui::theme::Theme;
use bagscope::tui::{app::App, ui};
use crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

fn demo() -> Catalog {
    let bytes = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/assets/demo.bag")).unwrap();
    let bag = Bag::from_bytes("demo.bag", bytes, OpenOptions::default()).unwrap();
    Catalog::new(vec![bag])
}

fn screen(app: &App) -> String {
    let mut t = Terminal::new(TestBackend::new(80, 24)).unwrap();
    t.draw(|f| ui::draw(f, app, Theme::mono())).unwrap();
    let buf = t.backend().buffer();
    let mut s = String::new();
    for y in 0..buf.area.height {
        for x in 0..buf.area.width {
            s.push_str(buf[(x, y)].symbol());
        }
        s.push('\n');
    }
    s
}

/// Builds the app as the opening thread does, lets its worker answer first, and runs the
/// opening screen over the events in the order: the answers, a key, the app. Returns the app
/// after the hand-over.
fn started_with_answers_first() -> (App, mpsc::Receiver<AppEvent>) {
    let catalog = demo();
    let (tx, rx) = mpsc::channel();
    let registry = bagscope::msg::Registry::bundled();
    let gate = Gate::opened();
    let ready = event::ready(
        catalog.clone(),
        (Vec::new(), None),
        registry.clone(),
        (80, 24),
        (&tx, &gate),
    );
    // Everything the background threads say until the first message window is in.
    let mut early = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let ev = rx.recv_timeout(left).expect("the worker's first window");
        let window = matches!(ev, AppEvent::Worker(Reply::Window { .. }));
        early.push(ev);
        if window {
            break;
        }
    }
    // A key typed before the first frame: `2` focuses the timeline.
    early.push(AppEvent::Input(Event::Key(KeyEvent::new(
        KeyCode::Char('2'),
        KeyModifiers::NONE,
    ))));
    for ev in early {
        tx.send(ev).unwrap();
    }
    tx.send(AppEvent::Opened(Box::new(ready))).unwrap();

    let mut terminal = Terminal::new(TestBackend::new(80, 24)).unwrap();
    let mut opening = Opening::new(&Bags::Open(catalog));
    let wait = Wait {
        rx: &rx,
        tx: &tx,
        registry: &registry,
        first_frame: &gate,
        theme: Theme::mono(),
    };
    let mut graphics = None;
    let Ok(Waited::Ready(ready, queued)) =
        startup::wait_for_app(&mut terminal, &mut opening, &wait, &mut graphics)
    else {
        panic!("the opening screen did not hand the app over");
    };
    assert!(
        queued.len() >= 2,
        "the answer and the key are queued, not dropped: {queued:?}"
    );
    let mut app = ready.app.expect("the demo bag opens");
    startup::hand_over(&mut app, queued);
    (app, rx)
}

#[test]
fn answers_and_keys_before_the_app_are_handed_to_it_in_order() {
    let (mut app, rx) = started_with_answers_first();
    assert!(
        !app.views.messages.loading,
        "the first window was handed over:\n{}",
        screen(&app)
    );
    assert!(!app.views.messages.window.entries.is_empty());
    assert_eq!(
        app.focus,
        bagscope::tui::action::Pane::Histogram,
        "the key typed before the first frame counts"
    );
    // The rest arrives as usual: the inspector's decoding.
    let deadline = Instant::now() + Duration::from_secs(20);
    while screen(&app).contains("decoding") {
        let left = deadline.saturating_duration_since(Instant::now());
        let ev = rx.recv_timeout(left).expect("the first decoded message");
        app.handle(ev);
    }
    let s = screen(&app);
    assert!(!s.contains("loading"), "{s}");
}

#[test]
fn q_and_ctrl_c_still_leave_the_opening_screen() {
    for key in [
        KeyEvent::new(KeyCode::Char('q'), KeyModifiers::NONE),
        KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL),
    ] {
        let (tx, rx) = mpsc::channel();
        tx.send(AppEvent::Input(Event::Key(key))).unwrap();
        let registry = bagscope::msg::Registry::bundled();
        let gate = Gate::opened();
        let wait = Wait {
            rx: &rx,
            tx: &tx,
            registry: &registry,
            first_frame: &gate,
            theme: Theme::mono(),
        };
        let mut terminal = Terminal::new(TestBackend::new(80, 24)).unwrap();
        let mut opening = Opening::new(&Bags::Open(demo()));
        let waited = startup::wait_for_app(&mut terminal, &mut opening, &wait, &mut None);
        assert!(matches!(waited, Ok(Waited::Quit)), "{key:?}");
    }
}

/// The real binary in tmux, started several times in a row: each first screen fills in (the
/// first topic's messages listed, the first one decoded) with no key pressed.
#[test]
fn the_first_screen_fills_in_without_a_key_every_time() {
    use crate::common::tmux::{Session, have_tmux};
    if !have_tmux() {
        crate::common::skip("tmux is not installed");
        return;
    }
    for run in 0..5 {
        let s = Session::start("first-screen", 100, 30, env!("CARGO_BIN_EXE_bagscope"));
        let screen = s.wait("the first topic's messages and the decoded message", |t| {
            t.contains("voltage=") && t.contains("voltage: ")
        });
        assert!(!screen.contains("loading…"), "run {run}:\n{screen}");
        s.keys(&["q"]);
    }
}
