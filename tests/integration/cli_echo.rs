//! `bagscope echo --format json` over every bag with a reference dump equals the official
//! reader's values, message for message (floats by value, times as nanoseconds, byte arrays as
//! base64). Also: `verify` finds damage and still checks the rest; `export` writes atomically.

use std::path::Path;

use serde_json::Value;

use crate::common::{Reference, bags_with_refs, corpus_dir, fixtures_dir, nanos, skip};

fn bagscope(args: &[&str]) -> (String, String, i32) {
    crate::common::run_bagscope(args)
}

/// JSON values equal by type: integers exactly, floats by value (a float32 printed shortest
/// equals its widened reference), `{"$b64": x}` equals `x`.
fn same(ours: &Value, theirs: &Value) -> bool {
    match (ours, theirs) {
        (o, Value::Object(m)) if m.len() == 1 && m.contains_key("$b64") => Some(o) == m.get("$b64"),
        (Value::Number(a), Value::Number(b)) => {
            if let (Some(x), Some(y)) = (a.as_i64(), b.as_i64()) {
                return x == y;
            }
            if let (Some(x), Some(y)) = (a.as_u64(), b.as_u64()) {
                return x == y;
            }
            let (x, y) = (a.as_f64().unwrap(), b.as_f64().unwrap());
            #[allow(clippy::cast_possible_truncation)]
            let as_f32 = (x as f32) == (y as f32) && f64::from(y as f32) == y;
            x.to_bits() == y.to_bits() || x == y || as_f32
        }
        // Times and durations: as total nanoseconds (the reference normalises nsec).
        (Value::Object(a), Value::Object(b))
            if a.len() == 2 && a.contains_key("sec") && a.contains_key("nsec") =>
        {
            nanos(ours).is_some() && nanos(ours) == nanos(theirs)
        }
        (Value::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same(x, y))
        }
        (Value::Object(a), Value::Object(b)) => {
            a.len() == b.len() && a.iter().all(|(k, v)| b.get(k).is_some_and(|w| same(v, w)))
        }
        (a, b) => a == b,
    }
}

fn check(bag: &Path, refp: &Path) -> usize {
    let name = bag.file_name().unwrap().to_string_lossy().to_string();
    let r = Reference::load(refp);
    if r.is_error() {
        return 0;
    }
    let (out, err, code) = bagscope(&["echo", "--format", "json", bag.to_str().unwrap()]);
    assert!(code == 0 || code == 1, "{name}: exit {code}: {err}");
    let ours: Vec<Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{name}: {e}: {l}")))
        .collect();
    let empty_defs: Vec<String> = r.header["connections"]
        .as_array()
        .map(|cs| {
            cs.iter()
                .filter(|c| c["message_definition"].as_str() == Some(""))
                .map(|c| c["topic"].as_str().unwrap_or_default().to_string())
                .collect()
        })
        .unwrap_or_default();
    let key = |m: &Value| {
        (
            m["topic"].as_str().unwrap_or_default().to_string(),
            nanos(&m["time"]),
        )
    };
    let reindexed = r.header["reindexed"] == true;
    if !reindexed {
        assert_eq!(ours.len(), r.messages.len(), "{name}: message count");
    }
    let mut it = ours.iter();
    for (i, theirs) in r.messages.iter().enumerate() {
        let o = it
            .find(|o| key(o) == key(theirs))
            .unwrap_or_else(|| panic!("{name}: reference message {i} {:?} missing", key(theirs)));
        assert_eq!(o["type"], theirs["type"], "{name}: message {i}");
        if o.get("error").is_some() {
            let expected = theirs["data"].get("$error").is_some()
                || empty_defs.contains(&o["topic"].as_str().unwrap().to_string());
            assert!(
                expected,
                "{name}: message {i} failed to decode: {}",
                o["error"]
            );
            continue;
        }
        assert!(
            same(&o["data"], &theirs["data"]),
            "{name}: message {i} on {}:\nours   {}\ntheirs {}",
            o["topic"],
            o["data"],
            theirs["data"]
        );
    }
    r.messages.len()
}

#[test]
fn echo_json_equals_the_reference_dumps() {
    let mut dirs = vec![fixtures_dir()];
    match corpus_dir() {
        Some(d) => dirs.push(d),
        None => skip("../shared/corpus is not present: only our fixtures are compared"),
    }
    let mut n = 0;
    for d in dirs {
        for (bag, r) in bags_with_refs(&d) {
            n += check(&bag, &r);
        }
    }
    assert!(n > 100, "compared {n} messages");
}

#[test]
fn verify_reports_damage_and_checks_the_rest() {
    let src = fixtures_dir().join("recorded.bag");
    if !src.exists() {
        skip("tests/fixtures/recorded.bag is not present");
        return;
    }
    let (out, _, code) = bagscope(&["verify", src.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("no problems"), "{out}");
    // Damage one message payload in the middle of the (uncompressed) bag: a string length
    // field made huge. The message fails; every other message still verifies.
    let mut bytes = std::fs::read(&src).unwrap();
    let bag = bagscope::bag::Bag::open(&src).unwrap();
    let victim = bag
        .messages(&bagscope::bag::Query::all())
        .map(|m| m.unwrap())
        .find(|m| {
            bag.connection(m.entry.conn).unwrap().datatype == "std_msgs/String"
                && bag.head(m.entry.chunk).unwrap().compression
                    == bagscope::format::Compression::None
        })
        .unwrap();
    let chunk = bag.head(victim.entry.chunk).unwrap();
    let needle = &victim.data[..];
    let start = chunk.data_offset as usize;
    let at = start
        + bytes[start..]
            .windows(needle.len())
            .position(|w| w == needle)
            .unwrap();
    bytes[at..at + 4].copy_from_slice(&0x7fff_ffffu32.to_le_bytes());
    let dir = tempfile::tempdir().unwrap();
    let damaged = dir.path().join("damaged.bag");
    std::fs::write(&damaged, &bytes).unwrap();
    let (out, _, code) = bagscope(&["verify", damaged.to_str().unwrap()]);
    assert_eq!(code, 1, "{out}");
    let problems: Vec<&str> = out
        .lines()
        .filter(|l| l.contains("does not decode"))
        .collect();
    assert_eq!(problems.len(), 1, "{out}");
    assert!(
        problems[0].contains(&format!("at byte {}", chunk.data_offset))
            || problems[0].contains("at byte"),
        "{out}"
    );
    assert!(
        problems[0].contains("/chatter") || problems[0].contains("data"),
        "{out}"
    );
    let total = bag.message_count();
    assert!(out.contains(&format!("{total} messages")), "{out}");
}

#[test]
fn export_writes_csv_atomically_and_refuses_its_input() {
    let src = fixtures_dir().join("recorded.bag");
    if !src.exists() {
        skip("tests/fixtures/recorded.bag is not present");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("imu.csv");
    let (_, err, code) = bagscope(&[
        "export",
        src.to_str().unwrap(),
        "-t",
        "/imu",
        "--format",
        "csv",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(text.starts_with("%time,field.header.seq,"), "{text}");
    let bag = bagscope::bag::Bag::open(&src).unwrap();
    let imu = bag
        .topics()
        .into_iter()
        .find(|t| t.topic == "/imu")
        .unwrap()
        .message_count;
    assert_eq!(text.lines().count() as u64, imu + 1);
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .flatten()
        .filter(|e| e.path() != out)
        .collect();
    assert!(leftovers.is_empty(), "temporary files left: {leftovers:?}");
    // The input is never the output.
    let copy = dir.path().join("in.bag");
    std::fs::copy(&src, &copy).unwrap();
    let before = std::fs::read(&copy).unwrap();
    let (_, err, code) = bagscope(&[
        "export",
        copy.to_str().unwrap(),
        "-t",
        "/imu",
        "--format",
        "jsonl",
        "-o",
        copy.to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{err}");
    assert_eq!(std::fs::read(&copy).unwrap(), before, "input untouched");
}

#[test]
fn a_topic_given_after_the_bag_selects_it_as_rostopic_echo_b_does() {
    let bag = fixtures_dir().join("recorded.bag");
    if !bag.exists() {
        skip("tests/fixtures/recorded.bag is not present");
        return;
    }
    let bag = bag.to_string_lossy().to_string();
    // `rostopic echo -b BAG /topic`: the same as `-t /topic`, for echo and export.
    let with_t = bagscope(&["echo", "-t", "/odom", &bag]);
    assert_eq!(with_t.2, 0, "{}", with_t.1);
    assert_eq!(bagscope(&["echo", &bag, "/odom"]), with_t);
    let field = bagscope(&["echo", "-t", "/odom/pose/pose/position/x", &bag]);
    assert_eq!(field.2, 0, "{}", field.1);
    assert!(field.0.contains("---"), "{}", field.0);
    assert_eq!(
        bagscope(&["echo", &bag, "/odom/pose/pose/position/x"]),
        field
    );
    let csv = bagscope(&["export", "--format", "csv", "-t", "/imu", &bag]);
    assert_eq!(csv.2, 0, "{}", csv.1);
    assert_eq!(bagscope(&["export", "--format", "csv", &bag, "/imu"]), csv);
    // A topic no bag holds is the usage error of `-t`.
    let (out, err, code) = bagscope(&["echo", &bag, "/no_such_topic_file"]);
    assert_eq!(code, 2, "{err}");
    assert!(out.is_empty(), "{out}");
    assert!(
        err.contains("no bag holds topic '/no_such_topic_file'"),
        "{err}"
    );
    // With no bag left it stays a missing bag, with the hint; a missing bag named as a bag
    // (it has a dot) gets no such hint.
    let (_, err, code) = bagscope(&["echo", "/no_such_topic_file"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(
            "`/no_such_topic_file` is not a file: to select a topic, use `-t /no_such_topic_file`"
        ),
        "{err}"
    );
    let (_, err, code) = bagscope(&["echo", &bag, "/no/such.bag"]);
    assert_ne!(code, 0);
    assert!(!err.contains("to select a topic"), "{err}");
}
