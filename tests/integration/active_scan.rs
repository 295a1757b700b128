//! `info`, `echo` and `verify` of a recording still being written, opened without following
//! it (the opening scan, `src/bag/recover_v2/`): the record being written and the compressed
//! chunk being written are noted as unfinished (exit 0), never reported as lost nor decoded
//! into junk; the same bytes in a closed `.bag` are a loss (exit 1), still without junk.
//! Built byte by byte as `rosbag record` leaves its file while recording, and taken from a
//! real `rosbag record --lz4` recording.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use bagscope::bag::Bag;
use bagscope::bag::follow::Follower;
use bagscope::bag::writer::{BagWriter, WriterOptions};
use bagscope::format::Compression;
use bagscope::time::RosTime;

use crate::common::ros_graph::{Proc, graph_with};
use crate::common::run_bagscope;
use crate::common::synth::{string_header, string_msg};

/// A finished bag of `n` messages `message I` on `/a`, small chunks; its bytes.
fn finished(path: &Path, compression: Compression, n: u32) -> (Vec<u8>, Bag) {
    let mut w = BagWriter::create(
        path,
        WriterOptions {
            compression,
            chunk_size: 700,
        },
    )
    .unwrap();
    let a = w
        .add_connection("/a", &string_header("/a", "/talker"))
        .unwrap();
    for i in 0..n {
        let data = string_msg(&format!("message {i}"));
        w.write(a, RosTime::new(100 + i, 0), &data).unwrap();
    }
    w.finish().unwrap();
    (std::fs::read(path).unwrap(), Bag::open(path).unwrap())
}

/// Where `name=` starts its value in `bytes[from..to]`.
fn value_at(bytes: &[u8], from: usize, to: usize, name: &[u8]) -> usize {
    from + bytes[from..to]
        .windows(name.len())
        .position(|w| w == name)
        .unwrap()
        + name.len()
}

/// The first `k` bytes of `full` as `rosbag record` has them while it writes: the bag
/// header's index position 0, and the chunk it is writing with size and data length 0.
fn while_recording(full: &[u8], bag: &Bag, k: usize) -> Vec<u8> {
    let mut out = full[..k].to_vec();
    let at = value_at(full, 13, 4096, b"index_pos=");
    out[at..at + 8].fill(0);
    for c in bag.chunks() {
        let h = bag.head(c.index).unwrap();
        if ((h.data_offset + h.compressed_size) as usize) <= k {
            continue;
        }
        let size = value_at(full, c.pos as usize, h.data_offset as usize, b"size=");
        for at in [size, h.data_offset as usize - 4] {
            if at + 4 <= out.len() {
                out[at..at + 4].fill(0);
            }
        }
    }
    out
}

/// Messages of the chunks closed before byte `k`.
fn closed_before(bag: &Bag, k: usize) -> usize {
    bag.chunks()
        .iter()
        .filter(|c| {
            let h = bag.head(c.index).unwrap();
            (h.data_offset + h.compressed_size) as usize <= k
        })
        .map(|c| c.message_count() as usize)
        .sum()
}

/// `(stdout, stderr, exit code)` of `bagscope ARGS FILE`.
fn run(args: &[&str], file: &Path) -> (String, String, i32) {
    let file = file.display().to_string();
    let mut all = args.to_vec();
    all.push(&file);
    run_bagscope(&all)
}

/// The `messages:` count of `info` (0 when it shows none).
fn info_count(info: &str) -> usize {
    info.lines()
        .find(|l| l.starts_with("messages:"))
        .map_or(0, |l| l["messages:".len()..].trim().parse().unwrap())
}

/// The `data` strings `echo --format json` printed.
fn echoed(out: &str) -> Vec<String> {
    out.lines()
        .map(|l| {
            let at = l.find("\"data\":\"").unwrap() + 8;
            l[at..at + l[at..].find('"').unwrap()].to_string()
        })
        .collect()
}

/// `message 0`, `message 1`, …
fn first_messages(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("message {i}")).collect()
}

#[test]
fn the_compressed_chunk_being_written_is_not_yet_on_disk_not_lost() {
    let dir = tempfile::tempdir().unwrap();
    let (full, bag) = finished(&dir.path().join("full.bag"), Compression::Lz4, 60);
    // The recorder is inside its third chunk, part of whose compressed bytes are on disk.
    let h = bag.head(2).unwrap();
    let k = (h.data_offset + h.compressed_size / 2) as usize;
    let bytes = while_recording(&full, &bag, k);
    let n = closed_before(&bag, k);
    let active = dir.path().join("rec.bag.active");
    std::fs::write(&active, &bytes).unwrap();

    let (out, err, code) = run(&["info"], &active);
    assert_eq!(code, 0, "{out}{err}");
    assert!(!out.contains("lost:"), "{out}");
    assert_eq!(info_count(&out), n, "{out}");
    let note = format!(
        "unfinished:   the newest messages are not yet on disk: the recorder compresses chunks \
         (the lz4 chunk at byte {}, {} bytes so far, is read once it is closed; lost if the \
         recorder stopped)",
        bag.chunks()[2].pos,
        k as u64 - bag.chunks()[2].pos
    );
    assert!(out.contains(&note), "{out}");

    let (out, err, code) = run(&["echo", "--format", "json"], &active);
    assert_eq!(code, 0, "{err}");
    assert_eq!(echoed(&out), first_messages(n));
    assert!(
        err.contains("rec.bag.active: unfinished: the newest messages are not yet on disk"),
        "{err}"
    );
    assert!(!err.contains("lost:"), "{err}");

    let (out, err, code) = run(&["verify"], &active);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains(&format!("{n} messages in 2 chunks verified")),
        "{out}"
    );
    assert!(out.contains("no problems"), "{out}");
    assert!(err.contains("unfinished:"), "{err}");

    // The same bytes in a closed bag: the chunk's messages are lost, and none is made up.
    let closed = dir.path().join("rec.bag");
    std::fs::write(&closed, &bytes).unwrap();
    let (out, _, code) = run(&["info"], &closed);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("lost:") && out.contains("not decoded from part of its data"),
        "{out}"
    );
    assert!(!out.contains("unfinished"), "{out}");
    let (out, err, code) = run(&["echo", "--format", "json"], &closed);
    assert_eq!(code, 1, "{err}");
    assert_eq!(echoed(&out), first_messages(n));
    let (out, _, code) = run(&["verify"], &closed);
    assert_eq!(code, 1, "{out}");
}

#[test]
fn the_record_being_written_in_the_open_chunk_is_not_lost() {
    let dir = tempfile::tempdir().unwrap();
    let (full, bag) = finished(&dir.path().join("full.bag"), Compression::None, 60);
    // Inside the third chunk (size 0 while open), in the middle of its third message record.
    let h = bag.head(2).unwrap();
    let third = bag.chunk_entries(2)[2].offset;
    let k = (h.data_offset + third + 10) as usize;
    let bytes = while_recording(&full, &bag, k);
    let active = dir.path().join("rec.bag.active");
    std::fs::write(&active, &bytes).unwrap();
    let (out, err, code) = run(&["info"], &active);
    assert_eq!(code, 0, "{out}{err}");
    assert!(!out.contains("lost:"), "{out}");
    let line = out.lines().find(|l| l.starts_with("unfinished:")).unwrap();
    assert!(
        line.contains("bytes at the end still being written (or cut off), from byte"),
        "{out}"
    );
    // The open chunk is read up to its last whole record, as the follower reads it.
    let read = info_count(&out);
    assert!(
        read > closed_before(&bag, k),
        "the open chunk's messages are read: {out}"
    );
    let mut follower = Follower::open(&active).unwrap();
    while follower.poll(usize::MAX).unwrap().more {}
    assert_eq!(read as u64, follower.message_count());
    let (out, err, code) = run(&["echo", "--format", "json"], &active);
    assert_eq!(code, 0, "{err}");
    assert_eq!(echoed(&out), first_messages(read));
    let (out, err, code) = run(&["verify"], &active);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("no problems"), "{out}");

    let closed = dir.path().join("rec.bag");
    std::fs::write(&closed, &bytes).unwrap();
    let (out, _, code) = run(&["info"], &closed);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("lost:"), "{out}");
    assert_eq!(info_count(&out), read);
    let (_, _, code) = run(&["verify"], &closed);
    assert_eq!(code, 1);
}

/// A copy of `rosbag record --lz4`'s `.active` file, taken while it records (what the file
/// holds when a recorder is stopped there), reads as a recording in progress: no loss, every
/// message the one published, the open chunk noted as not yet on disk.
#[test]
fn a_rosbag_record_lz4_recording_copied_mid_chunk() {
    let Some((graph, work)) = graph_with(&["roscore", "rosbag", "rostopic"]) else {
        return;
    };
    let out = work.path().join("live.bag");
    let active = PathBuf::from(format!("{}.active", out.display()));
    let log = std::fs::File::create(work.path().join("record.log")).unwrap();
    let rec = Proc(
        graph
            .command("rosbag")
            .args(["record", "--lz4", "-O"])
            .arg(&out)
            .arg("/chatter")
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .unwrap(),
    );
    graph.wait_until("the recorder's subscription", |s| {
        s.subscribers_of("/chatter")
            .iter()
            .any(|n| n.starts_with("/record_"))
    });
    // Incompressible enough that a chunk (768 KiB) closes every few seconds.
    let payload: String = (0..6000u32)
        .map(|i| char::from(b'a' + (i.wrapping_mul(2_654_435_761) >> 27) as u8 % 26))
        .collect();
    let publisher = Proc(
        graph
            .command("rostopic")
            .args(["pub", "-r", "50", "/chatter", "std_msgs/String"])
            .arg(format!("data: '{payload}'"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let copy = work.path().join("copy.bag.active");
    let start = Instant::now();
    let mut open_chunk_seen = 0;
    let mut copies = 0;
    while start.elapsed() < Duration::from_secs(40) && open_chunk_seen < 3 {
        std::thread::sleep(Duration::from_millis(700));
        if std::fs::copy(&active, &copy).is_err() {
            continue;
        }
        copies += 1;
        let (info, err, code) = run(&["info"], &copy);
        assert_eq!(code, 0, "{info}{err}");
        assert!(!info.contains("lost:"), "{info}");
        let n = info_count(&info);
        if info.contains("the recorder compresses chunks (the lz4 chunk at byte") && n > 0 {
            open_chunk_seen += 1;
        }
        let (echo, err, code) = run(&["echo", "--format", "json"], &copy);
        assert_eq!(code, 0, "{err}");
        let data = echoed(&echo);
        assert_eq!(data.len(), n, "echo prints what info counts");
        assert!(
            data.iter().all(|d| *d == payload),
            "a message not published"
        );
        let (v, err, code) = run(&["verify"], &copy);
        assert_eq!(code, 0, "{v}{err}");
    }
    drop(publisher);
    graph.stop_recorder(rec, &out);
    assert!(
        open_chunk_seen >= 3,
        "{copies} copies, {open_chunk_seen} with closed chunks and an open one"
    );
}
