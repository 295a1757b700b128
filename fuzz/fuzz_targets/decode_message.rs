//! Decoding arbitrary payloads never panics, and what decodes is consistent: `decode` and
//! `validate` agree, a decoded message encodes to bytes that decode to it again, renders as
//! JSON, YAML and CSV, and reads the same once detached from the payload.
//!
//! Input: the first byte picks a type. Below `0x80` it is one of a few bundled types with
//! nested messages, strings and arrays, and the rest is the payload. Otherwise the rest is
//! `definition text NUL payload`: the definition is compiled too.
#![no_main]

use std::sync::{Arc, OnceLock};

use bagscope::msg::{
    DecodeErrorKind, Registry, Schema, csv, decode, encode, json, validate, yaml,
};
use libfuzzer_sys::fuzz_target;

const TYPES: [&str; 8] = [
    "sensor_msgs/Imu",
    "tf2_msgs/TFMessage",
    "sensor_msgs/PointCloud2",
    "sensor_msgs/JointState",
    "visualization_msgs/MarkerArray",
    "diagnostic_msgs/DiagnosticArray",
    "sensor_msgs/LaserScan",
    "std_msgs/Empty",
];

fn schemas() -> &'static Vec<Arc<Schema>> {
    static S: OnceLock<Vec<Arc<Schema>>> = OnceLock::new();
    S.get_or_init(|| {
        let registry = Registry::bundled();
        TYPES
            .iter()
            .filter_map(|t| Schema::from_registry(t, None, &registry).ok())
            .collect()
    })
}

fn check(schema: &Schema, payload: &[u8]) {
    let decoded = match decode(schema, payload) {
        Ok(decoded) => decoded,
        // Valid on the wire, but too many values to build (nested arrays of empty messages).
        Err(e) if matches!(e.kind(), DecodeErrorKind::TooManyValues { .. }) => {
            assert_eq!(validate(schema, payload), Ok(()));
            return;
        }
        Err(_) => {
            assert!(validate(schema, payload).is_err());
            return;
        }
    };
    assert_eq!(validate(schema, payload), Ok(()));
    let value = decoded.to_value();
    // Encoding gives the same bytes, but for `bool`s, which read any non-zero byte as true
    // and write 1: so compare what the encoded bytes decode to.
    let Ok(again) = encode(schema, &value) else {
        panic!("a decoded message does not encode");
    };
    assert_eq!(again.len(), payload.len());
    let Ok(back) = decode(schema, &again) else {
        panic!("an encoded message does not decode");
    };
    assert!(back.to_value().bitwise_eq(&value));
    let mut text = String::new();
    let _ = json::write_value(&mut text, &decoded.value());
    let _ = yaml::write_message(&mut text, &decoded);
    let layout = csv::CsvLayout::new(&decoded);
    let _ = layout.row(bagscope::time::RosTime::new(0, 0), &decoded);
    let owned = decoded.clone().into_owned();
    assert!(owned.to_value().bitwise_eq(&value));
}

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    if pick < 0x80 {
        let all = schemas();
        if let Some(schema) = all.get(usize::from(pick) % all.len().max(1)) {
            check(schema, rest);
        }
        return;
    }
    let Some(nul) = rest.iter().position(|&b| b == 0) else {
        return;
    };
    let (definition, payload) = rest.split_at(nul);
    let Ok(definition) = std::str::from_utf8(definition) else {
        return;
    };
    if let Ok(schema) = Schema::from_definition("fuzz/T", definition) {
        check(&schema, payload.get(1..).unwrap_or_default());
    }
});
