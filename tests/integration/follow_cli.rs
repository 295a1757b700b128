//! `echo --follow` and `info --follow` on recordings that stop, change or are replaced: a
//! `.bag.active` left by a recorder that died long ago ends the follow after
//! `--idle-timeout` (exit 1) instead of waiting forever; `info --follow --freq` prints live
//! rates; a file replaced under the follower ends it (exit 2); and `info --freq` over very
//! many topics (one pass over the message lists for all of them).

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, SystemTime};

use bagscope::bag::writer::{BagWriter, WriterOptions};
use bagscope::format::Compression;
use bagscope::time::RosTime;

use crate::common::bagscope;
use crate::common::ros_graph::{Proc, interrupt, wait_exit};
use crate::common::synth::{string_header, string_msg};

/// A recording as `rosbag record` leaves it while recording (the bag header's index position
/// 0, the index section not written): `/a` at 10 Hz and `/b` at 2 Hz for 10 s.
fn recording(dir: &Path) -> std::path::PathBuf {
    let full = dir.join("full.bag");
    let mut w = BagWriter::create(
        &full,
        WriterOptions {
            compression: Compression::None,
            chunk_size: 4096,
        },
    )
    .unwrap();
    let a = w
        .add_connection("/a", &string_header("/a", "/talker"))
        .unwrap();
    let b = w
        .add_connection("/b", &string_header("/b", "/talker"))
        .unwrap();
    for i in 0..100u32 {
        let t = RosTime::new(1000 + i / 10, (i % 10) * 100_000_000);
        w.write(a, t, &string_msg(&format!("a {i}"))).unwrap();
        if i % 5 == 0 {
            w.write(b, t, &string_msg(&format!("b {i}"))).unwrap();
        }
    }
    w.finish().unwrap();
    let mut bytes = std::fs::read(&full).unwrap();
    let name = b"index_pos=";
    let at = bytes.windows(name.len()).position(|w| w == name).unwrap() + name.len();
    bytes[at..at + 8].fill(0);
    // Cut where the index section starts: what a recorder that died leaves.
    let bag = bagscope::bag::Bag::open(&full).unwrap();
    let h = bag.head(bag.chunks().len() as u32 - 1).unwrap();
    let end = (h.data_offset + h.compressed_size) as usize;
    let live = dir.join("rec.bag.active");
    std::fs::write(&live, &bytes[..end]).unwrap();
    live
}

fn age(path: &Path, ago: Duration) {
    std::fs::File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(SystemTime::now() - ago)
        .unwrap();
}

#[test]
fn a_recording_left_long_ago_ends_the_follow_after_the_idle_timeout() {
    let dir = tempfile::tempdir().unwrap();
    let live = recording(dir.path());
    age(&live, Duration::from_secs(40 * 60));
    let mut echo = Proc(
        bagscope()
            .args(["echo", "--follow", "--format", "json"])
            .arg(&live)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let status = wait_exit(&mut echo.0, Duration::from_secs(30)).expect("echo --follow ended");
    assert_eq!(status.code(), Some(1), "{status:?}");
    let mut out = String::new();
    std::io::Read::read_to_string(echo.0.stdout.as_mut().unwrap(), &mut out).unwrap();
    let mut err = String::new();
    std::io::Read::read_to_string(echo.0.stderr.as_mut().unwrap(), &mut err).unwrap();
    assert_eq!(out.lines().count(), 120, "every message printed first");
    assert!(err.contains("not growing since"), "{err}");
    assert!(err.contains("(40 min)"), "{err}");
    assert!(err.contains("--idle-timeout 300"), "{err}");

    let info = bagscope()
        .args(["info", "--follow", "--idle-timeout", "60"])
        .arg(&live)
        .output()
        .unwrap();
    assert_eq!(info.status.code(), Some(1));
    let text = String::from_utf8_lossy(&info.stdout);
    assert!(
        text.contains("live:        not growing since")
            && text.contains(
                "the recorder may have stopped; `bagscope reindex` makes a complete copy"
            ),
        "{text}"
    );
}

#[test]
fn idle_timeout_0_waits_for_a_stalled_recording() {
    let dir = tempfile::tempdir().unwrap();
    let live = recording(dir.path());
    age(&live, Duration::from_secs(3600));
    let mut echo = Proc(
        bagscope()
            .args(["echo", "--follow", "--idle-timeout", "0"])
            .arg(&live)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    assert!(
        wait_exit(&mut echo.0, Duration::from_secs(3)).is_none(),
        "still waiting"
    );
    interrupt(&echo.0);
    let status = wait_exit(&mut echo.0, Duration::from_secs(10)).expect("ended by SIGINT");
    assert_eq!(status.code(), Some(130));
}

#[test]
fn info_follow_freq_prints_live_rates() {
    let dir = tempfile::tempdir().unwrap();
    let live = recording(dir.path());
    let mut info = Proc(
        bagscope()
            .args(["info", "--follow", "--freq"])
            .arg(&live)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let stdout = info.0.stdout.take().unwrap();
    let mut summary = Vec::new();
    for line in BufReader::new(stdout).lines() {
        let line = line.unwrap();
        let done = line.starts_with("live:");
        summary.push(line);
        if done {
            break;
        }
    }
    let text = summary.join("\n");
    let a = summary.iter().find(|l| l.contains("/a ")).expect(&text);
    let b = summary.iter().find(|l| l.contains("/b ")).expect(&text);
    assert!(a.contains("100 msgs @ 10.0 Hz"), "{text}");
    assert!(b.contains("20 msgs @  2.0 Hz"), "{text}");
    assert!(text.contains("live:        recording"), "{text}");
}

#[test]
fn a_file_replaced_under_the_follower_ends_it() {
    let dir = tempfile::tempdir().unwrap();
    let live = recording(dir.path());
    let mut echo = Proc(
        bagscope()
            .args(["echo", "--follow", "--format", "json"])
            .arg(&live)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    // The messages already written are printed first.
    let stdout = echo.0.stdout.take().unwrap();
    let mut lines = BufReader::new(stdout).lines();
    for _ in 0..120 {
        lines.next().unwrap().unwrap();
    }
    // Another recording takes its name (a new `rosbag record -O` of the same name).
    let other = dir.path().join("other");
    std::fs::copy(&live, &other).unwrap();
    std::fs::rename(&other, &live).unwrap();
    let status = wait_exit(&mut echo.0, Duration::from_secs(20)).expect("echo --follow ended");
    assert_eq!(status.code(), Some(2), "{status:?}");
    let mut err = String::new();
    std::io::Read::read_to_string(echo.0.stderr.as_mut().unwrap(), &mut err).unwrap();
    assert!(err.contains("another file was put in its place"), "{err}");
    assert!(lines.next().is_none(), "nothing of the new file is printed");
}

#[test]
fn info_freq_gives_every_topic_of_very_many_its_rate() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("many.bag");
    let topics = 30_000;
    crate::common::many_topics::write(&path, topics, 3);
    let out = bagscope()
        .args(["info", "--freq"])
        .arg(&path)
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    // Three messages per topic, `topics` messages apart over 600 s: 200 s apart.
    let rated: Vec<&str> = text.lines().filter(|l| l.contains("/data ")).collect();
    assert_eq!(rated.len(), topics);
    assert!(
        rated.iter().all(|l| l.contains("3 msgs @ 0.0 Hz")),
        "{}",
        rated
            .iter()
            .find(|l| !l.contains("3 msgs @ 0.0 Hz"))
            .unwrap()
    );
}
