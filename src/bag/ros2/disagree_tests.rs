//! Tests of `disagree.rs`: each kind of contradiction is one line; agreement is silence.

use super::*;
use crate::bag::ros2::{FileInfo, TopicInfo};

fn topic(name: &str, datatype: &str, count: u64) -> TopicInfo {
    TopicInfo {
        name: name.into(),
        datatype: datatype.into(),
        serialization_format: "cdr".into(),
        offered_qos_profiles: "- depth: 10".into(),
        type_description_hash: None,
        message_count: count,
    }
}

fn fact(name: &str, datatype: &str, count: u64) -> TopicFacts {
    TopicFacts {
        name: name.into(),
        datatype: datatype.into(),
        serialization_format: "cdr".into(),
        offered_qos_profiles: "- depth: 10\n".into(),
        message_count: Some(count),
    }
}

fn storage(topics: Vec<TopicFacts>, span: Option<(u64, u64)>) -> StorageFacts {
    StorageFacts {
        message_count: Some(topics.iter().filter_map(|t| t.message_count).sum()),
        topics,
        span_ns: span,
    }
}

fn metadata() -> Metadata {
    Metadata {
        version: 6,
        storage_identifier: "sqlite3".into(),
        relative_file_paths: vec!["b_0.db3".into(), "b_1.db3".into()],
        starting_time_ns: 1_000_000_000,
        duration_ns: 3_000_000_000,
        message_count: 5,
        topics: vec![topic("/a", "std_msgs/msg/String", 5)],
        files: vec![
            FileInfo {
                path: "b_0.db3".into(),
                starting_time_ns: 1_000_000_000,
                duration_ns: 1,
                message_count: 3,
            },
            FileInfo {
                path: "b_1.db3".into(),
                starting_time_ns: 3_000_000_000,
                duration_ns: 1,
                message_count: 2,
            },
        ],
        ..Metadata::default()
    }
}

fn names() -> Vec<String> {
    vec!["b_0.db3".into(), "b_1.db3".into()]
}

#[test]
fn agreement_is_silent() {
    let facts = [
        storage(
            vec![fact("/a", "std_msgs/msg/String", 3)],
            Some((1_000_000_000, 2_000_000_000)),
        ),
        storage(
            vec![fact("/a", "std_msgs/msg/String", 2)],
            Some((3_000_000_000, 4_000_000_000)),
        ),
    ];
    assert_eq!(compare(&metadata(), &names(), &facts), Vec::<String>::new());
}

#[test]
fn each_contradiction_is_one_line() {
    // The shape of rosbag2's reindex_test_bags/multiple_files: start and duration wrong.
    let mut m = metadata();
    m.starting_time_ns = 3_000_000_000;
    m.duration_ns = 1_000_000_000;
    m.message_count = 9;
    m.topics.push(topic("/gone", "a/msg/B", 1));
    m.topics[0].message_count = 4;
    m.topics[0].offered_qos_profiles = "- depth: 1".into();
    m.files[1].message_count = 7;
    let mut other = fact("/a", "std_msgs/msg/Strong", 2);
    other.serialization_format = "fastcdr".into();
    let facts = [
        storage(
            vec![
                fact("/a", "std_msgs/msg/Strung", 3),
                fact("/new", "x/msg/Y", 0),
            ],
            Some((1_000_000_000, 2_000_000_000)),
        ),
        storage(vec![other], Some((3_000_000_000, 4_500_000_000))),
    ];
    let lines = compare(&m, &names(), &facts);
    assert_eq!(
        lines,
        [
            "message_count: metadata.yaml says 9, the storage files hold 5",
            "starting_time: metadata.yaml says 3.000000000, the first message is at 1.000000000",
            "duration: metadata.yaml says 1.000000000 s, the messages span 3.500000000 s",
            "/a: metadata.yaml says 4 messages, the storage files hold 5",
            "/a: metadata.yaml says type std_msgs/msg/String, the storage says std_msgs/msg/Strung",
            "/a: metadata.yaml's offered_qos_profiles differ from the storage's",
            "/gone: metadata.yaml lists it (1 messages), no storage file has it",
            "/new (x/msg/Y): in the storage files, not in metadata.yaml",
            "b_1.db3: metadata.yaml says 7 messages, the file holds 2",
        ]
    );
}

#[test]
fn qos_in_another_yaml_style_is_the_same() {
    assert!(same_qos(
        "- history: 1\n  depth: 10",
        "- {depth: 10, history: 1}\n"
    ));
    assert!(same_qos("[]", "[]\n"));
    assert!(!same_qos("- depth: 10", "- depth: 1"));
    assert!(!same_qos("[", "]"));
}

#[test]
fn serialization_format_and_file_start() {
    let mut m = metadata();
    m.topics[0].serialization_format = "cdr2".into();
    m.files[0].starting_time_ns = 5;
    let facts = [
        storage(
            vec![fact("/a", "std_msgs/msg/String", 3)],
            Some((1_000_000_000, 2_000_000_000)),
        ),
        storage(
            vec![fact("/a", "std_msgs/msg/String", 2)],
            Some((3_000_000_000, 4_000_000_000)),
        ),
    ];
    let lines = compare(&m, &names(), &facts);
    assert_eq!(
        lines,
        [
            "/a: metadata.yaml says serialization format cdr2, the storage says cdr",
            "b_0.db3: metadata.yaml says it starts at 0.000000005, its first message is at 1.000000000",
        ]
    );
}

#[test]
fn int64_max_start_of_an_empty_bag_is_no_disagreement() {
    let m = Metadata {
        starting_time_ns: i64::MAX,
        duration_ns: 0,
        message_count: 0,
        topics: vec![topic("/rosout", "rcl_interfaces/msg/Log", 0)],
        ..Metadata::default()
    };
    let facts = [storage(
        vec![fact("/rosout", "rcl_interfaces/msg/Log", 0)],
        None,
    )];
    assert_eq!(compare(&m, &["x.db3".into()], &facts), Vec::<String>::new());
    // ... but it is when the storage does hold messages.
    let facts = [storage(
        vec![fact("/rosout", "rcl_interfaces/msg/Log", 1)],
        Some((7, 7)),
    )];
    let lines = compare(&m, &["x.db3".into()], &facts);
    assert!(lines.iter().any(|l| l.contains("INT64_MAX")), "{lines:?}");
}

#[test]
fn unknown_counts_are_not_compared_and_names_are_escaped() {
    let mut m = metadata();
    m.topics[0].name = "/a\u{1b}[2J".into();
    let mut t = fact("/a\u{1b}[2J", "std_msgs/msg/String", 0);
    t.message_count = None;
    let facts = [StorageFacts {
        topics: vec![t],
        message_count: None,
        span_ns: None,
    }];
    let lines = compare(&m, &["b_0.db3".into()], &facts);
    assert_eq!(lines, Vec::<String>::new());
    m.topics[0].datatype = "other/msg/T".into();
    let lines = compare(&m, &["b_0.db3".into()], &facts);
    assert_eq!(lines.len(), 1);
    assert!(!lines[0].contains('\u{1b}'), "{lines:?}");
}
