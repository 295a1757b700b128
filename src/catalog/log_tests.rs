//! Log lines read from bags written for the purpose: `/rosout` and `/rosout_agg` together,
//! levels, nodes, order across chunks, and a pieces-then-whole equality.

use std::sync::atomic::AtomicBool;

use super::*;
use crate::bag::Bag;
use crate::bag::writer::{BagWriter, WriterOptions};
use crate::catalog::log_record::LogKind;
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

/// `rcl_interfaces/msg/Log` in ROS1 syntax, its stamp a nested `builtin_interfaces/Time` as
/// in ROS 2 (the values a CDR payload of it decodes to are those of this definition).
pub(crate) fn ros2_log_definition() -> String {
    format!(
        "builtin_interfaces/Time stamp\nuint8 DEBUG=10\nuint8 INFO=20\nuint8 WARN=30\n\
         uint8 ERROR=40\nuint8 FATAL=50\nuint8 level\nstring name\nstring msg\nstring file\n\
         string function\nuint32 line\n{}\nMSG: builtin_interfaces/Time\nint32 sec\nuint32 nanosec\n",
        "=".repeat(80)
    )
}

/// The bytes (ROS1 wire) of an `rcl_interfaces/msg/Log` of [`ros2_log_definition`].
pub(crate) fn ros2_log_bytes(sec: i32, level: u8, name: &str, msg: &str) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(&sec.to_le_bytes());
    out.extend_from_slice(&7u32.to_le_bytes());
    out.push(level);
    push_str(&mut out, name);
    push_str(&mut out, msg);
    push_str(&mut out, "talker.cpp");
    push_str(&mut out, "on_timer");
    out.extend_from_slice(&42u32.to_le_bytes());
    out
}

/// A bag with `(topic, seconds, level, node, text)` log messages in small chunks.
fn write_bag(dir: &std::path::Path, msgs: &[(&str, u32, u8, &str, &str)]) -> Bag {
    write_typed_bag(dir, "rosgraph_msgs/Log", msgs)
}

/// [`write_bag`] with messages of `datatype`: `rosgraph_msgs/Log` or ROS 2's
/// `rcl_interfaces/msg/Log` ([`ros2_log_definition`]).
fn write_typed_bag(
    dir: &std::path::Path,
    datatype: &str,
    msgs: &[(&str, u32, u8, &str, &str)],
) -> Bag {
    let ros2 = datatype != "rosgraph_msgs/Log";
    let (md5, definition) = if ros2 {
        ("*", ros2_log_definition())
    } else {
        (LOG_MD5, String::new())
    };
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
            let header = ConnectionHeader::build(topic, datatype, md5, &definition, None, None);
            let c = w.add_connection(topic, &header).unwrap();
            conns.push((topic, c));
            c
        });
        let bytes = if ros2 {
            ros2_log_bytes(i32::try_from(s).unwrap(), level, node, text)
        } else {
            log_bytes(level, node, text)
        };
        w.write(c, RosTime::new(s, 0), &bytes).unwrap();
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

/// ROS 2's `rcl_interfaces/msg/Log` (either spelling) on `/rosout`: levels 10 … 50 read as
/// the same five levels, logger names as written, the stamp from the nested time.
#[test]
fn reads_ros2_logs() {
    assert!(is_log_type("rcl_interfaces/msg/Log") && is_log_type("rcl_interfaces/Log"));
    assert!(is_log_type("rosgraph_msgs/Log") && !is_log_type("rcl_interfaces/msg/Parameter"));
    for datatype in ["rcl_interfaces/msg/Log", "rcl_interfaces/Log"] {
        let dir = tempfile::tempdir().unwrap();
        let mut msgs = Vec::new();
        for i in 0..20u32 {
            let level = [10u8, 20, 30, 40, 50][(i % 5) as usize];
            let node = if i % 2 == 0 { "planner" } else { "ns.driver" };
            msgs.push(("/rosout", 100 + i, level, node, "hello"));
        }
        let catalog = Catalog::new(vec![write_typed_bag(dir.path(), datatype, &msgs)]);
        let topics = log_topics(&catalog);
        assert_eq!(topics.topics, vec!["/rosout".to_string()]);
        let (all, stats) = read_all(&catalog, &topics.topics, &Registry::bundled());
        assert_eq!(stats, LogStats::default());
        assert_eq!(all.lines.len(), 20);
        let levels: Vec<LogLevel> = all.lines.iter().take(5).map(|l| l.level).collect();
        assert_eq!(levels, LogLevel::ALL);
        let first = all.lines.first().unwrap();
        assert_eq!(all.node(first), "planner");
        assert_eq!(&*first.origin, "talker.cpp:42 (on_timer)");
        assert_eq!(
            all.counts_by_node(),
            vec![
                ("ns.driver".to_string(), [2, 2, 2, 2, 2]),
                ("planner".to_string(), [2, 2, 2, 2, 2]),
            ]
        );
    }
}

#[test]
fn ros2_records_read_their_stamp_and_levels() {
    let schema =
        crate::msg::Schema::from_definition("rcl_interfaces/msg/Log", &ros2_log_definition())
            .unwrap();
    let bytes = ros2_log_bytes(1_700_000_000, 40, "talker", "oops");
    let d = crate::msg::decode(&schema, &bytes).unwrap();
    let root = d.root();
    let r = LogRecord::read(&root);
    assert_eq!(r.kind, LogKind::Ros2);
    assert_eq!(r.stamp, RosTime::new(1_700_000_000, 7));
    assert_eq!((r.level, LogLevel::of(&r)), (40, LogLevel::Error));
    assert_eq!((r.name, r.msg, r.line), (&b"talker"[..], &b"oops"[..], 42));
    assert_eq!((r.seq, r.frame_id, r.topics.len()), (0, &b""[..], 0));
    // A stamp before 1970 cannot be a ROS1 time: 0, not a wrapped value.
    let early = ros2_log_bytes(-5, 20, "t", "m");
    let d = crate::msg::decode(&schema, &early).unwrap();
    let root = d.root();
    assert_eq!(LogRecord::read(&root).stamp, RosTime::default());
    assert_eq!(LogLevel::from_ros2_number(0), LogLevel::Debug);
    assert_eq!(LogLevel::from_ros2_number(25), LogLevel::Info);
    assert_eq!(LogLevel::from_ros2_number(200), LogLevel::Fatal);
}
