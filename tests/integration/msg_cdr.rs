//! CDR decoding against the Python `rosbags` reader, message by message: every channel of an
//! MCAP file compiled with `Schema::for_ros2` from its own schema, every message decoded and
//! compared by value with the reference dump (`*.ref.jsonl`: base64 byte arrays, float32 as
//! the shortest float32 text, `"nan"`/`"inf"` spellings; see ../shared/corpus-mcap/README.md).
//!
//! Inputs: upstream's `cdr_test` bag (../shared/corpus-mcap, skipped when absent) and our
//! `tests/fixtures/ros2/cdr_types` (written by tests/common/interop/ros2_cdr_fixtures.py:
//! bounds, fixed arrays of strings and messages, nested sequences, empty messages, defaults and
//! constants, big-endian and padded payloads).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use bagscope::msg::{self, Registry, Schema, SchemaEncoding, ValueRef};
use base64::Engine as _;
use serde_json::Value;

fn corpus_mcap() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus-mcap");
    dir.is_dir().then_some(dir)
}

/// Decodes every message of `mcap` and compares it with the reference lines of `reference`;
/// returns how many messages were compared.
fn check_against_reference(mcap: &Path, reference: &Path) -> usize {
    let bytes = std::fs::read(mcap).unwrap();
    let text = std::fs::read_to_string(reference).unwrap();
    let expected: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|v| v.get("kind").is_none())
        .collect();
    let registry = Registry::empty();
    let mut schemas: HashMap<u16, Arc<Schema>> = HashMap::new();
    let mut ours = Vec::new();
    for m in mcap::MessageStream::new(&bytes).unwrap() {
        let m = m.unwrap();
        assert_eq!(m.channel.message_encoding, "cdr");
        let schema = schemas.entry(m.channel.id).or_insert_with(|| {
            let s = m.channel.schema.as_ref().unwrap();
            let encoding = SchemaEncoding::from_name(&s.encoding).unwrap();
            let def = std::str::from_utf8(&s.data).unwrap();
            Schema::for_ros2(&s.name, def, encoding, &registry)
                .unwrap_or_else(|e| panic!("{}: {e}", m.channel.topic))
        });
        ours.push((
            m.log_time,
            m.channel.topic.clone(),
            Arc::clone(schema),
            m.data.into_owned(),
        ));
    }
    // The reference is in log-time order (ties in storage order).
    ours.sort_by_key(|(t, ..)| *t);
    assert_eq!(ours.len(), expected.len(), "{}", mcap.display());
    for (i, ((time, topic, schema, data), want)) in ours.iter().zip(&expected).enumerate() {
        assert_eq!(want["topic"].as_str(), Some(topic.as_str()), "message {i}");
        assert_eq!(want["log_time_ns"].as_u64(), Some(*time), "message {i}");
        msg::validate(schema, data).unwrap_or_else(|e| panic!("{topic} #{i}: {e}"));
        let decoded = msg::decode(schema, data).unwrap_or_else(|e| panic!("{topic} #{i}: {e}"));
        if let Err(why) = same(&decoded.value(), &want["data"], "") {
            panic!(
                "{topic} #{i}: {why}\nours: {}\nwant: {}",
                msg::json::value_to_string(&decoded.value()),
                want["data"]
            );
        }
    }
    ours.len()
}

fn float_matches(ours: f64, theirs: &Value, single: bool) -> bool {
    match theirs {
        Value::String(s) => match s.as_str() {
            "nan" => ours.is_nan(),
            "inf" => ours == f64::INFINITY,
            "-inf" => ours == f64::NEG_INFINITY,
            _ => false,
        },
        Value::Number(n) => {
            let t = n.as_f64().unwrap();
            if single {
                (t as f32).to_bits() == (ours as f32).to_bits()
            } else {
                t.to_bits() == ours.to_bits()
            }
        }
        _ => false,
    }
}

/// Whether our value equals the reference's, or where and how they differ.
fn same(ours: &ValueRef<'_>, theirs: &Value, at: &str) -> Result<(), String> {
    let ok = match ours {
        ValueRef::Bool(v) => theirs.as_bool() == Some(*v),
        ValueRef::I8(v) => theirs.as_i64() == Some(i64::from(*v)),
        ValueRef::U8(v) => theirs.as_u64() == Some(u64::from(*v)),
        ValueRef::I16(v) => theirs.as_i64() == Some(i64::from(*v)),
        ValueRef::U16(v) => theirs.as_u64() == Some(u64::from(*v)),
        ValueRef::I32(v) => theirs.as_i64() == Some(i64::from(*v)),
        ValueRef::U32(v) => theirs.as_u64() == Some(u64::from(*v)),
        ValueRef::I64(v) => theirs.as_i64() == Some(*v),
        ValueRef::U64(v) => theirs.as_u64() == Some(*v),
        ValueRef::F32(v) => float_matches(f64::from(*v), theirs, true),
        ValueRef::F64(v) => float_matches(*v, theirs, false),
        ValueRef::String(b) => theirs.as_str() == Some(&*String::from_utf8_lossy(b)),
        ValueRef::Bytes(b) => {
            theirs.as_str() == Some(&base64::engine::general_purpose::STANDARD.encode(b))
        }
        ValueRef::PrimArray(a) => {
            let items = theirs
                .as_array()
                .ok_or_else(|| format!("{at}: not an array"))?;
            if items.len() != a.len() {
                return Err(format!("{at}: {} elements, want {}", a.len(), items.len()));
            }
            for (i, (v, t)) in a.refs().zip(items).enumerate() {
                same(&v, t, &format!("{at}[{i}]"))?;
            }
            true
        }
        ValueRef::Array(a) => {
            let items = theirs
                .as_array()
                .ok_or_else(|| format!("{at}: not an array"))?;
            if items.len() != a.len() {
                return Err(format!("{at}: {} elements, want {}", a.len(), items.len()));
            }
            for (i, (v, t)) in a.iter().zip(items).enumerate() {
                same(&v, t, &format!("{at}[{i}]"))?;
            }
            true
        }
        ValueRef::Message(m) => {
            let fields = theirs
                .as_object()
                .ok_or_else(|| format!("{at}: not an object"))?;
            let names: Vec<&str> = m.iter().map(|(n, _)| n).collect();
            if names.len() != fields.len() {
                return Err(format!("{at}: fields {names:?}, want {:?}", fields.keys()));
            }
            for (name, v) in m.iter() {
                let t = fields
                    .get(name)
                    .ok_or_else(|| format!("{at}.{name}: missing from the reference"))?;
                same(&v, t, &format!("{at}.{name}"))?;
            }
            true
        }
        ValueRef::Time(_) | ValueRef::Duration(_) => false,
    };
    if ok {
        Ok(())
    } else {
        Err(format!("{at}: {ours:?} != {theirs}"))
    }
}

#[test]
fn upstream_cdr_test_bag_matches_rosbags() {
    let Some(dir) = corpus_mcap() else {
        eprintln!("skipped: ../shared/corpus-mcap is absent");
        return;
    };
    let bag = dir.join("rosbag2/mcap");
    let n = check_against_reference(
        &bag.join("cdr_test/cdr_test_0.mcap"),
        &bag.join("cdr_test.ref.jsonl"),
    );
    assert_eq!(n, 7);
}

#[test]
fn every_cdr_case_matches_rosbags() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/ros2");
    let n = check_against_reference(
        &dir.join("cdr_types/cdr_types.mcap"),
        &dir.join("cdr_types.ref.jsonl"),
    );
    assert_eq!(n, 23);
}

#[test]
fn schemas_keep_ros2_names_and_bounds() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/ros2");
    let bytes = std::fs::read(dir.join("cdr_types/cdr_types.mcap")).unwrap();
    let mut seen = HashMap::new();
    for m in mcap::MessageStream::new(&bytes).unwrap() {
        let m = m.unwrap();
        let s = m.channel.schema.as_ref().unwrap();
        seen.entry(s.name.clone()).or_insert_with(|| {
            let def = std::str::from_utf8(&s.data).unwrap().to_string();
            Schema::for_ros2(&s.name, &def, SchemaEncoding::Ros2Msg, &Registry::empty()).unwrap()
        });
    }
    let bounded = &seen["cdr_fixture/msg/Bounded"];
    assert_eq!(bounded.datatype(), "cdr_fixture/msg/Bounded");
    let types: Vec<&str> = bounded
        .root()
        .fields()
        .iter()
        .map(|f| f.type_text())
        .collect();
    assert_eq!(
        types,
        [
            "string<=10",
            "int32[<=5]",
            "string<=4[<=3]",
            "float64[<=2]",
            "uint8[<=8]",
            "cdr_fixture/Point[<=2]",
            "uint8"
        ]
    );
    let defaults = &seen["cdr_fixture/msg/Defaults"];
    let constants: Vec<String> = defaults
        .root()
        .constants()
        .iter()
        .map(|c| format!("{}={:?}", c.name(), c.value()))
        .collect();
    assert_eq!(
        constants,
        [
            "X=Int(5)",
            "S=String(\"a # b\")",
            "T=String(\"c\")",
            "B=Bool(true)"
        ]
    );
}

#[test]
fn upstream_test_msgs_definitions_compile_from_msg_path() {
    let Some(dir) = corpus_mcap() else {
        eprintln!("skipped: ../shared/corpus-mcap is absent");
        return;
    };
    let typedefs = dir.join("typedefs");
    let mut registry = Registry::empty();
    assert!(registry.add_msg_path(&typedefs).unwrap() >= 12);
    let mut compiled = 0;
    for name in registry.types() {
        let s = Schema::for_ros2(name, "", SchemaEncoding::Ros2Msg, &registry)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(s.datatype().contains("/msg/"), "{}", s.datatype());
        compiled += 1;
    }
    assert!(compiled >= 12);
    let w = Schema::for_ros2(
        "test_msgs/msg/WStrings",
        "",
        SchemaEncoding::Ros2Msg,
        &registry,
    )
    .unwrap();
    let wide: Vec<bool> = w.root().fields().iter().map(|f| f.ty().is_wide()).collect();
    assert!(wide.iter().all(|w| *w), "{wide:?}");
    // A service's text, as rosbag2 stores it for the service's event topic.
    for srv in ["Arrays", "BasicTypes", "Empty"] {
        let text =
            std::fs::read_to_string(typedefs.join(format!("test_msgs/srv/{srv}.srv"))).unwrap();
        let ev = Schema::for_ros2(
            &format!("test_msgs/srv/{srv}_Event"),
            &text,
            SchemaEncoding::Ros2Msg,
            &registry,
        )
        .unwrap_or_else(|e| panic!("{srv}: {e}"));
        let names: Vec<&str> = ev.root().fields().iter().map(|f| f.name()).collect();
        assert_eq!(names, ["info", "request", "response"]);
    }
}
