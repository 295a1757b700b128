//! Tests of the merge's loader: with workers, in jobs of many small chunks or one large one,
//! within a small budget or a large one, the messages come out as the merge's own thread reads
//! them.

use super::ChunkSet;
use crate::bag::handle::Bag;
use crate::bag::handle::OpenOptions;
use crate::bag::query::Query;
use crate::bag::writer::{BagWriter, WriterOptions};
use crate::format::{Compression, ConnectionHeader};
use crate::time::RosTime;

/// Every message of `query` as (time, connection, data), and the errors.
fn read(bag: &Bag, query: &Query) -> (Vec<(RosTime, u32, Vec<u8>)>, usize) {
    let mut out = Vec::new();
    let mut errors = 0;
    for m in bag.messages(query) {
        match m {
            Ok(m) => out.push((m.entry.time, m.entry.conn, m.data.to_vec())),
            Err(_) => errors += 1,
        }
    }
    (out, errors)
}

#[test]
fn workers_read_what_the_merge_reads_alone() {
    let dir = tempfile::tempdir().unwrap();
    for (compression, chunk_size) in [
        (Compression::None, 120),
        (Compression::Lz4, 200),
        (Compression::Bz2, 64 << 10),
    ] {
        let path = dir.path().join(format!("{compression:?}.bag"));
        let mut w = BagWriter::create(
            &path,
            WriterOptions {
                compression,
                chunk_size,
            },
        )
        .unwrap();
        let header = |t| {
            ConnectionHeader::build(
                t,
                "std_msgs/String",
                "992ce8a1687cec8c8bd883ec73ca41d1",
                "string data\n",
                None,
                None,
            )
        };
        let a = w.add_connection("/a", &header("/a")).unwrap();
        let b = w.add_connection("/b", &header("/b")).unwrap();
        for i in 0..3000u32 {
            let text = format!("message {i}");
            let mut data = u32::try_from(text.len()).unwrap().to_le_bytes().to_vec();
            data.extend_from_slice(text.as_bytes());
            // `/b` only in the first third: the chunks after hold none of it (dropped from
            // the order unread when `/b` alone is asked for).
            let conn = if i % 3 == 0 && i < 1000 { b } else { a };
            // Times that go back now and then, so chunks overlap.
            let t = i * 10 + 200 - (i % 7) * 25;
            w.write(conn, RosTime::new(t / 1000, (t % 1000) * 1_000_000), &data)
                .unwrap();
        }
        w.finish().unwrap();
        for (threads, budget) in [(1, 64 << 20), (4, 64 << 20), (3, 4 << 10)] {
            let bag = Bag::open_with(
                &path,
                OpenOptions {
                    threads,
                    decode_budget: budget,
                    ..OpenOptions::default()
                },
            )
            .unwrap();
            assert!(bag.chunks().len() > 2 || chunk_size > 1000);
            let b_id = bag
                .connections()
                .iter()
                .find(|c| c.topic == "/b")
                .unwrap()
                .id;
            let window = (
                Some(RosTime::new(10, 0)),
                Some(RosTime::new(12, 500_000_000)),
            );
            for query in [
                Query::all(),
                Query::all().connections([b_id]),
                Query::all().time_range(window.0, window.1),
            ] {
                let alone = read(&bag, &query.clone().parallel(false));
                let ahead = read(&bag, &query.clone().parallel(true));
                assert_eq!(alone.1, 0, "{compression:?}");
                assert!(!alone.0.is_empty());
                assert_eq!(
                    ahead, alone,
                    "{compression:?}, {threads} threads, budget {budget}"
                );
            }
            // Stopping early ends the workers (dropping the iterator joins them).
            let first: Vec<_> = bag.messages(&Query::all().parallel(true)).take(3).collect();
            assert_eq!(first.len(), 3);
        }
    }
}

#[test]
fn a_chunk_set_holds_what_it_was_made_of() {
    let mut set = ChunkSet::of(200, &[0, 63, 64, 199, 500]);
    assert!(set.contains(0) && set.contains(63) && set.contains(64) && set.contains(199));
    assert!(!set.contains(1) && !set.contains(500) && !set.contains(u32::MAX));
    assert!(set.remove(63));
    assert!(!set.remove(63));
    assert!(!set.contains(63));
    assert!(!set.remove(500));
}
