//! The scan of a recording cut at every byte, as a recorder leaves it while it writes (the
//! bag header's index position 0, the chunk being written with size 0): a `.active` file
//! reads exactly the messages the follower reads, with no loss and the rest noted as
//! unfinished; the same bytes named `.bag` report that rest as lost; a compressed chunk not
//! whole in the file is never decoded (no message that the recording does not hold).

#![allow(clippy::cast_possible_truncation)] // small test files

use std::path::Path;

use crate::bag::follow::Follower;
use crate::bag::follow::tests::{as_written, expected, finished};
use crate::bag::handle::Bag;
use crate::bag::handle::OpenOptions;
use crate::bag::query::Query;
use crate::bag::recovery::Writing;
use crate::format::{Compression, Op, read_record};
use crate::time::RosTime;

type Msg = (String, RosTime, Vec<u8>);

/// Where to cut `full` (a finished bag of small records): at, just after, just before and in
/// the middle of every record (those inside uncompressed chunks too), and every `stride`
/// bytes (inside compressed chunks).
fn cuts(full: &[u8], from: usize, stride: usize) -> Vec<usize> {
    let mut ends = vec![from];
    let mut pos = from;
    while let Ok(r) = read_record(full, pos, 0) {
        if matches!(r.op(), Ok(Ok(Op::Chunk))) {
            let mut at = r.data_offset as usize;
            ends.push(at);
            while let Ok(inner) = read_record(full, at, 0) {
                if inner.end() > r.end() || inner.end() as usize <= at {
                    break;
                }
                at = inner.end() as usize;
                ends.push(at);
            }
        }
        pos = r.end() as usize;
        ends.push(pos);
    }
    let mut cuts: Vec<usize> = (from..full.len()).step_by(stride).collect();
    for w in ends.windows(2) {
        let (a, b) = (w[0], w[1]);
        cuts.extend([a, a + 1, usize::midpoint(a, b), b.saturating_sub(1)]);
    }
    cuts.retain(|&k| k >= from && k < full.len());
    cuts.sort_unstable();
    cuts.dedup();
    cuts
}

/// Writes `bytes` to `dir/name` and opens it (one thread: hundreds of scans).
fn scan(dir: &Path, name: &str, bytes: &[u8]) -> Bag {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    let options = OpenOptions {
        threads: 1,
        ..OpenOptions::default()
    };
    Bag::open_with(&path, options).unwrap()
}

/// Every message of `bag` in reading order; panics on one that cannot be read.
fn read_all(bag: &Bag) -> Vec<Msg> {
    bag.messages(&Query::all())
        .map(|m| {
            let m = m.expect("every counted message is read");
            let topic = bag.connection(m.entry.conn).unwrap().topic.clone();
            (topic, m.entry.time, m.data.to_vec())
        })
        .collect()
}

/// The follower's reading of `dir/name`: messages read, and the offset up to which every
/// record was read.
fn follow(dir: &Path, name: &str) -> (u64, u64) {
    let mut f = Follower::open(dir.join(name)).unwrap();
    while f.poll(usize::MAX).unwrap().more {}
    (f.message_count(), f.consumed())
}

#[test]
fn an_uncompressed_recording_is_read_as_the_follower_reads_it_at_every_byte() {
    let dir = tempfile::tempdir().unwrap();
    let (full, bag) = finished(dir.path(), Compression::None, 40);
    let want = expected(&bag);
    let mut noted = 0;
    for k in cuts(&full, bag.chunks()[0].pos as usize, 64) {
        let bytes = as_written(&full, &bag, k);
        let live = scan(dir.path(), "rec.bag.active", &bytes);
        let r = live.recovery().unwrap();
        assert!(r.losses.is_empty(), "at {k}: {:?}", r.losses);
        assert!(live.warnings().is_empty(), "at {k}: {:?}", live.warnings());
        let (n, consumed) = follow(dir.path(), "rec.bag.active");
        assert_eq!(live.message_count(), n, "at {k}");
        assert_eq!(read_all(&live), want[..n as usize], "at {k}");
        // What the follower waits for is what the scan notes as unfinished.
        match &r.unfinished {
            None => assert_eq!(consumed, k as u64, "at {k}"),
            Some(u) => {
                noted += 1;
                assert_eq!(u.what, Writing::Record, "at {k}");
                assert_eq!(
                    (u.offset, u.offset + u.bytes),
                    (consumed, k as u64),
                    "at {k}"
                );
                assert!(
                    u.to_string().starts_with(&format!(
                        "{} bytes at the end still being written (or cut off)",
                        u.bytes
                    )),
                    "{u}"
                );
            }
        }
        // Closed (not `.active`), the same bytes: the cut-off record is lost, as before.
        let closed = scan(dir.path(), "rec.bag", &bytes);
        let c = closed.recovery().unwrap();
        assert!(c.unfinished.is_none(), "at {k}");
        assert_eq!(
            c.losses.is_empty(),
            consumed == k as u64,
            "at {k}: {:?}",
            c.losses
        );
        assert_eq!(read_all(&closed), want[..n as usize], "at {k}");
    }
    assert!(noted > 200, "{noted} cuts inside a record");
}

/// The messages of the chunks whose record (data included) ends at or before `k`.
fn in_closed_chunks(bag: &Bag, k: usize) -> usize {
    bag.chunks()
        .iter()
        .filter(|c| {
            let h = bag.head(c.index).unwrap();
            (h.data_offset + h.compressed_size) as usize <= k
        })
        .map(|c| c.message_count() as usize)
        .sum()
}

#[test]
fn a_compressed_chunk_being_written_is_never_decoded_at_any_byte() {
    for compression in [Compression::Lz4, Compression::Bz2] {
        let dir = tempfile::tempdir().unwrap();
        let (full, bag) = finished(dir.path(), compression, 60);
        let want = expected(&bag);
        for k in cuts(&full, bag.chunks()[0].pos as usize, 9) {
            let bytes = as_written(&full, &bag, k);
            let n = in_closed_chunks(&bag, k);
            let live = scan(dir.path(), "rec.bag.active", &bytes);
            let r = live.recovery().unwrap();
            assert!(r.losses.is_empty(), "{compression} at {k}: {:?}", r.losses);
            assert!(live.warnings().is_empty(), "{compression} at {k}");
            assert_eq!(read_all(&live), want[..n], "{compression} at {k}");
            if let Some(u) = &r.unfinished {
                assert_eq!(u.offset + u.bytes, k as u64, "{compression} at {k}");
            }
            let closed = scan(dir.path(), "rec.bag", &bytes);
            assert!(closed.recovery().unwrap().unfinished.is_none());
            assert_eq!(read_all(&closed), want[..n], "{compression} at {k}");
            assert_eq!(
                closed.recovery().unwrap().losses.is_empty(),
                r.unfinished.is_none(),
                "{compression} at {k}"
            );
        }
    }
}

#[test]
fn the_compressed_chunk_being_written_is_not_yet_on_disk() {
    let dir = tempfile::tempdir().unwrap();
    let (full, bag) = finished(dir.path(), Compression::Lz4, 60);
    let want = expected(&bag);
    let third = &bag.chunks()[2];
    let h = bag.head(2).unwrap();
    let k = (h.data_offset + h.compressed_size / 2) as usize;
    let live = scan(dir.path(), "rec.bag.active", &as_written(&full, &bag, k));
    let r = live.recovery().unwrap();
    let u = r.unfinished.as_ref().unwrap();
    assert_eq!((u.offset, u.bytes), (third.pos, k as u64 - third.pos));
    let newest = want[in_closed_chunks(&bag, k) - 1].1;
    assert_eq!(
        u.what,
        Writing::Chunk {
            compression: Compression::Lz4,
            newest: Some(newest)
        }
    );
    // The test bag's receive times are not the wall clock's: no age is given.
    assert_eq!(
        u.to_string(),
        format!(
            "the newest messages are not yet on disk: the recorder compresses chunks (the lz4 \
             chunk at byte {}, {} bytes so far, is read once it is closed; lost if the recorder \
             stopped)",
            third.pos, u.bytes
        )
    );
    assert_eq!(live.chunks().len(), 2, "the open chunk is not listed");
}

#[test]
fn a_compressed_chunk_whose_data_runs_past_the_end_is_not_decoded() {
    let dir = tempfile::tempdir().unwrap();
    let (full, bag) = finished(dir.path(), Compression::Lz4, 60);
    let want = expected(&bag);
    let third = bag.head(2).unwrap();
    let k = (third.data_offset + third.compressed_size / 2) as usize;
    // A writer that wrote the chunk's header with its size first: only the bag header's
    // index position says the recording is not closed.
    let mut bytes = full[..k].to_vec();
    let at = as_written(&full, &bag, k)
        .iter()
        .zip(&bytes)
        .position(|(a, b)| a != b)
        .unwrap();
    bytes[at..at + 8].fill(0);
    let before = in_closed_chunks(&bag, k);
    let live = scan(dir.path(), "rec.bag.active", &bytes);
    let report = live.recovery().unwrap();
    assert!(report.losses.is_empty(), "{:?}", report.losses);
    assert!(matches!(
        report.unfinished.as_ref().map(|u| u.what),
        Some(Writing::Chunk { .. })
    ));
    assert_eq!(read_all(&live), want[..before]);
    let closed = scan(dir.path(), "rec.bag", &bytes);
    let c = closed.recovery().unwrap();
    assert_eq!(c.losses.len(), 1, "{:?}", c.losses);
    assert!(
        c.losses[0]
            .reason
            .contains("not decoded from part of its data"),
        "{:?}",
        c.losses
    );
    assert_eq!(read_all(&closed), want[..before]);
}
