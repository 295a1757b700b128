//! The explorer following a growing bag (`F`, on by default for `.active`): a synthetic
//! recorder appends a finished bag's bytes in three steps (its bag header's index position
//! still 0, as `rosbag record` leaves it while recording), then writes the index position
//! and renames `.bag.active` to `.bag`. The app, driven headless, sees the counts grow, the
//! `● live` mark, and switches to the finished bag with the counts of the official layout.

use std::io::Write;
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::time::Duration;

use bagscope::bag::writer::{BagWriter, WriterOptions};
use bagscope::bag::{Bag, OpenOptions};
use bagscope::catalog::Catalog;
use bagscope::format::Compression;
use bagscope::time::RosTime;

use crate::common::synth::{string_header, string_msg};
use crate::common::tui::Harness;

const WAIT: Duration = Duration::from_secs(10);

/// A finished bag of `n` messages on `/a` and `/b` (small uncompressed chunks).
fn finished(path: &Path, n: u32) -> Vec<u8> {
    let mut w = BagWriter::create(
        path,
        WriterOptions {
            compression: Compression::None,
            chunk_size: 700,
        },
    )
    .unwrap();
    let a = w
        .add_connection("/a", &string_header("/a", "/talker"))
        .unwrap();
    let b = w
        .add_connection("/b", &string_header("/b", "/talker"))
        .unwrap();
    for i in 0..n {
        let conn = if i % 3 == 0 { b } else { a };
        let data = string_msg(&format!("message {i}"));
        w.write(conn, RosTime::new(100 + i, 0), &data).unwrap();
    }
    w.finish().unwrap();
    std::fs::read(path).unwrap()
}

/// Where the bag header's `index_pos=` value starts.
fn index_pos_at(bytes: &[u8]) -> usize {
    let name = b"index_pos=";
    let head = &bytes[..4096.min(bytes.len())];
    head.windows(name.len()).position(|w| w == name).unwrap() + name.len()
}

/// Appends `bytes` to the file (never rewriting what a reader may have mapped).
fn append(path: &Path, bytes: &[u8]) {
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(path)
        .unwrap();
    f.write_all(bytes).unwrap();
}

fn topic_counts(h: &Harness) -> Vec<(String, u64)> {
    h.app
        .views
        .topics
        .list
        .rows()
        .iter()
        .map(|r| (r.topic.clone(), r.count))
        .collect()
}

/// The screen with the times that depend on the clock blanked.
fn stable(screen: &str) -> String {
    let idle = regex::Regex::new(r"idle \d+(\.\d)? s").unwrap();
    idle.replace_all(screen, "idle ?.? s").into_owned()
}

/// Waits for the worker's replies to the latest requests (window, decode, sizes) and for the
/// health report over what is shown (recomputed while following).
fn settle(h: &mut Harness) {
    h.wait_until("the messages and the decoded one", WAIT, |app| {
        !app.views.messages.loading && app.views.inspector.tree.loading.is_none()
    });
    h.wait_until("the health report of the recording so far", WAIT, |app| {
        app.overlays.health.report.as_ref().is_some_and(|r| {
            r.topics.iter().map(|t| t.count).sum::<u64>() == app.catalog.message_count()
        })
    });
    std::thread::sleep(Duration::from_millis(300));
    h.drain_events();
}

#[test]
fn the_explorer_follows_a_growing_bag_and_switches_to_the_finished_one() {
    let dir = tempfile::tempdir().unwrap();
    let full = finished(&dir.path().join("full.bag"), 90);
    let reference = Bag::open(dir.path().join("full.bag")).unwrap();
    let mut live = full.clone();
    let at = index_pos_at(&live);
    live[at..at + 8].fill(0);
    let active = dir.path().join("rec.bag.active");
    let done = dir.path().join("rec.bag");
    let third = live.len() / 3;
    append(&active, &live[..third]);

    let bag = Bag::open_with(&active, OpenOptions::default()).unwrap();
    let mut h = Harness::new(Catalog::new(vec![bag]), 80, 24);
    assert!(
        h.app.jobs.follow.is_following(),
        "a .active bag is followed at once"
    );
    h.wait_until("the first snapshot", WAIT, |app| {
        app.jobs.follow.status().is_some_and(|s| s.messages > 0) && app.catalog.message_count() > 0
    });
    let first = h.app.catalog.message_count();
    let counted: u64 = topic_counts(&h).iter().map(|(_, c)| c).sum();
    assert_eq!(
        counted, first,
        "the topic rows count what the catalog holds"
    );

    append(&active, &live[third..2 * third]);
    h.wait_until("more messages", WAIT, |app| {
        app.catalog.message_count() > first
    });
    let second = h.app.catalog.message_count();
    assert!(second < 90, "the last third is not written yet ({second})");
    let counted: u64 = topic_counts(&h).iter().map(|(_, c)| c).sum();
    assert_eq!(counted, second);
    // The cursor stuck to the end of the grown time axis.
    assert_eq!(
        h.app.views.timeline.timeline.cursor(),
        h.app.views.timeline.timeline.bounds().1
    );
    for (w, hh) in [(80, 24), (160, 48)] {
        // The histogram is exact for the chunks the worker has read (their index is then
        // in memory): drawn again once the messages are in, as a resize does.
        settle(&mut h);
        h.app.apply(bagscope::tui::action::Action::Resize(w, hh));
        settle(&mut h);
        let screen = stable(&h.screen());
        assert!(screen.contains("● live"), "{screen}");
        // The record and the index data still being written are not damage.
        let warnings = h.app.catalog.bags()[0].warnings();
        assert!(warnings.is_empty(), "{warnings:?}");
        assert!(!screen.contains('⚠'), "{screen}");
        insta::assert_snapshot!(format!("follow_live_{w}x{hh}"), screen);
    }

    // The recorder closes the bag: the rest, the index position, the rename.
    append(&active, &live[2 * third..]);
    let f = std::fs::OpenOptions::new()
        .write(true)
        .open(&active)
        .unwrap();
    f.write_at(&full[at..at + 8], at as u64).unwrap();
    f.sync_all().unwrap();
    drop(f);
    std::fs::rename(&active, &done).unwrap();
    h.wait_until("the finished bag", WAIT, |app| {
        !app.jobs.follow.is_following()
    });
    assert!(
        h.app
            .jobs
            .follow
            .mark()
            .is_some_and(|m| m.contains("finished"))
    );
    let bag = h.app.catalog.bag(0).unwrap();
    assert_eq!(bag.path(), done.as_path(), "switched to the renamed bag");
    assert!(
        bag.is_indexed(),
        "the finished bag is read through its index"
    );
    let want: Vec<(String, u64)> = Catalog::new(vec![reference])
        .topics()
        .into_iter()
        .map(|t| (t.topic, t.message_count))
        .collect();
    assert_eq!(topic_counts(&h), want);
    assert!(h.status_bar().contains("finished"), "{}", h.status_bar());
}

#[test]
fn f_stops_and_starts_following() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("done.bag");
    finished(&path, 10);
    let bag = Bag::open(&path).unwrap();
    let mut h = Harness::new(Catalog::new(vec![bag]), 80, 24);
    assert!(
        !h.app.jobs.follow.is_following(),
        "a finished .bag is not followed"
    );
    h.act(&[bagscope::tui::action::Action::ToggleFollow]);
    assert!(h.app.jobs.follow.is_following());
    // A finished bag has nothing more to come: following ends at once, counts unchanged.
    h.wait_until("the end of following", WAIT, |app| {
        !app.jobs.follow.is_following()
    });
    let counted: u64 = topic_counts(&h).iter().map(|(_, c)| c).sum();
    assert_eq!(counted, 10);
    h.act(&[bagscope::tui::action::Action::ToggleFollow]);
    assert!(h.app.jobs.follow.is_following());
    h.act(&[bagscope::tui::action::Action::ToggleFollow]);
    assert!(!h.app.jobs.follow.is_following());
    assert!(
        h.status_bar().contains("following stopped"),
        "{}",
        h.status_bar()
    );
}

/// The explorer on the `.bag.active` of Debian's `rosbag record` while `rostopic pub` sends
/// at 20 Hz: counts grow while it records, and when it stops the explorer switches to the
/// finished bag with the count `rosbag info` gives.
#[test]
fn the_explorer_follows_a_rosbag_record_recording() {
    use crate::common::ros_graph::{Proc, graph_with};
    use std::process::Stdio;
    let Some((graph, work)) = graph_with(&["roscore", "rosbag", "rostopic"]) else {
        return;
    };
    let out = work.path().join("live.bag");
    let active = work.path().join("live.bag.active");
    let rec = graph.record(&out, &["/chatter"]);
    // Opened as soon as the recorder has written its bag header.
    let start = std::time::Instant::now();
    let bag = loop {
        if let Ok(b) = Bag::open_with(&active, OpenOptions::default()) {
            break b;
        }
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "no readable .active file"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    let mut h = Harness::new(Catalog::new(vec![bag]), 80, 24);
    assert!(h.app.jobs.follow.is_following());
    let publisher = Proc(
        graph
            .command("rostopic")
            .args(["pub", "-r", "20", "/chatter", "std_msgs/String"])
            .arg(format!("data: '{}'", "x".repeat(6000)))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    h.wait_until("messages while recording", Duration::from_secs(20), |app| {
        app.catalog.message_count() >= 20
    });
    assert!(h.status_bar().contains("● live"), "{}", h.status_bar());
    drop(publisher);
    graph.stop_recorder(rec, &out);
    h.wait_until("the finished bag", Duration::from_secs(20), |app| {
        !app.jobs.follow.is_following()
    });
    let yaml = graph
        .command("rosbag")
        .args(["info", "-y", "-k", "messages"])
        .arg(&out)
        .output()
        .unwrap();
    let count: u64 = String::from_utf8_lossy(&yaml.stdout)
        .trim()
        .parse()
        .unwrap();
    assert_eq!(topic_counts(&h), vec![("/chatter".to_string(), count)]);
    assert_eq!(h.app.catalog.bag(0).unwrap().path(), out.as_path());
}

/// The explorer in a real terminal on the `.bag.active` of Debian's `rosbag record` (the C++
/// recorder) while `rostopic pub` sends a `std_msgs/Float64` at 20 Hz: at that rate the
/// recorder keeps every message in its open chunk (header size 0) for minutes. The message
/// list shows them within seconds, and nothing is called damage.
#[test]
fn a_low_rate_rosbag_record_recording_lists_its_open_chunk() {
    use crate::common::ros_graph::{Proc, graph_with};
    use crate::common::tmux::{Session, have_tmux};
    use std::process::Stdio;
    if !have_tmux() {
        crate::common::skip("tmux is not installed");
        return;
    }
    let Some((graph, work)) = graph_with(&["roscore", "rosbag", "rostopic"]) else {
        return;
    };
    let out = work.path().join("speed.bag");
    let active = work.path().join("speed.bag.active");
    let rec = graph.record(&out, &["/speed"]);
    let publisher = Proc(
        graph
            .command("rostopic")
            .args(["pub", "-r", "20", "/speed", "std_msgs/Float64", "data: 1.5"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    // The recorder writes through a 4 KiB buffer: wait until some messages are on disk.
    let start = std::time::Instant::now();
    while std::fs::metadata(&active).map_or(0, |m| m.len()) < 12 << 10 {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "the recorder wrote nothing"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let cmd = format!(
        "{} --no-mouse {}",
        env!("CARGO_BIN_EXE_bagscope"),
        active.display()
    );
    let s = Session::start("follow-open-chunk", 120, 30, &cmd);
    let screen = s.wait("rows of /speed listed while recording", |t| {
        t.contains("● live") && t.contains("data=1.5")
    });
    assert!(!screen.contains("no messages"), "{screen}");
    assert!(!screen.contains('⚠'), "{screen}");
    assert!(!screen.contains("could not be read"), "{screen}");
    // Still listed, counted and free of warnings a few refreshes later.
    std::thread::sleep(Duration::from_secs(2));
    let screen = s.screen();
    assert!(screen.contains("data=1.5"), "{screen}");
    assert!(!screen.contains('⚠'), "{screen}");
    drop(s);
    drop(publisher);
    graph.stop_recorder(rec, &out);
}

/// A `.bag.active` whose recorder died long ago (its modification time 40 minutes old, no
/// process writing it) is shown as stalled, not live.
#[test]
fn a_recording_left_long_ago_is_shown_stalled() {
    let dir = tempfile::tempdir().unwrap();
    let full = finished(&dir.path().join("full.bag"), 60);
    let mut live = full.clone();
    let at = index_pos_at(&live);
    live[at..at + 8].fill(0);
    let active = dir.path().join("rec.bag.active");
    append(&active, &live[..live.len() / 2]);
    std::fs::File::options()
        .write(true)
        .open(&active)
        .unwrap()
        .set_modified(std::time::SystemTime::now() - Duration::from_secs(40 * 60))
        .unwrap();
    let bag = Bag::open_with(&active, OpenOptions::default()).unwrap();
    let mut h = Harness::new(Catalog::new(vec![bag]), 160, 48);
    h.wait_until("the stalled mark", WAIT, |app| {
        app.jobs
            .follow
            .mark()
            .is_some_and(|m| m.contains("not growing since"))
    });
    let mark = h.app.jobs.follow.mark().unwrap();
    assert!(!mark.contains("live"), "{mark}");
    assert!(
        mark.contains(
            "(40 min) — the recorder may have stopped; `bagscope reindex` makes a complete copy"
        ),
        "{mark}"
    );
    assert!(
        h.status_bar().contains("not growing since"),
        "{}",
        h.status_bar()
    );
}

/// A compressed recording keeps the chunk it is writing in memory: the explorer says so
/// rather than reporting the partly written chunk as damage.
#[test]
fn a_compressed_recording_says_its_newest_messages_are_not_on_disk() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("full.bag");
    let mut w = BagWriter::create(
        &path,
        WriterOptions {
            compression: Compression::Lz4,
            chunk_size: 700,
        },
    )
    .unwrap();
    let a = w
        .add_connection("/a", &string_header("/a", "/talker"))
        .unwrap();
    for i in 0..60 {
        w.write(
            a,
            RosTime::new(100 + i, 0),
            &string_msg(&format!("message {i}")),
        )
        .unwrap();
    }
    w.finish().unwrap();
    let full = std::fs::read(&path).unwrap();
    let reference = Bag::open(&path).unwrap();
    // The recorder is inside its third chunk: its header still says size 0 and only part of
    // its compressed bytes have reached the file.
    let third = &reference.chunks()[2];
    let head = reference.head(2).unwrap();
    let mut live = full[..(head.data_offset + head.compressed_size / 2) as usize].to_vec();
    let at = index_pos_at(&live);
    live[at..at + 8].fill(0);
    let name = b"size=";
    let pos = third.pos as usize;
    let size = pos
        + live[pos..head.data_offset as usize]
            .windows(name.len())
            .position(|w| w == name)
            .unwrap()
        + name.len();
    live[size..size + 4].fill(0);
    let data_len = head.data_offset as usize - 4;
    live[data_len..data_len + 4].fill(0);
    let active = dir.path().join("rec.bag.active");
    append(&active, &live);
    let bag = Bag::open_with(&active, OpenOptions::default()).unwrap();
    let mut h = Harness::new(Catalog::new(vec![bag]), 160, 48);
    h.wait_until("the compressing mark", WAIT, |app| {
        app.jobs
            .follow
            .mark()
            .is_some_and(|m| m.contains("not yet on disk: the recorder compresses chunks"))
    });
    // What the opening scan called a loss is not one.
    h.wait_until("no loss", WAIT, |app| {
        app.catalog.bags()[0]
            .recovery()
            .is_some_and(|r| r.losses.is_empty())
    });
    assert!(!h.status_bar().contains('⚠'), "{}", h.status_bar());
}
