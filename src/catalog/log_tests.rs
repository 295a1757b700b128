//! Log lines read from bags written for the purpose: `/rosout` and `/rosout_agg` together,
//! levels, nodes, order across chunks, and a pieces-then-whole equality.

use std::sync::atomic::AtomicBool;

use super::*;
use crate::bag::Bag;
use crate::bag::writer::{BagWriter, WriterOptions};
use crate::format::{Compression, ConnectionHeader};

/// The md5sum of `rosgraph_msgs/Log`.
pub(crate) const LOG_MD5: &str = "acffd30cd6b6de30f120938c17c593fb";

fn push_str(out: &mut Vec<u8>, s: &str) {
    out.extend_from_slice(&u32::try_from(s.len()).unwrap().to_le_bytes());
    out.extend_from_slice(s.as_bytes());
}

/// The bytes of a `rosgraph_msgs/Log`.
pub(crate) fn log_bytes(level: u8, name: &str, msg: &str) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(&0u32.to_le_bytes()); // seq
    out.extend_from_slice(&[0; 8]); // stamp
    push_str(&mut out, ""); // frame_id
    out.push(level);
    push_str(&mut out, name);
    push_str(&mut out, msg);
    push_str(&mut out, "node.cpp");
    push_str(&mut out, "main");
    out.extend_from_slice(&42u32.to_le_bytes());
    out.extend_from_slice(&0u32.to_le_bytes()); // topics
    out
}

/// A bag with `(topic, seconds, level, node, text)` log messages in small chunks.
fn write_bag(dir: &std::path::Path, msgs: &[(&str, u32, u8, &str, &str)]) -> Bag {
    let path = dir.join("log.bag");
    let mut w = BagWriter::create(
        &path,
        WriterOptions {
            compression: Compression::None,
            chunk_size: 200,
        },
    )
    .unwrap();
    let mut conns: Vec<(&str, u32)> = Vec::new();
    for &(topic, s, level, node, text) in msgs {
        let known = conns.iter().find(|(t, _)| *t == topic).map(|&(_, c)| c);
        let c = known.unwrap_or_else(|| {
            let header =
                ConnectionHeader::build(topic, "rosgraph_msgs/Log", LOG_MD5, "", None, None);
            let c = w.add_connection(topic, &header).unwrap();
            conns.push((topic, c));
            c
        });
        w.write(c, RosTime::new(s, 0), &log_bytes(level, node, text))
            .unwrap();
    }
    w.finish().unwrap();
    Bag::open(&path).unwrap()
}

#[test]
fn reads_rosout_only_when_rosout_agg_repeats_it() {
    let dir = tempfile::tempdir().unwrap();
    let mut msgs = Vec::new();
    for i in 0..30u32 {
        let level = [1u8, 2, 4, 8, 16][(i % 5) as usize];
        let node = if i % 2 == 0 { "/planner" } else { "/driver" };
        msgs.push(("/rosout", 100 + i, level, node, "hello"));
        msgs.push(("/rosout_agg", 100 + i, level, node, "hello"));
    }
    let catalog = Catalog::new(vec![write_bag(dir.path(), &msgs)]);
    let topics = log_topics(&catalog);
    assert_eq!(topics.topics, vec!["/rosout".to_string()]);
    assert_eq!(topics.left_out, vec!["/rosout_agg".to_string()]);
    let mut pieces = LogLines::default();
    let mut calls = 0;
    let stats = extract(
        &catalog,
        &topics.topics,
        &Registry::bundled(),
        &AtomicBool::new(false),
        |p| {
            calls += 1;
            pieces.merge(p.piece);
            true
        },
    );
    let (all, all_stats) = read_all(&catalog, &topics.topics, &Registry::bundled());
    assert_eq!(all_stats, stats);
    assert_eq!(stats, LogStats::default());
    assert!(calls > 1, "several pieces");
    assert_eq!(all.lines.len(), 30);
    assert!(all.lines.is_sorted_by_key(|l| l.time));
    let first = all.lines.first().unwrap();
    assert_eq!(first.level, LogLevel::Debug);
    assert_eq!(all.node(first), "/planner");
    assert_eq!(&*first.text, "hello");
    assert_eq!(&*first.origin, "node.cpp:42 (main)");
    assert_eq!(all.lines.get(2).unwrap().level, LogLevel::Warn);
    // The pieces merged one by one hold the same lines with the same node names.
    assert_eq!(pieces.lines.len(), all.lines.len());
    for (a, b) in pieces.lines.iter().zip(&all.lines) {
        assert_eq!(
            (a.time, a.level, pieces.node(a)),
            (b.time, b.level, all.node(b))
        );
    }
    let counts = all.counts_by_node();
    assert_eq!(
        counts,
        vec![
            ("/driver".to_string(), [3, 3, 3, 3, 3]),
            ("/planner".to_string(), [3, 3, 3, 3, 3]),
        ]
    );
}

#[test]
fn levels_from_numbers_and_names() {
    assert_eq!(LogLevel::from_number(0), LogLevel::Debug);
    assert_eq!(LogLevel::from_number(2), LogLevel::Info);
    assert_eq!(LogLevel::from_number(4), LogLevel::Warn);
    assert_eq!(LogLevel::from_number(8), LogLevel::Error);
    assert_eq!(LogLevel::from_number(16), LogLevel::Fatal);
    assert_eq!(LogLevel::from_number(200), LogLevel::Fatal);
    assert_eq!(LogLevel::Fatal.next(), LogLevel::Debug);
    let names: Vec<&str> = LogLevel::ALL.iter().map(|l| l.name()).collect();
    assert_eq!(names, ["DEBUG", "INFO", "WARN", "ERROR", "FATAL"]);
}
