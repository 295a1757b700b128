//! The log view (`r`) on the demo bag's `/rosout`: the lines with their levels, the minimum
//! and exact level, the node picker and the text filter, `Enter` going to the line's message;
//! snapshots at 80×24 and 160×48; and end to end in tmux.

use std::time::Duration;

use bagscope::catalog::log::LogLevel;
use bagscope::tui::action::{Action, Pane};
use bagscope::tui::app::Mode;

use crate::common;
use crate::common::tmux::{Session, have_tmux};
use crate::common::tui::Harness;

/// The demo bag with its log lines read.
fn demo_with_log(w: u16, h: u16) -> Harness {
    let mut h = Harness::demo(w, h);
    h.wait_until("the log lines", Duration::from_secs(20), |app| {
        app.views.log.view.done
    });
    h
}

#[test]
fn log_view_lists_filters_and_goes_to_a_line() {
    let mut h = demo_with_log(80, 24);
    assert_eq!(
        h.app.views.log.view.lines.lines.len(),
        15,
        "every /rosout message"
    );
    h.act(&[Action::ToggleLog]);
    assert_eq!(h.app.overlays.mode, Mode::Log);
    let screen = h.screen();
    assert!(screen.contains("INFO  "), "{screen}");
    assert!(screen.contains("/base_driver"), "{screen}");
    // Minimum level WARN: the two warnings and the error.
    h.act(&[Action::LogLevel, Action::LogLevel]);
    assert_eq!(h.app.views.log.view.min_level, LogLevel::Warn);
    assert_eq!(h.app.views.log.view.shown.len(), 3);
    // Node filter.
    h.act(&[Action::LogNodeFilter]);
    h.type_text("usb");
    h.act(&[Action::Enter]);
    assert_eq!(h.app.views.log.view.shown.len(), 2);
    // Text filter (any case).
    h.act(&[Action::LogTextFilter]);
    h.type_text("vidioc");
    h.act(&[Action::Enter]);
    assert_eq!(h.app.views.log.view.shown.len(), 1);
    let line = h.app.views.log.view.selected_line().unwrap().clone();
    assert_eq!(line.level, LogLevel::Error);
    // A cancelled filter restores the one before.
    h.act(&[Action::LogTextFilter]);
    h.type_text("zzz");
    assert_eq!(h.app.views.log.view.shown.len(), 0);
    h.act(&[Action::Back]);
    assert_eq!(h.app.views.log.view.shown.len(), 1);
    // Enter: the timeline cursor at the line, its message selected, the view closed.
    h.act(&[Action::Enter]);
    assert_eq!(h.app.overlays.mode, Mode::Normal);
    assert_eq!(h.app.views.timeline.timeline.cursor(), line.time);
    assert_eq!(h.app.focus, Pane::Messages);
    assert_eq!(
        h.app
            .views
            .topics
            .list
            .selected_row()
            .map(|r| r.topic.as_str()),
        Some("/rosout")
    );
    let selected = h.app.views.messages.selected_ref().unwrap();
    assert_eq!(selected.entry.time, line.time);
}

#[test]
fn log_view_snapshots() {
    for (w, hh) in [(80u16, 24u16), (160, 48)] {
        let mut h = demo_with_log(w, hh);
        h.act(&[Action::ToggleLog]);
        insta::assert_snapshot!(format!("log_all_{w}x{hh}"), h.screen());
        // Down to the error line: its text wraps in the detail area.
        h.act(&[Action::LogLevel, Action::LogLevel, Action::Down]);
        insta::assert_snapshot!(format!("log_warn_{w}x{hh}"), h.screen());
        h.act(&[Action::LogTextFilter]);
        h.type_text("cap");
        insta::assert_snapshot!(format!("log_typing_{w}x{hh}"), h.screen());
    }
}

#[test]
fn log_view_node_picker_and_exact_level() {
    for (w, hh) in [(80u16, 24u16), (160, 48)] {
        let mut h = demo_with_log(w, hh);
        h.act(&[Action::ToggleLog, Action::LogNodeFilter]);
        assert_eq!(h.app.overlays.mode, Mode::LogPrompt);
        insta::assert_snapshot!(format!("log_picker_{w}x{hh}"), h.screen());
        // Type to narrow, Space to check: /usb_cam and /battery_monitor.
        h.type_text("cam ");
        h.act(&[Action::ClearInput]);
        h.type_text("batt ");
        insta::assert_snapshot!(format!("log_picker_checked_{w}x{hh}"), h.screen());
        h.act(&[Action::Enter]);
        assert_eq!(h.app.overlays.mode, Mode::Log);
        let view = &h.app.views.log.view;
        assert_eq!(view.node_names(), ["/battery_monitor", "/usb_cam"]);
        assert_eq!(
            view.shown.len(),
            4,
            "3 lines of /usb_cam, 1 of /battery_monitor"
        );
        // WARN and up, then WARN only.
        h.act(&[Action::LogLevel, Action::LogLevel]);
        assert_eq!(h.app.views.log.view.shown.len(), 3);
        h.act(&[Action::LogExactLevel]);
        assert_eq!(h.app.views.log.view.shown.len(), 2);
        insta::assert_snapshot!(format!("log_exact_{w}x{hh}"), h.screen());
        // Esc in the picker changes nothing; "every node" shows all again.
        h.act(&[Action::LogNodeFilter, Action::Back]);
        assert_eq!(h.app.views.log.view.nodes.len(), 2);
        h.act(&[Action::LogNodeFilter]);
        h.act(&[Action::Up; 8]);
        h.act(&[Action::Input(' '), Action::Enter]);
        assert!(h.app.views.log.view.nodes.is_empty());
        assert_eq!(h.app.views.log.view.shown.len(), 2, "every WARN");
    }
}

#[test]
fn log_view_in_tmux() {
    if !have_tmux() {
        common::skip("tmux is not installed");
        return;
    }
    let cmd = format!(
        "{}; echo EXITED:$?; sleep 30",
        env!("CARGO_BIN_EXE_bagscope")
    );
    let s = Session::start("logview", 80, 24, &cmd);
    s.wait("the demo bag", |t| {
        t.contains("Topics") && t.contains("/rosout")
    });
    s.keys(&["r"]);
    let screen = s.wait("the log view", |t| {
        t.contains("Log /rosout") && t.contains("15 of 15")
    });
    assert!(screen.contains("INFO"), "{screen}");
    assert!(screen.contains("WARN"), "{screen}");
    // Tab twice: WARN and above.
    s.keys(&["Tab", "Tab"]);
    let screen = s.wait("the WARN filter", |t| t.contains("1/3 of 15"));
    assert!(screen.contains("ERROR"), "{screen}");
    assert!(!screen.contains("INFO  /"), "{screen}");
    s.keys(&["Enter"]);
    s.wait("the log message in the inspector", |t| {
        t.contains("rosgraph_msgs/Log") && t.contains("No frame received")
    });
    s.keys(&["q"]);
    s.wait("the shell", |t| t.contains("EXITED:0"));
}

/// The log lines are read only once the first frame is on the screen (the event loop opens
/// the gate then): before it, their chunk reads and decoding would compete with that frame's.
#[test]
fn log_lines_wait_for_the_first_frame() {
    let bytes = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/assets/demo.bag")).unwrap();
    let bag = bagscope::bag::Bag::from_bytes("demo.bag", bytes, Default::default()).unwrap();
    let catalog = bagscope::catalog::Catalog::new(vec![bag]);
    let (worker, _requests) = bagscope::tui::jobs::worker::Worker::manual();
    let (tx, events) = std::sync::mpsc::channel();
    let mut app = bagscope::tui::app::App::new(catalog, worker, 80, 24);
    let first_frame = bagscope::tui::jobs::gate::Gate::default();
    app.set_events_after(tx, first_frame.clone());
    let early = events.recv_timeout(Duration::from_millis(300));
    assert!(early.is_err(), "nothing is read before the first frame");
    assert!(!app.views.log.view.done);
    first_frame.open();
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while !app.views.log.view.done && std::time::Instant::now() < deadline {
        if let Ok(ev) = events.recv_timeout(Duration::from_millis(100)) {
            app.handle(ev);
        }
    }
    assert!(app.views.log.view.done);
    assert_eq!(
        app.views.log.view.lines.lines.len(),
        15,
        "every /rosout message"
    );
}
