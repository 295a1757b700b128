//! Driving the explorer's `App` without a terminal: a synchronous worker, the event channel
//! of background threads (the ROS publisher), and screens rendered with ratatui's
//! `TestBackend`.

use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use bagscope::bag::{Bag, OpenOptions};
use bagscope::catalog::Catalog;
use bagscope::catalog::health;
use bagscope::tui::action::Action;
use bagscope::tui::app::App;
use bagscope::tui::jobs::worker::decode::Decoder;
use bagscope::tui::jobs::worker::{self, Reply, Request, Worker};
use bagscope::tui::term::event::AppEvent;
use bagscope::tui::theme::Theme;
use bagscope::tui::ui;
use ratatui::Terminal;
use ratatui::backend::TestBackend;

/// An app over a catalog with a synchronous worker.
pub struct Harness {
    pub app: App,
    requests: Receiver<Request>,
    events: Receiver<AppEvent>,
    decoder: Decoder,
}

impl Harness {
    pub fn new(catalog: Catalog, w: u16, h: u16) -> Harness {
        let (worker, requests) = Worker::manual();
        let (tx, events) = mpsc::channel();
        let mut app = App::new(catalog, worker, w, h);
        app.set_events(tx);
        // Pictures in the colourless ramp, like the mono theme: screens do not depend on NO_COLOR.
        app.views.inspector.picture.depth = bagscope::tui::model::picture::ColorDepth::Grey;
        let mut h = Harness {
            app,
            requests,
            events,
            decoder: Decoder::new(),
        };
        h.pump();
        h
    }

    /// The bundled demo bag.
    pub fn demo(w: u16, h: u16) -> Harness {
        let bytes = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/assets/demo.bag")).unwrap();
        let bag = Bag::from_bytes("demo.bag", bytes, OpenOptions::default()).unwrap();
        Harness::new(Catalog::new(vec![bag]), w, h)
    }

    /// Serves every queued request and feeds the replies back, until nothing is left.
    pub fn pump(&mut self) {
        for _ in 0..100 {
            let Ok(r) = self.requests.try_recv() else {
                return;
            };
            let reply = worker::serve(&self.app.catalog, &mut self.decoder, r);
            self.app.handle(AppEvent::Worker(reply));
        }
    }

    /// Feeds the app the events background threads sent so far.
    pub fn drain_events(&mut self) {
        while let Ok(ev) = self.events.try_recv() {
            self.app.handle(ev);
        }
        self.pump();
    }

    /// Feeds the app background events until `done(app)` holds (at most `timeout`).
    pub fn wait_until(&mut self, what: &str, timeout: Duration, done: impl Fn(&App) -> bool) {
        let start = Instant::now();
        while !done(&self.app) {
            let left = timeout.saturating_sub(start.elapsed());
            match self.events.recv_timeout(left) {
                Ok(ev) => {
                    self.app.handle(ev);
                    self.pump();
                }
                Err(RecvTimeoutError::Timeout) => {
                    panic!("timed out waiting for {what}; screen:\n{}", self.screen())
                }
                Err(RecvTimeoutError::Disconnected) => panic!("events disconnected"),
            }
        }
    }

    /// Finishes the background health scan.
    pub fn scan(&mut self) {
        let report = health::compute(&self.app.catalog, &mut |_| {});
        self.app
            .handle(AppEvent::Worker(Reply::Scanned(Box::new(report))));
        self.pump();
    }

    pub fn act(&mut self, actions: &[Action]) {
        for a in actions {
            self.app.apply(*a);
            self.pump();
        }
    }

    /// Types `text` into the open prompt.
    pub fn type_text(&mut self, text: &str) {
        for c in text.chars() {
            self.act(&[Action::Input(c)]);
        }
    }

    /// Marks the interval between two jump targets (`+5`, `+8`, ...).
    pub fn mark(&mut self, start: &str, end: &str) {
        self.act(&[Action::StartJump]);
        self.type_text(start);
        self.act(&[Action::Enter, Action::MarkStart, Action::StartJump]);
        self.type_text(end);
        self.act(&[Action::Enter, Action::MarkEnd]);
    }

    pub fn screen(&self) -> String {
        let mut t =
            Terminal::new(TestBackend::new(self.app.area.width, self.app.area.height)).unwrap();
        t.draw(|f| ui::draw(f, &self.app, Theme::mono())).unwrap();
        format!("{}", t.backend())
    }

    /// The screen as ratatui's buffer (cells with their colours).
    pub fn buffer(&self) -> ratatui::buffer::Buffer {
        let mut t =
            Terminal::new(TestBackend::new(self.app.area.width, self.app.area.height)).unwrap();
        t.draw(|f| ui::draw(f, &self.app, Theme::mono())).unwrap();
        t.backend().buffer().clone()
    }

    /// The status bar (last line of the screen).
    pub fn status_bar(&self) -> String {
        self.screen().lines().last().unwrap_or_default().to_string()
    }
}

/// Selects a topic by filtering for it and pressing Enter.
pub fn select_topic(h: &mut Harness, topic: &str) {
    h.act(&[Action::StartFilter, Action::ClearInput]);
    h.type_text(topic);
    h.act(&[Action::Enter]);
}
