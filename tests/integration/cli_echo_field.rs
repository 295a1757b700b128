//! `bagscope echo BAG -t /topic/field` against `rostopic echo -b BAG /topic/field`, byte for
//! byte: nested fields, arrays and indexing, strings, times (and their `secs`/`nsecs`),
//! topics with several connections. Plus the errors for fields a type does not have (exit 2),
//! and the JSON line of a field. The rostopic comparisons skip when `rostopic` is missing.

use std::path::Path;
use std::process::Command;

use crate::common::{fixtures_dir, skip};

fn bagscope(args: &[&str]) -> (String, String, i32) {
    crate::common::run_bagscope(args)
}

/// `rostopic echo -b BAG SPEC`'s standard output, `None` when rostopic is not installed.
fn rostopic_echo(bag: &Path, spec: &str) -> Option<Vec<u8>> {
    let out = Command::new("rostopic")
        .arg("echo")
        .arg("-b")
        .arg(bag)
        .arg(spec)
        .output()
        .ok()?;
    assert!(
        out.status.success(),
        "rostopic echo -b {} {spec} failed: {}",
        bag.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    Some(out.stdout)
}

fn have_rostopic() -> bool {
    let ok = Command::new("rostopic").arg("-h").output().is_ok();
    if !ok {
        skip("Debian's rostopic is not installed (apt install python3-rostopic)");
    }
    ok
}

/// Each spec printed by us equals rostopic's output byte for byte (and is not empty).
fn compare(bag: &Path, specs: &[&str]) {
    for spec in specs {
        let theirs = rostopic_echo(bag, spec).unwrap();
        let out = Command::new(env!("CARGO_BIN_EXE_bagscope"))
            .arg("echo")
            .arg(bag)
            .arg("-t")
            .arg(spec)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{spec}");
        assert!(!theirs.is_empty(), "{spec}: rostopic printed nothing");
        assert!(
            out.stdout == theirs,
            "{} {spec}: ours\n{}\nrostopic\n{}",
            bag.display(),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&theirs)
        );
    }
}

#[test]
fn fixture_fields_match_rostopic() {
    if !have_rostopic() {
        return;
    }
    let bag = fixtures_dir().join("recorded.bag");
    compare(
        &bag,
        &[
            // Scalars deep in a message, a nested message, a whole header.
            "/odom/pose/pose/position/x",
            "/odom/pose/pose",
            "/odom/header",
            // Strings, also on a topic with two connections.
            "/odom/header/frame_id",
            "/chatter/data",
            "/rosout/msg",
            // Times and their parts (also over two connections of /rosout).
            "/odom/header/stamp",
            "/rosout/header/stamp/secs",
            "/imu/header/stamp/nsecs",
            // Arrays: numbers, strings, messages, uint8[] (Python bytes), and indexing.
            "/odom/pose/covariance",
            "/rosout/topics",
            "/tf/transforms",
            "/camera/image_raw/data",
            "/odom/pose/covariance[0]",
            "/imu/orientation_covariance[8]",
            "/camera/image_raw/data[3]",
            "/tf/transforms[0]",
            "/tf/transforms[0]/child_frame_id",
            "/tf/transforms[0]/header/stamp",
            // The whole message through the same path.
            "/map_name",
        ],
    );
}

#[test]
fn corpus_fields_match_rostopic() {
    if !have_rostopic() {
        return;
    }
    let Some(bag) = crate::common::corpus_bag("gen-mixed_lz4.bag") else {
        return;
    };
    let all: Vec<String> = [
        "b",
        "i8",
        "u64",
        "f32",
        "f64",
        "s",
        "t",
        "d",
        "c",
        "by",
        "b_var",
        "i8_fixed",
        "u8_var",
        "u8_fixed",
        "c_var",
        "by_var",
        "s_var",
        "s_fixed",
        "t_var",
        "d_fixed",
        "points",
        "poses2d",
        "inners",
        "single_inner",
        "single_inner/blob",
        "empties",
    ]
    .iter()
    .map(|f| format!("/custom/all_types/{f}"))
    .collect();
    let mut specs: Vec<&str> = all.iter().map(String::as_str).collect();
    specs.extend([
        "/path/poses",
        "/points/fields",
        "/gps/fix/position_covariance",
        "/array/layout",
        "/chatter/data",
    ]);
    compare(&bag, &specs);
}

#[test]
fn index_past_the_end_prints_nothing_for_that_message() {
    let bag = fixtures_dir().join("recorded.bag");
    let bag = bag.to_str().unwrap();
    let (out, err, code) = bagscope(&["echo", bag, "-t", "/tf/transforms[5]"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "");
    assert!(err.contains("27 messages had no value"), "{err}");
}

#[test]
fn unknown_field_lists_the_fields_and_exits_2() {
    let bag = fixtures_dir().join("recorded.bag");
    let bag = bag.to_str().unwrap();
    let (out, err, code) = bagscope(&["echo", bag, "-t", "/odom/pose/pose/postion/x"]);
    assert_eq!(code, 2, "{err}");
    assert_eq!(out, "");
    assert!(err.contains("topic /odom (nav_msgs/Odometry)"), "{err}");
    assert!(
        err.contains("geometry_msgs/Pose has no field 'postion'")
            && err.contains("its fields are: position, orientation"),
        "{err}"
    );
    // A time has `secs` and `nsecs` only.
    let (_, err, code) = bagscope(&["echo", bag, "-t", "/odom/header/stamp/sec"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("its fields are: secs, nsecs"), "{err}");
    // Syntax errors name the column.
    let (_, err, code) = bagscope(&["echo", bag, "-t", "/odom/pose/covariance[x]"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("column"), "{err}");
}

#[test]
fn a_field_missing_in_one_connection_type_is_an_error() {
    let Some(bag) = crate::common::corpus_bag("gen-mixed_lz4.bag") else {
        return;
    };
    // /multi_type has a std_msgs/String and a geometry_msgs/Pose2D connection.
    let (out, err, code) = bagscope(&["echo", bag.to_str().unwrap(), "-t", "/multi_type/data"]);
    assert_eq!(code, 2, "{err}");
    assert_eq!(out, "");
    assert!(
        err.contains("topic /multi_type (geometry_msgs/Pose2D)")
            && err.contains("its fields are: x, y, theta"),
        "{err}"
    );
}

#[test]
fn json_line_holds_the_value() {
    let bag = fixtures_dir().join("recorded.bag");
    let bag = bag.to_str().unwrap();
    let (out, err, code) = bagscope(&[
        "echo",
        bag,
        "--format",
        "json",
        "-n",
        "1",
        "-t",
        "/odom/pose/pose/position/x",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(out.trim_end()).unwrap();
    assert_eq!(v["topic"], "/odom");
    assert_eq!(v["field"], "pose/pose/position/x");
    assert_eq!(v["data"].as_f64(), Some(3.65572914863448));
    let (out, _, code) = bagscope(&[
        "echo",
        bag,
        "--format",
        "json",
        "-n",
        "1",
        "-t",
        "/tf/transforms[*].child_frame_id",
    ]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(out.trim_end()).unwrap();
    assert_eq!(v["data"], serde_json::json!(["base_link"]));
}

/// `export --format csv -t /topic/field` equals `rostopic echo -p -b BAG /topic/field`, byte
/// for byte (fields whose columns do not change between messages: see docs/export.md).
#[test]
fn csv_export_of_a_field_matches_rostopic_p() {
    if !have_rostopic() {
        return;
    }
    let bag = fixtures_dir().join("recorded.bag");
    for spec in [
        "/odom/pose/pose/position/x",
        "/odom/pose/pose/position",
        "/odom/header",
        "/odom/header/stamp",
        "/rosout/header/stamp/secs",
        "/chatter/data",
        "/odom/pose/covariance",
        "/odom/pose/covariance[3]",
        "/tf/transforms",
        "/tf/transforms[0]/child_frame_id",
        "/camera/image_raw/header",
    ] {
        let theirs = Command::new("rostopic")
            .args(["echo", "-p", "-b"])
            .arg(&bag)
            .arg(spec)
            .output()
            .unwrap();
        assert!(theirs.status.success(), "rostopic -p {spec}");
        let ours = Command::new(env!("CARGO_BIN_EXE_bagscope"))
            .args(["export", "--format", "csv"])
            .arg(&bag)
            .args(["-t", spec])
            .output()
            .unwrap();
        assert_eq!(ours.status.code(), Some(0), "{spec}");
        assert!(!theirs.stdout.is_empty(), "{spec}");
        assert!(
            ours.stdout == theirs.stdout,
            "{spec}: ours\n{}\nrostopic\n{}",
            String::from_utf8_lossy(&ours.stdout),
            String::from_utf8_lossy(&theirs.stdout)
        );
    }
}

#[test]
fn export_of_a_field_jsonl_and_errors() {
    let bag = fixtures_dir().join("recorded.bag");
    let bag = bag.to_str().unwrap();
    let (out, err, code) = bagscope(&[
        "export",
        "--format",
        "jsonl",
        bag,
        "-t",
        "/odom/header/stamp",
    ]);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 27);
    assert_eq!(lines[0]["field"], "header/stamp");
    assert_eq!(
        lines[0]["data"],
        serde_json::json!({"sec": 1795297617u32, "nsec": 609869718u32})
    );
    // [*] gives several values per message: not for CSV.
    let (out, err, code) = bagscope(&[
        "export",
        "--format",
        "csv",
        bag,
        "-t",
        "/tf/transforms[*]/child_frame_id",
    ]);
    assert_eq!(code, 2, "{err}");
    assert_eq!(out, "");
    assert!(err.contains("[*]"), "{err}");
    // Unknown field: exit 2, the fields listed.
    let (out, err, code) = bagscope(&["export", "--format", "csv", bag, "-t", "/imu/accel"]);
    assert_eq!(code, 2, "{err}");
    assert_eq!(out, "");
    assert!(
        err.contains("sensor_msgs/Imu has no field 'accel'") && err.contains("linear_acceleration"),
        "{err}"
    );
}

/// `-n` counts printed values: messages whose array is too short for `[N]` do not count, as in
/// rostopic (the first messages of /rosout list one topic, later ones six).
#[test]
fn limit_counts_messages_with_a_value() {
    if !have_rostopic() {
        return;
    }
    let bag = fixtures_dir().join("recorded.bag");
    let theirs = Command::new("rostopic")
        .args(["echo", "-n", "2", "-b"])
        .arg(&bag)
        .arg("/rosout/topics[3]")
        .output()
        .unwrap();
    let ours = Command::new(env!("CARGO_BIN_EXE_bagscope"))
        .arg("echo")
        .arg(&bag)
        .args(["-n", "2", "-t", "/rosout/topics[3]"])
        .output()
        .unwrap();
    assert_eq!(ours.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&ours.stdout),
        String::from_utf8_lossy(&theirs.stdout)
    );
    assert_eq!(
        String::from_utf8_lossy(&ours.stdout),
        "\"/odom\"\n---\n\"/odom\"\n---\n"
    );
}
