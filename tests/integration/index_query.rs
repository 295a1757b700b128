//! Index queries equal a brute-force scan of the same bags (same messages, same order) for
//! random intervals and topic sets — across bag boundaries and overlapping bags; stale and
//! damaged indexes are refused; `query --out` writes a bag of exactly those messages.

use std::path::PathBuf;
use std::process::Command;

use bagscope::bag::OpenOptions;
use bagscope::catalog::index::{self, Index};
use bagscope::catalog::{Catalog, Selection};
use bagscope::time::RosTime;

use crate::common::synth::XorShift as Rng;
use crate::common::{corpus_dir, fixtures_dir, skip};

fn bags() -> Vec<PathBuf> {
    let f = fixtures_dir();
    let mut v: Vec<PathBuf> = [
        "recorded.bag",
        "recorded_lz4.bag",
        "truncated.bag",
        "recorded_crash.bag.active",
        "v12_indexed.bag",
    ]
    .iter()
    .map(|n| f.join(n))
    .collect();
    if let Some(c) = corpus_dir() {
        v.extend(
            [
                "gen-mixed_lz4.bag",
                "gen-mixed_bz2.bag",
                "rosbagjs-example-unsorted-chunks.bag",
                "embag-test_2.bag",
            ]
            .iter()
            .map(|n| c.join(n)),
        );
    }
    v.retain(|p| p.exists());
    v
}

/// `bagscope query INDEX ARGS...`.
fn query(index: &std::path::Path, args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_bagscope"));
    c.arg("query").arg(index).args(args);
    c
}

/// (bag, time, connection file id, payload) of each message.
type Row = (usize, u64, u32, Vec<u8>);

#[test]
fn queries_equal_brute_force_scans() {
    let paths = bags();
    if paths.len() < 2 {
        skip("tests/fixtures is not present");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let idx = dir.path().join("all.idx");
    index::build(&idx, &paths, &[], &mut |_| {}).unwrap();
    let ix = Index::open(&idx).unwrap();
    let (catalog, errors) = Catalog::open(&paths, &OpenOptions::default());
    assert!(errors.is_empty());
    assert_eq!(ix.entry_count(), catalog.message_count());
    let all_topics: Vec<String> = catalog.topics().into_iter().map(|t| t.topic).collect();
    let (start, end) = (
        catalog.start_time().unwrap().as_nanos(),
        catalog.end_time().unwrap().as_nanos(),
    );
    let mut rng = Rng(0x1dea_5eed);
    let mut nonempty = 0;
    for round in 0..120 {
        // Intervals of every scale, anywhere (also outside the bags); topic sets of 0..3.
        let span = end - start;
        let width = match round % 4 {
            0 => rng.next() % 1_000_000_000,
            1 => rng.next() % (span / 10 + 1),
            2 => span,
            _ => rng.next() % (span + 1),
        };
        let a = start.saturating_sub(width / 4) + rng.next() % (span + 1);
        let (a, b) = (
            RosTime::from_nanos(a),
            RosTime::from_nanos(a.saturating_add(width)),
        );
        let topics: Vec<String> = (0..rng.next() % 4)
            .map(|_| all_topics[(rng.next() % all_topics.len() as u64) as usize].clone())
            .collect();
        let brute: Vec<Row> = catalog
            .messages(&Selection {
                topics: topics.clone(),
                start: Some(a),
                end: Some(b),
                parallel: false,
            })
            .map(|m| {
                let m = m.unwrap();
                let bag = catalog.bag(m.bag).unwrap();
                (
                    m.bag,
                    m.message.entry.time.as_nanos(),
                    bag.connection(m.message.entry.conn).unwrap().file_id,
                    m.message.data.to_vec(),
                )
            })
            .collect();
        let queried: Vec<Row> = ix
            .query(&topics, a, b)
            .map(|e| {
                let e = e.unwrap();
                let bag = catalog.bag(e.file as usize).unwrap();
                let entry = bagscope::bag::IndexEntry {
                    time: RosTime::from_nanos(e.time),
                    conn: bag.conn_by_file_id(e.conn).unwrap(),
                    chunk: e.chunk,
                    offset: e.offset,
                };
                (
                    e.file as usize,
                    e.time,
                    e.conn,
                    bag.read(&entry).unwrap().data.to_vec(),
                )
            })
            .collect();
        assert_eq!(
            queried.len(),
            brute.len(),
            "round {round}: {a}..{b} {topics:?}"
        );
        assert!(
            queried == brute,
            "round {round}: {a}..{b} {topics:?}: order or content differs"
        );
        if !brute.is_empty() {
            nonempty += 1;
        }
    }
    assert!(nonempty > 40, "{nonempty} non-empty intervals");
}

#[test]
fn stale_and_damaged_indexes_are_refused() {
    let src = fixtures_dir().join("recorded.bag");
    if !src.exists() {
        skip("tests/fixtures is not present");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let bag = dir.path().join("a.bag");
    std::fs::copy(&src, &bag).unwrap();
    let idx = dir.path().join("a.idx");
    index::build(&idx, std::slice::from_ref(&bag), &[], &mut |_| {}).unwrap();
    Index::open(&idx).unwrap();
    // Damage: any flipped byte in the header, metadata or block table is caught at open; a
    // flipped entry when its block is read.
    let bytes = std::fs::read(&idx).unwrap();
    for at in [20usize, 130, bytes.len() - 3] {
        let mut bad = bytes.clone();
        bad[at] ^= 0x10;
        let p = dir.path().join("bad.idx");
        std::fs::write(&p, &bad).unwrap();
        assert!(Index::open(&p).is_err(), "flip at {at}");
    }
    std::fs::write(dir.path().join("short.idx"), &bytes[..bytes.len() / 2]).unwrap();
    assert!(Index::open(&dir.path().join("short.idx")).is_err());
    // Stale: the bag changed after the index was built.
    let mut b = std::fs::read(&bag).unwrap();
    b.push(0);
    std::fs::write(&bag, &b).unwrap();
    let err = Index::open(&idx).unwrap_err().to_string();
    assert!(err.contains("stale") && err.contains("a.bag"), "{err}");
    let out = query(&idx, &["--start", "+0", "--end", "+1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("stale"));
}

#[test]
fn query_out_writes_the_interval_as_a_bag() {
    let paths: Vec<PathBuf> = ["recorded.bag", "v12_indexed.bag"]
        .iter()
        .map(|n| fixtures_dir().join(n))
        .collect();
    if !paths.iter().all(|p| p.exists()) {
        skip("tests/fixtures is not present");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let idx = dir.path().join("x.idx");
    let mut args = vec![
        "index".to_string(),
        "build".into(),
        idx.display().to_string(),
    ];
    args.extend(paths.iter().map(|p| p.display().to_string()));
    let st = Command::new(env!("CARGO_BIN_EXE_bagscope"))
        .args(&args)
        .status()
        .unwrap();
    assert!(st.success());
    let out = dir.path().join("cut.bag");
    let st = query(
        &idx,
        &[
            "--start",
            "+0",
            "--end",
            "+1000000000",
            "-t",
            "/chatter",
            "--out",
            out.to_str().unwrap(),
        ],
    )
    .status()
    .unwrap();
    assert!(st.success());
    let written = bagscope::bag::Bag::open(&out).unwrap();
    let (catalog, _) = Catalog::open(&paths, &OpenOptions::default());
    let expected: Vec<(u64, Vec<u8>)> = catalog
        .messages(&Selection {
            topics: vec!["/chatter".into()],
            ..Selection::default()
        })
        .map(|m| {
            let m = m.unwrap();
            (m.message.entry.time.as_nanos(), m.message.data.to_vec())
        })
        .collect();
    let got: Vec<(u64, Vec<u8>)> = written
        .messages(&bagscope::bag::Query::all())
        .map(|m| {
            let m = m.unwrap();
            (m.entry.time.as_nanos(), m.data.to_vec())
        })
        .collect();
    assert_eq!(got, expected);
    assert!(written.connections().iter().all(|c| c.topic == "/chatter"));
}
