//! Tests of the content search on the fixture bags: matches and stretches compared with a
//! message-by-message computation.

use std::collections::HashMap;
use std::path::Path;

use super::*;
use crate::bag::{OpenOptions, Query};
use crate::catalog::compile;

fn catalog(name: &str) -> Catalog {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name);
    let (c, errors) = Catalog::open(&[path], &OpenOptions::default());
    assert!(errors.is_empty(), "{errors:?}");
    c
}

fn request(topics: &[&str], text: &str) -> SearchRequest {
    SearchRequest {
        topics: topics.iter().map(|t| (*t).to_string()).collect(),
        expr: Expr::parse(text).unwrap(),
    }
}

/// A whole search, nothing cancelled, every update taken.
fn run(c: &Catalog, r: &SearchRequest) -> (Vec<Match>, SearchStats) {
    search(c, r, &Registry::bundled(), &AtomicBool::new(false), |_| {
        true
    })
    .unwrap()
}

/// The matches found one message at a time, each bag's messages in receive order with one
/// memory per topic (for `diff`/`rate`); those that do not decode do not match.
fn one_by_one(c: &Catalog, r: &SearchRequest) -> Vec<Match> {
    let registry = Registry::bundled();
    let mut memories: HashMap<String, crate::msg::expr::Memory> = HashMap::new();
    let mut out = Vec::new();
    for (i, bag) in c.bags().iter().enumerate() {
        let mut messages: Vec<_> = bag.messages(&Query::all()).map(|m| m.unwrap()).collect();
        messages.sort_by_key(|m| m.entry.time);
        for m in messages {
            let conn = bag.connection(m.entry.conn).unwrap();
            if !(r.topics.is_empty() || r.topics.iter().any(|t| topic_matches(t, &conn.topic))) {
                continue;
            }
            let schema = compile(conn, &registry).schema.unwrap();
            let Ok(filter) = r.expr.compile(schema.root(), &conn.topic) else {
                continue;
            };
            let memory = memories.entry(conn.topic.clone()).or_default();
            let Ok(decoded) = crate::msg::decode(&schema, &m.data) else {
                memory.clear();
                continue;
            };
            let ns = i64::try_from(m.entry.time.as_nanos()).unwrap();
            if filter.eval(decoded.root(), ns, memory) {
                out.push(Match {
                    time: m.entry.time,
                    conn: BagConn::new(i, m.entry.conn),
                });
            }
        }
    }
    out.sort_unstable();
    out
}

#[test]
fn finds_what_a_message_by_message_test_finds() {
    for bag in ["recorded.bag", "recorded_lz4.bag", "recorded_bz2.bag"] {
        let c = catalog(bag);
        for (topics, text) in [
            (&["/chatter"][..], "data ~ \"1\""),
            (&[][..], "\"o\""),
            (&[][..], "header.frame_id == \"odom\" or level >= INFO"),
            (&["/imu"][..], "abs(angular_velocity.z) > 0.01"),
        ] {
            let r = request(topics, text);
            let mut updates = Vec::new();
            let (all, stats) = search(&c, &r, &Registry::bundled(), &AtomicBool::new(false), |u| {
                updates.push(u.clone());
                true
            })
            .unwrap();
            assert_eq!(all, one_by_one(&c, &r), "{bag} {text}");
            assert_eq!(stats.matched, all.len() as u64);
            let last = updates.last().unwrap();
            assert!(last.done && (last.fraction - 1.0).abs() < 1e-9);
            let streamed: usize = updates.iter().map(|u| u.matches.len()).sum();
            assert_eq!(streamed, all.len());
            assert!(updates.iter().all(|u| u.matches.is_sorted()));
        }
    }
}

#[test]
fn an_expression_that_fits_no_topic_is_an_error_and_others_are_skipped() {
    let c = catalog("recorded.bag");
    let r = request(&["/chatter"], "nothing == 1");
    let e = validate(&c, &r, &Registry::bundled()).unwrap_err();
    assert!(
        e.to_string()
            .contains("has no field 'nothing'; its fields are: data"),
        "{e}"
    );
    let r = request(&[], "data ~ \"x\"");
    let (_, stats) = run(&c, &r);
    assert_eq!(stats.tested, 37);
    assert_eq!(stats.skipped, 159 - 37);
}

#[test]
fn one_regex_and_one_filter_for_many_topics_of_one_type() {
    use crate::bag::writer::{BagWriter, WriterOptions};
    use crate::format::{Compression, ConnectionHeader};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("many.bag");
    let mut w = BagWriter::create(
        &path,
        WriterOptions {
            compression: Compression::None,
            chunk_size: 4096,
        },
    )
    .unwrap();
    for i in 0..300 {
        let topic = format!("/t{i}");
        let header = ConnectionHeader::build(
            &topic,
            "std_msgs/String",
            "992ce8a1687cec8c8bd883ec73ca41d1",
            "string data\n",
            None,
            None,
        );
        let c = w.add_connection(&topic, &header).unwrap();
        let text = if i % 100 == 7 {
            "a_word_of_twenty_one_"
        } else {
            "short"
        };
        let mut payload = u32::try_from(text.len()).unwrap().to_le_bytes().to_vec();
        payload.extend(text.as_bytes());
        w.write(c, RosTime::new(1_700_000_000, i), &payload)
            .unwrap();
    }
    w.finish().unwrap();
    let (c, errors) = Catalog::open(&[path], &OpenOptions::default());
    assert!(errors.is_empty(), "{errors:?}");
    let r = request(&[], r#"data =~ "\w{20}""#);
    let plans = plan(&c, &r, &Registry::bundled()).unwrap();
    let all: Vec<&DecodePlan> = plans.plans[0]
        .values()
        .map(|p| &p.as_ref().unwrap().decode)
        .collect();
    assert_eq!(all.len(), 300);
    assert!(all.iter().all(
        |p| Arc::ptr_eq(p.filter().unwrap(), all[0].filter().unwrap())
            && Arc::ptr_eq(p.schema(), all[0].schema())
    ));
    assert_eq!(r.expr.regexes_compiled(), 1);
    let (found, stats) = run(&c, &r);
    assert_eq!((found.len(), stats.tested), (3, 300));
}

/// A bag of `/a` and `/b` (std_msgs/String, "y" or "n", some undecodable) written out of
/// time order into small chunks: with `shuffle`, every chunk spans nearly the whole bag,
/// else neighbouring chunks overlap a little.
fn overlapping_bag(dir: &Path, name: &str, shuffle: bool) -> std::path::PathBuf {
    use crate::bag::writer::{BagWriter, WriterOptions};
    use crate::format::{Compression, ConnectionHeader};
    let path = dir.join(name);
    let mut w = BagWriter::create(
        &path,
        WriterOptions {
            compression: Compression::None,
            chunk_size: 512,
        },
    )
    .unwrap();
    let conns: Vec<u32> = ["/a", "/b"]
        .iter()
        .map(|topic| {
            let header = ConnectionHeader::build(
                topic,
                "std_msgs/String",
                "992ce8a1687cec8c8bd883ec73ca41d1",
                "string data\n",
                None,
                None,
            );
            w.add_connection(topic, &header).unwrap()
        })
        .collect();
    let n = 600u32;
    for i in 0..n {
        let slot = if shuffle { (i * 7919) % n } else { i };
        let jitter = if shuffle { 0 } else { (i % 5) * 1500 };
        let time = RosTime::new(1_700_000_000, slot * 1000 + jitter);
        let conn = conns[usize::from(slot % 3 == 0)];
        let payload = if slot % 97 == 0 {
            // Claims 100 bytes, holds one: does not decode.
            let mut p = 100u32.to_le_bytes().to_vec();
            p.push(b'y');
            p
        } else {
            let text = if (slot / 12) % 3 == 0 { "n" } else { "y" };
            let mut p = 1u32.to_le_bytes().to_vec();
            p.extend(text.as_bytes());
            p
        };
        w.write(conn, time, &payload).unwrap();
    }
    w.finish().unwrap();
    path
}

/// The stretches found by walking every bag's messages in receive-time order (ties: bag
/// order), one at a time.
fn stretches_one_by_one(c: &Catalog, r: &SearchRequest) -> Vec<Stretch> {
    let registry = Registry::bundled();
    // (time, bag, topic, connection, holds: None when it does not decode)
    let mut all = Vec::new();
    for (i, bag) in c.bags().iter().enumerate() {
        for m in bag.messages(&Query::all()) {
            let m = m.unwrap();
            let conn = bag.connection(m.entry.conn).unwrap();
            if !(r.topics.is_empty() || r.topics.iter().any(|t| topic_matches(t, &conn.topic))) {
                continue;
            }
            let schema = compile(conn, &registry).schema.unwrap();
            let filter = r.expr.compile(schema.root(), &conn.topic).unwrap();
            let holds = filter.matches_payload(&schema, &m.data).ok();
            all.push((m.entry.time, i, conn.topic.clone(), m.entry.conn, holds));
        }
    }
    all.sort_by_key(|m| (m.0, m.1));
    let mut open: HashMap<String, Stretch> = HashMap::new();
    let mut out = Vec::new();
    for (time, bag, topic, conn, holds) in all {
        if holds == Some(true) {
            open.entry(topic.clone())
                .and_modify(|s| {
                    s.end = time;
                    s.count += 1;
                })
                .or_insert(Stretch {
                    start: time,
                    end: time,
                    count: 1,
                    conn: BagConn::new(bag, conn),
                    topic: Arc::from(topic.as_str()),
                });
        } else if let Some(s) = open.remove(&topic) {
            out.push(s);
        }
    }
    out.extend(open.into_values());
    out.sort_by(Stretch::order);
    out
}

#[test]
fn stretches_are_those_of_a_message_by_message_walk() {
    let dir = tempfile::tempdir().unwrap();
    for shuffle in [false, true] {
        let one = overlapping_bag(dir.path(), &format!("o{shuffle}.bag"), shuffle);
        let two = overlapping_bag(dir.path(), &format!("t{shuffle}.bag"), shuffle);
        for paths in [vec![one.clone()], vec![one.clone(), two.clone()]] {
            let (c, errors) = Catalog::open(&paths, &OpenOptions::default());
            assert!(errors.is_empty(), "{errors:?}");
            if shuffle {
                let bag = &c.bags()[0];
                let chunks = bag.chunks();
                assert!(chunks.len() > 10);
                assert!(chunks.windows(2).any(|w| w[1].start < w[0].end), "overlap");
            }
            for (topics, text) in [(&[][..], "data == \"y\""), (&["/b"][..], "data ~ \"Y\"")] {
                let r = request(topics, text);
                let mut updates = Vec::new();
                let found = SearchPlan::new(&c, &r, &Registry::bundled())
                    .unwrap()
                    .run_all(&c, &AtomicBool::new(false), |u| {
                        updates.push(u.clone());
                        true
                    });
                let want = stretches_one_by_one(&c, &r);
                assert!(want.iter().any(|s| s.count > 3), "long stretches");
                assert!(want.len() > 10, "many stretches: {}", want.len());
                assert_eq!(
                    found.stretches,
                    want,
                    "shuffle {shuffle}, {} bag(s)",
                    paths.len()
                );
                assert_eq!(found.matches, one_by_one(&c, &r));
                let counted: u64 = want.iter().map(|s| s.count).sum();
                assert_eq!(counted, found.stats.matched);
                assert!(found.stats.undecodable > 0);
                assert_eq!(found.stats.late, 0);
                // The updates deliver each stretch once, and every match in time order.
                let mut streamed: Vec<Stretch> =
                    updates.iter().flat_map(|u| u.stretches.clone()).collect();
                streamed.sort_by(Stretch::order);
                assert_eq!(streamed, want);
                let matches: Vec<Match> = updates.iter().flat_map(|u| u.matches.clone()).collect();
                assert!(matches.is_sorted());
                assert!(updates.len() > 1 || paths.len() > 1 || !shuffle);
            }
        }
    }
}

#[test]
fn diff_and_rate_conditions_see_each_topic_in_receive_order() {
    let c = catalog("recorded.bag");
    for text in [
        "diff(header.seq) == 1",
        "rate(header.seq) > 19.99 and diff(linear_acceleration.z) > 0",
        "not diff(header.seq) == 1",
    ] {
        let r = request(&["/imu"], text);
        let (found, stats) = run(&c, &r);
        assert_eq!(found, one_by_one(&c, &r), "{text}");
        assert_eq!(stats.matched, found.len() as u64, "{text}");
    }
    // Every /imu message but the first (no previous one) follows its predecessor by one.
    let (found, _) = run(&c, &request(&["/imu"], "diff(header.seq) == 1"));
    assert_eq!(found.len(), 54);
}
