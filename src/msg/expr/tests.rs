//! Tests of the expression language on bundled types, with payloads built byte by byte.

use std::sync::Arc;

use super::*;
use crate::msg::{Registry, Schema, decode};

fn schema(name: &str) -> Arc<Schema> {
    Schema::from_registry(name, None, &Registry::bundled()).unwrap()
}

fn s(out: &mut Vec<u8>, text: &str) {
    out.extend(u32::try_from(text.len()).unwrap().to_le_bytes());
    out.extend(text.as_bytes());
}

/// A `rosgraph_msgs/Log`.
fn log(frame: &str, level: u8, name: &str, msg: &str, line: u32, topics: &[&str]) -> Vec<u8> {
    let mut p = Vec::new();
    p.extend(7u32.to_le_bytes());
    p.extend(100u32.to_le_bytes());
    p.extend(5u32.to_le_bytes());
    s(&mut p, frame);
    p.push(level);
    s(&mut p, name);
    s(&mut p, msg);
    s(&mut p, "file.cpp");
    s(&mut p, "fn");
    p.extend(line.to_le_bytes());
    p.extend(u32::try_from(topics.len()).unwrap().to_le_bytes());
    for t in topics {
        s(&mut p, t);
    }
    p
}

fn check(ty: &str, payload: &[u8], expr: &str) -> bool {
    let schema = schema(ty);
    let filter = Expr::parse(expr)
        .unwrap()
        .compile(schema.root(), "/rosout")
        .unwrap_or_else(|e| panic!("{e}"));
    filter.matches(decode(&schema, payload).unwrap().root())
}

fn error(ty: &str, expr: &str) -> ExprError {
    let schema = schema(ty);
    match Expr::parse(expr).and_then(|e| e.compile(schema.root(), "/rosout")) {
        Ok(_) => panic!("{expr} compiled"),
        Err(e) => e,
    }
}

const LOG: &str = "rosgraph_msgs/Log";

#[test]
fn numbers_strings_and_constants() {
    let p = log(
        "base",
        4,
        "/planner",
        "Path BLOCKED ahead",
        42,
        &["/a", "/b"],
    );
    for (expr, want) in [
        ("level == 4", true),
        ("level >= WARN", true),
        ("level >= m.ERROR", false),
        ("m.level == m.WARN", true),
        ("level < 4.5", true),
        ("level != 4", false),
        ("line > 41 and line <= 42", true),
        ("line == 0x2a", true),
        ("header.frame_id == \"base\"", true),
        ("m.header.frame_id == 'base'", true),
        ("header.frame_id != 'base'", false),
        ("header.frame_id < 'c'", true),
        ("name ~ \"PLAN\"", true),
        ("msg ~ \"blocked\"", true),
        ("msg =~ \"^Path [A-Z]+\"", true),
        ("msg =~ \"^path\"", false),
        ("msg =~ \"(?i)^path\"", true),
        ("'BLOCK' in msg", true),
        ("'block' in msg", false),
        ("topics[*] == '/b'", true),
        ("topics[*] == '/c'", false),
        ("topics[1] == '/b'", true),
        ("topics[5] == '/b'", false),
        ("topics[5] != '/b'", false),
        ("len(topics) == 2", true),
        ("len(msg) == 18", true),
        ("\"blocked\"", true),
        ("\"file.CPP\"", true),
        ("\"nowhere\"", false),
        ("not \"nowhere\"", true),
        ("header.stamp.secs == 100", true),
        ("header.stamp > 99.5", true),
        ("level == 1 or (line == 42 and not level == 2)", true),
        ("not (level == 4) or name == '/x'", false),
        ("level", true),
        ("topics", true),
        ("topic == '/rosout'", true),
        ("topic ~ 'ROSOUT' and level == 4", true),
        ("abs(level) == 4", true),
        ("level == true", false),
        ("level > -1", true),
    ] {
        assert_eq!(check(LOG, &p, expr), want, "{expr}");
    }
    let empty = log("", 0, "", "", 0, &[]);
    for (expr, want) in [
        ("level", false),
        ("topics", false),
        ("header.frame_id", false),
        ("topics[*] != '/a'", false),
        ("not topics[*] == '/a'", true),
        ("len(topics) == 0", true),
        ("\"\"", true),
    ] {
        assert_eq!(check(LOG, &empty, expr), want, "{expr}");
    }
}

#[test]
fn constants_of_nested_types_and_floats() {
    // sensor_msgs/NavSatFix: header, status (int8 status, uint16 service), lat, lon, alt,
    // float64[9] covariance, uint8 covariance type.
    let mut p = Vec::new();
    p.extend([0u8; 8]);
    p.extend(0u32.to_le_bytes());
    s(&mut p, "gps");
    p.push(0xFF); // STATUS_NO_FIX = -1
    p.extend(1u16.to_le_bytes());
    for x in [48.5f64, -2.25, 100.0] {
        p.extend(x.to_le_bytes());
    }
    for i in 0..9 {
        p.extend(f64::from(i).to_le_bytes());
    }
    p.push(2);
    let ty = "sensor_msgs/NavSatFix";
    for (expr, want) in [
        ("status.status == STATUS_NO_FIX", true),
        ("status.status == status.STATUS_FIX", false),
        ("status.status < 0", true),
        ("status.service == SERVICE_GPS", true),
        (
            "position_covariance_type == COVARIANCE_TYPE_DIAGONAL_KNOWN",
            true,
        ),
        ("abs(longitude) == 2.25", true),
        ("longitude < -2.2", true),
        ("latitude == 48.5 and altitude >= 1e2", true),
        ("position_covariance[8] == 8", true),
        ("position_covariance[*] > 7.5", true),
        ("len(position_covariance) == 9", true),
    ] {
        assert_eq!(check(ty, &p, expr), want, "{expr}");
    }
}

#[test]
#[allow(clippy::cognitive_complexity, reason = "one assertion per error form")]
fn errors_point_at_the_column_and_say_what_was_expected() {
    let e = error(LOG, "level >= ");
    assert_eq!(e.column, 10);
    assert!(e.kind.to_string().starts_with("expected a number"), "{e}");
    assert_eq!(e.pointer(), "level >= \n         ^");
    let e = error(LOG, "header.frame == 'x'");
    assert_eq!(e.column, 8);
    assert_eq!(
        e.kind.to_string(),
        "std_msgs/Header has no field 'frame'; its fields are: seq, stamp, frame_id"
    );
    let e = error(LOG, "m.lvl == 3");
    assert_eq!(e.column, 3);
    assert!(
        e.kind
            .to_string()
            .contains("its fields are: header, level, name"),
        "{e}"
    );
    let e = error(LOG, "level == 'x'");
    assert_eq!(e.column, 10);
    assert!(e.kind.to_string().contains("is a number"), "{e}");
    let e = error(LOG, "name > 3");
    assert_eq!(e.column, 8);
    let e = error(LOG, "level ~ 'x'");
    assert_eq!(e.column, 7);
    let e = error(LOG, "level >= WARNING");
    assert_eq!(e.column, 10);
    assert!(
        e.kind
            .to_string()
            .contains("DEBUG, INFO, WARN, ERROR, FATAL"),
        "{e}"
    );
    let e = error(LOG, "(level == 1");
    assert_eq!(e.column, 12);
    assert_eq!(
        e.kind.to_string(),
        "expected ')', found the end of the expression"
    );
    let e = error(LOG, "level == 1 && line == 2");
    assert_eq!(e.column, 12);
    assert!(e.kind.to_string().contains("'and'"), "{e}");
    let e = error(LOG, "msg =~ '('");
    assert_eq!(e.column, 8);
    assert!(matches!(e.kind, ExprErrorKind::Regex(_)), "{e}");
    let e = error(LOG, "topics == 'x'");
    assert!(e.kind.to_string().contains("topics[*]"), "{e}");
    let e = error(LOG, "header == 1");
    assert!(e.kind.to_string().contains("is a message"), "{e}");
    let e = error(LOG, "name == 'unterminated");
    assert_eq!(e.column, 9);
    let e = error(LOG, "len(level) > 1");
    assert_eq!(e.column, 1);
    let e = error(LOG, "level == 1 level");
    assert_eq!(e.column, 12);
    assert!(
        e.to_string().contains("level == 1 level\n             ^"),
        "{e}"
    );
    assert!(Expr::parse(&"x".repeat(MAX_EXPR_LEN + 1)).is_err());
}

#[test]
fn hostile_texts_do_not_panic() {
    let schema = schema(LOG);
    for text in [
        "",
        "(",
        ")",
        "((((",
        "not",
        "not not",
        "'",
        "\"",
        "[",
        "a[",
        "a[]",
        "a[x]",
        "len(",
        "len()",
        "len(a",
        "abs(name)",
        "1 == 1",
        "== 1",
        "level ==",
        "level == ==",
        "~",
        "=~",
        "m.",
        "m",
        "é == 1",
        "level == 1e999",
        "level == 99999999999999999999999999999999999999999",
        "\\",
        "level == -",
        "topics[99999999999999999999999] == 'x'",
        "'a' in",
        "'a' in 3",
        "'x' in level",
    ] {
        if let Ok(e) = Expr::parse(text) {
            let _ = e.compile(schema.root(), "/t");
        }
    }
}

#[test]
fn regexes_and_needles_are_built_once_per_expression_and_shared() {
    let log = schema(LOG);
    let string = schema("std_msgs/String");
    let expr = Expr::parse(r#"msg =~ "\w{20}" or name ~ "Planner" or "x" in name or "t""#).unwrap();
    let string_expr = Expr::parse(r#"data =~ "\w{20}" or data ~ "Planner" or "t""#).unwrap();
    // A pattern on a field it cannot apply to is a mismatch, and is not compiled.
    let e = Expr::parse(r#"level =~ "\w{20}""#).unwrap();
    assert!(e.compile(log.root(), "/a").is_err());
    assert_eq!(e.regexes_compiled(), 0);
    let first = expr.compile(log.root(), "/t0").unwrap();
    let copy = expr.clone();
    for i in 1..200 {
        let f = copy.compile(log.root(), &format!("/t{i}")).unwrap();
        assert!(f.shares_searchers_with(&first), "filter {i}");
    }
    assert_eq!(expr.regexes_compiled(), 1);
    // Another type: another plan, the same regex and needles.
    let a = string_expr.compile(string.root(), "/a").unwrap();
    let b = string_expr.compile(string.root(), "/b").unwrap();
    assert!(a.shares_searchers_with(&b));
    assert_eq!(string_expr.regexes_compiled(), 1);
    // Two parses build two sets.
    let other = Expr::parse(expr.text()).unwrap();
    assert!(
        !other
            .compile(log.root(), "/t0")
            .unwrap()
            .shares_searchers_with(&first)
    );
}

/// The naive tests the searchers replace.
fn naive_ci(hay: &[u8], needle: &[u8]) -> bool {
    needle.is_empty()
        || hay
            .windows(needle.len())
            .any(|w| w.eq_ignore_ascii_case(needle))
}

#[test]
fn substring_searches_find_what_a_naive_scan_finds() {
    use super::shared::{FoldedNeedle, Shared};
    let shared = Shared::default();
    let texts: Vec<Vec<u8>> = [
        "",
        "a",
        "A",
        "aa",
        "aab",
        "aaab",
        "abab",
        "ababc",
        "abcabd",
        "ABCABCABD",
        "xyz",
        "aAbBaAbB",
        "Planner",
        "the PLANNER says",
        "é",
        "\u{e9}planner",
        "\0a\0",
    ]
    .iter()
    .map(|s| s.as_bytes().to_vec())
    .collect();
    // Every substring of every text as a needle, searched in every text, both cases.
    for needle_src in &texts {
        for i in 0..=needle_src.len() {
            for j in i..=needle_src.len() {
                let needle = &needle_src[i..j];
                let Ok(text) = std::str::from_utf8(needle) else {
                    continue;
                };
                let folded = FoldedNeedle::new(&needle.to_ascii_lowercase());
                let exact = shared.exact(text);
                for hay in &texts {
                    assert_eq!(
                        folded.is_in(hay),
                        naive_ci(hay, needle),
                        "{needle:?} ~ {hay:?}"
                    );
                    let naive = needle.is_empty() || hay.windows(needle.len()).any(|w| w == needle);
                    assert_eq!(exact.is_in(hay), naive, "{needle:?} in {hay:?}");
                }
            }
        }
    }
    // Pseudo-random texts over a small alphabet (many partial matches), deterministic.
    let mut x = 0x2545_f491_u32;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        x
    };
    for _ in 0..300 {
        let hay: Vec<u8> = (0..next() % 64)
            .map(|_| b"aAbB"[(next() % 4) as usize])
            .collect();
        let needle: Vec<u8> = (0..next() % 6)
            .map(|_| b"ab"[(next() % 2) as usize])
            .collect();
        assert_eq!(
            FoldedNeedle::new(&needle).is_in(&hay),
            naive_ci(&hay, &needle),
            "{needle:?} ~ {hay:?}"
        );
    }
}

#[test]
fn a_long_needle_in_a_long_string() {
    // 4 000 bytes of 'a' then 'b', searched in 1 MB of 'a' (the naive scan compares ~4 000
    // bytes at each of a million places); found once a 'b' follows.
    let needle = format!("{}b", "a".repeat(4000));
    let mut hay = vec![b'a'; 1 << 20];
    let schema = schema("std_msgs/String");
    let mut payload = Vec::new();
    let text = String::from_utf8(hay.clone()).unwrap();
    s(&mut payload, &text);
    for expr in [
        format!("data ~ \"{needle}\""),
        format!("\"{needle}\" in data"),
        format!("\"{needle}\""),
    ] {
        let f = Expr::parse(&expr)
            .unwrap()
            .compile(schema.root(), "/t")
            .unwrap();
        assert!(!f.matches_payload(&schema, &payload).unwrap());
    }
    hay.push(b'b');
    let mut payload = Vec::new();
    s(&mut payload, std::str::from_utf8(&hay).unwrap());
    let f = Expr::parse(&format!("data ~ \"{}\"", needle.to_uppercase()))
        .unwrap()
        .compile(schema.root(), "/t")
        .unwrap();
    assert!(f.matches_payload(&schema, &payload).unwrap());
}

/// `--where` and `f` take a ROS 2 `builtin_interfaces/Time` or `Duration` as seconds.
#[test]
fn ros2_time_messages_compare_as_seconds() {
    let sep = "=".repeat(80);
    let s = Schema::from_definition(
        "t/T",
        &format!(
            "builtin_interfaces/Time stamp\nbuiltin_interfaces/Duration span\n\
             {sep}\nMSG: builtin_interfaces/Time\nint32 sec\nuint32 nanosec\n\
             {sep}\nMSG: builtin_interfaces/Duration\nint32 sec\nuint32 nanosec\n"
        ),
    )
    .unwrap();
    let mut p = Vec::new();
    for (sec, nanosec) in [(1_700_000_000i32, 250_000_000u32), (-2, 500_000_000)] {
        p.extend(sec.to_le_bytes());
        p.extend(nanosec.to_le_bytes());
    }
    let d = decode(&s, &p).unwrap();
    let matches = |text: &str| {
        Expr::parse(text)
            .unwrap()
            .compile(s.root(), "/t")
            .unwrap()
            .matches(d.root())
    };
    assert!(matches("stamp > 1700000000.2 and stamp < 1700000000.3"));
    assert!(matches("span == -1.5 and abs(span) > 1"));
    assert!(!matches("stamp < 1700000000"));
    assert!(matches("stamp.nanosec == 250000000"));
}
