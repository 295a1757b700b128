//! Helpers shared by the `msg_*` integration tests: finding the shared corpus and Debian's
//! Python tools, and reading reference dumps.

#![allow(
    dead_code,
    clippy::expect_used,
    clippy::unwrap_used,
    clippy::indexing_slicing
)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// The shared corpus (`../shared/corpus` next to the project, or `$BAGSCOPE_CORPUS`), when
/// present.
pub fn corpus_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("BAGSCOPE_CORPUS").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus"),
        PathBuf::from,
    );
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!("skipping: {} is absent", dir.display());
        None
    }
}

/// Every `*.ref.jsonl` of the corpus, sorted.
pub fn ref_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("read corpus dir")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.to_string_lossy().ends_with(".ref.jsonl"))
        .collect();
    files.sort();
    files
}

/// The header line of a reference dump (`None` for `"kind":"error"` dumps).
pub fn ref_header(path: &Path) -> Option<serde_json::Value> {
    let text = std::fs::read_to_string(path).expect("read ref");
    let first = text.lines().next()?;
    let header: serde_json::Value = serde_json::from_str(first).expect("ref header json");
    header.get("connections")?;
    Some(header)
}

/// The Python interpreter that has Debian's `genmsg`, `genpy` and `rosbag`, if any.
pub fn debian_python() -> Option<PathBuf> {
    for python in ["/usr/bin/python3", "python3"] {
        let ok = Command::new(python)
            .args(["-c", "import genmsg, genpy, rosbag"])
            .output()
            .is_ok_and(|o| o.status.success());
        if ok {
            return Some(PathBuf::from(python));
        }
    }
    eprintln!(
        "skipping: no python3 with Debian's genmsg/genpy/rosbag (apt install python3-rosbag)"
    );
    None
}

/// Path of a file under `tests/fixtures/msg/`.
pub fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/msg")
        .join(name)
}

/// One sample of `tests/fixtures/msg/samples.jsonl` (see `make_samples.py` there).
pub struct Sample {
    pub bag: String,
    pub topic: String,
    pub datatype: String,
    pub md5sum: String,
    pub definition: String,
    pub time: (u32, u32),
    pub payload: Vec<u8>,
    /// The line as JSON (`json`, `yaml`, `csv_header`, `csv_row` or `error`).
    pub row: serde_json::Value,
}

impl Sample {
    /// Where the sample comes from, for assertion messages.
    pub fn label(&self) -> String {
        format!("{} {} ({})", self.bag, self.topic, self.datatype)
    }
}

/// Every sample of `tests/fixtures/msg/samples.jsonl`.
pub fn samples() -> Vec<Sample> {
    let text = std::fs::read_to_string(fixture("samples.jsonl")).expect("read samples.jsonl");
    let mut lines = text.lines();
    let head: serde_json::Value =
        serde_json::from_str(lines.next().expect("definitions line")).expect("json");
    let defs = head["definitions"].as_array().expect("definitions");
    lines
        .map(|line| {
            let row: serde_json::Value = serde_json::from_str(line).expect("sample json");
            let s = |k: &str| row[k].as_str().expect(k).to_string();
            let def = usize::try_from(row["def"].as_u64().expect("def")).expect("index");
            Sample {
                bag: s("bag"),
                topic: s("topic"),
                datatype: s("type"),
                md5sum: s("md5sum"),
                definition: defs[def].as_str().expect("definition").to_string(),
                time: (
                    u32::try_from(row["time"]["sec"].as_u64().expect("sec")).expect("u32"),
                    u32::try_from(row["time"]["nsec"].as_u64().expect("nsec")).expect("u32"),
                ),
                payload: hex(&s("payload")),
                row,
            }
        })
        .collect()
}

fn hex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex"))
        .collect()
}

/// Compares a decoded value with the reference dump's JSON for it (`dump_ref.py` shape),
/// type by type: floats by value (float32 references are widened exactly), times as total
/// nanoseconds, byte arrays as `{"$b64": x}` or plain base64, U+FFFD for invalid UTF-8.
/// Returns the first difference.
pub fn compare_with_ref(
    value: &bagscope::msg::Value<'_>,
    reference: &serde_json::Value,
    path: &str,
) -> Result<(), String> {
    use bagscope::msg::Value as V;
    use base64::Engine as _;
    let fail = |what: &str| {
        let ours: String = format!("{value:?}").chars().take(300).collect();
        let theirs: String = reference.to_string().chars().take(300).collect();
        Err(format!("{path}: {what}: ours {ours}, reference {theirs}"))
    };
    let float_ok = |x: f64| match reference {
        serde_json::Value::String(s) => {
            (s == "NaN" && x.is_nan())
                || (s == "Infinity" && x == f64::INFINITY)
                || (s == "-Infinity" && x == f64::NEG_INFINITY)
        }
        serde_json::Value::Number(n) => n.as_f64().is_some_and(|r| r.to_bits() == x.to_bits()),
        _ => false,
    };
    let int_ok = |x: i128| {
        reference.as_i64().map(i128::from) == Some(x)
            || reference.as_u64().map(i128::from) == Some(x)
    };
    let ok = match value {
        V::Bool(b) => reference.as_bool() == Some(*b),
        V::I8(x) => int_ok(i128::from(*x)),
        V::U8(x) => int_ok(i128::from(*x)),
        V::I16(x) => int_ok(i128::from(*x)),
        V::U16(x) => int_ok(i128::from(*x)),
        V::I32(x) => int_ok(i128::from(*x)),
        V::U32(x) => int_ok(i128::from(*x)),
        V::I64(x) => int_ok(i128::from(*x)),
        V::U64(x) => int_ok(i128::from(*x)),
        V::F32(x) => float_ok(f64::from(*x)),
        V::F64(x) => float_ok(*x),
        V::String(bytes) => reference.as_str() == Some(&*String::from_utf8_lossy(bytes)),
        V::Time(t) => total_ns(reference) == Some(i128::from(t.as_nanos())),
        V::Duration(d) => total_ns(reference) == Some(i128::from(d.as_nanos())),
        V::Bytes(bytes) => {
            let b64 = base64::engine::general_purpose::STANDARD.encode(bytes);
            // `{"$b64": x}` (dump_ref's own shape) or `x` (the JSON.md shape of the corpus).
            reference.get("$b64").unwrap_or(reference).as_str() == Some(b64.as_str())
        }
        V::PrimArray(items) => {
            let Some(refs) = reference.as_array() else {
                return fail("not an array");
            };
            if refs.len() != items.len() {
                return fail("array length");
            }
            for (i, (item, r)) in items.iter().zip(refs).enumerate() {
                compare_with_ref(&item, r, &format!("{path}[{i}]"))?;
            }
            true
        }
        V::Array(items) => {
            let Some(refs) = reference.as_array() else {
                return fail("not an array");
            };
            if refs.len() != items.len() {
                return fail("array length");
            }
            for (i, (item, r)) in items.iter().zip(refs).enumerate() {
                compare_with_ref(item, r, &format!("{path}[{i}]"))?;
            }
            true
        }
        V::Message(m) => {
            let Some(obj) = reference.as_object() else {
                return fail("not an object");
            };
            if obj.len() != m.values().len() {
                return fail("field count");
            }
            for (name, item) in m.iter() {
                let Some(r) = obj.get(name) else {
                    return fail(&format!("no field {name}"));
                };
                compare_with_ref(item, r, &format!("{path}.{name}"))?;
            }
            true
        }
    };
    if ok { Ok(()) } else { fail("differs") }
}

fn total_ns(v: &serde_json::Value) -> Option<i128> {
    Some(i128::from(v["sec"].as_i64()?) * 1_000_000_000 + i128::from(v["nsec"].as_i64()?))
}

/// Replaces the reference dump's `{"$b64": x}` by `x`, the shape JSON.md prescribes.
pub fn normalise_b64(v: &mut serde_json::Value) {
    match v {
        serde_json::Value::Object(map) => {
            if map.len() == 1 {
                if let Some(serde_json::Value::String(s)) = map.get("$b64") {
                    *v = serde_json::Value::String(s.clone());
                    return;
                }
            }
            map.values_mut().for_each(normalise_b64);
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(normalise_b64),
        _ => {}
    }
}

/// Our JSON text, parsed, against our value: float32 read back as f32, float64 as f64 (bit for
/// bit), raw time fields, base64 byte arrays, field order as defined.
pub fn check_json_output(value: &bagscope::msg::Value<'_>, ours: &serde_json::Value, path: &str) {
    use bagscope::msg::Value;
    use base64::Engine as _;

    let same_float = |x: f64, parsed: &serde_json::Value, narrow: bool| match parsed {
        serde_json::Value::String(s) => {
            (s == "NaN" && x.is_nan())
                || (s == "Infinity" && x == f64::INFINITY)
                || (s == "-Infinity" && x == f64::NEG_INFINITY)
        }
        serde_json::Value::Number(n) => {
            let r = n.as_f64().unwrap();
            if narrow {
                #[allow(clippy::cast_possible_truncation)]
                let r = r as f32;
                f64::from(r).to_bits() == x.to_bits()
            } else {
                r.to_bits() == x.to_bits()
            }
        }
        _ => false,
    };
    let ok = match value {
        Value::F32(x) => same_float(f64::from(*x), ours, true),
        Value::F64(x) => same_float(*x, ours, false),
        Value::Time(t) => ours["sec"] == t.sec && ours["nsec"] == t.nsec,
        Value::Duration(d) => ours["sec"] == d.sec && ours["nsec"] == d.nsec,
        Value::Bytes(b) => {
            ours.as_str() == Some(&base64::engine::general_purpose::STANDARD.encode(b))
        }
        Value::PrimArray(items) => {
            let arr = ours.as_array().unwrap();
            assert_eq!(arr.len(), items.len(), "{path}");
            for (i, (v, o)) in items.iter().zip(arr).enumerate() {
                check_json_output(&v, o, &format!("{path}[{i}]"));
            }
            true
        }
        Value::Array(items) => {
            let arr = ours.as_array().unwrap();
            assert_eq!(arr.len(), items.len(), "{path}");
            for (i, (v, o)) in items.iter().zip(arr).enumerate() {
                check_json_output(v, o, &format!("{path}[{i}]"));
            }
            true
        }
        Value::Message(m) => {
            let obj = ours.as_object().unwrap();
            assert_eq!(obj.len(), m.values().len(), "{path}");
            for (name, v) in m.iter() {
                check_json_output(v, &obj[name], &format!("{path}.{name}"));
            }
            true
        }
        // Integers, bools and strings: the reference comparison covers them exactly.
        _ => {
            let mut normalised = ours.clone();
            normalise_b64(&mut normalised);
            compare_with_ref(value, &normalised, path).is_ok()
        }
    };
    assert!(ok, "{path}: {value:?} printed as {ours}");
}
