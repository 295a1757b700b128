//! Screens of the explorer in its main states, at 80x24 and 160x48, rendered with ratatui's
//! `TestBackend` and compared with reviewed snapshots (`cargo insta review`).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::pedantic
)]

mod common;

use std::sync::mpsc::Receiver;

use bagscope::bag::{Bag, OpenOptions};
use bagscope::catalog::Catalog;
use bagscope::catalog::health;
use bagscope::tui::action::{Action, Pane};
use bagscope::tui::app::App;
use bagscope::tui::event::AppEvent;
use bagscope::tui::model::inspector::Decoder;
use bagscope::tui::theme::Theme;
use bagscope::tui::ui;
use bagscope::tui::worker::{self, Reply, Request, Worker};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

/// An app over a catalog with a synchronous worker.
struct Harness {
    app: App,
    requests: Receiver<Request>,
    decoder: Decoder,
}

impl Harness {
    fn new(catalog: Catalog, w: u16, h: u16) -> Harness {
        let (worker, requests) = Worker::manual();
        let mut h = Harness {
            app: App::new(catalog, worker, w, h),
            requests,
            decoder: Decoder::new(),
        };
        h.pump();
        h
    }

    fn demo(w: u16, h: u16) -> Harness {
        let bytes = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/assets/demo.bag")).unwrap();
        let bag = Bag::from_bytes("demo.bag", bytes, OpenOptions::default()).unwrap();
        Harness::new(Catalog::new(vec![bag]), w, h)
    }

    /// Serves every queued request and feeds the replies back, until nothing is left.
    fn pump(&mut self) {
        for _ in 0..100 {
            let Ok(r) = self.requests.try_recv() else {
                return;
            };
            let reply = worker::serve(&self.app.catalog, &mut self.decoder, r);
            self.app.handle(AppEvent::Worker(reply));
        }
    }

    /// Finishes the background health scan.
    fn scan(&mut self) {
        let report = health::compute(&self.app.catalog, &mut |_| {});
        self.app
            .handle(AppEvent::Worker(Reply::Scanned(Box::new(report))));
        self.pump();
    }

    fn act(&mut self, actions: &[Action]) {
        for a in actions {
            self.app.apply(*a);
            self.pump();
        }
    }

    fn screen(&self) -> String {
        let mut t =
            Terminal::new(TestBackend::new(self.app.area.width, self.app.area.height)).unwrap();
        t.draw(|f| ui::draw(f, &self.app, Theme::mono())).unwrap();
        format!("{}", t.backend())
    }
}

fn select_topic(h: &mut Harness, topic: &str) {
    h.act(&[Action::StartFilter, Action::ClearInput]);
    for c in topic.chars() {
        h.act(&[Action::Input(c)]);
    }
    h.act(&[Action::Enter]);
}

#[test]
fn start_screen() {
    for (w, hh) in [(80, 24), (160, 48)] {
        let mut h = Harness::demo(w, hh);
        h.scan();
        insta::assert_snapshot!(format!("start_{w}x{hh}"), h.screen());
    }
}

#[test]
fn filter_with_matches_and_with_none() {
    for (w, hh) in [(80, 24), (160, 48)] {
        let mut h = Harness::demo(w, hh);
        h.scan();
        h.act(&[
            Action::StartFilter,
            Action::Input('c'),
            Action::Input('a'),
            Action::Input('m'),
        ]);
        insta::assert_snapshot!(format!("filter_cam_{w}x{hh}"), h.screen());
        h.act(&[Action::Input('x'), Action::Input('z')]);
        insta::assert_snapshot!(format!("filter_none_{w}x{hh}"), h.screen());
        h.act(&[Action::Back]);
        assert_eq!(
            h.app.topics.visible().len(),
            h.app.topics.rows().len(),
            "Esc clears the filter"
        );
    }
}

#[test]
fn histogram_zoomed_on_the_camera_gap() {
    for (w, hh) in [(80, 24), (160, 48)] {
        let mut h = Harness::demo(w, hh);
        h.scan();
        select_topic(&mut h, "image_raw");
        h.act(&[Action::Focus(Pane::Histogram), Action::StartJump]);
        for c in "+13".chars() {
            h.act(&[Action::Input(c)]);
        }
        h.act(&[Action::Enter, Action::ZoomIn, Action::ZoomIn]);
        insta::assert_snapshot!(format!("histogram_zoomed_{w}x{hh}"), h.screen());
    }
}

#[test]
fn inspector_expanded_collapsed_and_long_arrays() {
    for (w, hh) in [(80, 24), (160, 48)] {
        let mut h = Harness::demo(w, hh);
        h.scan();
        select_topic(&mut h, "/imu/data");
        h.act(&[Action::Focus(Pane::Inspector)]);
        insta::assert_snapshot!(format!("inspector_default_{w}x{hh}"), h.screen());
        h.act(&[Action::CollapseAll]);
        insta::assert_snapshot!(format!("inspector_collapsed_{w}x{hh}"), h.screen());
        // A long array: the laser scan's ranges, expanded, then "show more".
        select_topic(&mut h, "/scan");
        h.act(&[Action::Focus(Pane::Inspector), Action::ExpandAll]);
        let ranges = h
            .app
            .inspector
            .rows()
            .iter()
            .position(|r| r.label == "ranges")
            .unwrap();
        h.app.inspector.selected = ranges;
        h.app
            .inspector
            .scroll_into_view(h.app.layout.inspector_rows());
        insta::assert_snapshot!(format!("inspector_long_array_{w}x{hh}"), h.screen());
    }
}

#[test]
fn help_and_health() {
    for (w, hh) in [(80, 24), (160, 48)] {
        let mut h = Harness::demo(w, hh);
        h.scan();
        h.act(&[Action::ToggleHelp]);
        insta::assert_snapshot!(format!("help_{w}x{hh}"), h.screen());
        h.act(&[Action::Back, Action::ToggleHealth]);
        insta::assert_snapshot!(format!("health_{w}x{hh}"), h.screen());
    }
}

#[test]
fn compact_layout_shows_the_focused_pane() {
    let mut h = Harness::demo(60, 20);
    h.scan();
    insta::assert_snapshot!("compact_topics_60x20", h.screen());
    h.act(&[Action::FocusNext, Action::FocusNext, Action::FocusNext]);
    insta::assert_snapshot!("compact_inspector_60x20", h.screen());
}

#[test]
fn errors_are_shown_not_crashed() {
    // A message that does not decode: its definition disagrees with the payload.
    let bytes = std::fs::read(common::fixtures_dir().join("truncated.bag"));
    let Ok(bytes) = bytes else {
        common::skip("tests/fixtures/truncated.bag is not present");
        return;
    };
    let bag = Bag::from_bytes("truncated.bag", bytes, OpenOptions::default()).unwrap();
    let mut h = Harness::new(Catalog::new(vec![bag]), 80, 24);
    h.scan();
    insta::assert_snapshot!("recovered_bag_80x24", h.screen());
    h.act(&[Action::ToggleHealth]);
    insta::assert_snapshot!("recovered_bag_health_80x24", h.screen());
}

#[test]
fn several_bags_on_one_timeline() {
    let dir = common::fixtures_dir();
    let paths = vec![dir.join("recorded.bag"), dir.join("v12_indexed.bag")];
    if !paths.iter().all(|p| p.exists()) {
        common::skip("tests/fixtures is not present");
        return;
    }
    let (catalog, errors) = Catalog::open(&paths, &OpenOptions::default());
    assert!(errors.is_empty());
    for (w, hh) in [(80, 24), (160, 48)] {
        let mut h = Harness::new(catalog.clone(), w, hh);
        h.scan();
        insta::assert_snapshot!(
            format!("two_bags_{w}x{hh}"),
            h.screen().replace(&dir.display().to_string(), "<fixtures>")
        );
    }
}

#[test]
fn a_message_that_does_not_decode_is_shown_as_an_error() {
    use bagscope::bag::writer::{BagWriter, WriterOptions};
    use bagscope::format::{Compression, ConnectionHeader};
    use bagscope::time::RosTime;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.bag");
    let mut w = BagWriter::create(
        &path,
        WriterOptions {
            compression: Compression::None,
            chunk_size: 4096,
        },
    )
    .unwrap();
    let header = ConnectionHeader::build(
        "/status",
        "std_msgs/String",
        "992ce8a1687cec8c8bd883ec73ca41d1",
        "string data\n",
        Some("/node"),
        Some("0"),
    );
    let c = w.add_connection("/status", &header).unwrap();
    // A string claiming 1000 bytes in a 9-byte payload, then a good one.
    w.write(
        c,
        RosTime::new(100, 0),
        &[0xe8, 0x03, 0, 0, b'o', b'o', b'p', b's', b'!'],
    )
    .unwrap();
    w.write(c, RosTime::new(101, 0), &[2, 0, 0, 0, b'o', b'k'])
        .unwrap();
    w.finish().unwrap();
    let bag = Bag::open(&path).unwrap();
    let mut h = Harness::new(Catalog::new(vec![bag]), 80, 24);
    h.scan();
    insta::assert_snapshot!("decode_error_80x24", h.screen());
    h.act(&[Action::Focus(Pane::Messages), Action::Down]);
    let screen = h.screen();
    assert!(
        screen.contains("data: \"ok\""),
        "the next message still decodes:\n{screen}"
    );
}
