//! Following MCAP files as writers write them: the `mcap` crate's writer (which streams a
//! chunk behind a placeholder header and rewrites it), writers that write each chunk whole
//! (libmcap, Python's `mcap`: simulated by growing a finished file), unchunked writers, and
//! damage.

#![allow(clippy::cast_possible_truncation)] // small test files

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::io::Write;

use super::tests::expected;
use super::*;
use crate::bag::handle::Bag;

const STRING_DEF: &[u8] = b"string data\n";

/// A std_msgs/String message as ROS1 serializes it.
fn string_msg(text: &str) -> Vec<u8> {
    let mut v = (text.len() as u32).to_le_bytes().to_vec();
    v.extend_from_slice(text.as_bytes());
    v
}

/// Writes `n` messages on two channels (a metadata record and an attachment first) with
/// `options`, calling `after` after each message.
fn write_with<W: Write + std::io::Seek>(
    options: ::mcap::WriteOptions,
    sink: W,
    n: u32,
    mut after: impl FnMut(u32),
) -> W {
    let mut w = options.create(sink).unwrap();
    let schema = w
        .add_schema("std_msgs/String", "ros1msg", STRING_DEF)
        .unwrap();
    let a = w
        .add_channel(schema, "/a", "ros1", &BTreeMap::new())
        .unwrap();
    let b = w
        .add_channel(schema, "/b", "ros1", &BTreeMap::new())
        .unwrap();
    w.write_metadata(&::mcap::records::Metadata {
        name: "run".into(),
        metadata: BTreeMap::from([("site".to_string(), "yard".to_string())]),
    })
    .unwrap();
    w.attach(&::mcap::Attachment {
        log_time: 5,
        create_time: 6,
        name: "calib.yaml".into(),
        media_type: "text/yaml".into(),
        data: Cow::Borrowed(b"k: 1\n"),
    })
    .unwrap();
    for i in 0..n {
        let channel = if i % 3 == 0 { b } else { a };
        let header = ::mcap::records::MessageHeader {
            channel_id: channel,
            sequence: i,
            log_time: 1_000_000_000 * u64::from(100 + i),
            publish_time: 0,
        };
        w.write_to_known_channel(&header, &string_msg(&format!("message {i}")))
            .unwrap();
        after(i);
    }
    w.finish().unwrap();
    w.into_inner()
}

fn options(compression: Option<::mcap::Compression>, chunks: bool) -> ::mcap::WriteOptions {
    ::mcap::WriteOptions::new()
        .profile("ros1")
        .compression(compression)
        .use_chunks(chunks)
        .chunk_size(Some(300))
}

/// Everything a follower has read until now, polled to the end of what is there.
fn drain(f: &mut Follower, got: &mut Vec<(String, RosTime, Vec<u8>)>) -> (bool, Vec<Loss>) {
    let mut losses = Vec::new();
    loop {
        let u = f.poll(usize::MAX).unwrap();
        losses.extend(u.losses);
        for m in u.messages {
            let topic = f.connections()[m.conn as usize].topic.clone();
            got.push((topic, m.time, m.data));
        }
        if u.finished || !u.more {
            return (u.finished, losses);
        }
    }
}

#[test]
fn the_mcap_crates_writer_is_followed_message_by_message() {
    for (compression, chunks) in [
        (Some(::mcap::Compression::Zstd), true),
        (Some(::mcap::Compression::Lz4), true),
        (None, true),
        (None, false),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("live.mcap");
        let file = std::fs::File::create(&path).unwrap();
        let mut f: Option<Follower> = None;
        let mut got = Vec::new();
        let mut pending_seen = false;
        write_with(options(compression, chunks), file, 60, |_| {
            let f = f.get_or_insert_with(|| Follower::open(&path).unwrap().keep_entries());
            let (finished, losses) = drain(f, &mut got);
            assert!(!finished, "{compression:?}: finished before the data end");
            assert!(losses.is_empty(), "{compression:?}: {losses:?}");
            pending_seen |= f.pending_chunk.is_some();
            // What was read so far reads back the same through a snapshot.
            let snap = f.snapshot();
            assert_eq!(snap.version(), Version::Mcap);
            assert_eq!(expected(&snap), got, "{compression:?} {chunks}");
        });
        let mut f = f.unwrap();
        let (finished, losses) = drain(&mut f, &mut got);
        assert!(finished, "{compression:?}");
        assert!(losses.is_empty(), "{compression:?}: {losses:?}");
        let done = Bag::open(&path).unwrap();
        assert_eq!(got, expected(&done), "{compression:?} {chunks}");
        assert_eq!(got.len(), 60);
        // The crate's writer streams its chunks behind a placeholder header.
        assert_eq!(pending_seen, chunks, "{compression:?}");
        let info = f.snapshot().mcap().cloned().unwrap();
        assert_eq!(info.profile, "ros1");
        assert_eq!(info.metadata.len(), 1);
        assert_eq!(info.attachments.len(), 1);
        assert_eq!(info.attachments[0].name, "calib.yaml");
    }
}

/// Grows `path` to `full[..k]` for k in steps of `step`, following it; returns what was read.
fn follow_prefixes(full: &[u8], step: usize) -> (Vec<(String, RosTime, Vec<u8>)>, Follower) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("grow.mcap");
    std::fs::write(&path, b"").unwrap();
    let mut f = Follower::open(&path).unwrap();
    let mut got = Vec::new();
    let mut k = 0;
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap();
    loop {
        let next = (k + step).min(full.len());
        file.write_all(&full[k..next]).unwrap();
        k = next;
        let (finished, losses) = drain(&mut f, &mut got);
        assert!(losses.is_empty(), "at {k}: {losses:?}");
        if finished {
            return (got, f);
        }
        assert!(k < full.len(), "the whole file must finish the follow");
    }
}

#[test]
fn writers_that_write_whole_chunks_are_followed_through_every_cut() {
    for (compression, chunks) in [(Some(::mcap::Compression::Zstd), true), (None, false)] {
        let full = write_with(
            options(compression, chunks),
            std::io::Cursor::new(Vec::new()),
            30,
            |_| {},
        )
        .into_inner();
        let dir = tempfile::tempdir().unwrap();
        let whole = dir.path().join("whole.mcap");
        std::fs::write(&whole, &full).unwrap();
        let want = expected(&Bag::open(&whole).unwrap());
        for step in [1, 7, 64, full.len()] {
            let (got, f) = follow_prefixes(&full, step);
            assert_eq!(got, want, "{compression:?} step {step}");
            assert_eq!(f.message_count(), 30);
        }
    }
}

#[test]
fn a_loose_run_is_split_into_pseudo_chunks_that_read_back() {
    let full = write_with(
        options(None, false),
        std::io::Cursor::new(Vec::new()),
        400,
        |_| {},
    )
    .into_inner();
    let (got, f) = follow_prefixes(&full, 5000);
    assert_eq!(got.len(), 400);
    assert!(
        f.chunks()
            .iter()
            .all(|c| c.layout == crate::bag::chunk::ChunkLayout::Mcap)
    );
    assert_eq!(expected(&f.snapshot()), got);
}

#[test]
fn an_impossible_record_ends_what_can_be_read_and_says_so() {
    let mut full = write_with(
        options(None, false),
        std::io::Cursor::new(Vec::new()),
        20,
        |_| {},
    )
    .into_inner();
    // Cut into the 11th message record: opcode 0 from there.
    let dir = tempfile::tempdir().unwrap();
    let whole = dir.path().join("whole.mcap");
    std::fs::write(&whole, &full).unwrap();
    let bag = Bag::open(&whole).unwrap();
    let entries = bag.chunk_entries(0);
    let at = bag.chunks()[0].pos as usize + entries[10].offset as usize;
    full[at] = 0;
    let path = dir.path().join("damaged.mcap");
    std::fs::write(&path, &full).unwrap();
    let mut f = Follower::open(&path).unwrap();
    let mut got = Vec::new();
    let (finished, losses) = drain(&mut f, &mut got);
    assert!(!finished);
    assert_eq!(got.len(), 10);
    assert_eq!(losses.len(), 1, "{losses:?}");
    assert_eq!(losses[0].offset, at as u64);
    assert!(losses[0].reason.contains("nothing after it"), "{losses:?}");
    // Nothing more is read or reported.
    std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap()
        .write_all(&[1, 2, 3])
        .unwrap();
    let (_, more) = drain(&mut f, &mut got);
    assert!(more.is_empty());
    assert_eq!(got.len(), 10);
    assert_eq!(f.snapshot().recovery().unwrap().losses.len(), 1);
}

#[test]
fn a_chunk_that_does_not_decompress_is_skipped_and_reported() {
    let full = write_with(
        options(Some(::mcap::Compression::Lz4), true),
        std::io::Cursor::new(Vec::new()),
        30,
        |_| {},
    )
    .into_inner();
    let dir = tempfile::tempdir().unwrap();
    let whole = dir.path().join("whole.mcap");
    std::fs::write(&whole, &full).unwrap();
    let bag = Bag::open(&whole).unwrap();
    let second = &bag.chunks()[1];
    let head = bag.head(second.index).unwrap();
    let lost = second.message_count();
    let mut damaged = full.clone();
    for b in
        &mut damaged[head.data_offset as usize..(head.data_offset + head.compressed_size) as usize]
    {
        *b = 0xff;
    }
    let path = dir.path().join("damaged.mcap");
    std::fs::write(&path, &damaged).unwrap();
    let mut f = Follower::open(&path).unwrap();
    let mut got = Vec::new();
    let (finished, losses) = drain(&mut f, &mut got);
    assert!(finished);
    assert_eq!(losses.len(), 1, "{losses:?}");
    assert_eq!(losses[0].offset, second.pos);
    assert_eq!(got.len() as u64, 30 - lost);
}

#[test]
fn a_large_attachment_is_listed_without_being_held() {
    let mut w = options(None, false)
        .create(std::io::Cursor::new(Vec::new()))
        .unwrap();
    let big = vec![7u8; 3 << 20];
    w.attach(&::mcap::Attachment {
        log_time: 1,
        create_time: 2,
        name: "map.pgm".into(),
        media_type: "image/x-portable-graymap".into(),
        data: Cow::Borrowed(&big),
    })
    .unwrap();
    w.finish().unwrap();
    let full = w.into_inner().into_inner();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("att.mcap");
    std::fs::write(&path, b"").unwrap();
    let mut f = Follower::open(&path).unwrap();
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap();
    let mut got = Vec::new();
    let mut most = 0;
    for piece in full.chunks(256 << 10) {
        file.write_all(piece).unwrap();
        let (_, losses) = drain(&mut f, &mut got);
        assert!(losses.is_empty(), "{losses:?}");
        most = most.max(f.buf.len());
    }
    assert!(f.is_finished());
    assert!(most < (2 << 20), "held {most} bytes of a 3 MiB attachment");
    let info = f.snapshot().mcap().cloned().unwrap();
    assert_eq!(info.attachments.len(), 1);
    assert_eq!(info.attachments[0].size, 3 << 20);
    assert_eq!(info.attachments[0].media_type, "image/x-portable-graymap");
}

#[test]
fn a_ros_bag_and_an_mcap_are_told_apart_and_others_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.bag");
    std::fs::write(&path, [&b"#ROSRECORD V1.2\n"[..], &[0u8; 80]].concat()).unwrap();
    let mut f = Follower::open(&path).unwrap();
    let e = f.poll(1).unwrap_err().to_string();
    assert!(e.contains("only ROS bag V2.0 and MCAP files"), "{e}");
}
