//! Partial results of a recovery scan (issue 17, item 3): a bag without index and without
//! index data records (every chunk must be decompressed and walked) hands out the bag as
//! found so far while it is scanned; the snapshots arrive before the end, only grow, read
//! like the finished bag, and the finished bag is the one a plain open gives.

use std::path::Path;
use std::sync::{Arc, Mutex};

use bagscope::bag::writer::{BagWriter, WriterOptions};
use bagscope::bag::{Bag, BagErrorKind, IndexEntry, OpenOptions, PartialFn, ProgressFn, Query};
use bagscope::format::Compression;
use bagscope::time::RosTime;

use crate::common::synth::{string_header, string_msg};
use crate::common::unindexed::unindexed;

/// A closed bag of `n` messages on three topics in small lz4 chunks; its bytes.
fn closed(path: &Path, n: u32) -> Vec<u8> {
    let mut w = BagWriter::create(
        path,
        WriterOptions {
            compression: Compression::Lz4,
            chunk_size: 1500,
        },
    )
    .unwrap();
    let conns: Vec<_> = ["/a", "/b", "/c"]
        .iter()
        .map(|t| w.add_connection(t, &string_header(t, "/talker")).unwrap())
        .collect();
    for i in 0..n {
        let data = string_msg(&format!("message {i} {}", "x".repeat((i % 40) as usize)));
        w.write(
            conns[(i % 3) as usize],
            RosTime::new(1000 + i / 10, (i % 10) * 100_000_000),
            &data,
        )
        .unwrap();
    }
    w.finish().unwrap();
    std::fs::read(path).unwrap()
}

/// Every message: topic, time, payload, in the bag's order.
fn messages(bag: &Bag) -> Vec<(String, RosTime, Vec<u8>)> {
    bag.messages(&Query::all())
        .map(|m| {
            let m = m.unwrap();
            let topic = bag.connection(m.entry.conn).unwrap().topic.clone();
            (topic, m.entry.time, m.data.to_vec())
        })
        .collect()
}

/// What one partial result showed.
#[derive(Debug)]
struct Seen {
    done: u64,
    total: u64,
    chunks: usize,
    messages: u64,
    read: Vec<(String, RosTime, Vec<u8>)>,
    /// What the partial bag's recovery report says of the scan.
    scanned: Option<(u64, u64)>,
    /// Each chunk's entries.
    entries: Vec<Option<Arc<[IndexEntry]>>>,
}

fn open_watching(path: &Path, threads: usize) -> (Result<Bag, bagscope::bag::BagError>, Vec<Seen>) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let mut options = OpenOptions {
        threads,
        ..OpenOptions::default()
    };
    let sink = Arc::clone(&seen);
    options.partial = Some(PartialFn(Arc::new(move |p| {
        let read = messages(&p.bag);
        sink.lock().unwrap().push(Seen {
            done: p.done,
            total: p.total,
            chunks: p.bag.chunks().len(),
            messages: p.bag.message_count(),
            read,
            scanned: p.bag.recovery().and_then(|r| r.scanned),
            entries: (0..p.bag.chunks().len())
                .map(|i| p.bag.loaded_entries(i as u32))
                .collect(),
        });
        true
    })));
    // A slow disk: each progress report (256 per scan) takes a few milliseconds.
    options.progress = Some(ProgressFn(Arc::new(|_| {
        std::thread::sleep(std::time::Duration::from_millis(4));
    })));
    let bag = Bag::open_with(path, options);
    let seen = std::mem::take(&mut *seen.lock().unwrap());
    (bag, seen)
}

/// The finished bag takes the entries of the chunks the partial bags showed as they are (one
/// copy in memory, not two), and they are those of a plain scan.
fn entries_taken_over(seen: &[Seen], bag: &Bag, plain: &Bag, threads: usize) {
    let last = seen.last().unwrap();
    for (i, shown) in last.entries.iter().enumerate() {
        let fin = bag.loaded_entries(i as u32).unwrap();
        assert!(
            Arc::ptr_eq(shown.as_ref().unwrap(), &fin),
            "{threads} threads: chunk {i}'s entries are shared"
        );
    }
    for i in 0..bag.chunks().len() as u32 {
        assert_eq!(bag.loaded_entries(i), plain.loaded_entries(i), "chunk {i}");
    }
}

#[test]
fn partial_results_arrive_early_grow_and_end_in_the_bag_a_plain_open_gives() {
    let dir = tempfile::tempdir().unwrap();
    let original = closed(&dir.path().join("closed.bag"), 6000);
    let path = dir.path().join("crashed.bag.active");
    std::fs::write(&path, unindexed(&original, true)).unwrap();
    let reference = messages(&Bag::open(dir.path().join("closed.bag")).unwrap());
    let plain = Bag::open_with(
        &path,
        OpenOptions {
            threads: 1,
            ..OpenOptions::default()
        },
    )
    .unwrap();
    assert!(
        plain.chunks().len() > 100,
        "{} chunks",
        plain.chunks().len()
    );
    assert_eq!(messages(&plain), reference);
    for threads in [1, 4] {
        let (bag, seen) = open_watching(&path, threads);
        let bag = bag.unwrap();
        assert!(
            seen.len() >= 2,
            "{threads} threads: {} partial results",
            seen.len()
        );
        let first = &seen[0];
        assert!(
            first.done < first.total / 2 && first.chunks < plain.chunks().len() / 2,
            "the first partial result comes early: {first:?}"
        );
        for pair in seen.windows(2) {
            let (a, b) = (&pair[0], &pair[1]);
            assert!(b.done >= a.done && b.chunks >= a.chunks && b.messages >= a.messages);
            // What a snapshot reads is a beginning of what the next one reads.
            assert!(b.read.len() >= a.read.len());
        }
        for s in &seen {
            assert_eq!(s.messages as usize, s.read.len());
            // Its report says the scan is still running, and how far it is.
            assert_eq!(s.scanned, Some((s.done, s.total)), "{threads} threads");
            assert!(
                s.chunks < plain.chunks().len(),
                "a partial result is never the whole"
            );
            // The messages of a partial result, in time order, are those of the whole bag
            // up to its last chunk (small chunks in time order: a beginning of the bag).
            assert_eq!(s.read[..], reference[..s.read.len()], "{threads} threads");
        }
        assert_eq!(messages(&bag), reference, "{threads} threads");
        assert_eq!(bag.chunks().len(), plain.chunks().len());
        assert_eq!(bag.recovery(), plain.recovery());
        assert_eq!(
            bag.recovery().unwrap().scanned,
            None,
            "the finished bag is final"
        );
        entries_taken_over(&seen, &bag, &plain, threads);
    }
}

#[test]
fn a_partial_callback_saying_no_cancels_the_scan() {
    let dir = tempfile::tempdir().unwrap();
    let original = closed(&dir.path().join("closed.bag"), 3000);
    let path = dir.path().join("crashed.bag.active");
    std::fs::write(&path, unindexed(&original, true)).unwrap();
    let calls = Arc::new(Mutex::new(0));
    let counted = Arc::clone(&calls);
    let options = OpenOptions {
        partial: Some(PartialFn(Arc::new(move |_| {
            *counted.lock().unwrap() += 1;
            false
        }))),
        // A slow disk: the scan is still under way when its first chunks are read.
        progress: Some(ProgressFn(Arc::new(|_| {
            std::thread::sleep(std::time::Duration::from_millis(2));
        }))),
        ..OpenOptions::default()
    };
    let err = Bag::open_with(&path, options).unwrap_err();
    assert!(matches!(*err.kind, BagErrorKind::Cancelled), "{err}");
    assert_eq!(*calls.lock().unwrap(), 1);
}

#[test]
fn indexed_bags_never_call_the_partial_callback() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("closed.bag");
    closed(&path, 300);
    let options = OpenOptions {
        partial: Some(PartialFn(Arc::new(|_| panic!("called for an indexed bag")))),
        ..OpenOptions::default()
    };
    assert!(Bag::open_with(&path, options).unwrap().is_indexed());
}

/// Scanned with partial results on, `path` ends in the bag a plain scan gives; that bag.
fn scans_alike(path: &Path) -> Bag {
    let plain = Bag::open(path).unwrap();
    let options = OpenOptions {
        partial: Some(PartialFn(Arc::new(|_| true))),
        ..OpenOptions::default()
    };
    let bag = Bag::open_with(path, options).unwrap();
    let name = path.display();
    assert_eq!(bag.connections(), plain.connections(), "{name}");
    assert_eq!(bag.chunks(), plain.chunks(), "{name}");
    assert_eq!(bag.recovery(), plain.recovery(), "{name}");
    for i in 0..bag.chunks().len() as u32 {
        assert_eq!(
            bag.loaded_entries(i),
            plain.loaded_entries(i),
            "{name}: chunk {i}"
        );
    }
    plain
}

/// Every fixture that needs a scan (crashed recordings with index data records, truncated
/// bags) ends, scanned with partial results on, in the bag a plain scan gives: the chunks the
/// partial scan assembled as they settled are taken over only where assembling them again
/// would give the same.
#[test]
fn every_scanned_fixture_ends_as_a_plain_scan_ends() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut scanned = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if Bag::open(&path).is_ok_and(|b| b.recovery().is_some()) {
            scans_alike(&path);
            scanned.push(path);
        }
    }
    assert!(scanned.len() >= 4, "{scanned:?}");
}

/// A crashed recording whose first connection record is damaged: the chunks using that
/// connection were assembled while it was unknown, and stay so. The finished bag assembles
/// them again (their messages are counted as lost), as a plain scan does.
#[test]
fn chunks_of_a_connection_never_found_are_assembled_again_at_the_end() {
    let dir = tempfile::tempdir().unwrap();
    let fixture =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/recorded_crash.bag.active");
    let mut bytes = std::fs::read(fixture).unwrap();
    let at = bytes.windows(4).position(|w| w == b"op=\x07").unwrap();
    bytes[at + 3] = 0x63;
    let path = dir.path().join("damaged.bag.active");
    std::fs::write(&path, bytes).unwrap();
    let plain = scans_alike(&path);
    let losses = &plain.recovery().unwrap().losses;
    assert!(
        losses
            .iter()
            .any(|l| l.reason.starts_with("no connection record was found")),
        "{losses:?}"
    );
}
