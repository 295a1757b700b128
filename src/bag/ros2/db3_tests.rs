//! `.db3` → MCAP: time order whatever the table's order, through the window, the index or
//! the key table; memory bounded by the window, by construction.

#![allow(clippy::cast_possible_wrap, clippy::cast_sign_loss)]

use std::io::Cursor;
use std::path::Path;

use super::*;
use crate::bag::ros2::sqlite::open_db;

/// A `.db3` at `path` with two topics and `times` (row ids in order; topic by parity);
/// `index`: with rosbag2's `timestamp_idx`. Each message's data is its row id and 200 bytes.
pub(crate) fn make_db3(path: &Path, times: &[i64], index: bool) {
    let conn = rusqlite::Connection::open(path).unwrap();
    conn.execute_batch(
        "CREATE TABLE topics(id INTEGER PRIMARY KEY, name TEXT NOT NULL, type TEXT NOT NULL,
             serialization_format TEXT NOT NULL, offered_qos_profiles TEXT NOT NULL);
         CREATE TABLE messages(id INTEGER PRIMARY KEY, topic_id INTEGER NOT NULL,
             timestamp INTEGER NOT NULL, data BLOB NOT NULL);
         INSERT INTO topics VALUES (1, '/a', 'std_msgs/msg/String', 'cdr', '');
         INSERT INTO topics VALUES (2, '/b', 'std_msgs/msg/String', 'cdr', '');",
    )
    .unwrap();
    if index {
        conn.execute_batch("CREATE INDEX timestamp_idx ON messages (timestamp ASC);")
            .unwrap();
    }
    let tx = conn.unchecked_transaction().unwrap();
    {
        let mut insert = tx
            .prepare("INSERT INTO messages VALUES (?1, ?2, ?3, ?4)")
            .unwrap();
        for (i, t) in times.iter().enumerate() {
            let id = i as i64 + 1;
            let mut data = id.to_le_bytes().to_vec();
            data.resize(208, 7);
            insert
                .execute(rusqlite::params![id, 1 + id % 2, t, data])
                .unwrap();
        }
    }
    tx.commit().unwrap();
}

fn options(window: Window) -> ConvertOptions {
    ConvertOptions {
        message_zstd: false,
        max_message: 1 << 20,
        max_total: 1 << 30,
        window,
    }
}

/// Converts `path`; the (time, row id) of every message in the MCAP's file order.
fn convert(path: &Path, window: Window) -> (Vec<(u64, i64)>, MessageOrder, usize) {
    let db = open_db(path, path, None).unwrap();
    let c = convert_db3(&db, options(window), Cursor::new(Vec::new())).unwrap();
    let bytes = c.out.into_inner();
    let summary = mcap::Summary::read(&bytes).unwrap().unwrap();
    assert_eq!(
        summary.stats.unwrap().message_count,
        c.facts.message_count.unwrap()
    );
    let read = mcap::MessageStream::new(&bytes)
        .unwrap()
        .map(|m| {
            let m = m.unwrap();
            let id = i64::from_le_bytes(m.data[..8].try_into().unwrap());
            (m.log_time, id)
        })
        .collect();
    (read, c.order, c.peak_window)
}

/// The (time, row id) pairs of `times` in the order a reader must see them.
fn expected(times: &[i64]) -> Vec<(u64, i64)> {
    let mut e: Vec<(u64, i64)> = times
        .iter()
        .enumerate()
        .map(|(i, &t)| (t as u64, i as i64 + 1))
        .collect();
    e.sort_unstable();
    e
}

/// 4 000 times with jitter: each row up to 5 rows late, ties included.
fn jittered() -> Vec<i64> {
    (0..4000i64)
        .map(|i| 1000 + i * 10 - (i * 7919 % 6) * 10)
        .collect()
}

#[test]
fn a_table_in_order_but_for_jitter_is_read_once_through_the_window() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("j.db3");
    let times = jittered();
    make_db3(&path, &times, false);
    let window = Window {
        bytes: 16 << 10,
        rows: 1000,
    };
    let (read, order, peak) = convert(&path, window);
    assert_eq!(order, MessageOrder::Table);
    assert_eq!(read, expected(&times));
    // The bound on the messages held, by construction: never more than the window.
    assert!(peak > 0 && peak <= window.bytes, "{peak}");
}

#[test]
fn disorder_beyond_the_window_is_read_through_the_index_or_the_key_table() {
    // Blocks of 500 rows in reverse time order: far beyond a window of 16 KiB (78 rows).
    let times: Vec<i64> = (0..4000i64)
        .map(|i| (i / 500) * 500 + 499 - i % 500)
        .collect();
    let window = Window {
        bytes: 16 << 10,
        rows: 1 << 20,
    };
    for (index, want) in [(true, MessageOrder::Index), (false, MessageOrder::Keys)] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.db3");
        make_db3(&path, &times, index);
        let (read, order, _) = convert(&path, window);
        assert_eq!(order, want);
        assert_eq!(read, expected(&times), "{want:?}");
    }
}

#[test]
fn neither_way_of_reading_in_time_order_sorts_whole_rows() {
    let dir = tempfile::tempdir().unwrap();
    for index in [true, false] {
        let path = dir.path().join(format!("p{index}.db3"));
        make_db3(&path, &[3, 1, 2], index);
        let db = open_db(&path, &path, None).unwrap();
        assert_eq!(db.time_index().unwrap(), index);
        if index {
            let plan = db.plan(MessageOrder::Index).unwrap();
            assert!(!plan.contains("TEMP B-TREE"), "{plan}");
        }
        db.each_message(MessageOrder::Keys, &mut |_| Ok(false))
            .unwrap();
        let plan = db.plan(MessageOrder::Keys).unwrap();
        assert!(!plan.contains("TEMP B-TREE"), "{plan}");
        assert!(
            !db.plan(MessageOrder::Table)
                .unwrap()
                .contains("TEMP B-TREE")
        );
    }
}

#[test]
fn the_input_is_left_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("j.db3");
    make_db3(&path, &jittered(), true);
    let before = std::fs::read(&path).unwrap();
    let meta = std::fs::metadata(&path).unwrap();
    let (read, _, _) = convert(&path, Window::default());
    assert_eq!(read.len(), 4000);
    assert_eq!(std::fs::read(&path).unwrap(), before);
    assert_eq!(
        std::fs::metadata(&path).unwrap().modified().unwrap(),
        meta.modified().unwrap()
    );
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["j.db3"]);
}
