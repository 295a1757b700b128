//! Every bag of the shared corpus and of our fixtures, read by bagscope, equals the reference
//! dump made by the official reader: version, connections, counts, time range, and every
//! message's receive time, connection and raw payload (size and md5).

use std::collections::HashMap;
use std::path::Path;

use bagscope::bag::{Bag, BagError, Connection, Query};
use md5::{Digest, Md5};
use serde_json::Value;

use crate::common::{Reference, bags_with_refs, corpus_dir, fixtures_dir, nanos, skip};

/// One message as compared: (time ns, topic, connection key, size, md5).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Row {
    time: i128,
    topic: String,
    conn: Option<i64>,
    size: u64,
    md5: Option<String>,
}

fn ref_rows(r: &Reference) -> Vec<Row> {
    r.messages
        .iter()
        .map(|m| Row {
            time: nanos(&m["time"]).unwrap(),
            topic: m["topic"].as_str().unwrap().to_string(),
            conn: m["conn"].as_i64(),
            size: m["size"].as_u64().unwrap(),
            md5: m["md5"].as_str().map(str::to_string),
        })
        .collect()
}

fn our_rows(bag: &Bag, with_conn: bool) -> (Vec<Row>, usize) {
    let mut rows = Vec::new();
    let mut errors = 0;
    for m in bag.messages(&Query::all().parallel(true)) {
        match m {
            Ok(m) => {
                let c = bag.connection(m.entry.conn).unwrap();
                rows.push(Row {
                    time: i128::from(m.entry.time.as_nanos()),
                    topic: c.topic.clone(),
                    conn: with_conn.then_some(i64::from(c.file_id)),
                    size: m.data.len() as u64,
                    md5: Some(
                        Md5::digest(&*m.data)
                            .iter()
                            .map(|b| format!("{b:02x}"))
                            .collect(),
                    ),
                });
            }
            Err(e) => {
                eprintln!("  read error: {e}");
                errors += 1;
            }
        }
    }
    (rows, errors)
}

/// Checks that `expected` appears in `ours` in order (ours may hold more: recovered extras).
fn assert_subsequence(name: &str, ours: &[Row], expected: &[Row]) {
    let mut it = ours.iter();
    for (i, e) in expected.iter().enumerate() {
        assert!(
            it.any(|o| o == e),
            "{name}: reference message {i} ({e:?}) not found in order among ours"
        );
    }
}

fn compare(bag_path: &Path, ref_path: &Path) {
    let name = bag_path.file_name().unwrap().to_string_lossy().to_string();
    let r = Reference::load(ref_path);
    let opened = Bag::open(bag_path);
    if r.is_error() {
        compare_refused(&name, ref_path, &r, opened);
        return;
    }
    let bag = opened.unwrap_or_else(|e| panic!("{name}: {e}"));
    let h = &r.header;
    assert_eq!(
        bag.version().as_str(),
        h["version"].as_str().unwrap(),
        "{name}: version"
    );
    // Versions the official reader refuses: the reference was written by the generator from
    // its source messages, without connection data (and for 1.1 without payload md5s).
    if h["connections"].is_null() {
        let (mut rows, errors) = our_rows(&bag, false);
        assert_eq!(errors, 0);
        let expected = ref_rows(&r);
        if expected.first().is_some_and(|e| e.md5.is_none()) {
            for row in &mut rows {
                row.md5 = None;
            }
        }
        assert_eq!(rows, expected, "{name}");
        return;
    }
    let reindexed = h["reindexed"] == true;
    let ref_conns = h["connections"].as_array().unwrap();
    let ours_by_key: HashMap<i64, _> = bag
        .connections()
        .iter()
        .map(|c| (i64::from(c.file_id), c))
        .collect();
    for rc in ref_conns {
        let id = rc["id"].as_i64().unwrap();
        let c = ours_by_key
            .get(&id)
            .unwrap_or_else(|| panic!("{name}: connection {id} missing"));
        compare_connection(&format!("{name}: connection {id}"), c, rc, reindexed);
    }
    if !reindexed {
        compare_summary(&name, &bag, h, ref_conns.len());
    }
    compare_messages(&name, &bag, &r, reindexed);
}

/// A bag the official reader refused: so must we, except where we do better.
fn compare_refused(name: &str, ref_path: &Path, r: &Reference, opened: Result<Bag, BagError>) {
    let err = r.header["error"].as_str().unwrap_or_default();
    if name == "gen-quirk_lz4_multiframe.bag" {
        let bag = opened.unwrap_or_else(|e| panic!("{name}: {e}"));
        let twin = Reference::load(&ref_path.with_file_name("gen-mixed_lz4.ref.jsonl"));
        let (rows, errors) = our_rows(&bag, true);
        assert_eq!(errors, 0, "{name}");
        assert_eq!(
            rows,
            ref_rows(&twin),
            "{name}: same messages as gen-mixed_lz4"
        );
    } else {
        assert!(
            opened.is_err(),
            "{name}: the official reader fails ({err}); so must we"
        );
    }
}

/// One connection against the reference's `rc`; a reindexed reference may count fewer.
fn compare_connection(what: &str, c: &Connection, rc: &Value, reindexed: bool) {
    assert_eq!(c.topic, rc["topic"].as_str().unwrap(), "{what}: topic");
    assert_eq!(c.datatype, rc["type"].as_str().unwrap(), "{what}: type");
    assert_eq!(c.md5sum, rc["md5sum"].as_str().unwrap(), "{what}: md5");
    assert_eq!(
        c.callerid.as_deref(),
        rc["callerid"].as_str(),
        "{what}: callerid"
    );
    assert_eq!(
        c.latching.as_deref(),
        rc["latching"].as_str(),
        "{what}: latching"
    );
    if let Some(def) = rc["message_definition"].as_str() {
        assert_eq!(c.message_definition, def, "{what}: definition");
    }
    let count = rc["count"].as_u64().unwrap();
    if reindexed {
        assert!(
            c.message_count >= count,
            "{what}: count {} < {count}",
            c.message_count
        );
    } else {
        assert_eq!(c.message_count, count, "{what}: count");
    }
}

/// Connection and message counts, start, end and index state against the reference header.
fn compare_summary(name: &str, bag: &Bag, h: &Value, connections: usize) {
    assert_eq!(
        bag.connections().len(),
        connections,
        "{name}: connection count"
    );
    assert_eq!(
        bag.message_count(),
        h["messages"].as_u64().unwrap(),
        "{name}: messages"
    );
    assert_eq!(
        bag.start_time().map(|t| i128::from(t.as_nanos())),
        nanos(&h["start"]),
        "{name}: start"
    );
    assert_eq!(
        bag.end_time().map(|t| i128::from(t.as_nanos())),
        nanos(&h["end"]),
        "{name}: end"
    );
    assert_eq!(bag.is_indexed(), h["indexed"] == true, "{name}: indexed");
}

/// Every message, in order; from a reindexed reference, ours may hold more (recovered).
fn compare_messages(name: &str, bag: &Bag, r: &Reference, reindexed: bool) {
    let with_conn = bag.version().as_str() == "2.0";
    let (rows, errors) = our_rows(bag, with_conn);
    let mut expected = ref_rows(r);
    if !with_conn {
        for e in &mut expected {
            e.conn = None;
        }
    }
    if reindexed {
        assert_subsequence(name, &rows, &expected);
    } else {
        assert_eq!(errors, 0, "{name}: read errors");
        assert_eq!(rows.len(), expected.len(), "{name}: message count");
        for (i, (a, b)) in rows.iter().zip(&expected).enumerate() {
            assert_eq!(a, b, "{name}: message {i}");
        }
    }
}

fn run_dir(dir: &Path) -> usize {
    let all = bags_with_refs(dir);
    for (bag, r) in &all {
        eprintln!("checking {}", bag.display());
        compare(bag, r);
    }
    all.len()
}

#[test]
fn shared_corpus_matches_the_official_reader() {
    let Some(dir) = corpus_dir() else {
        skip("../shared/corpus is not present");
        return;
    };
    assert!(run_dir(&dir) > 20, "the corpus should hold many bags");
}

#[test]
fn our_fixtures_match_the_official_reader() {
    let dir = fixtures_dir();
    if !dir.is_dir() {
        skip("tests/fixtures is not present");
        return;
    }
    run_dir(&dir);
}
