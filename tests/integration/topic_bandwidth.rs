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
    let row = h.app.topics.selected_row().unwrap();
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
