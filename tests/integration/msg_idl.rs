//! `ros2idl` schemas → ROS 2 `.msg` texts (`bagscope::msg::idl::to_msg_sections`), on the
//! real schemas in `tests/fixtures/ros2idl/` (rosidl's generated `.idl` files concatenated
//! as rosbag2 records them, and schemas from Autoware recordings; see the README there):
//! each translation is a reviewed snapshot, and the Python `rosbags` reader must read the
//! same fields, types and constants from the IDL, from our `.msg` text and from the `.msg`
//! file rosidl started from (`tests/common/interop/idl_check.py`, with
//! `$BAGSCOPE_EXPORT_PYTHON`; skipped with the reason when it is unset).

use std::path::{Path, PathBuf};
use std::process::Command;

use bagscope::msg::idl::{MsgSection, to_msg_sections};

use crate::common::{fixtures_dir, skip};

/// Every fixture schema: (its type, `pkg/msg/Type` from the file name `pkg__Type.idl`, path).
fn schemas() -> Vec<(String, PathBuf)> {
    let dir = fixtures_dir().join("ros2idl");
    let mut out: Vec<(String, PathBuf)> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "idl"))
        .map(|p| {
            let stem = p.file_stem().unwrap().to_str().unwrap().to_string();
            (stem.replacen("__", "/msg/", 1), p)
        })
        .collect();
    out.sort();
    assert!(out.len() >= 15, "{out:?}");
    out
}

fn translate(datatype: &str, path: &Path) -> Vec<MsgSection> {
    let idl = std::fs::read_to_string(path).unwrap();
    to_msg_sections(datatype, &idl).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The sections as a ros2msg schema shows them: the main text, then `MSG:` sections.
fn rendered(sections: &[MsgSection]) -> String {
    let mut out = String::new();
    for (i, s) in sections.iter().enumerate() {
        if i > 0 {
            out.push_str(&format!("\n{}\nMSG: {}\n", "=".repeat(80), s.name));
        }
        out.push_str(&s.text);
    }
    out
}

#[test]
fn real_schemas_translate_to_msg_text() {
    for (datatype, path) in schemas() {
        let sections = translate(&datatype, &path);
        assert_eq!(sections[0].name, datatype);
        let stem = path.file_stem().unwrap().to_str().unwrap().to_string();
        insta::assert_snapshot!(format!("ros2idl_{stem}"), rendered(&sections));
    }
}

#[test]
fn the_translations_say_what_rosidl_started_from() {
    let text = |datatype: &str, name: &str| {
        let file = format!("{}.idl", datatype.replacen("/msg/", "__", 1));
        let sections = translate(datatype, &fixtures_dir().join("ros2idl").join(file));
        sections
            .into_iter()
            .find(|s| s.name == name)
            .unwrap_or_else(|| panic!("{datatype} has no {name}"))
            .text
    };
    let log = text("rcl_interfaces/msg/Log", "rcl_interfaces/msg/Log");
    assert!(log.contains("\nuint8 DEBUG=10\n") && log.contains("\nuint8 FATAL=50\n"));
    assert!(log.contains("\nbuiltin_interfaces/Time stamp\n") && log.ends_with("uint32 line"));
    let info = text("sensor_msgs/msg/CameraInfo", "sensor_msgs/msg/CameraInfo");
    assert!(info.contains("\nfloat64[9] k\n") && info.contains("\nfloat64[12] p\n"));
    assert!(info.contains("\nfloat64[] d\n"));
    let quat = text(
        "geometry_msgs/msg/PoseStamped",
        "geometry_msgs/msg/Quaternion",
    );
    assert!(quat.ends_with("float64 z 0.0\nfloat64 w 1.0"), "{quat}");
    let bounded = text(
        "test_msgs/msg/BoundedSequences",
        "test_msgs/msg/BoundedSequences",
    );
    assert!(bounded.contains("\nint32[<=3] int32_values_default [0, 2147483647, -2147483648]\n"));
    assert!(bounded.contains("\ntest_msgs/BasicTypes[<=3] basic_types_values\n"));
    let strings = text("test_msgs/msg/Strings", "test_msgs/msg/Strings");
    assert!(strings.contains("\nstring<=22 bounded_string_value_default1 \"Hello world!\"\n"));
    let empty = text("test_msgs/msg/Empty", "test_msgs/msg/Empty");
    assert_eq!(empty, "uint8 structure_needs_at_least_one_member");
    // Autoware's schema lacks geometry_msgs/msg/Pose: the field names it, the compiler looks
    // for it elsewhere (the --msg-path).
    let point = text(
        "autoware_auto_planning_msgs/msg/Trajectory",
        "autoware_auto_planning_msgs/msg/TrajectoryPoint",
    );
    assert!(point.contains("\ngeometry_msgs/Pose pose\n"), "{point}");
}

#[test]
fn rosbags_reads_the_same_types_from_the_idl_and_from_our_msg() {
    let Ok(python) = std::env::var("BAGSCOPE_EXPORT_PYTHON") else {
        skip("BAGSCOPE_EXPORT_PYTHON is unset (an interpreter with rosbags: pip install rosbags)");
        return;
    };
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/common/interop/idl_check.py");
    let probe = Command::new(&python).arg(&script).arg("probe").output();
    if !probe.as_ref().is_ok_and(|o| o.status.success()) {
        skip(&format!("{python} cannot import rosbags: {probe:?}"));
        return;
    }
    let cases: Vec<serde_json::Value> = schemas()
        .into_iter()
        .map(|(datatype, path)| {
            let sections: Vec<serde_json::Value> = translate(&datatype, &path)
                .iter()
                .map(|s| serde_json::json!({"name": s.name, "text": s.text}))
                .collect();
            serde_json::json!({"datatype": datatype, "idl": path, "sections": sections})
        })
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let cases_path = dir.path().join("cases.json");
    std::fs::write(&cases_path, serde_json::to_vec(&cases).unwrap()).unwrap();
    let out = Command::new(&python)
        .arg(&script)
        .arg(&cases_path)
        .arg(fixtures_dir().join("ros2idl"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let summary: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    eprintln!("rosbags agrees: {summary}");
    assert!(summary["types"].as_u64().unwrap() >= 40, "{summary}");
    assert!(
        summary["compared_with_msg"].as_u64().unwrap() >= 20,
        "{summary}"
    );
}

/// Every fixture schema compiles into a CDR schema through `Schema::for_ros2`; the one that
/// lacks a type it uses says which.
#[test]
fn every_schema_compiles_for_cdr() {
    use bagscope::msg::{Registry, Schema, SchemaEncoding, Wire};
    for (datatype, path) in schemas() {
        let idl = std::fs::read_to_string(&path).unwrap();
        let result = Schema::for_ros2(&datatype, &idl, SchemaEncoding::Ros2Idl, &Registry::empty());
        if datatype == "autoware_auto_planning_msgs/msg/Trajectory" {
            let e = result.unwrap_err().to_string();
            assert!(e.contains("geometry_msgs/msg/Pose"), "{e}");
            continue;
        }
        let schema = result.unwrap_or_else(|e| panic!("{datatype}: {e}"));
        assert_eq!(schema.wire(), Wire::Cdr);
        assert_eq!(schema.datatype(), datatype);
    }
}

/// Compares our JSON value with rosbags' (floats within float32 printing, `path` for the
/// failure message).
fn same(ours: &serde_json::Value, theirs: &serde_json::Value, path: &str) -> Result<(), String> {
    use serde_json::Value;
    match (ours, theirs) {
        (Value::Object(a), Value::Object(b)) => {
            let (ka, kb): (Vec<_>, Vec<_>) = (a.keys().collect(), b.keys().collect());
            if ka != kb {
                return Err(format!("{path}: fields {ka:?} vs {kb:?}"));
            }
            a.iter()
                .try_for_each(|(k, v)| same(v, &b[k], &format!("{path}.{k}")))
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => a
            .iter()
            .zip(b)
            .enumerate()
            .try_for_each(|(i, (x, y))| same(x, y, &format!("{path}[{i}]"))),
        (Value::Number(a), Value::Number(b)) if a.is_f64() || b.is_f64() => {
            let (x, y) = (a.as_f64().unwrap(), b.as_f64().unwrap());
            if x == y || (x as f32) == (y as f32) {
                Ok(())
            } else {
                Err(format!("{path}: {x} vs {y}"))
            }
        }
        // byte[], uint8[] and char[] are base64 in our JSON, lists of numbers in rosbags'.
        (Value::String(a), Value::Array(b)) => {
            use base64::Engine as _;
            let ours = base64::engine::general_purpose::STANDARD
                .decode(a)
                .map_err(|e| format!("{path}: {e}"))?;
            let theirs: Vec<u64> = b.iter().filter_map(Value::as_u64).collect();
            let ours: Vec<u64> = ours.into_iter().map(u64::from).collect();
            if ours == theirs {
                Ok(())
            } else {
                Err(format!("{path}: {ours:?} vs {theirs:?}"))
            }
        }
        (a, b) if a == b => Ok(()),
        (a, b) => Err(format!("{path}: {a} vs {b}")),
    }
}

/// A rosbag2 MCAP bag whose schemas are the fixtures' IDL (`tests/fixtures/ros2idl_bag/`,
/// written with rosbags by `tests/common/interop/ros2idl_bag.py`): `echo --format json`
/// decodes every message as rosbags deserializes it.
#[test]
fn an_mcap_with_ros2idl_schemas_decodes_as_rosbags_does() {
    let dir = fixtures_dir();
    let reference = std::fs::read_to_string(dir.join("ros2idl_bag.ref.jsonl")).unwrap();
    let expected: Vec<serde_json::Value> = reference
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let out = crate::common::bagscope()
        .args(["echo", "--format", "json"])
        .arg(dir.join("ros2idl_bag"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let ours: Vec<serde_json::Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(ours.len(), expected.len());
    assert!(expected.len() >= 24);
    for (i, (m, e)) in ours.iter().zip(&expected).enumerate() {
        assert_eq!(m["topic"], e["topic"], "message {i}");
        let time = m["time"]["sec"].as_u64().unwrap() * 1_000_000_000
            + m["time"]["nsec"].as_u64().unwrap();
        assert_eq!(Some(time), e["log_time_ns"].as_u64(), "message {i}");
        if let Err(why) = same(&m["data"], &e["data"], "data") {
            panic!("message {i} ({}): {why}", e["topic"]);
        }
    }
}
