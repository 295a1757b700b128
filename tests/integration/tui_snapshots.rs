//! Screens of the explorer in its main states, at 80x24 and 160x48, rendered with ratatui's
//! `TestBackend` and compared with reviewed snapshots (`cargo insta review`).

use bagscope::bag::{Bag, OpenOptions};
use bagscope::catalog::Catalog;
use bagscope::tui::action::{Action, Pane};

use crate::common;
use crate::common::synth::{plain_writer, string_header};
use crate::common::tui::{Harness, select_topic};

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
            h.app.views.topics.list.visible().len(),
            h.app.views.topics.list.rows().len(),
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
            .views
            .inspector
            .tree
            .rows()
            .iter()
            .position(|r| r.label == "ranges")
            .unwrap();
        h.app.views.inspector.tree.selected = ranges;
        h.app
            .views
            .inspector
            .tree
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
    use bagscope::time::RosTime;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.bag");
    let mut w = plain_writer(&path);
    let header = string_header("/status", "/node");
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

#[test]
fn marked_interval_is_shown_exported_and_played() {
    let mut h = Harness::demo(80, 24);
    h.scan();
    let dir = tempfile::tempdir().unwrap();
    h.app.settings.output_dir = dir.path().to_path_buf();
    select_topic(&mut h, "/imu/data");
    h.act(&[Action::Focus(Pane::Histogram), Action::StartJump]);
    for c in "+5".chars() {
        h.act(&[Action::Input(c)]);
    }
    h.act(&[Action::Enter, Action::MarkStart, Action::StartJump]);
    for c in "+8".chars() {
        h.act(&[Action::Input(c)]);
    }
    h.act(&[Action::Enter, Action::MarkEnd]);
    insta::assert_snapshot!("marked_interval_80x24", h.screen());
    let (a, b) = (
        h.app.views.timeline.marks.0.unwrap(),
        h.app.views.timeline.marks.1.unwrap(),
    );
    assert_eq!(b.nanos_since(a), 3_000_000_000);
    // Export: every message of every topic in [a, b], in a bag beside.
    h.act(&[Action::ExportMarked]);
    let written: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    assert_eq!(written.len(), 1, "{written:?}");
    let out = Bag::open(&written[0]).unwrap();
    // Only the topics the `/` filter shows, as `p` publishes them.
    let rows = h.app.views.topics.list.rows();
    let shown: Vec<String> = h
        .app
        .views
        .topics
        .list
        .visible()
        .iter()
        .filter_map(|v| rows.get(v.row))
        .map(|r| r.topic.clone())
        .collect();
    assert!(!shown.is_empty() && shown.len() < rows.len(), "{shown:?}");
    let expected = h
        .app
        .catalog
        .messages(&bagscope::catalog::Selection {
            topics: shown.clone(),
            start: Some(a),
            end: Some(b),
            ..Default::default()
        })
        .count() as u64;
    assert!(expected > 0);
    assert_eq!(out.message_count(), expected);
    assert!(out.connections().iter().all(|c| shown.contains(&c.topic)));
    // The status bar names the bag written, with its full path.
    let screen = h.screen();
    assert!(
        screen.contains(&format!("wrote {}", written[0].display())),
        "{screen}"
    );
    // Play: from the cursor at 1x, then 4x; the latest /imu message follows the cursor.
    h.act(&[Action::StartJump]);
    for c in "+5".chars() {
        h.act(&[Action::Input(c)]);
    }
    h.act(&[Action::Enter]);
    let t0 = std::time::Instant::now();
    h.app.toggle_play(t0);
    assert!(
        h.app
            .advance_play(t0 + std::time::Duration::from_millis(500))
    );
    h.pump();
    // The play state leads the timeline's title: visible at 80 columns.
    insta::assert_snapshot!("playing_80x24", h.screen());
    let start = h.app.views.timeline.timeline.bounds().0;
    assert_eq!(
        h.app.views.timeline.timeline.cursor().nanos_since(start),
        5_500_000_000
    );
    let shown = h.app.views.inspector.tree.data.as_ref().unwrap().time;
    assert!(
        shown <= h.app.views.timeline.timeline.cursor()
            && h.app.views.timeline.timeline.cursor().nanos_since(shown) < 20_000_000,
        "the latest /imu message is shown"
    );
    // Playing stops at the end of the marked interval.
    assert!(h.app.advance_play(t0 + std::time::Duration::from_secs(60)));
    assert!(h.app.jobs.play.is_none());
    assert_eq!(h.app.views.timeline.timeline.cursor(), b);
}

/// A node configuration whose master is on a closed port (none if something listens there).
fn unreachable_master() -> Option<bagscope::ros::NodeConfig> {
    if std::net::TcpStream::connect("127.0.0.1:1").is_ok() {
        return None;
    }
    Some(common::ros_graph::node_config(
        "http://127.0.0.1:1/",
        "bagscope_snapshot",
    ))
}

#[test]
fn publishing_needs_a_mark_and_reports_an_unreachable_master() {
    use std::time::Duration;
    let mut h = Harness::demo(80, 24);
    h.scan();
    h.act(&[Action::TogglePublish]);
    assert!(h.app.jobs.publishing.is_none());
    let bar = h.status_bar();
    assert!(bar.contains("mark an interval first"), "{bar}");
    let Some(config) = unreachable_master() else {
        common::skip("something listens on 127.0.0.1:1");
        return;
    };
    h.mark("+5", "+8");
    h.app.settings.publish.config = Some(config);
    h.act(&[Action::TogglePublish, Action::Confirm]);
    // The action returns before the network is touched: the run is only starting (its
    // reports are still in the channel).
    assert!(h.app.is_publishing());
    assert!(h.status_bar().contains("ROS … starting · all topics"));
    h.wait_until("the failure", Duration::from_secs(10), |a| {
        !a.is_publishing()
    });
    insta::assert_snapshot!("ros_unreachable_80x24", h.screen());
    let bar = h.status_bar();
    assert!(
        bar.contains("ROS ✗ cannot reach the ROS master at http://127.0.0.1:1/"),
        "{bar}"
    );
    // Wide enough for the cause too.
    h.act(&[Action::Resize(160, 48)]);
    insta::assert_snapshot!("ros_unreachable_160x48", h.screen());
    let bar = h.status_bar();
    assert!(
        bar.contains("http://127.0.0.1:1/: Connection refused"),
        "{bar}"
    );
    // Esc clears the report; the marks stay.
    h.act(&[Action::Back]);
    assert!(h.app.jobs.publishing.is_none());
    assert!(h.app.views.timeline.marks.0.is_some() && h.app.views.timeline.marks.1.is_some());
}

#[test]
fn publishing_in_progress_stopped_and_done() {
    use bagscope::tui::jobs::publish::{Phase, Progress, RosEvent, Update};
    use std::time::Duration;
    let master = common::ros_graph::FakeMaster::start();
    let mut h = Harness::demo(80, 24);
    h.scan();
    h.mark("+5", "+8");
    h.app.settings.publish.config =
        Some(common::ros_graph::node_config(&master.uri, "bagscope_snap"));
    // Every topic, so slowly that it stays at the start.
    h.app.settings.publish.rate = 0.01;
    h.act(&[Action::TogglePublish, Action::Confirm]);
    h.wait_until("publishing", Duration::from_secs(10), |a| {
        matches!(
            a.jobs.publishing.as_ref().map(|p| &p.phase),
            Some(Phase::Publishing(_))
        )
    });
    let bar = h.status_bar();
    assert!(
        bar.contains("ROS ▶ 0.0/3.0 s 0% · all topics at 0.01×"),
        "{bar}"
    );
    let topics = h.app.views.topics.list.rows().len();
    assert_eq!(master.topics("registerPublisher").len(), topics);
    // Progress as the publisher thread reports it (a fixed point, for the snapshot).
    let run = h.app.jobs.publishing.as_ref().unwrap().run;
    h.app
        .handle(bagscope::tui::term::event::AppEvent::Ros(RosEvent {
            run,
            update: Update::Progress(Progress {
                at: 12,
                total: 30,
                percent: 40,
            }),
        }));
    insta::assert_snapshot!("ros_publishing_80x24", h.screen());
    // A report of another run changes nothing.
    assert!(
        !h.app
            .handle(bagscope::tui::term::event::AppEvent::Ros(RosEvent {
                run: run + 1000,
                update: Update::Failed("stale".into()),
            }))
    );
    // p again stops: every topic is unregistered.
    h.act(&[Action::TogglePublish]);
    assert!(h.status_bar().contains("ROS ■ stopping…"));
    h.wait_until("the stop", Duration::from_secs(10), |a| !a.is_publishing());
    let bar = h.status_bar();
    assert!(bar.contains("ROS ■ stopped: "), "{bar}");
    assert_eq!(
        master.topics("unregisterPublisher"),
        master.topics("registerPublisher")
    );

    // The topics the filter shows, under a namespace, fast: to the end.
    let master = common::ros_graph::FakeMaster::start();
    h.app.settings.publish = bagscope::tui::jobs::publish::Settings {
        namespace: "/replay".into(),
        rate: 20.0,
        config: Some(common::ros_graph::node_config(&master.uri, "bagscope_snap")),
    };
    select_topic(&mut h, "/imu/data");
    h.act(&[Action::TogglePublish, Action::Confirm]);
    h.wait_until("the end", Duration::from_secs(20), |a| !a.is_publishing());
    insta::assert_snapshot!("ros_done_80x24", h.screen());
    let (a, b) = (
        h.app.views.timeline.marks.0.unwrap(),
        h.app.views.timeline.marks.1.unwrap(),
    );
    let expected = h
        .app
        .catalog
        .messages(&bagscope::catalog::Selection {
            topics: vec!["/imu/data".into()],
            start: Some(a),
            end: Some(b),
            ..Default::default()
        })
        .count();
    assert_eq!(
        expected, 301,
        "3 s of /imu/data at 100 Hz, both ends included"
    );
    let bar = h.status_bar();
    assert!(
        bar.contains(&format!("ROS ✓ done: {expected} messages published")),
        "{bar}"
    );
    assert_eq!(master.topics("registerPublisher"), ["/replay/imu/data"]);
    assert_eq!(master.topics("unregisterPublisher"), ["/replay/imu/data"]);
}

/// A screen of the opening state (the bags are opened on a background thread).
fn opening_screen(opening: &bagscope::tui::jobs::opening::Opening, w: u16, hh: u16) -> String {
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;
    let mut t = Terminal::new(TestBackend::new(w, hh)).unwrap();
    t.draw(|f| {
        let area = f.area();
        bagscope::tui::view::opening::draw(
            f,
            opening,
            std::time::Duration::from_millis(3400),
            bagscope::tui::theme::Theme::mono(),
            area,
        );
    })
    .unwrap();
    format!("{}", t.backend())
}

#[test]
fn opening_screen_says_what_is_happening() {
    use bagscope::tui::jobs::opening::{Bags, Opening, Progress};
    let paths = vec![
        std::path::PathBuf::from("/data/runs/2026-11-20/unindexed_bz2.bag"),
        std::path::PathBuf::from("/data/runs/2026-11-20/second.bag"),
    ];
    let mut o = Opening::new(&Bags::Paths(paths, OpenOptions::default()));
    for (w, hh) in [(80, 24), (160, 48)] {
        insta::assert_snapshot!(format!("opening_{w}x{hh}"), opening_screen(&o, w, hh));
    }
    // A bag without an index: the recovery scan's progress, redrawn only when its text changes.
    use bagscope::bag::RecoveryProgress::{Decoding, Scanning};
    let gib = 1_288_490_189; // 1.2 GiB
    assert!(o.apply(&Progress::Recovery(Scanning {
        done: gib * 42 / 100 + 1000,
        total: gib
    })));
    assert!(
        !o.apply(&Progress::Recovery(Scanning {
            done: gib * 42 / 100 + 2000,
            total: gib
        })),
        "still 42 %: nothing to redraw"
    );
    assert_eq!(o.stage().as_deref(), Some("scanning 42 % of 1.2 GiB"));
    for (w, hh) in [(80, 24), (160, 48)] {
        insta::assert_snapshot!(
            format!("opening_scanning_{w}x{hh}"),
            opening_screen(&o, w, hh)
        );
    }
    assert!(o.apply(&Progress::Recovery(Decoding {
        done: 10,
        total: 80
    })));
    assert!(
        !o.apply(&Progress::Recovery(Decoding { done: 9, total: 80 })),
        "a late report from another decompression worker does not go backwards"
    );
    assert_eq!(o.stage().as_deref(), Some("decoding chunk 10 of 80"));
    insta::assert_snapshot!("opening_decoding_80x24", opening_screen(&o, 80, 24));
    assert!(o.apply(&Progress::Bag(1)), "the next bag: its own progress");
    assert_eq!(o.stage(), None);
    o.apply(&Progress::Preparing(300_000));
    insta::assert_snapshot!("opening_preparing_80x24", opening_screen(&o, 80, 24));
}

#[test]
fn an_empty_or_unreadable_bag_says_why() {
    use bagscope::bag::writer::{BagWriter, WriterOptions};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("empty.bag");
    BagWriter::create(&path, WriterOptions::default())
        .unwrap()
        .finish()
        .unwrap();
    let bag = Bag::open(&path).unwrap();
    for (w, hh) in [(80, 24), (160, 48)] {
        let mut h = Harness::new(Catalog::new(vec![bag.clone()]), w, hh);
        h.scan();
        insta::assert_snapshot!(format!("empty_bag_{w}x{hh}"), h.screen());
    }
    // A version line and then nothing a reader can use.
    let mut bytes = b"#ROSBAG V2.0\n".to_vec();
    bytes.extend((0..4000u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8));
    let Ok(bag) = Bag::from_bytes("damaged.bag", bytes, OpenOptions::default()) else {
        return;
    };
    for (w, hh) in [(80, 24), (160, 48)] {
        let mut h = Harness::new(Catalog::new(vec![bag.clone()]), w, hh);
        h.scan();
        let screen = h.screen();
        assert!(screen.contains("damaged"), "{screen}");
        insta::assert_snapshot!(format!("damaged_bag_{w}x{hh}"), screen);
    }
}

#[test]
fn sibling_topics_stay_apart_at_80_columns() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("turtles.bag");
    common::many_topics::write_named(
        &path,
        &[
            "/turtle1/color_sensor",
            "/turtle2/color_sensor",
            "/turtle1/cmd_vel",
            "/turtle2/cmd_vel",
            "/turtle1/pose",
            "/turtle2/pose",
            "/diagnostics_aggregated/very/long/namespace/status",
        ],
    );
    let bag = Bag::open(&path).unwrap();
    for (w, hh) in [(80, 24), (160, 48)] {
        let mut h = Harness::new(Catalog::new(vec![bag.clone()]), w, hh);
        h.scan();
        let screen = h.screen();
        if w == 80 {
            assert!(
                screen.contains("/turtle1/") && screen.contains("/turtle2/"),
                "siblings keep what tells them apart:\n{screen}"
            );
        }
        insta::assert_snapshot!(format!("turtles_{w}x{hh}"), screen);
        // The filter text and the selection survive Esc.
        select_topic(&mut h, "turtle2/pose");
        h.act(&[Action::StartFilter, Action::Input('p')]);
        insta::assert_snapshot!(format!("turtles_filter_{w}x{hh}"), h.screen());
        h.act(&[Action::Back]);
        assert_eq!(
            h.app.views.topics.list.selected_row().unwrap().topic,
            "/turtle2/pose",
            "Esc clears the filter and keeps the topic"
        );
        // `y` says where the YAML went (the terminal does not answer OSC 52).
        h.act(&[Action::CopyYaml]);
        let bar = h.status_bar();
        assert!(bar.contains("OSC 52") && bar.contains("Y saves"), "{bar}");
        // `:` says what is wrong.
        h.act(&[Action::StartJump, Action::Enter]);
        assert!(
            h.status_bar().contains("no time typed"),
            "{}",
            h.status_bar()
        );
        h.act(&[Action::StartJump]);
        h.type_text("+100");
        h.act(&[Action::Enter]);
        insta::assert_snapshot!(format!("jump_outside_{w}x{hh}"), h.screen());
    }
}

#[test]
fn health_view_scrolls_wraps_and_goes_to_a_gap() {
    for (w, hh) in [(80, 24), (160, 48)] {
        let mut h = Harness::demo(w, hh);
        h.scan();
        h.act(&[Action::ToggleHealth, Action::Bottom]);
        insta::assert_snapshot!(format!("health_end_{w}x{hh}"), h.screen());
        let lines = h.app.overlays.health.lines.len();
        let rows = h.app.health_rows();
        assert_eq!(
            h.app.overlays.health.scroll,
            lines.saturating_sub(rows),
            "no blank box past the end"
        );
        h.act(&[Action::PageDown, Action::Down]);
        assert_eq!(h.app.overlays.health.scroll, lines.saturating_sub(rows));
        // Enter on a gap: the topic is selected and the cursor is at the gap.
        let gap = (0..lines)
            .position(|i| {
                h.app
                    .overlays
                    .health
                    .line(i, 200)
                    .unwrap()
                    .0
                    .contains("gap of")
            })
            .expect("the demo bag has a gap");
        h.act(&[Action::Top]);
        for _ in 0..gap {
            h.act(&[Action::Down]);
        }
        let target = h.app.overlays.health.target().unwrap();
        h.act(&[Action::Enter]);
        assert_eq!(h.app.overlays.mode, bagscope::tui::app::Mode::Normal);
        assert_eq!(
            h.app.views.topics.list.selected_row().unwrap().topic,
            target.topic
        );
        assert_eq!(Some(h.app.views.timeline.timeline.cursor()), target.time);
        insta::assert_snapshot!(format!("health_gap_entered_{w}x{hh}"), h.screen());
    }
}

#[test]
fn small_layout_after_a_resize_keeps_a_full_message_list() {
    let mut h = Harness::demo(80, 24);
    h.scan();
    select_topic(&mut h, "/imu/data");
    h.act(&[Action::Focus(Pane::Messages), Action::Bottom]);
    h.act(&[Action::Focus(Pane::Topics), Action::Resize(60, 20)]);
    h.act(&[Action::Focus(Pane::Messages)]);
    let rows = h.app.layout.messages_rows();
    let shown = h.app.views.messages.window.entries.len() - h.app.views.messages.offset;
    assert!(
        shown >= rows.min(h.app.views.messages.window.entries.len()),
        "{shown} of {rows} rows used:\n{}",
        h.screen()
    );
    insta::assert_snapshot!("compact_messages_after_resize_60x20", h.screen());
}

#[test]
fn fifty_thousand_topics_open_move_and_quit() {
    // Not a benchmark (see benches/tui.rs): an O(n²) step would take minutes here.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("many.bag");
    common::many_topics::write(&path, 50_000, 1);
    let t = std::time::Instant::now();
    let bag = Bag::open(&path).unwrap();
    let mut h = Harness::new(Catalog::new(vec![bag]), 160, 48);
    h.screen();
    h.scan();
    h.act(&[
        Action::Down,
        Action::Bottom,
        Action::ToggleHealth,
        Action::Bottom,
    ]);
    h.act(&[Action::Back, Action::StartFilter]);
    h.type_text("042");
    // 50 000 names are scored on the filter thread: the rows follow as an event.
    h.wait_until(
        "the filter's rows",
        std::time::Duration::from_secs(60),
        |a| !a.views.topics.list.is_filtering(),
    );
    let first = h
        .app
        .views
        .topics
        .list
        .selected_row()
        .map(|r| r.topic.clone());
    assert_eq!(first.as_deref(), Some("/robot0/sensor_042/data"));
    assert!(h.app.views.topics.list.visible().len() < 50_000);
    h.act(&[Action::Back, Action::CycleSort]);
    h.screen();
    h.act(&[Action::Quit]);
    assert!(h.app.quit);
    assert_eq!(h.app.views.topics.list.rows().len(), 50_000);
    assert!(
        t.elapsed() < std::time::Duration::from_secs(120),
        "took {:?}",
        t.elapsed()
    );
}

#[test]
fn out_of_order_is_counted_per_bag_as_recorded() {
    use bagscope::time::RosTime;
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, times: &[(u32, u32)]| {
        let path = dir.path().join(name);
        let mut w = plain_writer(&path);
        let header = string_header("/status", "/node");
        let c = w.add_connection("/status", &header).unwrap();
        for &(s, ns) in times {
            w.write(c, RosTime::new(s, ns), &[2, 0, 0, 0, b'o', b'k'])
                .unwrap();
        }
        w.finish().unwrap();
        Bag::open(&path).unwrap()
    };
    // Two bags recorded in order whose times interleave: nothing is out of order.
    let a = write("a.bag", &[(100, 0), (101, 0), (102, 0)]);
    let b = write("b.bag", &[(100, 500_000_000), (101, 500_000_000)]);
    let report = bagscope::catalog::health::compute(&Catalog::new(vec![a, b]), &mut |_| {});
    let t = &report.topics[0];
    assert_eq!((t.count, t.out_of_order), (5, 0), "{t:?}");
    assert!(report.notes[0].starts_with("#1 "), "{:?}", report.notes);
    assert!(report.notes[1].starts_with("#2 "), "{:?}", report.notes);
    // One bag with a message stored after a later one.
    let c = write("c.bag", &[(100, 0), (102, 0), (101, 0), (103, 0)]);
    let report = bagscope::catalog::health::compute(&Catalog::new(vec![c]), &mut |_| {});
    assert_eq!(report.topics[0].out_of_order, 1);
}

/// A series of `n` points evenly over the demo bag, `f(i / n)` each.
fn demo_series(
    h: &Harness,
    n: usize,
    f: impl Fn(f64) -> f64,
) -> bagscope::tui::model::plot::PlotSeries {
    let (start, end) = h.app.views.timeline.timeline.bounds();
    let (a, b) = (start.as_nanos() as i64, end.as_nanos() as i64);
    let mut col = bagscope::catalog::series::Column::new();
    for i in 0..n {
        let x = i as f64 / (n - 1) as f64;
        col.times.push(a + ((b - a) as f64 * x) as i64);
        col.values.push(f(x));
    }
    bagscope::tui::model::plot::PlotSeries::new(col)
}

#[test]
fn plot_one_series() {
    for (w, hh) in [(80, 24), (160, 48)] {
        let mut h = Harness::demo(w, hh);
        h.scan();
        let s = demo_series(&h, 2000, |x| (x * 12.0).sin() * 2.5 + 1.0);
        assert!(h.app.add_plot("/imu/linear_acceleration/z", s, None));
        let screen = h.screen();
        assert!(screen.contains("Plot · 1 series · shared y"), "{screen}");
        // Six significant digits in the legend.
        assert!(
            screen.contains("-1.5, 3.5") || screen.contains("min -1.5"),
            "{screen}"
        );
        insta::assert_snapshot!(format!("plot_one_{w}x{hh}"), screen);
    }
}

#[test]
fn plot_four_series_no_color_markers_and_normalised() {
    for (w, hh) in [(80, 24), (160, 48)] {
        let mut h = Harness::demo(w, hh);
        h.scan();
        type Signal = fn(f64) -> f64;
        let fs: [(&str, Signal); 4] = [
            ("/odom/pose/pose/position/x", |x| x * 10.0),
            ("/odom/twist/twist/linear/x", |x| (x * 20.0).sin()),
            ("/battery/voltage", |x| 12.6 - x),
            ("/fix/status/status", |x| if x < 0.5 { 0.0 } else { 2.0 }),
        ];
        for (label, f) in fs {
            let s = demo_series(&h, 500, f);
            assert!(h.app.add_plot(label, s, Some(42)));
        }
        let screen = h.screen();
        assert!(screen.contains("42% · Plot · 4 series"), "{screen}");
        // Without colour, every series has its own marker in the legend.
        for g in ['●', '■', '▲', '◆'] {
            assert!(screen.contains(g), "marker {g}: {screen}");
        }
        insta::assert_snapshot!(format!("plot_four_{w}x{hh}"), screen);
        h.app.toggle_plot_scale();
        let screen = h.screen();
        assert!(screen.contains("normalised y"), "{screen}");
        insta::assert_snapshot!(format!("plot_four_normalised_{w}x{hh}"), screen);
        assert!(h.app.remove_plot("/battery/voltage"));
        assert_eq!(h.app.views.plot.plots.entries.len(), 3);
    }
}

#[test]
fn plot_gap_and_a_spike_narrower_than_a_column() {
    for (w, hh) in [(80, 24), (160, 48)] {
        let mut h = Harness::demo(w, hh);
        h.scan();
        // 5000 points at 0, one of them 7.5; nothing from 40 % to 60 % of the bag.
        let s = demo_series(
            &h,
            5000,
            |x| if (0.8..0.8002).contains(&x) { 7.5 } else { 0.0 },
        );
        let c = s.to_column();
        let (times, values): (Vec<i64>, Vec<f64>) = c
            .times
            .iter()
            .zip(&c.values)
            .filter(|(t, _)| {
                let (a, b) = (c.times[0], *c.times.last().unwrap());
                let x = (**t - a) as f64 / (b - a) as f64;
                !(0.4..0.6).contains(&x)
            })
            .map(|(t, v)| (*t, *v))
            .unzip();
        assert!(values.contains(&7.5), "the spike is in the data");
        let col = bagscope::catalog::series::Column { times, values };
        h.app.add_plot(
            "/imu/angular_velocity/z",
            bagscope::tui::model::plot::PlotSeries::new(col),
            None,
        );
        let screen = h.screen();
        assert!(screen.contains("max 7.5"), "{screen}");
        insta::assert_snapshot!(format!("plot_gap_spike_{w}x{hh}"), screen);
    }
}

#[test]
fn plot_field_is_computed_in_the_background_and_removed() {
    let mut h = Harness::demo(160, 48);
    h.scan();
    let label = h.app.plot_field("/imu/data/linear_acceleration/z").unwrap();
    assert_eq!(label, "/imu/data/linear_acceleration/z");
    h.wait_until(
        "the series is complete",
        std::time::Duration::from_secs(30),
        |a| a.views.plot.plots.entries.len() == 1 && a.views.plot.plots.progress().is_none(),
    );
    let col = h.app.views.plot.plots.entries[0].series.to_column();
    assert_eq!(col.len(), 2400, "every /imu/data message has a value");
    let screen = h.screen();
    assert!(screen.contains("Plot · 1 series"), "{screen}");
    assert!(
        !screen.contains("% · Plot"),
        "no progress once done: {screen}"
    );
    // A bad field lists what exists and plots nothing.
    let err = h
        .app
        .plot_field("/imu/data/linear_acceleration/w")
        .unwrap_err();
    assert!(err.to_string().contains('z'), "{err}");
    // P again on the same field removes it.
    h.app.toggle_plot("/imu/data/linear_acceleration/z");
    assert!(h.app.views.plot.plots.is_empty());
    assert!(h.status_bar().contains("removed"), "{}", h.status_bar());
    // `--plot` with a bad field: said in the status bar, nothing plotted.
    h.app
        .plot_all(&["/imu/data/linear_acceleration/w".to_string()]);
    assert!(h.app.views.plot.plots.is_empty());
    let bar = h.status_bar();
    assert!(
        bar.contains("--plot /imu/data/linear_acceleration/w"),
        "{bar}"
    );
}

#[test]
fn p_in_the_inspector_plots_a_field_and_n_toggles_the_scale() {
    let mut h = Harness::demo(160, 48);
    h.scan();
    select_topic(&mut h, "imu/data");
    h.act(&[
        Action::Focus(Pane::Messages),
        Action::Enter,
        Action::Focus(Pane::Inspector),
    ]);
    let rows = h.app.views.inspector.tree.rows().to_vec();
    let row = |path: &str| {
        rows.iter().position(|r| r.path == path).unwrap_or_else(|| {
            panic!(
                "no row {path}: {:?}",
                rows.iter().map(|r| &r.path).collect::<Vec<_>>()
            )
        })
    };
    h.app.views.inspector.tree.selected = row("linear_acceleration.z");
    h.act(&[Action::PlotPrompt]);
    assert_eq!(h.app.overlays.prompt, "/imu/data: linear_acceleration.z");
    h.act(&[Action::Enter]);
    h.wait_until(
        "the series is complete",
        std::time::Duration::from_secs(30),
        |a| a.views.plot.plots.entries.len() == 1 && a.views.plot.plots.progress().is_none(),
    );
    assert_eq!(
        h.app.views.plot.plots.entries[0].label,
        "/imu/data/linear_acceleration/z"
    );
    assert_eq!(h.app.views.plot.plots.entries[0].series.len(), 2400);
    // A string is not plottable: said under the prompt, nothing added.
    h.app.views.inspector.tree.selected = row("header.frame_id");
    h.act(&[Action::PlotPrompt, Action::Enter]);
    assert_eq!(h.app.views.plot.plots.entries.len(), 1);
    let error = h.app.views.plot.prompt_error.clone().expect("an error");
    assert!(error.message.contains("not a number"), "{error:?}");
    h.act(&[Action::Back]);
    // Array elements, times (as seconds), four series at once.
    for spec in [
        "/imu/data/orientation_covariance[0]",
        "/imu/data/header/stamp",
        "/imu/data/angular_velocity/x",
    ] {
        h.app.toggle_plot(spec);
    }
    h.wait_until(
        "four complete series",
        std::time::Duration::from_secs(30),
        |a| a.views.plot.plots.entries.len() == 4 && a.views.plot.plots.progress().is_none(),
    );
    let stamp = &h.app.views.plot.plots.entries[2].series;
    let first = stamp.values()[0];
    assert!(
        (1.7e9..1.8e9).contains(&first),
        "a stamp in seconds: {first}"
    );
    h.act(&[Action::TogglePlotScale]);
    assert!(h.screen().contains("normalised y"));
    h.act(&[Action::TogglePlotScale]);
    assert!(h.screen().contains("shared y"));
    // P and Enter on a plotted field select it; x in the plot pane removes it.
    h.app.views.inspector.tree.selected = row("linear_acceleration.z");
    h.act(&[Action::PlotPrompt, Action::Enter]);
    assert_eq!(h.app.views.plot.plots.entries.len(), 4);
    assert_eq!(h.app.views.plot.plots.selected, 0);
    h.act(&[Action::Focus(Pane::Plot), Action::RemovePlotSeries]);
    assert_eq!(h.app.views.plot.plots.entries.len(), 3);
    assert!(
        h.app
            .views
            .plot
            .plots
            .position("/imu/data/linear_acceleration/z")
            .is_none()
    );
}

#[test]
fn plot_series_have_distinct_colours_with_colour_and_markers_without() {
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;
    let mut h = Harness::demo(160, 48);
    h.scan();
    for (i, label) in ["/a/x", "/b/y", "/c/z", "/d/w"].iter().enumerate() {
        let s = demo_series(&h, 100, move |x| x * (i as f64 + 1.0));
        h.app.add_plot(label, s, None);
    }
    let mut t = Terminal::new(TestBackend::new(160, 48)).unwrap();
    let theme = bagscope::tui::theme::Theme { color: true };
    t.draw(|f| bagscope::tui::ui::draw(f, &h.app, theme))
        .unwrap();
    let buf = t.backend().buffer().clone();
    // The legend's marker cell of each series, and its colour.
    let mut colours = Vec::new();
    for marker in ["●", "■", "▲", "◆"] {
        let cell = (0..48u16)
            .flat_map(|y| (72..160u16).map(move |x| (x, y)))
            .map(|(x, y)| &buf[(x, y)])
            .rfind(|c| c.symbol() == marker)
            .unwrap_or_else(|| panic!("no {marker}"));
        colours.push(cell.fg);
    }
    for (i, a) in colours.iter().enumerate() {
        for b in colours.iter().skip(i + 1) {
            assert_ne!(a, b, "{colours:?}");
        }
    }
    assert!(colours.iter().all(|c| *c != ratatui::style::Color::Reset));
}

#[test]
fn p_asks_before_publishing_and_lists_what_would_go_where() {
    let master = common::ros_graph::FakeMaster::start();
    for (w, hh) in [(80, 24), (160, 48)] {
        let mut h = Harness::demo(w, hh);
        h.scan();
        h.mark("+5", "+8");
        h.app.settings.publish.namespace = "/replay".into();
        h.app.settings.publish.config =
            Some(common::ros_graph::node_config(&master.uri, "bagscope_ask"));
        h.act(&[Action::TogglePublish]);
        assert!(!h.app.is_publishing(), "p only asks");
        let plan = h.app.overlays.publish_plan.clone().expect("the question");
        // The counts are those of the interval, exact where the plan says so.
        let (a, b) = plan.interval;
        for t in &plan.topics {
            let n = h
                .app
                .catalog
                .messages(&bagscope::catalog::Selection {
                    topics: vec![t.topic.clone()],
                    start: Some(a),
                    end: Some(b),
                    ..Default::default()
                })
                .count() as u64;
            if plan.exact {
                assert_eq!(t.messages, n, "{}", t.topic);
            } else {
                assert!(
                    t.messages.abs_diff(n) <= n / 5 + 2,
                    "{} {} {n}",
                    t.topic,
                    t.messages
                );
            }
            assert_eq!(t.output, format!("/replay{}", t.topic));
        }
        let cmd = plan.topics.first().unwrap();
        assert_eq!(cmd.topic, "/cmd_vel", "commands first");
        assert!(cmd.command);
        // The fake master's port changes from run to run.
        let screen = h.screen().replace(&master.uri, "http://127.0.0.1:PORT/");
        insta::assert_snapshot!(format!("ros_question_{w}x{hh}"), screen);
        let screen = h.screen();
        assert!(screen.contains("/cmd_vel → /replay/cmd_vel"), "{screen}");
        assert!(screen.contains(&master.uri), "{screen}");
        // Anything but y cancels: `q` too (it does not quit), and nothing reached the master.
        h.act(&[Action::Quit]);
        assert!(!h.app.quit);
        assert!(h.app.overlays.publish_plan.is_none());
        assert!(!h.app.is_publishing());
        assert!(h.status_bar().contains("not published"));
        assert!(master.topics("registerPublisher").is_empty());
    }
}
