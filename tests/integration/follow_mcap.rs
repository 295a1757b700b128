//! Following MCAP files as they are written: `echo --follow` prints every message once, in
//! order, and ends with the data end record; `info --follow` on a ROS 2 bag directory follows
//! its last storage file; the explorer's `F` follows a growing MCAP (read first by a scan) and
//! switches to the finished file, opened from its summary.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use bagscope::bag::{Bag, OpenOptions};
use bagscope::catalog::Catalog;

use crate::common::bagscope;
use crate::common::ros_graph::{Proc, wait_exit};
use crate::common::synth::string_msg;
use crate::common::tui::Harness;

const WAIT: Duration = Duration::from_secs(10);

/// A finished MCAP (ros1 profile, zstd chunks of about 300 bytes) of `n` messages on `/a` and
/// `/b`, with a metadata record and an attachment.
fn finished_mcap(n: u32) -> Vec<u8> {
    let mut w = mcap::WriteOptions::new()
        .profile("ros1")
        .compression(Some(mcap::Compression::Zstd))
        .chunk_size(Some(300))
        .create(std::io::Cursor::new(Vec::new()))
        .unwrap();
    let schema = w
        .add_schema("std_msgs/String", "ros1msg", b"string data\n")
        .unwrap();
    let a = w
        .add_channel(schema, "/a", "ros1", &BTreeMap::new())
        .unwrap();
    let b = w
        .add_channel(schema, "/b", "ros1", &BTreeMap::new())
        .unwrap();
    w.write_metadata(&mcap::records::Metadata {
        name: "run".into(),
        metadata: BTreeMap::from([("site".to_string(), "yard".to_string())]),
    })
    .unwrap();
    w.attach(&mcap::Attachment {
        log_time: 1,
        create_time: 1,
        name: "calib.yaml".into(),
        media_type: "text/yaml".into(),
        data: Cow::Borrowed(b"k: 1\n"),
    })
    .unwrap();
    for i in 0..n {
        let header = mcap::records::MessageHeader {
            channel_id: if i % 3 == 0 { b } else { a },
            sequence: i,
            log_time: 1_000_000_000 * u64::from(100 + i),
            publish_time: 0,
        };
        w.write_to_known_channel(&header, &string_msg(&format!("message {i}")))
            .unwrap();
    }
    w.finish().unwrap();
    w.into_inner().into_inner()
}

fn append(path: &Path, bytes: &[u8]) {
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(path)
        .unwrap();
    f.write_all(bytes).unwrap();
}

/// Reads `n` lines of `out`.
fn lines(out: &mut impl BufRead, n: usize) -> Vec<String> {
    (0..n)
        .map(|_| {
            let mut line = String::new();
            out.read_line(&mut line).unwrap();
            line
        })
        .collect()
}

#[test]
fn echo_follow_prints_an_mcap_as_it_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let full = finished_mcap(90);
    let whole = dir.path().join("whole.mcap");
    std::fs::write(&whole, &full).unwrap();
    let want = bagscope()
        .args(["echo", "--format", "json"])
        .arg(&whole)
        .output()
        .unwrap();
    assert!(want.status.success());
    let want: Vec<String> = String::from_utf8(want.stdout)
        .unwrap()
        .lines()
        .map(|l| format!("{l}\n"))
        .collect();
    assert_eq!(want.len(), 90);

    let live = dir.path().join("live.mcap");
    let third = full.len() / 3;
    append(&live, &full[..third]);
    let mut echo = Proc(
        bagscope()
            .args(["echo", "--follow", "--format", "json"])
            .arg(&live)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let mut out = BufReader::new(echo.0.stdout.take().unwrap());
    // What the first third holds in whole chunks is printed before anything more is written.
    let first = Bag::open(&live).unwrap().message_count() as usize;
    assert!(first > 5, "{first}");
    let mut got = lines(&mut out, first);
    append(&live, &full[third..2 * third]);
    let second = {
        let p = dir.path().join("two.mcap");
        std::fs::write(&p, &full[..2 * third]).unwrap();
        Bag::open(&p).unwrap().message_count() as usize
    };
    got.extend(lines(&mut out, second - first));
    append(&live, &full[2 * third..]);
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut out, &mut rest).unwrap();
    got.extend(rest.lines().map(|l| format!("{l}\n")));
    let status = wait_exit(&mut echo.0, WAIT).expect("echo --follow ends with the recording");
    let mut err = String::new();
    std::io::Read::read_to_string(&mut echo.0.stderr.take().unwrap(), &mut err).unwrap();
    assert_eq!(status.code(), Some(0), "{err}");
    assert!(err.is_empty(), "nothing was lost: {err}");
    assert_eq!(got, want);
}

#[test]
fn info_follow_on_a_ros2_directory_follows_its_last_file() {
    let dir = tempfile::tempdir().unwrap();
    let bag_dir = dir.path().join("rosbag2_run");
    std::fs::create_dir(&bag_dir).unwrap();
    let first = finished_mcap(30);
    std::fs::write(bag_dir.join("rosbag2_run_0.mcap"), &first).unwrap();
    let full = finished_mcap(60);
    let last = bag_dir.join("rosbag2_run_1.mcap");
    append(&last, &full[..full.len() / 2]);
    let mut info = Proc(
        bagscope()
            .args(["info", "--follow"])
            .arg(&bag_dir)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let mut out = BufReader::new(info.0.stdout.take().unwrap());
    let mut text = String::new();
    loop {
        let mut line = String::new();
        assert!(out.read_line(&mut line).unwrap() > 0, "{text}");
        text.push_str(&line);
        if line.starts_with("live:") {
            break;
        }
    }
    assert!(text.contains("rosbag2_run_1.mcap"), "{text}");
    append(&last, &full[full.len() / 2..]);
    let status = wait_exit(&mut info.0, WAIT).expect("info --follow ends with the recording");
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut out, &mut rest).unwrap();
    assert_eq!(status.code(), Some(0), "{text}{rest}");
    assert!(rest.contains("60"), "{rest}");
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

#[test]
fn the_explorer_follows_a_growing_mcap_and_switches_to_the_finished_one() {
    let dir = tempfile::tempdir().unwrap();
    let full = finished_mcap(90);
    let live = dir.path().join("live.mcap");
    let third = full.len() / 3;
    append(&live, &full[..third]);

    let bag = Bag::open_with(&live, OpenOptions::default()).unwrap();
    assert!(bag.recovery().is_some(), "read by a scan: no summary yet");
    let mut h = Harness::new(Catalog::new(vec![bag]), 80, 24);
    h.act(&[bagscope::tui::action::Action::ToggleFollow]);
    assert!(h.app.jobs.follow.is_following());
    h.wait_until("the first snapshot", WAIT, |app| {
        app.jobs.follow.status().is_some_and(|s| s.messages > 0)
    });
    let first = h.app.catalog.message_count();
    append(&live, &full[third..2 * third]);
    h.wait_until("more messages", WAIT, |app| {
        app.catalog.message_count() > first
    });
    let second = h.app.catalog.message_count();
    assert!(second < 90, "{second}");
    let counted: u64 = topic_counts(&h).iter().map(|(_, c)| c).sum();
    assert_eq!(
        counted, second,
        "the topic rows count what the catalog holds"
    );
    let screen = h.screen();
    assert!(screen.contains("● live"), "{screen}");
    // The end still being written is not damage once it is followed.
    assert!(!screen.contains('⚠'), "{screen}");

    append(&live, &full[2 * third..]);
    h.wait_until("the finished file", WAIT, |app| {
        !app.jobs.follow.is_following()
    });
    let bag = h.app.catalog.bag(0).unwrap();
    assert!(
        bag.recovery().is_none(),
        "opened from its summary: {:?}",
        bag.recovery()
    );
    assert_eq!(bag.message_count(), 90);
    assert_eq!(
        topic_counts(&h),
        vec![("/a".to_string(), 60), ("/b".to_string(), 30)]
    );
    assert!(h.status_bar().contains("finished"), "{}", h.status_bar());
}

/// The real binary in tmux on an MCAP that a Python `mcap_ros2` writer is writing (20 Hz, chunks
/// written whole): followed at once (a process holds the file open for writing), it grows
/// (`● live`), and when the writer finishes the explorer switches to the finished file with
/// all its messages.
#[test]
fn the_real_explorer_follows_a_python_writer_in_tmux() {
    use crate::common::tmux::{Session, have_tmux};
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/common/interop/live_mcap.py");
    let Some(python) = std::env::var("BAGSCOPE_EXPORT_PYTHON").ok().filter(|p| {
        std::process::Command::new(p)
            .arg(&script)
            .arg("probe")
            .output()
            .is_ok_and(|o| o.status.success())
    }) else {
        crate::common::skip(
            "BAGSCOPE_EXPORT_PYTHON is unset or cannot import mcap_ros2 (pip install mcap-ros2-support)",
        );
        return;
    };
    if !have_tmux() {
        crate::common::skip("tmux is not installed");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let live = dir.path().join("live.mcap");
    let mut writer = Proc(
        std::process::Command::new(&python)
            .arg(&script)
            .arg(&live)
            .args(["160", "0.05"])
            .spawn()
            .unwrap(),
    );
    let start = std::time::Instant::now();
    while std::fs::metadata(&live).map_or(0, |m| m.len()) < 1500 {
        assert!(start.elapsed() < WAIT, "the writer wrote nothing");
        std::thread::sleep(Duration::from_millis(50));
    }
    let cmd = format!(
        "{} {}; echo EXITED:$?; sleep 30",
        env!("CARGO_BIN_EXE_bagscope"),
        live.display()
    );
    let s = Session::start("follow-mcap", 100, 30, &cmd);
    s.wait("the topic", |t| t.contains("/chatter"));
    // A process writes the file: its end is unfinished, and it is followed at once.
    let count = |t: &str| -> u64 {
        t.lines()
            .find_map(|l| {
                let rest = l.split("/chatter").nth(1)?;
                rest.split_whitespace().next()?.parse().ok()
            })
            .unwrap_or(0)
    };
    let screen = s.wait("following", |t| t.contains("● live"));
    let first = count(&screen);
    let screen = s.wait("more messages", |t| {
        t.contains("● live") && count(t) > first
    });
    assert!(
        !screen.contains('⚠'),
        "the end being written is not damage: {screen}"
    );
    assert!(wait_exit(&mut writer.0, Duration::from_secs(30)).is_some_and(|s| s.success()));
    let screen = s.wait("the finished file", |t| t.contains("recording finished"));
    assert_eq!(count(&screen), 160, "{screen}");
    assert!(screen.contains("MCAP"), "{screen}");
    s.keys(&["q"]);
    let screen = s.wait("the shell", |t| t.contains("EXITED:"));
    assert!(screen.contains("EXITED:0"), "{screen}");
}
