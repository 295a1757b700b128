//! Bags opened from their index section alone (chunk record headers read later, as for bags
//! of many chunks) read exactly as bags whose headers are read while opening; a chunk record
//! that is not what its chunk info says costs that chunk's messages, reported, not the bag.

use std::path::{Path, PathBuf};

use bagscope::bag::writer::{BagWriter, WriterOptions};
use bagscope::bag::{Bag, HeadState, OpenOptions, Query};
use bagscope::format::{Compression, ConnectionHeader};
use bagscope::time::RosTime;

use crate::common;

fn open(path: &Path, lazy: bool) -> Result<Bag, bagscope::bag::BagError> {
    let options = OpenOptions {
        lazy_heads_from: if lazy { 0 } else { usize::MAX },
        threads: 2,
        ..OpenOptions::default()
    };
    Bag::open_with(path, options)
}

/// What a reader sees of a bag: every message (or error) in order, the compression
/// statistics and the warnings.
fn reading(bag: &Bag) -> (Vec<String>, String, Vec<String>) {
    let messages = bag
        .messages(&Query::all())
        .map(|m| match m {
            Ok(m) => format!("{:?} {:?}", m.entry, &m.data[..]),
            Err(e) => format!("error: {e}"),
        })
        .collect();
    let stats = format!("{:?}", bag.compression_stats());
    let warnings = bag.warnings().iter().map(|w| format!("{w:?}")).collect();
    (messages, stats, warnings)
}

fn bags() -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = common::bags_with_refs(&common::fixtures_dir())
        .into_iter()
        .map(|(b, _)| b)
        .collect();
    match common::corpus_dir() {
        Some(dir) => out.extend(common::bags_with_refs(&dir).into_iter().map(|(b, _)| b)),
        None => common::skip("../shared/corpus is not present: fixtures only"),
    }
    out
}

#[test]
fn every_fixture_and_corpus_bag_reads_the_same_with_headers_read_later() {
    let mut lazy_ones = 0;
    for path in bags() {
        let (Ok(eager), Ok(lazy)) = (open(&path, false), open(&path, true)) else {
            assert!(open(&path, false).is_err() && open(&path, true).is_err());
            continue;
        };
        let name = path.display();
        assert_eq!(eager.pending_heads(), 0, "{name}");
        let v2 = lazy.version() == bagscope::format::Version::V2_0;
        if v2 && lazy.is_indexed() && !lazy.chunks().is_empty() {
            lazy_ones += 1;
            assert_eq!(lazy.pending_heads(), lazy.chunks().len(), "{name}");
            assert_eq!(lazy.chunk_head(0), None, "{name}: not read yet");
        }
        assert_eq!(eager.is_indexed(), lazy.is_indexed(), "{name}");
        assert_eq!(eager.chunks(), lazy.chunks(), "{name}");
        // The explorer's health view reads the headers itself, on its worker.
        let health = |bag: &Bag| {
            let catalog = bagscope::catalog::Catalog::new(vec![bag.clone()]);
            bagscope::catalog::health::compute(&catalog, &mut |_| {})
        };
        assert_eq!(health(&eager), health(&lazy), "{name}");
        assert_eq!(reading(&eager), reading(&lazy), "{name}");
        assert_eq!(lazy.pending_heads(), 0, "{name}: all read by now");
        for c in eager.chunks() {
            assert_eq!(
                eager.chunk_head(c.index),
                lazy.chunk_head(c.index),
                "{name}"
            );
        }
    }
    assert!(lazy_ones >= 4, "indexed fixtures read lazily: {lazy_ones}");
}

/// `n` chunks of one `std_msgs/UInt64` each; the record of chunk 3 overwritten.
fn damaged(dir: &Path, n: u64) -> (PathBuf, u64) {
    let path = dir.join(format!("{n}.bag"));
    let mut w = BagWriter::create(
        &path,
        WriterOptions {
            compression: Compression::Lz4,
            chunk_size: 0,
        },
    )
    .unwrap();
    let h = ConnectionHeader::build(
        "/tick",
        "std_msgs/UInt64",
        "1b2a79973e8bf53d7b53acb71299cb57",
        "uint64 data\n",
        None,
        None,
    );
    let conn = w.add_connection("/tick", &h).unwrap();
    for i in 0..n {
        w.write(conn, RosTime::new(100 + i as u32, 0), &i.to_le_bytes())
            .unwrap();
    }
    w.finish().unwrap();
    let pos = open(&path, false).unwrap().chunks()[3].pos;
    let mut bytes = std::fs::read(&path).unwrap();
    let at = pos as usize;
    bytes[at..at + 4].copy_from_slice(&0x7fff_fff0u32.to_le_bytes());
    std::fs::write(&path, &bytes).unwrap();
    (path, pos)
}

#[test]
fn a_chunk_info_leading_nowhere_costs_its_chunk_when_headers_are_read_later() {
    let dir = tempfile::tempdir().unwrap();
    let (path, pos) = damaged(dir.path(), 10);
    // Read while opening: the index is not trusted, the file is scanned.
    let eager = open(&path, false).unwrap();
    assert!(!eager.is_indexed());
    // Read later: the index stands; chunk 3 is unreadable, said so, and counted.
    let bag = open(&path, true).unwrap();
    assert!(bag.is_indexed());
    assert_eq!(bag.pending_heads(), 10);
    let err = bag.head(3).unwrap_err().to_string();
    assert!(
        err.contains("chunk_pos") && err.contains(&format!("byte {pos}")),
        "{err}"
    );
    assert!(matches!(bag.head_state(3), HeadState::Bad(_)));
    assert!(bag.head(4).is_ok());
    let results: Vec<_> = bag.messages(&Query::all()).collect();
    let good: Vec<u64> = results
        .iter()
        .filter_map(|m| m.as_ref().ok())
        .map(|m| u64::from_le_bytes(m.data[..8].try_into().unwrap()))
        .collect();
    assert_eq!(good, vec![0, 1, 2, 4, 5, 6, 7, 8, 9]);
    assert!(
        results.iter().any(Result::is_err),
        "the lost message is an error"
    );
    assert_eq!(bag.unfound(3, |_| true), 1);
    let warnings: Vec<String> = bag.warnings().iter().map(|w| format!("{w:?}")).collect();
    assert!(
        warnings.iter().any(|w| w.contains("which is not a chunk")),
        "{warnings:?}"
    );
    // Statistics leave it out.
    let stats = bag.compression_stats();
    assert_eq!(stats.iter().map(|s| s.chunks).sum::<u64>(), 9);
}

/// The commands on a bag big enough to be opened from its index section by default.
#[test]
fn the_commands_report_a_bad_chunk_header_and_read_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let n = bagscope::bag::DEFAULT_LAZY_HEADS_FROM as u64 + 10;
    let (path, pos) = damaged(dir.path(), n);
    let file = path.to_str().unwrap();
    let bag = Bag::open(&path).unwrap();
    assert!(bag.is_indexed() && bag.pending_heads() > 0);
    let (out, err, _) = common::run_bagscope(&["info", file]);
    assert!(out.contains(&format!("lz4 [{}/{n} chunks", n - 1)), "{out}");
    assert!(
        err.contains(&format!("byte {pos} which is not a chunk"))
            || out.contains(&format!("byte {pos} which is not a chunk")),
        "{out}\n{err}"
    );
    let (out, err, code) = common::run_bagscope(&["echo", "-t", "/tick", file]);
    assert_ne!(code, 0, "a lost message is not success");
    assert_eq!(out.matches("data: ").count() as u64, n - 1, "{err}");
    assert!(
        err.contains("1 message(s) the index lists in this chunk were not found")
            && err.contains(&format!("(at byte {pos})")),
        "{err}"
    );
    let (out, err, code) = common::run_bagscope(&["verify", file]);
    assert_eq!(code, 1, "{out}\n{err}");
    assert!(out.contains(&format!("byte {pos}")), "{out}\n{err}");
}
