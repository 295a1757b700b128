//! Per-topic bandwidth (bytes of its message records per second between its first and last
//! message) in `info --health` (text in `rostopic bw`'s units, JSON in bytes/s) and in the
//! explorer's topic list, with exact numbers on a synthetic bag.

use bagscope::bag::Bag;
use bagscope::catalog::Catalog;
use bagscope::time::RosTime;
use bagscope::tui::action::Action;

use crate::common::run_bagscope;
use crate::common::synth::{plain_writer, string_header, string_msg};
use crate::common::tui::Harness;

/// 11 `std_msgs/String` messages of 96 characters a second apart: each record is a 4-byte
/// header length, a 38-byte header (op, conn, time), a 4-byte data length and 100 bytes of
/// payload, 146 bytes; 1606 bytes over 10 s.
fn write_bag(dir: &std::path::Path) -> std::path::PathBuf {
    let path = dir.join("bw.bag");
    let mut w = plain_writer(&path);
    let c = w
        .add_connection("/status", &string_header("/status", "/node"))
        .unwrap();
    let text = "x".repeat(96);
    for i in 0..11 {
        w.write(c, RosTime::new(100 + i, 0), &string_msg(&text))
            .unwrap();
    }
    w.finish().unwrap();
    path
}

#[test]
fn info_health_prints_bandwidth_in_text_and_json() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_bag(dir.path());
    let p = path.to_str().unwrap();
    let (out, err, code) = run_bagscope(&["info", "--health", p]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("/status: 11 msgs, 1.00 Hz median, 160.60 B/s"),
        "{out}"
    );
    let (out, err, code) = run_bagscope(&["info", "--health", "--json", p]);
    assert_eq!(code, 0, "{err}");
    let j: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    let t = &j["health"]["topics"][0];
    assert_eq!(t["topic"], "/status");
    assert_eq!(t["bytes"], 1606);
    assert_eq!(t["bandwidth"].as_f64(), Some(160.6));
}

#[test]
fn topic_list_shows_and_sorts_by_bandwidth_when_wide() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_bag(dir.path());
    let bag = Bag::open(&path).unwrap();
    let mut h = Harness::new(Catalog::new(vec![bag.clone()]), 160, 48);
    h.scan();
    let row = h.app.views.topics.list.selected_row().unwrap();
    assert_eq!(row.bandwidth, Some(160.6));
    let screen = h.screen();
    assert!(screen.contains("bytes/s"), "room for the column: {screen}");
    assert!(screen.contains("161 B"), "{screen}");
    // `s` cycles name → count → rate → size → bandwidth.
    h.act(&[Action::CycleSort; 4]);
    assert!(h.screen().contains("· bandwidth"), "{}", h.screen());
    // Narrow: no column.
    let h = Harness::new(Catalog::new(vec![bag]), 80, 24);
    assert!(!h.screen().contains("bytes/s"));
}

/// `/status` as in [`write_bag`] (100 s … 110 s) and `/big`: three 1000-character messages at
/// 109.2, 109.4 and 109.6 s (a burst at the end, the busiest topic over the whole bag).
fn write_burst_bag(dir: &std::path::Path) -> std::path::PathBuf {
    let path = dir.join("burst.bag");
    let mut w = plain_writer(&path);
    let status = w
        .add_connection("/status", &string_header("/status", "/node"))
        .unwrap();
    let big = w
        .add_connection("/big", &string_header("/big", "/node"))
        .unwrap();
    let text = "x".repeat(96);
    let large = "y".repeat(1000);
    for i in 0..11 {
        w.write(status, RosTime::new(100 + i, 0), &string_msg(&text))
            .unwrap();
        if i == 9 {
            for ms in [200_000_000, 400_000_000, 600_000_000] {
                w.write(big, RosTime::new(109, ms), &string_msg(&large))
                    .unwrap();
            }
        }
    }
    w.finish().unwrap();
    path
}

/// `topic`'s line on the screen.
fn line_of(screen: &str, topic: &str) -> String {
    screen
        .lines()
        .find(|l| l.contains(topic))
        .unwrap_or_default()
        .to_string()
}

/// Waits for the bandwidth over the current window (summed on a thread of its own).
fn wait_for_view_bytes(h: &mut Harness) {
    h.wait_until(
        "the bandwidth over the view",
        std::time::Duration::from_secs(30),
        |a| {
            a.views
                .topics
                .bytes
                .as_ref()
                .is_some_and(|v| v.window == a.views.timeline.timeline.view())
        },
    );
}

#[test]
fn zoomed_topic_list_shows_and_sorts_by_bandwidth_over_the_view() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_burst_bag(dir.path());
    let bag = Bag::open(&path).unwrap();
    let mut h = Harness::new(Catalog::new(vec![bag]), 160, 48);
    h.scan();
    // Sorted by bandwidth over the whole bag, the burst comes first.
    h.act(&[Action::CycleSort; 4]);
    assert_eq!(
        h.app.views.topics.list.selected_row().unwrap().topic,
        "/big"
    );
    assert!(h.screen().contains("bytes/s"));
    // Zoomed in around the cursor (at the start): the burst is out of view.
    h.act(&[Action::ZoomIn]);
    wait_for_view_bytes(&mut h);
    let (w0, w1) = h.app.views.timeline.timeline.view();
    assert!(h.app.views.timeline.timeline.is_zoomed());
    let seconds = w1.nanos_since(w0) as f64 / 1e9;
    // Hand count: the `/status` records (146 bytes each) at whole seconds inside the window.
    let inside = (0..11)
        .filter(|i| (w0..=w1).contains(&RosTime::new(100 + i, 0)))
        .count();
    assert!((2..11).contains(&inside), "{inside} in {w0:?}..{w1:?}");
    let expected = inside as f64 * 146.0 / seconds;
    let rows = h.app.views.topics.list.rows();
    let status = rows.iter().find(|r| r.topic == "/status").unwrap();
    let big = rows.iter().find(|r| r.topic == "/big").unwrap();
    assert!(
        (status.view_bandwidth.unwrap() - expected).abs() < 1e-9,
        "{:?} vs {expected}",
        status.view_bandwidth
    );
    assert_eq!(big.view_bandwidth, Some(0.0));
    assert!(
        h.app.views.topics.bytes.as_ref().unwrap().exact,
        "index scanned"
    );
    let screen = h.screen();
    assert!(screen.contains("B/s (view)"), "{screen}");
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let shown = format!("{} B", expected.round() as u64);
    assert!(
        line_of(&screen, "/status").contains(&format!(" {shown}")),
        "{shown}: {screen}"
    );
    // The sort follows the view: `/status` now first.
    let first = h.app.views.topics.list.visible()[0].row;
    assert_eq!(h.app.views.topics.list.rows()[first].topic, "/status");
    // Panned to the end (the cursor leaves the window): the burst is in view and first again.
    // With `/status` selected, its message window holds every cursor position on the way.
    h.act(&[Action::Up]);
    assert_eq!(
        h.app.views.topics.list.selected_row().unwrap().topic,
        "/status"
    );
    h.act(&[Action::BigRight; 20]);
    wait_for_view_bytes(&mut h);
    let (w0, w1) = h.app.views.timeline.timeline.view();
    assert!(w0 <= RosTime::new(109, 200_000_000) && w1 >= RosTime::new(109, 600_000_000));
    let rows = h.app.views.topics.list.rows();
    let big = rows.iter().find(|r| r.topic == "/big").unwrap();
    let seconds = w1.nanos_since(w0) as f64 / 1e9;
    let big_bytes = h
        .app
        .views
        .topics
        .bytes
        .as_ref()
        .unwrap()
        .bytes
        .get("/big")
        .copied();
    assert!(
        big_bytes == Some(3.0 * 1050.0),
        "three records of 4 + 38 + 4 + 4 + 1000 bytes: {big_bytes:?}"
    );
    assert!((big.view_bandwidth.unwrap() - big_bytes.unwrap() / seconds).abs() < 1e-9);
    let first = h.app.views.topics.list.visible()[0].row;
    assert_eq!(h.app.views.topics.list.rows()[first].topic, "/big");
    // Zoomed out: the whole bag again.
    h.act(&[Action::ZoomReset]);
    assert!(h.app.views.topics.bytes.is_none());
    assert!(h.screen().contains("bytes/s"));
    let first = h.app.views.topics.list.visible()[0].row;
    assert_eq!(h.app.views.topics.list.rows()[first].topic, "/big");
}

#[test]
fn zoomed_topic_list_snapshots() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_burst_bag(dir.path());
    for (w, hh) in [(80, 24), (160, 48)] {
        let mut s = Harness::new(Catalog::new(vec![Bag::open(&path).unwrap()]), w, hh);
        s.scan();
        s.act(&[Action::CycleSort; 4]);
        s.act(&[Action::ZoomIn]);
        wait_for_view_bytes(&mut s);
        insta::assert_snapshot!(format!("bandwidth_view_{w}x{hh}"), s.screen());
    }
}
