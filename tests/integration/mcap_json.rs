//! MCAP `json` channels (`tests/fixtures/mcap_json/json_channels.mcap`, written by
//! `tests/common/interop/mcap_json.py` with the Python `mcap` 1.6.0 writer): `echo --format
//! json` prints what Python's `json.loads` reads from each message, value by value (integers
//! stay integers and floats floats, but for an integer in a `number` field or in an array
//! mixing integers and floats, which is the equal float: `1.0 == 1`; with
//! `$BAGSCOPE_EXPORT_PYTHON`, skipped with the reason when it is unset); a message that contradicts its jsonschema is an error naming the field,
//! never a guess; `--where`, CSV columns and `info` see JSON fields and encodings.

use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;

use crate::common::{fixtures_dir, run_bagscope, skip};

fn fixture() -> PathBuf {
    fixtures_dir().join("mcap_json/json_channels.mcap")
}

fn path() -> String {
    fixture().to_string_lossy().into_owned()
}

/// `echo --format json ARGS` of the fixture: the lines, parsed, and the stderr.
fn echo(args: &[&str]) -> (Vec<Value>, String, i32) {
    let p = path();
    let mut all = vec!["echo", p.as_str(), "--format", "json"];
    all.extend_from_slice(args);
    let (out, err, code) = run_bagscope(&all);
    let lines = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    (lines, err, code)
}

/// Where `ours` and `theirs` differ: numbers of the same kind (integer or float) and value,
/// everything else equal; objects compared by key (their order is the schema's).
fn same(ours: &Value, theirs: &Value, at: &str) -> Result<(), String> {
    match (ours, theirs) {
        (Value::Number(a), Value::Number(b)) => {
            let equal = match (a.is_f64(), b.is_f64()) {
                (true, true) => a.as_f64() == b.as_f64(),
                (false, false) => a.as_i64() == b.as_i64() && a.as_u64() == b.as_u64(),
                // An integer in a `number` field or in an array mixing integers and floats
                // is a float64 (Python: 1 == 1.0), exactly.
                (true, false) => b
                    .as_i64()
                    .is_some_and(|i| i.unsigned_abs() <= 1 << 53 && a.as_f64() == Some(i as f64)),
                (false, true) => false,
            };
            equal
                .then_some(())
                .ok_or_else(|| format!("{at}: {a} != {b}"))
        }
        (Value::Array(a), Value::Array(b)) => {
            if a.len() != b.len() {
                return Err(format!("{at}: {} elements, not {}", a.len(), b.len()));
            }
            a.iter()
                .zip(b)
                .enumerate()
                .try_for_each(|(i, (x, y))| same(x, y, &format!("{at}[{i}]")))
        }
        (Value::Object(a), Value::Object(b)) => {
            let mut ka: Vec<&String> = a.keys().collect();
            let mut kb: Vec<&String> = b.keys().collect();
            ka.sort();
            kb.sort();
            if ka != kb {
                return Err(format!("{at}: keys {ka:?}, not {kb:?}"));
            }
            b.iter()
                .try_for_each(|(k, y)| same(&a[k], y, &format!("{at}.{k}")))
        }
        _ if ours == theirs => Ok(()),
        _ => Err(format!("{at}: {ours} != {theirs}")),
    }
}

#[test]
fn echo_json_equals_json_loads_message_by_message() {
    let Ok(python) = std::env::var("BAGSCOPE_EXPORT_PYTHON") else {
        skip("BAGSCOPE_EXPORT_PYTHON is unset (the Python mcap reader compares JSON messages)");
        return;
    };
    let script =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/common/interop/mcap_json.py");
    let out = Command::new(python)
        .arg(script)
        .arg("dump")
        .arg(fixture())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let theirs: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(theirs.len(), 13);
    // Every message but the two on /bad that contradict its schema.
    let (ours, err, code) = echo(&[]);
    assert_eq!(code, 1, "two messages do not decode: {err}");
    assert_eq!(ours.len(), theirs.len());
    let mut compared = 0;
    for (i, (o, t)) in ours.iter().zip(&theirs).enumerate() {
        let ns = o["time"]["sec"].as_u64().unwrap() * 1_000_000_000
            + o["time"]["nsec"].as_u64().unwrap();
        assert_eq!(Some(ns), t["log_time"].as_u64(), "message {i}");
        assert_eq!(o["topic"], t["topic"], "message {i}");
        if o["data"].is_null() {
            assert_eq!(t["topic"], "/bad", "message {i}: {o}");
            continue;
        }
        if let Err(why) = same(&o["data"], &t["data"], "data") {
            panic!("message {i} on {}: {why}", t["topic"]);
        }
        compared += 1;
    }
    assert_eq!(compared, 11);
}

#[test]
fn a_message_that_contradicts_its_schema_is_an_error_naming_the_field() {
    let (lines, err, code) = echo(&["-t", "/bad"]);
    assert_eq!(code, 1, "{err}");
    assert_eq!(lines.len(), 3);
    assert_eq!(
        lines[0]["data"],
        serde_json::json!({"count": 1, "unit": "m"})
    );
    assert!(lines[1]["data"].is_null());
    assert_eq!(
        lines[1]["error"],
        "count at payload byte 10: expected an integer, found a string"
    );
    let third = lines[2]["error"].as_str().unwrap();
    assert!(
        third.starts_with("count at payload byte 0: the property is missing"),
        "{third}"
    );
    assert!(
        err.contains("/bad message at 1700000000.120000000 (demo.Count): count"),
        "{err}"
    );
}

#[test]
fn a_schemaless_channel_and_an_unmapped_schema_decode_as_their_json_reads() {
    let (lines, err, code) = echo(&["-t", "/free", "-t", "/loose"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(lines.len(), 5);
    // The data as printed: properties in the message's order.
    let (out, _, _) = run_bagscope(&[
        "echo",
        &path(),
        "--format",
        "json",
        "-t",
        "/free",
        "-t",
        "/loose",
    ]);
    let data: Vec<&str> = out
        .lines()
        .map(|l| &l[l.find(",\"data\":").unwrap() + 8..l.len() - 1])
        .collect();
    assert_eq!(
        data,
        [
            r#"{"speed":3,"name":"a","nested":{"k":[1.0,2.5]},"big":18446744073709551615}"#,
            r#"{"v":{"x":1.5},"name":"one"}"#,
            r#"{"other":true,"list":[{"a":1},{"a":-2}],"empty":[]}"#,
            r#"{"v":{"x":-2.0},"name":"two"}"#,
            r#"{"speed":4.5,"text":"é😀"}"#,
        ]
    );
    // The schema that is not used is named, with why.
    assert!(
        err.contains("/loose: demo.Loose: jsonschema /properties/v: '$ref' is not supported; its messages are decoded without the schema"),
        "{err}"
    );
}

#[test]
fn yaml_echo_and_mcap_output_keep_json_channels() {
    let p = path();
    // YAML as `ros2 topic echo` writes it: UTF-8 text, `true`/`false`, block sequences.
    let (out, err, code) = run_bagscope(&["echo", &p, "-t", "/free"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out,
        "speed: 3\nname: a\nnested:\n  k:\n  - 1.0\n  - 2.5\nbig: 18446744073709551615\n---\n\
         other: true\nlist:\n- a: 1\n- a: -2\nempty: []\n---\nspeed: 4.5\ntext: é😀\n---\n"
    );
    // MCAP in, MCAP out: the channels stay json, the messages their bytes.
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("copy.mcap");
    let copy = copy.to_string_lossy();
    let (_, err, code) = run_bagscope(&["filter", &p, &copy]);
    assert_eq!(code, 0, "{err}");
    let (before, _, _) = run_bagscope(&["echo", &p, "--format", "json"]);
    let (after, _, _) = run_bagscope(&["echo", &copy, "--format", "json"]);
    assert_eq!(before, after);
}

#[test]
fn where_selects_on_json_fields() {
    let (lines, err, code) = echo(&[
        "-t",
        "/sample",
        "--where",
        "seq >= 2 and pose.position.x < 3.5 and ok",
    ]);
    assert_eq!(code, 0, "{err}");
    let seqs: Vec<u64> = lines
        .iter()
        .map(|l| l["data"]["seq"].as_u64().unwrap())
        .collect();
    assert_eq!(seqs, [2]);
    let (lines, err, code) = echo(&[
        "-t",
        "/sample",
        "--where",
        "label == '日本語 🚀' or len(points) > 3",
    ]);
    assert_eq!(code, 0, "{err}");
    let seqs: Vec<u64> = lines
        .iter()
        .map(|l| l["data"]["seq"].as_u64().unwrap())
        .collect();
    assert_eq!(seqs, [2, 4]);
    // Without a schema the fields are not known in advance: a clear error, not a guess.
    let (_, err, code) = echo(&["-t", "/free", "--where", "speed > 3"]);
    assert_eq!(code, 2);
    assert!(err.contains("has no field 'speed'"), "{err}");
}

#[test]
fn csv_export_has_a_column_per_json_field() {
    let p = path();
    let (out, err, code) = run_bagscope(&["export", &p, "-t", "/sample", "--format", "csv"]);
    assert_eq!(code, 0, "{err}");
    let mut lines = out.lines();
    let header = lines.next().unwrap();
    assert!(
        header.starts_with("%time,field.seq,field.stamp.sec,field.stamp.nsec,field.temperature,field.ok,field.label,"),
        "{header}"
    );
    let column = header
        .split(',')
        .position(|c| c == "field.pose.position.y")
        .unwrap();
    let ys: Vec<&str> = lines
        .map(|l| l.split(',').nth(column).unwrap_or(""))
        .collect();
    // Row 4's label holds a line break (quoted); its continuation line is skipped here.
    assert_eq!(ys[..4], ["-0.0", "-0.5", "-1.0", "-1.5"]);
    let (out, err, code) = run_bagscope(&[
        "export",
        &p,
        "-t",
        "/sample",
        "--format",
        "csv",
        "--column",
        "x=pose.position.x",
        "--column",
        "id=ids[0]",
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out,
        "%time,x,id\n1700000000000000000,0.0,1\n1700000000100000000,1.0,-9223372036854775808\n\
         1700000000200000000,2.0,\n1700000000300000000,3.0,0\n1700000000400000000,4.0,9007199254740993\n"
    );
    // Without a schema, a later message's fields go under their own names only.
    let (out, _, code) = run_bagscope(&["export", &p, "-t", "/free", "--format", "csv"]);
    assert_eq!(code, 0);
    let rows: Vec<&str> = out.lines().collect();
    assert_eq!(
        rows[0],
        "%time,field.speed,field.name,field.nested.k0,field.nested.k1,field.big"
    );
    assert_eq!(rows[2], "1700000000110000000,,,,,");
    assert_eq!(rows[3], "1700000000210000000,4.5,,,,");
}

#[test]
fn info_lists_each_channel_with_its_encoding() {
    let p = path();
    let (out, err, code) = run_bagscope(&["info", &p]);
    assert_eq!(code, 0, "{err}");
    for topic in ["/sample", "/free", "/bad", "/loose"] {
        let line = out
            .lines()
            .find(|l| l.contains(&format!("Topic: {topic} ")))
            .unwrap_or_else(|| panic!("{topic}: {out}"));
        assert!(line.contains("Serialization Format: json"), "{line}");
    }
    let (out, _, _) = run_bagscope(&["info", "--json", &p]);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert!(v.to_string().contains("\"json\""), "{v}");
}
