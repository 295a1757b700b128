//! ROS 2 bag directories (`bag::ros2`): every rosbag2 bag of `../shared/corpus-mcap/rosbag2/`
//! (skipped with the reason printed when absent) and of `tests/fixtures/ros2/bags/` (made by
//! `tests/common/interop/ros2_bags.py` with rosbags' writers) is opened with `open_dir`, each
//! storage file's MCAP read back with the `mcap` crate, and topics, types, counts, and each
//! message's topic, log time and order compared with the `*.ref.jsonl` beside the bag (and
//! the raw bytes' md5 where the reference has it). With `BAGSCOPE_EXPORT_PYTHON` set, the
//! bytes of every `.db3` bag are compared with what Python's sqlite3 reads
//! (`tests/common/interop/ros2_db3_dump.py`). Then the untidy cases: inputs never modified
//! (WAL included), disagreements, missing and unlisted files, no metadata.yaml, placeholder
//! and `.srv` definitions, unknown serialization formats, zstd bombs, unknown compression.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use bagscope::bag::ros2::{Limits, Ros2Bag, StorageContent, open_dir, open_dir_with};
use md5::{Digest, Md5};
use serde_json::Value;

use crate::common;

/// One message read back: topic, log time, md5 of the bytes.
#[derive(Debug, PartialEq, Eq, Clone)]
struct Read {
    topic: String,
    time: u64,
    md5: String,
}

/// What the storage files' MCAPs hold.
#[derive(Default)]
struct Back {
    /// topic → (type, serialization format, schema encoding, schema text).
    topics: BTreeMap<String, (String, String, String, String)>,
    messages: Vec<Read>,
}

fn corpus_rosbag2() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus-mcap/rosbag2");
    dir.is_dir().then_some(dir)
}

fn fixtures() -> PathBuf {
    common::fixtures_dir().join("ros2/bags")
}

/// Bag directories below `root` (one or two levels) that have `NAME.ref.jsonl` beside them.
fn bags_in(root: &Path) -> Vec<(PathBuf, PathBuf)> {
    let mut out = Vec::new();
    let mut dirs = vec![root.to_path_buf()];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if !p.is_dir() {
                continue;
            }
            let r = p.with_file_name(format!(
                "{}.ref.jsonl",
                p.file_name().unwrap().to_string_lossy()
            ));
            if r.is_file() {
                out.push((p, r));
            } else {
                dirs.push(p);
            }
        }
    }
    out.sort();
    out
}

fn md5_hex(data: &[u8]) -> String {
    Md5::digest(data)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Reads every storage file's MCAP (summary checked) in order; messages sorted by log time,
/// ties in storage order.
fn read_back(bag: &Ros2Bag) -> Back {
    let mut back = Back::default();
    for s in &bag.storage {
        let bytes = match &s.content {
            StorageContent::McapFile(p) => std::fs::read(p).unwrap(),
            StorageContent::Converted(f) => {
                let mut b = Vec::new();
                let mut r = f;
                std::io::Seek::seek(&mut r, std::io::SeekFrom::Start(0)).unwrap();
                std::io::Read::read_to_end(&mut r, &mut b).unwrap();
                let b = &b;
                let summary = mcap::Summary::read(b)
                    .unwrap()
                    .expect("a converted MCAP has a summary");
                let stats = summary.stats.expect("statistics");
                assert_eq!(Some(stats.message_count), s.facts.message_count);
                if stats.message_count > 0 {
                    assert!(!summary.chunk_indexes.is_empty(), "chunk indexes");
                }
                b.clone()
            }
        };
        if let Ok(Some(summary)) = mcap::Summary::read(&bytes) {
            for c in summary.channels.values() {
                let (name, enc, text) = c.schema.as_ref().map_or(Default::default(), |s| {
                    (
                        s.name.clone(),
                        s.encoding.clone(),
                        String::from_utf8_lossy(&s.data).into_owned(),
                    )
                });
                back.topics.entry(c.topic.clone()).or_insert((
                    name,
                    c.message_encoding.clone(),
                    enc,
                    text,
                ));
            }
        }
        for m in mcap::MessageStream::new(&bytes).unwrap() {
            let m = m.unwrap();
            back.messages.push(Read {
                topic: m.channel.topic.clone(),
                time: m.log_time,
                md5: md5_hex(&m.data),
            });
        }
    }
    back.messages.sort_by_key(|m| m.time);
    back
}

fn load_ref(path: &Path) -> (Value, Vec<Value>) {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap());
    let header = lines.next().unwrap();
    (header, lines.collect())
}

/// Compares a bag with its reference: topics, types, formats, counts, and each message.
fn compare(dir: &Path, reference: &Path) -> Ros2Bag {
    let name = dir.display().to_string();
    let bag = open_dir(dir).unwrap_or_else(|e| panic!("{name}: {e}"));
    let back = read_back(&bag);
    let (header, lines) = load_ref(reference);
    let mut counts: BTreeMap<&str, u64> = BTreeMap::new();
    for m in &back.messages {
        *counts.entry(m.topic.as_str()).or_default() += 1;
    }
    for t in header["topics"].as_array().unwrap() {
        let topic = t["topic"].as_str().unwrap();
        let (datatype, format, _, _) = back
            .topics
            .get(topic)
            .unwrap_or_else(|| panic!("{name}: topic {topic} missing"));
        assert_eq!(datatype, t["type"].as_str().unwrap(), "{name} {topic}");
        assert_eq!(
            format,
            t["serialization"].as_str().unwrap(),
            "{name} {topic}"
        );
        assert_eq!(
            counts.get(topic).copied().unwrap_or(0),
            t["count"].as_u64().unwrap(),
            "{name} {topic}"
        );
    }
    assert_eq!(
        back.messages.len() as u64,
        header["messages"].as_u64().unwrap(),
        "{name}"
    );
    assert_eq!(back.messages.len(), lines.len(), "{name}");
    for (i, (ours, theirs)) in back.messages.iter().zip(&lines).enumerate() {
        assert_eq!(
            ours.topic,
            theirs["topic"].as_str().unwrap(),
            "{name} message {i}"
        );
        assert_eq!(
            ours.time,
            theirs["log_time_ns"].as_u64().unwrap(),
            "{name} message {i}"
        );
        if let Some(md5) = theirs["md5"].as_str() {
            assert_eq!(ours.md5, md5, "{name} message {i}: bytes differ");
        }
    }
    bag
}

#[test]
fn corpus_bags_match_references() {
    let Some(root) = corpus_rosbag2() else {
        common::skip("../shared/corpus-mcap/rosbag2 is absent");
        return;
    };
    let bags = bags_in(&root);
    assert!(bags.len() >= 5, "{bags:?}");
    for (dir, reference) in bags {
        compare(&dir, &reference);
    }
}

#[test]
fn fixture_bags_match_references() {
    let bags = bags_in(&fixtures());
    assert_eq!(bags.len(), 7, "{bags:?}");
    for (dir, reference) in bags {
        compare(&dir, &reference);
    }
}

/// `$BAGSCOPE_EXPORT_PYTHON`, or the reason to skip.
fn python() -> Option<String> {
    let p = std::env::var("BAGSCOPE_EXPORT_PYTHON").ok();
    if p.is_none() {
        common::skip("BAGSCOPE_EXPORT_PYTHON is unset (the venv with rosbags and zstandard)");
    }
    p
}

#[test]
fn db3_bytes_equal_python_sqlite3() {
    let Some(py) = python() else { return };
    let script =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/common/interop/ros2_db3_dump.py");
    let mut bags: Vec<PathBuf> = bags_in(&fixtures()).into_iter().map(|b| b.0).collect();
    if let Some(root) = corpus_rosbag2() {
        bags.extend(bags_in(&root.join("sqlite3")).into_iter().map(|b| b.0));
    }
    let mut compared = 0;
    for dir in bags {
        let is_db3 = std::fs::read_dir(&dir)
            .unwrap()
            .flatten()
            .any(|e| e.file_name().to_string_lossy().contains(".db3"));
        if !is_db3 {
            continue;
        }
        let out = Command::new(&py).arg(&script).arg(&dir).output().unwrap();
        assert!(
            out.status.success(),
            "{}: {}",
            dir.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        let dump = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(dump.path(), &out.stdout).unwrap();
        compare(&dir, dump.path());
        compared += 1;
    }
    assert!(compared >= 5, "{compared}");
}

/// Name, size, mtime and md5 of every file in `dir`.
fn snapshot(dir: &Path) -> Vec<(String, u64, std::time::SystemTime, String)> {
    let mut out: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| {
            let m = e.metadata().unwrap();
            let bytes = std::fs::read(e.path()).unwrap();
            (
                e.file_name().to_string_lossy().into_owned(),
                m.len(),
                m.modified().unwrap(),
                md5_hex(&bytes),
            )
        })
        .collect();
    out.sort();
    out
}

#[test]
fn inputs_are_never_modified() {
    let mut dirs = vec![
        fixtures().join("split_db3"),
        fixtures().join("zstd_file_db3"),
    ];
    if let Some(root) = corpus_rosbag2() {
        dirs.push(root.join("sqlite3/test_msgs_string"));
        dirs.push(root.join("sqlite3/multiple_files"));
    }
    for dir in dirs {
        let before = snapshot(&dir);
        let bag = open_dir(&dir).unwrap();
        drop(bag);
        assert_eq!(snapshot(&dir), before, "{}", dir.display());
    }
}

/// A `.db3` in WAL mode whose last messages are only in its `-wal` file.
fn db3_with_wal(dir: &Path) {
    let live = tempfile::tempdir().unwrap();
    let db = live.path().join("wal_0.db3");
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute_batch(
        "PRAGMA journal_mode=WAL; PRAGMA wal_autocheckpoint=0;
         CREATE TABLE topics(id INTEGER PRIMARY KEY, name TEXT NOT NULL, type TEXT NOT NULL,
             serialization_format TEXT NOT NULL, offered_qos_profiles TEXT NOT NULL);
         CREATE TABLE messages(id INTEGER PRIMARY KEY, topic_id INTEGER NOT NULL,
             timestamp INTEGER NOT NULL, data BLOB NOT NULL);
         INSERT INTO topics VALUES (1, '/a', 'std_msgs/msg/Empty', 'cdr', '');
         INSERT INTO messages VALUES (1, 1, 100, x'0001000000');
         PRAGMA wal_checkpoint(TRUNCATE);
         INSERT INTO messages VALUES (2, 1, 200, x'0001000001');
         INSERT INTO messages VALUES (3, 1, 150, x'0001000002');",
    )
    .unwrap();
    // Copied while the writer is still open: the last two messages are in the WAL only.
    std::fs::copy(&db, dir.join("wal_0.db3")).unwrap();
    std::fs::copy(live.path().join("wal_0.db3-wal"), dir.join("wal_0.db3-wal")).unwrap();
    drop(conn);
    assert!(std::fs::metadata(dir.join("wal_0.db3-wal")).unwrap().len() > 0);
}

#[test]
fn wal_messages_are_read_and_nothing_is_written_beside_the_input() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("wal");
    std::fs::create_dir(&dir).unwrap();
    db3_with_wal(&dir);
    let before = snapshot(&dir);
    let bag = open_dir(&dir).unwrap();
    let back = read_back(&bag);
    let times: Vec<u64> = back.messages.iter().map(|m| m.time).collect();
    assert_eq!(times, [100, 150, 200]);
    assert!(
        bag.notes.iter().any(|n| n.contains("no metadata.yaml")),
        "{:?}",
        bag.notes
    );
    drop(bag);
    assert_eq!(
        snapshot(&dir),
        before,
        "no -shm, no checkpoint, nothing changed"
    );
}

#[test]
fn multiple_files_disagreements_are_start_and_duration() {
    let Some(root) = corpus_rosbag2() else {
        common::skip("../shared/corpus-mcap/rosbag2 is absent");
        return;
    };
    let bag = open_dir(&root.join("sqlite3/multiple_files")).unwrap();
    assert_eq!(bag.storage.len(), 3);
    let lines = bag.disagreements(&[]);
    assert_eq!(
        lines,
        [
            "starting_time: metadata.yaml says 1630486341.839168680, the first message is at 1630486321.838886148",
            "duration: metadata.yaml says 9.500166674 s, the messages span 25.500190237 s",
        ]
    );
    // The empty compressed bag with INT64_MAX start agrees with its storage.
    let bag = open_dir(&root.join("sqlite3/compressed_bag")).unwrap();
    assert_eq!(bag.metadata.start_ns(), None);
    assert_eq!(bag.storage[0].facts.message_count, Some(0));
    assert_eq!(bag.disagreements(&[]), Vec::<String>::new());
    for ok in [
        "sqlite3/cdr_test",
        "mcap/cdr_test",
        "sqlite3/test_msgs_string",
    ] {
        let bag = open_dir(&root.join(ok)).unwrap();
        assert_eq!(bag.disagreements(&[]), Vec::<String>::new(), "{ok}");
    }
}

#[test]
fn definitions_are_kept_as_the_bag_gives_them() {
    let bag = open_dir(&fixtures().join("split_db3")).unwrap();
    let back = read_back(&bag);
    let log = &back.topics["/rosout"];
    assert_eq!(
        (log.0.as_str(), log.2.as_str(), log.3.as_str()),
        ("rcl_interfaces/msg/Log", "ros2msg", "uint8 level")
    );
    let srv = &back.topics["/add_two_ints/_service_event"];
    assert_eq!(srv.0, "example_interfaces/srv/AddTwoInts_Event");
    assert_eq!(srv.3, "int64 a\nint64 b\n---\nint64 sum\n");
    let fancy = &back.topics["/fancy"];
    assert_eq!(fancy.1, "fancy", "an unknown serialization format is kept");
    assert_eq!(bag.disagreements(&[]), Vec::<String>::new());
    // No message_definitions table: empty ros2msg schemas.
    let bag = open_dir(&fixtures().join("no_definitions")).unwrap();
    let back = read_back(&bag);
    for (topic, (_, _, enc, text)) in &back.topics {
        assert_eq!((enc.as_str(), text.as_str()), ("ros2msg", ""), "{topic}");
    }
}

#[test]
fn no_metadata_opens_in_name_order_with_a_note() {
    let dir = fixtures().join("no_metadata");
    let bag = compare(&dir, &fixtures().join("no_metadata.ref.jsonl"));
    assert_eq!(
        bag.metadata.relative_file_paths,
        ["no_metadata_0.db3", "no_metadata_1.db3"]
    );
    assert_eq!(bag.metadata.message_count, 20);
    assert_eq!(bag.metadata.topics.len(), 4);
    assert!(bagscope::bag::ros2::is_ros2_dir(&dir));
    let lines = bag.disagreements(&[]);
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(lines[0].contains("no metadata.yaml"), "{lines:?}");
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
    }
}

#[test]
fn missing_unlisted_and_broken_files() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("split_db3");
    copy_dir(&fixtures().join("split_db3"), &dir);
    std::fs::rename(dir.join("split_db3_1.db3"), dir.join("split_db3_2.db3")).unwrap();
    std::fs::write(dir.join("other.db3"), b"not sqlite").unwrap();
    let bag = open_dir(&dir).unwrap();
    assert_eq!(
        bag.storage.len(),
        2,
        "the listed file and the series' next file"
    );
    let lines = bag.disagreements(&[]);
    assert!(
        lines[0].ends_with("split_db3_1.db3: listed in metadata.yaml but not in the directory"),
        "{lines:?}"
    );
    assert!(
        lines[1].ends_with("other.db3: not listed in metadata.yaml; not opened"),
        "{lines:?}"
    );
    assert!(
        lines[2].contains("split_db3_2.db3: not listed in metadata.yaml; opened after"),
        "{lines:?}"
    );
    assert_eq!(lines.len(), 3, "counts agree again: {lines:?}");
    // A listed file that is not SQLite: a note, the rest opens.
    std::fs::write(dir.join("split_db3_2.db3"), b"garbage").unwrap();
    let bag = open_dir(&dir).unwrap();
    assert_eq!(bag.storage.len(), 1);
    let lines = bag.disagreements(&[]);
    assert!(
        lines
            .iter()
            .any(|l| l.contains("split_db3_2.db3: neither an SQLite database")),
        "{lines:?}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l
                .starts_with("message_count: metadata.yaml says 20, the storage files hold 12")),
        "{lines:?}"
    );
    // Nothing opens: the error names the file.
    std::fs::write(dir.join("split_db3_0.db3"), b"garbage").unwrap();
    let e = open_dir(&dir).unwrap_err().to_string();
    assert!(e.contains("split_db3_0.db3"), "{e}");
}

#[test]
fn zstd_bombs_and_unknown_compression_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("bomb");
    std::fs::create_dir(&dir).unwrap();
    let meta = "rosbag2_bagfile_information:\n  version: 5\n  storage_identifier: sqlite3\n  relative_file_paths:\n    - bomb_0.db3.zstd\n  compression_format: zstd\n  compression_mode: FILE\n";
    std::fs::write(dir.join("metadata.yaml"), meta).unwrap();
    // Decompresses to an SQLite header and then zeros.
    let mut zeros = vec![0u8; 32 << 20];
    zeros[..16].copy_from_slice(b"SQLite format 3\0");
    std::fs::write(
        dir.join("bomb_0.db3.zstd"),
        zstd::encode_all(&zeros[..], 3).unwrap(),
    )
    .unwrap();
    let limits = Limits {
        max_decompressed: 1 << 20,
        ..Limits::default()
    };
    let e = open_dir_with(&dir, &limits, None).unwrap_err().line();
    assert!(
        e.contains("bomb_0.db3.zstd") && e.contains("over the limit of 1048576 bytes"),
        "{e}"
    );
    // Within the limit it is an SQLite header and zeros, not a database: SQLite says so.
    let e = open_dir(&dir).unwrap_err().to_string();
    assert!(e.contains("SQLite"), "{e}");
    // Zeros alone are neither SQLite nor MCAP: an error that says so.
    std::fs::write(
        dir.join("bomb_0.db3.zstd"),
        zstd::encode_all(&vec![0u8; 1 << 20][..], 3).unwrap(),
    )
    .unwrap();
    let e = open_dir(&dir).unwrap_err().to_string();
    assert!(e.contains("decompresses to neither"), "{e}");
    std::fs::write(dir.join("metadata.yaml"), meta.replace("zstd\n", "lz5\n")).unwrap();
    let e = open_dir(&dir).unwrap_err().to_string();
    assert!(
        e.contains("metadata.yaml") && e.contains("unknown compression 'lz5'"),
        "{e}"
    );
}

#[test]
fn a_broken_metadata_yaml_is_a_note_when_storage_files_are_there() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("split_db3");
    copy_dir(&fixtures().join("split_db3"), &dir);
    std::fs::write(
        dir.join("metadata.yaml"),
        "rosbag2_bagfile_information:\n  message_count: many\n",
    )
    .unwrap();
    let bag = open_dir(&dir).unwrap();
    assert_eq!(bag.storage.len(), 2);
    let notes = bag.disagreements(&[]);
    assert!(
        notes[0].contains("metadata.yaml: message_count: 'many' is not a count"),
        "{notes:?}"
    );
    // Without storage files it is the error.
    let empty = tmp.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    std::fs::copy(dir.join("metadata.yaml"), empty.join("metadata.yaml")).unwrap();
    let e = open_dir(&empty).unwrap_err().to_string();
    assert!(e.contains("message_count"), "{e}");
}
