//! `bagscope echo --format json` on the MCAP files and ROS 2 bags of `../shared/corpus-mcap`
//! equals the Python readers' reference dumps (`*.ref.jsonl`, made with rosbags and
//! cross-checked with mcap-ros1/ros2-support): the same messages, topics, log times and values,
//! message by message. The dumps spell some values differently (`log_time_ns`, `nan`); values
//! are compared, not text.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::{bagscope, skip};

pub(crate) fn corpus_mcap() -> Option<PathBuf> {
    let dir = std::env::var_os("BAGSCOPE_CORPUS_MCAP")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus-mcap"));
    if dir.is_dir() {
        Some(dir)
    } else {
        skip("../shared/corpus-mcap is not there");
        None
    }
}

/// A number of either dump as f64 (`"NaN"`/`"nan"`, infinities as strings).
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
        (Value::Number(a), Value::Number(b)) if a.is_f64() || b.is_f64() => {
            let (x, y) = (
                a.as_f64().unwrap_or(f64::NAN),
                b.as_f64().unwrap_or(f64::NAN),
            );
            // float32 values: the dumps print the shortest float32 text, as we do.
            if x == y || (x as f32) == (y as f32) && (x as f32) as f64 == x {
                Ok(())
            } else {
                Err(format!("{path}: {x} vs {y}"))
            }
        }
        (a, b) if number(a).is_some() && number(b).is_some() && a.is_string() != b.is_string() => {
            let (x, y) = (number(a).unwrap_or(0.0), number(b).unwrap_or(1.0));
            if x == y || (x.is_nan() && y.is_nan()) {
                Ok(())
            } else {
                Err(format!("{path}: {a} vs {b}"))
            }
        }
        (Value::String(a), Value::String(b)) if number(ours).is_some() => {
            if number(ours).map(f64::to_bits) == number(theirs).map(f64::to_bits) || a == b {
                Ok(())
            } else {
                Err(format!("{path}: {a} vs {b}"))
            }
        }
        (a, b) => {
            if a == b {
                Ok(())
            } else {
                Err(format!("{path}: {a} vs {b}"))
            }
        }
    }
}

/// Runs `echo --format json` over `input` and compares every message with `reference`.
pub(crate) fn compare(input: &Path, reference: &Path, extra: &[&str]) {
    let text = std::fs::read_to_string(reference).unwrap();
    // A dump starts with a `"kind":"header"` line (the corpus' dumps), or not (our fixtures').
    let (headers, expected): (Vec<Value>, Vec<Value>) = text
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .partition(|v| v["kind"] == "header");
    let header = headers.into_iter().next().unwrap_or(Value::Null);
    let out = bagscope()
        .arg("echo")
        .arg("--format")
        .arg("json")
        .args(extra)
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
    assert_eq!(
        ours.len(),
        expected.len(),
        "{}: message count (header says {})",
        input.display(),
        header["messages"]
    );
    // The dump lists ties in storage order; ours in (time, connection) order: compare each
    // time's messages as a set keyed by topic.
    let key = |v: &Value| (v["topic"].as_str().unwrap_or("").to_string(), v.to_string());
    let mut i = 0;
    while i < expected.len() {
        let t = expected[i]["log_time_ns"].as_u64().unwrap();
        let mut j = i;
        while j < expected.len() && expected[j]["log_time_ns"].as_u64() == Some(t) {
            j += 1;
        }
        let mut theirs: Vec<&Value> = expected[i..j].iter().collect();
        let mut mine: Vec<&Value> = ours[i..j].iter().collect();
        theirs.sort_by_key(|v| key(v));
        mine.sort_by_key(|v| key(v));
        for (m, e) in mine.iter().zip(&theirs) {
            let time = m["time"]["sec"].as_u64().unwrap() * 1_000_000_000
                + m["time"]["nsec"].as_u64().unwrap();
            assert_eq!(time, t, "{}: message {i}: log time", input.display());
            assert_eq!(m["topic"], e["topic"], "{}: message {i}", input.display());
            if let Err(why) = same(&m["data"], &e["data"], "data") {
                panic!("{}: message {i} ({}): {why}", input.display(), e["topic"]);
            }
        }
        i = j;
    }
}

#[test]
fn a_ros1_profile_mcap_decodes_as_the_reference_readers_do() {
    let Some(dir) = corpus_mcap() else { return };
    let d = dir.join("mcap-rust-testdata");
    compare(
        &d.join("compressed.mcap"),
        &d.join("compressed.ref.jsonl"),
        &[],
    );
}

#[test]
fn a_ros2_mcap_bag_decodes_as_rosbags_does() {
    let Some(dir) = corpus_mcap() else { return };
    let d = dir.join("rosbag2/mcap");
    // The directory, and its storage file on its own.
    compare(&d.join("cdr_test"), &d.join("cdr_test.ref.jsonl"), &[]);
    compare(
        &d.join("cdr_test/cdr_test_0.mcap"),
        &d.join("cdr_test.ref.jsonl"),
        &[],
    );
}

#[test]
fn a_ros1_mcap_converts_to_a_bag_the_official_reader_reads_and_back() {
    let Some(dir) = corpus_mcap() else { return };
    let d = dir.join("mcap-rust-testdata");
    let tmp = tempfile::tempdir().unwrap();
    let bag = tmp.path().join("out.bag");
    let out = bagscope()
        .arg("filter")
        .arg(d.join("compressed.mcap"))
        .arg(&bag)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Every message, decoded from the bag, as the reference readers decode the MCAP.
    compare(&bag, &d.join("compressed.ref.jsonl"), &[]);
    // And back: the bag into an MCAP again, the same messages.
    let mcap = tmp.path().join("again.mcap");
    let out = bagscope()
        .args(["export", "--format", "mcap", "-o"])
        .arg(&mcap)
        .arg(&bag)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    compare(&mcap, &d.join("compressed.ref.jsonl"), &[]);
    // The official reader reads the bag: the same count per topic.
    match crate::common::official::have_python_rosbag() {
        Err(why) => skip(&why),
        Ok(()) => {
            let python = crate::common::ros_python();
            let script = "import sys, rosbag, collections\n\
                      c = collections.Counter(t for t, m, _ in rosbag.Bag(sys.argv[1]).read_messages(raw=True))\n\
                      print(sorted(c.items()))";
            let out = std::process::Command::new(python)
                .args(["-c", script])
                .arg(&bag)
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            assert_eq!(
                String::from_utf8_lossy(&out.stdout).trim(),
                "[('/diagnostics', 52), ('/tf', 774)]"
            );
        }
    }
}

#[test]
fn a_ros2_bag_filters_into_an_mcap_in_its_own_encoding_and_never_into_a_bag() {
    let Some(dir) = corpus_mcap() else { return };
    let d = dir.join("rosbag2/mcap");
    let tmp = tempfile::tempdir().unwrap();
    let mcap = tmp.path().join("out.mcap");
    let out = bagscope()
        .arg("filter")
        .arg(d.join("cdr_test"))
        .arg(&mcap)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    compare(&mcap, &d.join("cdr_test.ref.jsonl"), &[]);
    let info = bagscope().arg("info").arg(&mcap).output().unwrap();
    let text = String::from_utf8_lossy(&info.stdout);
    assert!(text.contains("Serialization Format: cdr"), "{text}");
    let out = bagscope()
        .arg("filter")
        .arg(d.join("cdr_test/cdr_test_0.mcap"))
        .arg(tmp.path().join("out.bag"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot hold"));
    assert!(!tmp.path().join("out.bag").exists());
}

#[test]
fn info_lists_an_mcap_files_attachments_and_metadata() {
    let Some(dir) = corpus_mcap() else { return };
    let c = dir.join("conformance");
    let out = bagscope()
        .arg("info")
        .arg(c.join("OneAttachment/OneAttachment-ax.mcap"))
        .arg(c.join("OneMetadata/OneMetadata-mdx.mcap"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("attachments: myFile (application/octet-stream, 3 bytes)"),
        "{text}"
    );
    assert!(text.contains("metadata: myMetadata {foo: bar}"), "{text}");
}
