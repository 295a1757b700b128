#![allow(clippy::cast_possible_truncation)] // small test files

use std::io::Write;
use std::path::Path;

use super::*;
use crate::bag::handle::Bag;
use crate::bag::query::Query;
use crate::bag::writer::{BagWriter, WriterOptions};
use crate::format::{Compression, ConnectionHeader};

fn header(topic: &str) -> ConnectionHeader {
    ConnectionHeader::build(
        topic,
        "std_msgs/String",
        "992ce8a1687cec8c8bd883ec73ca41d1",
        "string data\n",
        Some("/talker"),
        None,
    )
}

/// A finished bag of `n` messages on two topics, its bytes, and its messages as
/// `(topic, time, data)` in file order.
pub(crate) fn finished(dir: &Path, compression: Compression, n: u32) -> (Vec<u8>, Bag) {
    let path = dir.join(format!("full-{compression:?}.bag"));
    let mut w = BagWriter::create(
        &path,
        WriterOptions {
            compression,
            chunk_size: 700,
        },
    )
    .unwrap();
    let a = w.add_connection("/a", &header("/a")).unwrap();
    let b = w.add_connection("/b", &header("/b")).unwrap();
    for i in 0..n {
        let text = format!("message {i}");
        let mut payload = (text.len() as u32).to_le_bytes().to_vec();
        payload.extend_from_slice(text.as_bytes());
        let conn = if i % 3 == 0 { b } else { a };
        w.write(conn, RosTime::new(100 + i, 0), &payload).unwrap();
    }
    w.finish().unwrap();
    (std::fs::read(&path).unwrap(), Bag::open(&path).unwrap())
}

/// Where `name=` starts its value in `bytes[from..to]`.
fn field_value(bytes: &[u8], from: usize, to: usize, name: &[u8]) -> usize {
    let hay = &bytes[from..to];
    from + hay.windows(name.len()).position(|w| w == name).unwrap() + name.len()
}

/// The file as a recorder has it after writing `k` bytes: the bag header's index position
/// still 0, and chunks not yet closed with their header sizes 0 (as `rosbag record` does).
pub(crate) fn as_written(full: &[u8], bag: &Bag, k: usize) -> Vec<u8> {
    let mut out = full[..k].to_vec();
    if k < full.len() {
        let at = field_value(full, 13, 4096, b"index_pos=");
        if at + 8 <= out.len() {
            out[at..at + 8].fill(0);
        }
    }
    for c in bag.chunks() {
        let h = bag.head(c.index).unwrap();
        let end = (h.data_offset + h.compressed_size) as usize;
        if end <= k {
            continue;
        }
        let (pos, data) = (c.pos as usize, h.data_offset as usize);
        let size = field_value(full, pos, data, b"size=");
        for at in [size, data - 4] {
            if at + 4 <= out.len() {
                out[at..at + 4].fill(0);
            }
        }
    }
    out
}

/// Follows a recording written in steps of `step` bytes; returns what the follower read.
fn follow_in_steps(
    compression: Compression,
    step: usize,
) -> (Bag, Vec<(String, RosTime, Vec<u8>)>) {
    let dir = tempfile::tempdir().unwrap();
    let (full, bag) = finished(dir.path(), compression, 40);
    let live = dir.path().join("rec.bag.active");
    std::fs::write(&live, b"").unwrap();
    let mut f = Follower::open(&live).unwrap();
    let mut got = Vec::new();
    let mut k = 0;
    loop {
        k = (k + step).min(full.len());
        // Rewrite the whole prefix: closed chunks get their sizes, as the recorder seeks back.
        let bytes = as_written(&full, &bag, k);
        let mut file = std::fs::OpenOptions::new().write(true).open(&live).unwrap();
        file.write_all(&bytes).unwrap();
        drop(file);
        let (more, finished) = drain(&mut f);
        got.extend(more);
        if finished {
            assert_eq!(k, full.len(), "finished only once the header is rewritten");
            return (bag, got);
        }
        assert!(k < full.len(), "the finished bag ends the follow");
    }
}

/// A chunk's counts by topic, sorted (a follower may number connections otherwise than the
/// finished bag does).
fn by_topic(conns: &[Connection], c: &Chunk) -> Vec<(String, u32)> {
    let mut v: Vec<(String, u32)> = c
        .counts
        .iter()
        .map(|&(id, n)| (conns[id as usize].topic.clone(), n))
        .collect();
    v.sort_unstable();
    v
}

pub(crate) fn expected(bag: &Bag) -> Vec<(String, RosTime, Vec<u8>)> {
    bag.messages(&Query::all())
        .map(|m| {
            let m = m.unwrap();
            let topic = bag.connection(m.entry.conn).unwrap().topic.clone();
            (topic, m.entry.time, m.data.to_vec())
        })
        .collect()
}

#[test]
fn a_recording_written_chunk_by_chunk_is_read_once_and_whole() {
    for compression in [Compression::None, Compression::Lz4, Compression::Bz2] {
        let (bag, got) = follow_in_steps(compression, 700);
        assert_eq!(got, expected(&bag), "{compression:?}");
    }
}

#[test]
fn torn_records_are_waited_for_byte_by_byte() {
    for compression in [Compression::None, Compression::Lz4] {
        let (bag, got) = follow_in_steps(compression, 1);
        assert_eq!(got.len(), 40);
        assert_eq!(got, expected(&bag), "{compression:?}");
    }
}

#[test]
fn counts_and_chunks_follow_the_messages() {
    let dir = tempfile::tempdir().unwrap();
    let (full, bag) = finished(dir.path(), Compression::None, 40);
    let live = dir.path().join("rec.bag");
    std::fs::write(&live, &full).unwrap();
    let mut f = Follower::open(&live).unwrap();
    let u = f.poll(usize::MAX).unwrap();
    assert!(u.finished);
    assert_eq!(u.messages.len(), 40);
    assert_eq!(f.message_count(), bag.message_count());
    let mut counts: Vec<(String, u64)> = f
        .connections()
        .iter()
        .map(|c| (c.topic.clone(), c.message_count))
        .collect();
    counts.sort();
    assert_eq!(counts, vec![("/a".into(), 26), ("/b".into(), 14)]);
    let chunked: u64 = f.chunks().iter().map(Chunk::message_count).sum();
    assert_eq!(chunked, 40);
    assert_eq!(f.chunks().len(), bag.chunks().len());
    assert!(
        f.chunks()
            .iter()
            .all(|c| c.state == crate::bag::chunk::ChunkState::Complete)
    );
    assert_eq!(f.behind_bytes(), 0);
}

#[test]
fn a_budget_splits_a_large_backlog() {
    let dir = tempfile::tempdir().unwrap();
    let (full, _) = finished(dir.path(), Compression::None, 40);
    let live = dir.path().join("rec.bag");
    std::fs::write(&live, &full).unwrap();
    let mut f = Follower::open(&live).unwrap();
    let mut polls = 0;
    let mut n = 0;
    loop {
        let u = f.poll(40).unwrap();
        polls += 1;
        n += u.messages.len();
        if u.finished {
            break;
        }
        assert!(u.more);
    }
    assert_eq!(n, 40);
    assert!(polls > 5);
}

#[test]
fn damage_in_the_middle_is_skipped_and_reported() {
    let dir = tempfile::tempdir().unwrap();
    let (mut full, bag) = finished(dir.path(), Compression::None, 40);
    // Spoil one message record's header length (the second message of the first chunk).
    let c = bag.head(0).unwrap();
    let entries = bag.chunk_entries(0);
    let at = (c.data_offset + entries[1].offset) as usize;
    full[at..at + 4].copy_from_slice(&0xFFFF_FFF0u32.to_le_bytes());
    let live = dir.path().join("rec.bag");
    std::fs::write(&live, &full).unwrap();
    let mut f = Follower::open(&live).unwrap();
    let u = f.poll(usize::MAX).unwrap();
    assert!(u.finished);
    assert_eq!(u.losses.len(), 1, "{:?}", u.losses);
    assert_eq!(u.losses[0].offset, at as u64);
    assert_eq!(u.messages.len(), 39);
    // The explorer's snapshot carries the damage too.
    let snap = f.snapshot();
    let kept = &snap.recovery().unwrap().losses;
    assert_eq!(kept, &u.losses);
}

#[test]
fn a_file_that_is_not_a_bag_is_refused_and_an_empty_one_waited_for() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("x.bag.active");
    std::fs::write(&p, b"").unwrap();
    let mut f = Follower::open(&p).unwrap();
    let u = f.poll(100).unwrap();
    assert!(u.messages.is_empty() && !u.finished);
    std::fs::write(&p, vec![b'x'; 200]).unwrap();
    assert!(matches!(f.poll(100), Err(FollowError::NotABag { .. })));
}

#[test]
fn the_finished_path_is_found_after_the_rename() {
    let dir = tempfile::tempdir().unwrap();
    let active = dir.path().join("x.bag.active");
    std::fs::write(&active, b"").unwrap();
    let mut f = Follower::open(&active).unwrap();
    assert!(!f.poll(100).unwrap().finished);
    assert_eq!(f.final_path(), active);
    std::fs::rename(&active, dir.path().join("x.bag")).unwrap();
    assert_eq!(f.final_path(), dir.path().join("x.bag"));
    assert!(!f.changed().unwrap());
    assert!(!f.wait(Duration::from_millis(50)).unwrap());
}

#[test]
fn closed_chunks_keep_their_counts_in_shared_tables() {
    let dir = tempfile::tempdir().unwrap();
    let (mut full, bag) = finished(dir.path(), Compression::None, 60);
    // Still recording: the bag header's index position 0.
    let at = field_value(&full, 13, 4096, b"index_pos=");
    full[at..at + 8].fill(0);
    let live = dir.path().join("rec.bag.active");
    std::fs::write(&live, b"").unwrap();
    let mut f = Follower::open(&live).unwrap();
    let mut read = 0u64;
    for piece in full.chunks(300) {
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(&live)
            .unwrap();
        file.write_all(piece).unwrap();
        drop(file);
        loop {
            let u = f.poll(1 << 20).unwrap();
            read += u.messages.len() as u64;
            if !u.more {
                break;
            }
        }
        let n = f.chunks().len();
        // Every chunk but the last is closed: its counts are final.
        for (got, want) in f
            .chunks()
            .iter()
            .zip(bag.chunks())
            .take(n.saturating_sub(1))
        {
            assert_eq!(
                by_topic(f.connections(), got),
                by_topic(bag.connections(), want),
                "chunk {}",
                got.index
            );
        }
        let snap = f.snapshot();
        assert_eq!(snap.message_count(), read);
        assert_eq!(snap.chunks().len(), n);
        // The totals kept over the closed chunks plus the open ones are a pass over all.
        let pass = crate::bag::totals::Totals::of(snap.chunks(), snap.connections().len());
        assert_eq!(snap.inner.totals, pass);
        let complete = snap
            .chunks()
            .iter()
            .filter(|c| c.state == crate::bag::chunk::ChunkState::Complete)
            .count() as u64;
        let recovery = snap.recovery().unwrap();
        assert_eq!(
            (recovery.complete_chunks, recovery.partial_chunks),
            (complete, n as u64 - complete)
        );
    }
    let all: Vec<_> = f
        .chunks()
        .iter()
        .map(|c| by_topic(f.connections(), c))
        .collect();
    let want: Vec<_> = bag
        .chunks()
        .iter()
        .map(|c| by_topic(bag.connections(), c))
        .collect();
    assert_eq!(all, want);
}

/// Polls until the follower has read everything written so far; the messages by topic, and
/// whether the recording finished.
pub(super) fn drain(f: &mut Follower) -> (Vec<(String, RosTime, Vec<u8>)>, bool) {
    let mut got = Vec::new();
    loop {
        let u = f.poll(1 << 20).unwrap();
        assert!(u.losses.is_empty(), "no damage: {:?}", u.losses);
        for m in u.messages {
            let topic = f.connections()[m.conn as usize].topic.clone();
            got.push((topic, m.time, m.data));
        }
        if u.finished || !u.more {
            return (got, u.finished);
        }
    }
}

#[test]
fn a_scanned_recording_is_followed_from_its_last_chunk() {
    for compression in [Compression::None, Compression::Lz4] {
        let dir = tempfile::tempdir().unwrap();
        let (full, bag) = finished(dir.path(), compression, 60);
        let want = expected(&bag);
        let live = dir.path().join("rec.bag.active");
        // The recorder is inside its fourth chunk when the explorer opens (and scans) the file.
        let h = bag.head(3).unwrap();
        let k = (h.data_offset + h.compressed_size / 2) as usize;
        std::fs::write(&live, as_written(&full, &bag, k)).unwrap();
        let scanned = Bag::open(&live).unwrap();
        assert!(scanned.recovery().is_some(), "{compression:?}");
        let mut f = Follower::resume(&live, &scanned).unwrap();
        let (last, kept) = scanned.chunks().split_last().unwrap();
        assert_eq!(
            f.consumed(),
            last.pos,
            "{compression:?}: resumes at the last chunk"
        );
        let before: u64 = kept.iter().map(Chunk::message_count).sum();
        assert!(before > 0, "{compression:?}");
        assert_eq!(f.message_count(), before);
        assert_eq!(f.chunks().len(), kept.len());
        // The recording goes on to its end: the follower reads the rest, and only the rest.
        let mut got = Vec::new();
        let mut done = false;
        for k in [k, k + 500, full.len()] {
            std::fs::write(&live, as_written(&full, &bag, k.min(full.len()))).unwrap();
            let (more, finished) = drain(&mut f);
            got.extend(more);
            done = finished;
        }
        assert!(done, "{compression:?}");
        assert_eq!(got, want[before as usize..], "{compression:?}");
        assert_eq!(f.message_count(), 60);
        let counts = |conns: &[Connection], chunks: &[Chunk]| -> Vec<Vec<(String, u32)>> {
            chunks.iter().map(|c| by_topic(conns, c)).collect()
        };
        assert_eq!(
            counts(f.connections(), f.chunks()),
            counts(bag.connections(), bag.chunks()),
            "{compression:?}"
        );
        let snap = f.snapshot();
        assert_eq!(snap.message_count(), 60);
        let pass = crate::bag::totals::Totals::of(snap.chunks(), snap.connections().len());
        assert_eq!(snap.inner.totals, pass, "{compression:?}");
    }
}

#[test]
fn an_indexed_bag_or_another_file_is_followed_from_the_start() {
    let dir = tempfile::tempdir().unwrap();
    let (full, bag) = finished(dir.path(), Compression::None, 40);
    let path = dir.path().join("done.bag");
    std::fs::write(&path, &full).unwrap();
    // An indexed bag: its chunk headers need not have been read, so nothing is taken over.
    let mut f = Follower::resume(&path, &Bag::open(&path).unwrap()).unwrap();
    assert_eq!(f.message_count(), 0);
    assert_eq!(drain(&mut f), (expected(&bag), true));
    // A scan of a longer file than the one now at the path: read from the start.
    let live = dir.path().join("rec.bag.active");
    std::fs::write(&live, as_written(&full, &bag, full.len() - 10)).unwrap();
    let scanned = Bag::open(&live).unwrap();
    let cut = scanned.chunks().last().unwrap().pos as usize - 1;
    std::fs::write(&live, as_written(&full, &bag, cut)).unwrap();
    let mut f = Follower::resume(&live, &scanned).unwrap();
    assert_eq!(f.message_count(), 0);
    let (got, finished) = drain(&mut f);
    assert!(!finished);
    assert_eq!(got, expected(&bag)[..got.len()]);
    assert!(!got.is_empty());
}
