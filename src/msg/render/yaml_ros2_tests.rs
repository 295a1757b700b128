//! The ROS 2 YAML against PyYAML's own output: strings and floats from
//! `tests/fixtures/msg/ros2_yaml.jsonl` (made by `make_ros2_yaml.py` with the settings of
//! rosidl_runtime_py's `message_to_yaml`), and a message of every shape checked by eye against
//! the same `yaml.dump`.

use super::*;
use crate::msg::{Schema, decode};

fn push_str(out: &mut Vec<u8>, s: &str) {
    out.extend(u32::try_from(s.len()).unwrap().to_le_bytes());
    out.extend(s.as_bytes());
}

fn parse_float(text: &str) -> f64 {
    match text {
        "nan" => f64::NAN,
        "inf" => f64::INFINITY,
        "-inf" => f64::NEG_INFINITY,
        t => t.parse().unwrap(),
    }
}

#[test]
fn strings_and_floats_match_message_to_yaml() {
    let sep = "=".repeat(80);
    let s = Schema::from_definition(
        "t/msg/S",
        &format!(
            "string data\nNested nested\n{sep}\nMSG: t/Nested\nstring[] names\nfloat64[] xs\n"
        ),
    )
    .unwrap();
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/msg/ros2_yaml.jsonl");
    let text = std::fs::read_to_string(path).unwrap();
    let mut cases = 0;
    for line in text.lines() {
        let row: serde_json::Value = serde_json::from_str(line).unwrap();
        let names: Vec<&str> = row["names"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n.as_str().unwrap())
            .collect();
        let xs: Vec<f64> = row["xs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| parse_float(x.as_str().unwrap()))
            .collect();
        let mut p = Vec::new();
        push_str(&mut p, row["data"].as_str().unwrap());
        p.extend(u32::try_from(names.len()).unwrap().to_le_bytes());
        for n in &names {
            push_str(&mut p, n);
        }
        p.extend(u32::try_from(xs.len()).unwrap().to_le_bytes());
        for x in &xs {
            p.extend(x.to_le_bytes());
        }
        let d = decode(&s, &p).unwrap();
        assert_eq!(
            message_to_string(&d),
            row["yaml"].as_str().unwrap(),
            "{names:?}"
        );
        cases += 1;
    }
    assert!(cases > 500);
}

/// Checked against `yaml.dump(OrderedDict(...), allow_unicode=True, width=sys.maxsize,
/// default_flow_style=False)` of the same values (PyYAML 6.0).
#[test]
fn nested_messages_arrays_and_empties() {
    let sep = "=".repeat(80);
    let s = Schema::from_definition(
        "t/msg/T",
        &format!(
            "std_msgs/Header header\nbool[] flags\nint32 count\nuint8[] data\nfloat64[] empty\n\
             float32 v\nP[] points\nNothing nothing\nNothing[] nothings\nstring on\n\
             {sep}\nMSG: std_msgs/Header\nbuiltin_interfaces/Time stamp\nstring frame_id\n\
             {sep}\nMSG: builtin_interfaces/Time\nint32 sec\nuint32 nanosec\n\
             {sep}\nMSG: t/P\nfloat64 x\nstring[] tags\n\
             {sep}\nMSG: t/Nothing\n"
        ),
    )
    .unwrap();
    let mut p = Vec::new();
    p.extend(1_700_000_000i32.to_le_bytes());
    p.extend(5u32.to_le_bytes());
    push_str(&mut p, "map");
    p.extend([2, 0, 0, 0, 1, 0]);
    p.extend((-3i32).to_le_bytes());
    p.extend([3, 0, 0, 0, 1, 2, 255]);
    p.extend([0; 4]);
    p.extend(0.1f32.to_le_bytes());
    p.extend([2, 0, 0, 0]);
    p.extend(1.0f64.to_le_bytes());
    p.extend([2, 0, 0, 0]);
    push_str(&mut p, "a");
    push_str(&mut p, "on");
    p.extend((-2.5f64).to_le_bytes());
    p.extend([0; 4]);
    p.extend([2, 0, 0, 0]);
    push_str(&mut p, "yes");
    let d = decode(&s, &p).unwrap();
    let expected = "header:\n  stamp:\n    sec: 1700000000\n    nanosec: 5\n  frame_id: map\n\
                    flags:\n- true\n- false\ncount: -3\ndata:\n- 1\n- 2\n- 255\nempty: []\n\
                    v: 0.10000000149011612\npoints:\n- x: 1.0\n  tags:\n  - a\n  - 'on'\n\
                    - x: -2.5\n  tags: []\nnothing: {}\nnothings:\n- {}\n- {}\n'on': 'yes'\n";
    assert_eq!(message_to_string(&d), expected);
    let mut echo = String::new();
    write_echo(&mut echo, &d).unwrap();
    assert_eq!(echo, format!("{expected}---\n"));
    // Field paths: a message, an array, a scalar.
    let root = d.root();
    let mut out = String::new();
    write_echo_values(&mut out, &[root.get("header").unwrap()]).unwrap();
    assert_eq!(
        out,
        "stamp:\n  sec: 1700000000\n  nanosec: 5\nframe_id: map\n---\n"
    );
    out.clear();
    write_echo_values(&mut out, &[root.get("data").unwrap()]).unwrap();
    assert_eq!(out, "- 1\n- 2\n- 255\n---\n");
    out.clear();
    write_echo_values(&mut out, &[root.get("on").unwrap()]).unwrap();
    assert_eq!(out, "'yes'\n---\n");
    out.clear();
    write_echo_values(&mut out, &[]).unwrap();
    assert_eq!(out, "[]\n---\n");
    out.clear();
    write_echo_values(&mut out, &[root.get("empty").unwrap()]).unwrap();
    assert_eq!(out, "[]\n---\n");
}
