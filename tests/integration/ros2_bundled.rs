//! ROS 2 `.db3` bags without message definitions (recorded before Jazzy) decode with the
//! bundled ROS 2 Humble definitions, as rosbags decodes them with its Humble typestore:
//! `../shared/corpus-mcap/rosbag2/sqlite3/multiple_files` (std_msgs/msg/String) and
//! `tests/fixtures/ros2/bundled/imu_no_defs` (sensor_msgs/msg/Imu, written with rosbags by
//! `tests/common/interop/ros2_bundled_fixture.py`). Values are compared, not text.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::{bagscope, skip};

/// A number of either side as f64 (`"nan"`, infinities as strings).
fn number(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => match s.as_str() {
            "NaN" | "nan" => Some(f64::NAN),
            "Infinity" | "inf" => Some(f64::INFINITY),
            "-Infinity" | "-inf" => Some(f64::NEG_INFINITY),
            _ => None,
        },
        _ => None,
    }
}

/// Compares our value with the reference's; `path` names the field in failures.
fn same(ours: &Value, theirs: &Value, path: &str) -> Result<(), String> {
    match (ours, theirs) {
        (Value::Object(a), Value::Object(b)) => {
            let keys_a: Vec<&String> = a.keys().collect();
            let keys_b: Vec<&String> = b.keys().collect();
            if keys_a != keys_b {
                return Err(format!("{path}: fields {keys_a:?} vs {keys_b:?}"));
            }
            for (k, v) in a {
                same(v, &b[k], &format!("{path}.{k}"))?;
            }
            Ok(())
        }
        (Value::Array(a), Value::Array(b)) => {
            if a.len() != b.len() {
                return Err(format!("{path}: {} elements vs {}", a.len(), b.len()));
            }
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                same(x, y, &format!("{path}[{i}]"))?;
            }
            Ok(())
        }
        (a, b) if a != b => match (number(a), number(b)) {
            (Some(x), Some(y)) if x == y || (x.is_nan() && y.is_nan()) => Ok(()),
            _ => Err(format!("{path}: {a} vs {b}")),
        },
        _ => Ok(()),
    }
}

/// `echo --format json` of `input` equals `reference` (JSON lines of topic, log_time_ns and
/// data; a `"kind":"header"` line is skipped), message by message in log-time order.
fn compare(input: &Path, reference: &Path) {
    let text = std::fs::read_to_string(reference).unwrap();
    let expected: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|v| v["kind"] != "header")
        .collect();
    let out = bagscope()
        .args(["echo", "--format", "json"])
        .arg(input)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}: {}",
        input.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let ours: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(ours.len(), expected.len(), "{}", input.display());
    for (i, (m, e)) in ours.iter().zip(&expected).enumerate() {
        let time = m["time"]["sec"].as_u64().unwrap() * 1_000_000_000
            + m["time"]["nsec"].as_u64().unwrap();
        assert_eq!(Some(time), e["log_time_ns"].as_u64(), "message {i}");
        assert_eq!(m["topic"], e["topic"], "message {i}");
        if let Err(why) = same(&m["data"], &e["data"], "data") {
            panic!("{}: message {i}: {why}", input.display());
        }
    }
}

#[test]
fn a_db3_without_definitions_of_std_msgs_string_decodes_from_the_bundle() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus-mcap/rosbag2/sqlite3");
    if !dir.is_dir() {
        skip("../shared/corpus-mcap is not there");
        return;
    }
    compare(
        &dir.join("multiple_files"),
        &dir.join("multiple_files.ref.jsonl"),
    );
}

#[test]
fn a_db3_without_definitions_of_sensor_msgs_imu_decodes_as_rosbags_does() {
    let dir: PathBuf = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/ros2/bundled");
    compare(&dir.join("imu_no_defs"), &dir.join("imu_no_defs.ref.jsonl"));
}
