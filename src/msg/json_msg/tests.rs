//! Unit tests of JSON decoding: the parser against Python's `json.loads` rules, jsonschema
//! mapping, decoding with and without a schema, and messages that contradict their schema.

use super::parse::{Kind, parse};
use crate::msg::render::json::write_value;
use crate::msg::{Schema, ValueRef, decode};

fn data(schema: &Schema, text: &str) -> String {
    let d = decode(schema, text.as_bytes()).unwrap();
    let mut out = String::new();
    write_value(&mut out, &d.value()).unwrap();
    out
}

fn error(schema: &Schema, text: &str) -> String {
    decode(schema, text.as_bytes()).unwrap_err().to_string()
}

const SCHEMA: &str = r#"{
  "title": "demo.Sample", "type": "object",
  "properties": {
    "count": {"type": "integer"},
    "ratio": {"type": "number", "description": "x"},
    "ok": {"type": "boolean"},
    "name": {"type": "string"},
    "pose": {"type": "object", "properties": {
        "x": {"type": "number"}, "tags": {"type": "array", "items": {"type": "string"}}}},
    "values": {"type": "array", "items": {"type": "integer"}},
    "points": {"type": "array", "items": {"type": "object", "properties": {"v": {"type": "number"}}}}
  },
  "required": ["count"]
}"#;

#[test]
fn the_parser_reads_what_json_loads_reads() {
    let v = parse(br#" {"a": -0, "b": 1.5e3, "c": 18446744073709551615, "d": "\u00e9\ud83d\ude00\n", "a": 7} "#)
        .unwrap();
    let Kind::Object(members) = v.kind else {
        panic!("{v:?}")
    };
    let keys: Vec<&str> = members.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(keys, ["a", "b", "c", "d"], "a repeated key keeps its place");
    assert_eq!(members[0].1.kind, Kind::Int(7), "and its last value");
    assert_eq!(members[1].1.kind, Kind::Float(1500.0));
    assert_eq!(members[2].1.kind, Kind::UInt(u64::MAX));
    assert_eq!(members[3].1.kind, Kind::Str("é😀\n".into()));
    assert!(matches!(parse(b"NaN").unwrap().kind, Kind::Float(f) if f.is_nan()));
    assert_eq!(
        parse(b"-Infinity").unwrap().kind,
        Kind::Float(f64::NEG_INFINITY)
    );
    assert_eq!(parse(b"1e400").unwrap().kind, Kind::Float(f64::INFINITY));
    for bad in [
        &b"{\"a\": 1,}"[..],
        b"[1 2]",
        b"01",
        b"\"a\x01\"",
        b"{} x",
        b"99999999999999999999999",
        b"\"\\x\"",
        b"\xff",
        b"",
    ] {
        assert!(parse(bad).is_err(), "{}", String::from_utf8_lossy(bad));
    }
}

#[test]
fn nesting_is_bounded() {
    let deep = format!("{}{}", "[".repeat(65), "]".repeat(65));
    let e = parse(deep.as_bytes()).unwrap_err();
    assert!(e.what.contains("64 levels"), "{e:?}");
    let ok = format!("{}{}", "[".repeat(64), "]".repeat(64));
    assert!(parse(ok.as_bytes()).is_ok());
    // A million brackets: an error, not a stack overflow.
    let huge = "[".repeat(1_000_000);
    assert!(parse(huge.as_bytes()).is_err());
}

#[test]
fn a_jsonschema_maps_to_fields_in_its_order() {
    let s = Schema::for_json("demo.Sample", SCHEMA).unwrap();
    assert_eq!(s.wire(), crate::msg::Wire::Json);
    let text: Vec<String> = s
        .root()
        .fields()
        .iter()
        .map(|f| format!("{} {}", f.type_text(), f.name()))
        .collect();
    assert_eq!(
        text,
        [
            "int64 count",
            "float64 ratio",
            "bool ok",
            "string name",
            "demo.Sample.pose pose",
            "int64[] values",
            "demo.Sample.points[] points"
        ]
    );
    let msg = r#"{"count": 3, "ratio": 2, "ok": true, "name": "h\u00e9\"",
        "pose": {"tags": ["a", "b"], "x": -1.25}, "values": [1, -2, 9007199254740993],
        "points": [{"v": 0.5}, {"v": 1e300}]}"#;
    assert_eq!(
        data(&s, msg),
        r#"{"count":3,"ratio":2.0,"ok":true,"name":"hé\"","pose":{"x":-1.25,"tags":["a","b"]},"values":[1,-2,9007199254740993],"points":[{"v":0.5},{"v":1e300}]}"#
    );
    // A field path resolves and reads the value.
    let d = decode(&s, msg.as_bytes()).unwrap();
    let pose = d.root().get("pose").unwrap();
    let ValueRef::Message(pose) = pose else {
        panic!()
    };
    assert!(matches!(pose.get("x"), Some(ValueRef::F64(x)) if x.to_bits() == (-1.25f64).to_bits()));
}

#[test]
fn messages_that_contradict_their_schema_are_errors_naming_the_field() {
    let s = Schema::for_json("demo.Sample", SCHEMA).unwrap();
    let base = r#""ratio": 1.0, "ok": false, "name": "", "pose": {"x": 0, "tags": []}, "values": [], "points": []"#;
    let e = error(&s, &format!(r#"{{"count": "3", {base}}}"#));
    assert!(
        e.starts_with("count at payload byte 10: expected an integer, found a string"),
        "{e}"
    );
    let e = error(&s, &format!(r"{{{base}}}"));
    assert!(e.contains("count") && e.contains("missing"), "{e}");
    let e = error(&s, &format!(r#"{{"count": 1, {base}, "extra": 1}}"#));
    assert!(
        e.starts_with("extra at payload byte") && e.contains("not in the schema"),
        "{e}"
    );
    let e = error(&s, &format!(r#"{{"count": 1.5, {base}}}"#));
    assert!(e.contains("expected an integer, found a number"), "{e}");
    // 3.0 is an integer (jsonschema's rule).
    assert!(decode(&s, format!(r#"{{"count": 3.0, {base}}}"#).as_bytes()).is_ok());
    let e = error(
        &s,
        &format!(r#"{{"count": 1, {base}}}"#).replace(r#""tags": []"#, r#""tags": [1]"#),
    );
    assert!(e.starts_with("pose.tags[0] at"), "{e}");
    let e = error(&s, &format!(r#"{{"count": null, {base}}}"#));
    assert!(e.contains("null"), "{e}");
    let e = error(&s, "[1]");
    assert!(e.contains("expected an object"), "{e}");
    let e = error(&s, "{\"count\": ");
    assert!(e.contains("not JSON"), "{e}");
}

#[test]
fn unsupported_jsonschema_constructs_are_named() {
    for (schema, says) in [
        (
            r##"{"type":"object","properties":{"a":{"$ref":"#/$defs/A"}}}"##,
            "'$ref' is not supported",
        ),
        (
            r#"{"type":"object","properties":{"a":{"type":["string","null"]}}}"#,
            "type union",
        ),
        (
            r#"{"type":"object","properties":{"a":{"oneOf":[]}}}"#,
            "'oneOf'",
        ),
        (
            r#"{"type":"object","properties":{"a":{"type":"array","items":{"type":"array","items":{"type":"integer"}}}}}"#,
            "arrays of arrays",
        ),
        (
            r#"{"type":"object","properties":{"a":{"type":"object"}}}"#,
            "free-form",
        ),
        (
            r#"{"type":"object","properties":{"a":{}}}"#,
            "without a 'type'",
        ),
        (r#"{"type":"array"}"#, "root must be an object"),
        (r#"{"type":"object""#, "not JSON"),
    ] {
        let e = Schema::for_json("t", schema).unwrap_err().to_string();
        assert!(e.contains(says), "{schema}: {e}");
        assert!(e.starts_with("t: jsonschema "), "{e}");
    }
}

#[test]
fn messages_without_a_schema_decode_as_their_json_reads() {
    let s = Schema::json_free_form("");
    assert_eq!(s.datatype(), "json");
    let msg = r#"{"z": 1, "a": [1, 2.5], "s": ["x"], "o": {"k": true}, "l": [{"q": 1}, {"q": 2}], "e": [], "big": 18446744073709551615}"#;
    assert_eq!(
        data(&s, msg),
        r#"{"z":1,"a":[1.0,2.5],"s":["x"],"o":{"k":true},"l":[{"q":1},{"q":2}],"e":[],"big":18446744073709551615}"#
    );
    // Each message its own type.
    assert_eq!(data(&s, r#"{"other": "x"}"#), r#"{"other":"x"}"#);
    for (bad, says) in [
        (r#"{"a": null}"#, "a at payload byte 6: a null value"),
        (r#"{"a": [[1]]}"#, "an array of arrays"),
        (r#"{"a": [1, "x"]}"#, "a[1] at"),
        (r#"{"a": [{"q": 1}, {"r": 1}]}"#, "a[1] at"),
        ("[1, 2]", "not an object"),
        ("{\"a\\u001b\": 1}", "control characters"),
    ] {
        let e = error(&s, bad);
        assert!(e.contains(says), "{bad}: {e}");
    }
}

#[test]
fn big_objects_find_properties_and_repeated_keys_by_hash() {
    // 40 properties, listed in the schema in one order and in the message in another.
    let props: Vec<String> = (0..40)
        .map(|i| format!(r#""p{i}": {{"type": "integer"}}"#))
        .collect();
    let schema = format!(
        r#"{{"type": "object", "properties": {{{}}}}}"#,
        props.join(",")
    );
    let s = Schema::for_json("big", &schema).unwrap();
    let mut members: Vec<String> = (0..40).rev().map(|i| format!(r#""p{i}": {i}"#)).collect();
    // A repeated key past the 16th member: its last value, at its first place.
    members.push(r#""p39": 390"#.to_string());
    let text = format!("{{{}}}", members.join(","));
    let d = decode(&s, text.as_bytes()).unwrap();
    let root = d.root();
    assert!(matches!(root.get("p0"), Some(ValueRef::I64(0))));
    assert!(matches!(root.get("p39"), Some(ValueRef::I64(390))));
    let free = Schema::json_free_form("big");
    let d = decode(&free, text.as_bytes()).unwrap();
    let names: Vec<&str> = d.root().iter().map(|(n, _)| n).collect();
    assert_eq!(names.len(), 40);
    assert_eq!(names[0], "p39");
    assert!(matches!(d.root().get("p39"), Some(ValueRef::I64(390))));
    // One property too many, past the hash threshold: named.
    let extra = text.replacen('{', r#"{"zz": 1, "#, 1);
    let e = error(&s, &extra);
    assert!(
        e.starts_with("zz at payload byte 7: the property is not in the schema"),
        "{e}"
    );
}
