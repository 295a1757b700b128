//! Tests of the index data read ahead: the lists kept for the chunks that follow are those
//! each chunk gives when asked for alone, and a chunk whose index data does not check out is
//! left to be read (and reported) when asked for.

use std::path::Path;

use crate::bag::chunk::IndexEntry;
use crate::bag::handle::Bag;
use crate::bag::writer::{BagWriter, WriterOptions};
use crate::format::{Compression, ConnectionHeader};
use crate::time::RosTime;

/// A bag of `n` messages on three topics, in chunks of about `chunk_size` bytes, with times
/// that go back now and then (chunks overlap). Also the bag of `stats_cache`'s tests.
pub(in crate::bag) fn write(path: &Path, chunk_size: u32, n: u32) {
    let mut w = BagWriter::create(
        path,
        WriterOptions {
            compression: Compression::Lz4,
            chunk_size,
        },
    )
    .unwrap();
    let conns: Vec<u32> = ["/a", "/b", "/c"]
        .iter()
        .map(|t| {
            let h = ConnectionHeader::build(
                t,
                "std_msgs/String",
                "992ce8a1687cec8c8bd883ec73ca41d1",
                "string data\n",
                None,
                None,
            );
            w.add_connection(t, &h).unwrap()
        })
        .collect();
    for i in 0..n {
        let text = format!("message {i}");
        let mut data = u32::try_from(text.len()).unwrap().to_le_bytes().to_vec();
        data.extend_from_slice(text.as_bytes());
        let conn = conns[(i % 7 % 3) as usize];
        let t = i * 10 + 200 - (i % 5) * 30;
        w.write(conn, RosTime::new(t / 1000, (t % 1000) * 1_000_000), &data)
            .unwrap();
    }
    w.finish().unwrap();
}

/// Every chunk's list, asked for from the last chunk to the first (nothing read ahead: each
/// chunk's followers are loaded before it).
fn one_by_one(bag: &Bag) -> Vec<std::sync::Arc<[IndexEntry]>> {
    let n = u32::try_from(bag.chunks().len()).unwrap();
    let mut lists: Vec<_> = (0..n).rev().map(|i| bag.chunk_entries(i)).collect();
    lists.reverse();
    lists
}

#[test]
fn lists_read_ahead_are_those_read_one_by_one() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("small.bag");
    write(&path, 300, 4000);
    let alone = one_by_one(&Bag::open(&path).unwrap());
    assert!(alone.len() > 100, "{} chunks", alone.len());
    let bag = Bag::open(&path).unwrap();
    // Asking for the first chunk reads the next ones' index data with it.
    let _ = bag.chunk_entries(0);
    let ahead = (1..alone.len())
        .take_while(|&i| bag.loaded_entries(u32::try_from(i).unwrap()).is_some())
        .count();
    assert!(ahead > 50, "only {ahead} chunks read ahead");
    for (i, list) in alone.iter().enumerate() {
        let got = bag.chunk_entries(u32::try_from(i).unwrap());
        assert_eq!(&got[..], &list[..], "chunk {i}");
    }
    assert_eq!(
        alone.iter().map(|l| l.len()).sum::<usize>(),
        4000,
        "every message listed"
    );
    assert!(bag.warnings().is_empty());
}

#[test]
fn chunks_far_apart_are_not_read_ahead() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("large.bag");
    // Chunks of 64 KiB: their index data lies 64 KiB apart, more than a read ahead spans.
    write_big(&path);
    let bag = Bag::open(&path).unwrap();
    assert!(bag.chunks().len() >= 3);
    let _ = bag.chunk_entries(0);
    assert!(bag.loaded_entries(1).is_none());
}

/// A bag of chunks of 64 KiB (messages of 16 KiB of noise, which lz4 cannot shrink).
fn write_big(path: &Path) {
    let mut w = BagWriter::create(
        path,
        WriterOptions {
            compression: Compression::Lz4,
            chunk_size: 64 << 10,
        },
    )
    .unwrap();
    let h = ConnectionHeader::build(
        "/big",
        "std_msgs/String",
        "992ce8a1687cec8c8bd883ec73ca41d1",
        "string data\n",
        None,
        None,
    );
    let conn = w.add_connection("/big", &h).unwrap();
    let mut x = 0x9e37_79b9_u32;
    for i in 0..20u32 {
        let mut data = (16u32 << 10).to_le_bytes().to_vec();
        data.extend((0..16 << 10).map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x.to_le_bytes()[0]
        }));
        w.write(conn, RosTime::new(i, 0), &data).unwrap();
    }
    w.finish().unwrap();
}

#[test]
fn a_damaged_follower_is_left_to_be_read_and_reported() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("damaged.bag");
    write(&path, 300, 2000);
    // The first entry of chunk 5's first index data record points past the chunk.
    let (pos, first_time) = {
        let bag = Bag::open(&path).unwrap();
        let head = bag.chunk_head(5).unwrap();
        (head.index_data_pos.unwrap(), bag.chunks()[5].start)
    };
    let mut bytes = std::fs::read(&path).unwrap();
    let at = usize::try_from(pos).unwrap();
    let header_len = u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
    let entries = at + 4 + header_len + 4;
    bytes[entries + 8..entries + 12].copy_from_slice(&u32::MAX.to_le_bytes());
    std::fs::write(&path, &bytes).unwrap();

    let asked_alone = Bag::open(&path).unwrap();
    let expected = asked_alone.chunk_entries(5);
    let expected_warnings = format!("{:?}", asked_alone.warnings());
    assert!(
        expected_warnings.contains("inconsistent"),
        "{expected_warnings}"
    );

    let bag = Bag::open(&path).unwrap();
    let _ = bag.chunk_entries(0);
    assert!(
        bag.loaded_entries(4).is_some(),
        "chunks before it read ahead"
    );
    assert!(bag.loaded_entries(5).is_none(), "the damaged one left");
    assert!(
        bag.warnings().is_empty(),
        "nothing reported before it is asked for"
    );
    assert_eq!(&bag.chunk_entries(5)[..], &expected[..]);
    assert_eq!(format!("{:?}", bag.warnings()), expected_warnings);
    assert!(expected.iter().any(|e| e.time >= first_time));
}
