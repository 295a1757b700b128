//! A followed recording's snapshots read the chunk the recorder is still writing (its header
//! says size 0 until it is closed) and loose records after the last chunk like any other:
//! listed, counted and read, with no warning and no loss, at every record boundary.

#![allow(clippy::cast_possible_truncation)] // small test files

use super::tests::{as_written, expected, finished};
use super::*;
use crate::bag::handle::Bag;
use crate::bag::query::Query;
use crate::format::{Compression, Op, read_record};

/// Where every record of `full` ends (those inside uncompressed chunks too), in file order.
fn record_ends(full: &[u8]) -> Vec<usize> {
    let mut ends = Vec::new();
    let mut pos = 13; // after `#ROSBAG V2.0\n`
    while let Ok(r) = read_record(full, pos, 0) {
        if matches!(r.op(), Ok(Ok(Op::Chunk))) {
            let mut at = r.data_offset as usize;
            while at < r.end() as usize {
                let Ok(inner) = read_record(full, at, 0) else {
                    break;
                };
                ends.push(inner.end() as usize);
                at = inner.end() as usize;
            }
        }
        ends.push(r.end() as usize);
        pos = r.end() as usize;
    }
    ends
}

/// The messages of a snapshot as `(topic, time, data)`, in reading order; panics on any
/// message that cannot be read.
fn read_all(snap: &Bag) -> Vec<(String, crate::time::RosTime, Vec<u8>)> {
    snap.messages(&Query::all())
        .map(|m| {
            let m = m.expect("every counted message is read");
            let topic = snap.connection(m.entry.conn).unwrap().topic.clone();
            (topic, m.entry.time, m.data.to_vec())
        })
        .collect()
}

/// Follows the recording as the recorder writes it, cut at every record boundary; each
/// snapshot reads exactly the messages counted so far, with no warning and no loss.
fn at_every_boundary(keep: bool) {
    let dir = tempfile::tempdir().unwrap();
    let (full, bag) = finished(dir.path(), Compression::None, 40);
    let want = expected(&bag);
    let live = dir.path().join("rec.bag.active");
    std::fs::write(&live, b"").unwrap();
    let f = Follower::open(&live).unwrap();
    let mut f = if keep { f.keep_entries() } else { f };
    let mut seen = 0usize;
    for k in record_ends(&full) {
        std::fs::write(&live, as_written(&full, &bag, k)).unwrap();
        loop {
            let u = f.poll(usize::MAX).unwrap();
            assert!(u.losses.is_empty(), "at {k}: {:?}", u.losses);
            seen += u.messages.len();
            if !u.more {
                break;
            }
        }
        let snap = f.snapshot();
        assert_eq!(snap.message_count(), seen as u64, "at {k}");
        let got = read_all(&snap);
        assert_eq!(got, want[..seen], "at {k} (keep {keep})");
        assert!(snap.warnings().is_empty(), "at {k}: {:?}", snap.warnings());
        assert!(snap.recovery().unwrap().losses.is_empty(), "at {k}");
    }
    assert_eq!(seen, 40);
}

#[test]
fn the_open_chunk_is_read_at_every_record_boundary() {
    at_every_boundary(true);
}

#[test]
fn the_open_chunk_is_read_from_the_file_when_no_lists_are_kept() {
    at_every_boundary(false);
}

#[test]
fn loose_records_after_the_last_chunk_are_read() {
    let dir = tempfile::tempdir().unwrap();
    let (full, bag) = finished(dir.path(), Compression::None, 40);
    // A writer that died after two chunks, then wrote the third chunk's records loose.
    let third = &bag.chunks()[2];
    let h = bag.head(2).unwrap();
    let mut bytes = as_written(&full, &bag, third.pos as usize);
    let start = h.data_offset as usize;
    bytes.extend_from_slice(&full[start..start + h.compressed_size as usize]);
    let live = dir.path().join("rec.bag.active");
    std::fs::write(&live, &bytes).unwrap();
    let mut f = Follower::open(&live).unwrap().keep_entries();
    let u = f.poll(usize::MAX).unwrap();
    assert!(u.losses.is_empty(), "{:?}", u.losses);
    let n: u64 = bag.chunks()[..3].iter().map(Chunk::message_count).sum();
    assert_eq!(u.messages.len() as u64, n);
    let snap = f.snapshot();
    assert_eq!(read_all(&snap), expected(&bag)[..n as usize]);
    assert!(snap.warnings().is_empty(), "{:?}", snap.warnings());
}

#[test]
fn a_long_run_of_loose_records_is_split() {
    let dir = tempfile::tempdir().unwrap();
    let (full, bag) = finished(dir.path(), Compression::None, 4);
    let h = bag.head(0).unwrap();
    let start = h.data_offset as usize;
    let records = &full[start..start + h.compressed_size as usize];
    let mut bytes = as_written(&full, &bag, bag.chunks()[0].pos as usize);
    let copies = (2 * RUN_SPLIT as usize) / records.len() + 2;
    for _ in 0..copies {
        bytes.extend_from_slice(records);
    }
    let live = dir.path().join("rec.bag.active");
    std::fs::write(&live, &bytes).unwrap();
    let mut f = Follower::open(&live).unwrap().keep_entries();
    while f.poll(usize::MAX).unwrap().more {}
    assert!(f.chunks().len() >= 3, "{} pseudo chunks", f.chunks().len());
    let snap = f.snapshot();
    let n = read_all(&snap).len() as u64;
    assert_eq!(n, bag.chunks()[0].message_count() * copies as u64);
    assert!(snap.warnings().is_empty(), "{:?}", snap.warnings());
}

#[test]
fn connection_records_beyond_the_budget_are_damage() {
    use crate::bag::writer::{BagWriter, WriterOptions};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("many.bag");
    let mut w = BagWriter::create(
        &path,
        WriterOptions {
            compression: Compression::None,
            chunk_size: 1 << 20,
        },
    )
    .unwrap();
    // Connections with large definitions: a few past the byte budget.
    let definition = "x".repeat(1 << 20);
    let n = (MAX_CONNECTION_BYTES >> 20) as usize + 3;
    for i in 0..n {
        let topic = format!("/t{i}");
        let h = crate::format::ConnectionHeader::build(
            &topic,
            "std_msgs/String",
            "992ce8a1687cec8c8bd883ec73ca41d1",
            &definition,
            None,
            None,
        );
        let c = w.add_connection(&topic, &h).unwrap();
        w.write(c, crate::time::RosTime::new(1 + i as u32, 0), &[0, 0, 0, 0])
            .unwrap();
    }
    w.finish().unwrap();
    let mut f = Follower::open(&path).unwrap();
    let mut losses = Vec::new();
    loop {
        let u = f.poll(usize::MAX).unwrap();
        losses.extend(u.losses);
        if u.finished {
            break;
        }
    }
    assert!(f.connections().len() < n, "{}", f.connections().len());
    assert!(
        losses
            .iter()
            .any(|l| l.reason.contains("connection record beyond")),
        "{losses:?}"
    );
    assert!(f.connection_bytes <= MAX_CONNECTION_BYTES);
}
