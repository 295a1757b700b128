//! Tests of `metadata.rs`: the fields of each metadata version, and errors that say what is
//! wrong.

use super::*;

const QOS: &str = "- history: 3\n  depth: 0\n  reliability: 1\n  durability: 1\n  deadline:\n    sec: 2147483647\n    nsec: 4294967295\n  avoid_ros_namespace_conventions: false";

fn parse(text: &str) -> Metadata {
    match parse_metadata(text) {
        Ok(m) => m,
        Err(e) => panic!("{e}"),
    }
}

fn error(text: &str) -> String {
    match parse_metadata(text) {
        Ok(m) => panic!("parsed: {m:?}"),
        Err(e) => e,
    }
}

#[test]
fn version_1_minimal() {
    let m = parse(
        "rosbag2_bagfile_information:\n  version: 1\n  storage_identifier: sqlite3\n  relative_file_paths:\n    - a_0.db3\n  duration:\n    nanoseconds: 5\n  starting_time:\n    nanoseconds_since_epoch: 10\n  message_count: 2\n  topics_with_message_count:\n    - topic_metadata:\n        name: /t\n        type: std_msgs/msg/String\n        serialization_format: cdr\n      message_count: 2\n",
    );
    assert_eq!(m.version, 1);
    assert_eq!(m.storage_identifier, "sqlite3");
    assert_eq!(m.relative_file_paths, ["a_0.db3"]);
    assert_eq!(
        (m.starting_time_ns, m.duration_ns, m.message_count),
        (10, 5, 2)
    );
    assert_eq!(m.start_ns(), Some(10));
    assert_eq!(m.topics.len(), 1);
    let t = &m.topics[0];
    assert_eq!(
        (t.name.as_str(), t.datatype.as_str()),
        ("/t", "std_msgs/msg/String")
    );
    assert_eq!(t.serialization_format, "cdr");
    assert_eq!(t.offered_qos_profiles, "");
    assert_eq!(t.type_description_hash, None);
    assert_eq!(t.message_count, 2);
    assert_eq!(
        (m.compression_format.as_str(), m.compression_mode.as_str()),
        ("", "")
    );
    assert!(m.files.is_empty() && m.custom_data.is_empty() && m.ros_distro.is_none());
}

#[test]
fn version_4_compressed_empty_bag() {
    // The shape of rosbag2's compressed_bag: INT64_MAX start, qos as a YAML text.
    let text = format!(
        "rosbag2_bagfile_information:\n  version: 4\n  storage_identifier: sqlite3\n  relative_file_paths:\n    - b_0.db3.zstd\n  duration:\n    nanoseconds: 0\n  starting_time:\n    nanoseconds_since_epoch: 9223372036854775807\n  message_count: 0\n  topics_with_message_count:\n    - topic_metadata:\n        name: /rosout\n        type: rcl_interfaces/msg/Log\n        serialization_format: cdr\n        offered_qos_profiles: {QOS:?}\n      message_count: 0\n  compression_format: zstd\n  compression_mode: FILE\n"
    );
    let m = parse(&text);
    assert_eq!(m.starting_time_ns, i64::MAX);
    assert_eq!(m.start_ns(), None);
    assert_eq!(m.topics[0].offered_qos_profiles, QOS);
    assert_eq!(
        (m.compression_format.as_str(), m.compression_mode.as_str()),
        ("zstd", "FILE")
    );
}

#[test]
fn versions_5_to_9_files_custom_data_hash_distro() {
    let m = parse(
        "rosbag2_bagfile_information:\n  version: 9\n  storage_identifier: mcap\n  duration:\n    nanoseconds: 7\n  starting_time:\n    nanoseconds_since_epoch: 100\n  message_count: 3\n  topics_with_message_count:\n    - topic_metadata:\n        name: /a\n        type: pkg/msg/A\n        serialization_format: cdr\n        offered_qos_profiles: \"\"\n        type_description_hash: RIHS01_abc\n      message_count: 3\n  compression_format: \"\"\n  compression_mode: \"\"\n  relative_file_paths:\n    - x_0.mcap\n    - x_1.mcap\n  files:\n    - path: x_0.mcap\n      starting_time:\n        nanoseconds_since_epoch: 100\n      duration:\n        nanoseconds: 2\n      message_count: 2\n    - path: x_1.mcap\n      starting_time:\n        nanoseconds_since_epoch: 107\n      duration:\n        nanoseconds: 0\n      message_count: 1\n  custom_data:\n    robot: r2\n    run: 12\n  ros_distro: jazzy\n",
    );
    assert_eq!(m.version, 9);
    assert_eq!(m.relative_file_paths, ["x_0.mcap", "x_1.mcap"]);
    assert_eq!(m.files.len(), 2);
    assert_eq!(
        m.files[1],
        FileInfo {
            path: "x_1.mcap".into(),
            starting_time_ns: 107,
            duration_ns: 0,
            message_count: 1
        }
    );
    assert_eq!(m.custom_data.get("robot").map(String::as_str), Some("r2"));
    assert_eq!(m.custom_data.get("run").map(String::as_str), Some("12"));
    assert_eq!(m.ros_distro.as_deref(), Some("jazzy"));
    assert_eq!(
        m.topics[0].type_description_hash.as_deref(),
        Some("RIHS01_abc")
    );
}

#[test]
fn custom_data_null_and_qos_as_a_sequence() {
    let m = parse(
        "rosbag2_bagfile_information:\n  version: 6\n  custom_data: ~\n  topics_with_message_count:\n    - topic_metadata:\n        name: /q\n        offered_qos_profiles:\n          - history: 1\n            depth: 10\n      message_count: \"4\"\n",
    );
    assert!(m.custom_data.is_empty());
    let qos = &m.topics[0].offered_qos_profiles;
    assert!(
        qos.contains("history: 1") && qos.contains("depth: 10"),
        "{qos}"
    );
    assert_eq!(m.topics[0].message_count, 4);
    // Everything else missing: defaults, no error.
    assert!(m.relative_file_paths.is_empty());
    assert_eq!(m.starting_time_ns, i64::MAX);
}

#[test]
fn errors_say_what_is_wrong() {
    assert!(error("").contains("rosbag2_bagfile_information"));
    assert!(error("a: [1, 2").starts_with("not YAML"));
    assert!(error("other: 1\n").contains("no rosbag2_bagfile_information"));
    let e = error("rosbag2_bagfile_information:\n  message_count: lots\n");
    assert!(e.contains("message_count") && e.contains("lots"), "{e}");
    let e = error("rosbag2_bagfile_information:\n  message_count: -3\n");
    assert!(e.contains("negative"), "{e}");
    let e = error("rosbag2_bagfile_information:\n  relative_file_paths: a.db3\n");
    assert!(e.contains("relative_file_paths: not a list"), "{e}");
    let e = error(
        "rosbag2_bagfile_information:\n  topics_with_message_count:\n    - topic_metadata:\n        type: a/msg/B\n",
    );
    assert!(
        e.contains("topics_with_message_count[0].topic_metadata.name: missing"),
        "{e}"
    );
    let e = error("rosbag2_bagfile_information:\n  files:\n    - 3\n");
    assert!(e.contains("files[0]: not a mapping"), "{e}");
    let e = error("rosbag2_bagfile_information:\n  version: 99999999999\n");
    assert!(e.contains("version"), "{e}");
}

#[test]
fn hostile_text_never_panics() {
    for text in [
        "rosbag2_bagfile_information: [1, 2]",
        "rosbag2_bagfile_information:\n  topics_with_message_count: {a: 1}\n",
        "rosbag2_bagfile_information:\n  topics_with_message_count:\n    - 1\n",
        "rosbag2_bagfile_information:\n  starting_time: 3\n",
        "rosbag2_bagfile_information:\n  custom_data: [1]\n",
        "&a [*a]",
        "\u{0}\u{1}",
        "- - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - -",
    ] {
        let _ = parse_metadata(text);
    }
}

#[test]
fn file_errors_name_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("metadata.yaml");
    std::fs::write(&path, b"rosbag2_bagfile_information:\n  version: x\n").unwrap();
    let e = read_metadata(&path).unwrap_err();
    let line = e.line();
    assert!(
        line.contains("metadata.yaml") && line.contains("version"),
        "{line}"
    );
    std::fs::write(&path, b"\xff\xfe").unwrap();
    assert!(
        read_metadata(&path)
            .unwrap_err()
            .line()
            .contains("not UTF-8")
    );
    let e = read_metadata(&dir.path().join("missing.yaml")).unwrap_err();
    assert!(e.line().contains("missing.yaml"));
}

#[test]
fn deep_nesting_is_refused_not_a_stack_overflow() {
    let n = 200_000;
    for text in [
        format!("{}{}", "[".repeat(n), "]".repeat(n)),
        format!("{}x", "- ".repeat(n)),
        format!("{}1{}", "{a: ".repeat(n), "}".repeat(n)),
    ] {
        let text = format!("rosbag2_bagfile_information:\n  custom_data: {text}\n");
        assert!(parse_metadata(&text).is_err());
    }
}
