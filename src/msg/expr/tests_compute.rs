//! Tests of computed values: arithmetic and its precedence, the functions (expected values
//! of the angles computed with `tf.transformations`' formulas in Python), "no value", the
//! errors, and the two-stage evaluation of `diff()`/`rate()`.

use std::sync::Arc;

use super::*;
use crate::msg::{Registry, Schema, decode};

fn schema(name: &str) -> Arc<Schema> {
    Schema::from_registry(name, None, &Registry::bundled()).unwrap()
}

/// A `geometry_msgs/Pose`.
fn pose(p: [f64; 3], q: [f64; 4]) -> Vec<u8> {
    p.iter()
        .chain(q.iter())
        .flat_map(|x| x.to_le_bytes())
        .collect()
}

/// A `rosgraph_msgs/Log` with `level` and `line` (and `name`).
fn log(level: u8, line: u32) -> Vec<u8> {
    let mut p = Vec::new();
    p.extend(7u32.to_le_bytes());
    p.extend(100u32.to_le_bytes());
    p.extend(5u32.to_le_bytes());
    p.extend(0u32.to_le_bytes());
    p.push(level);
    for s in ["/node", "text", "f.cpp", "fn"] {
        p.extend(u32::try_from(s.len()).unwrap().to_le_bytes());
        p.extend(s.as_bytes());
    }
    p.extend(line.to_le_bytes());
    p.extend(0u32.to_le_bytes());
    p
}

const POSE: &str = "geometry_msgs/Pose";
const LOG: &str = "rosgraph_msgs/Log";

fn quantity(ty: &str, expr: &str) -> Quantity {
    Expr::parse(expr)
        .unwrap()
        .compile_quantity(schema(ty).root(), "/t")
        .unwrap_or_else(|e| panic!("{e}"))
}

/// The value of `expr` on one message (a topic's first).
fn value(ty: &str, payload: &[u8], expr: &str) -> Option<Num> {
    let schema = schema(ty);
    let q = quantity(ty, expr);
    q.eval_num(
        decode(&schema, payload).unwrap().root(),
        0,
        &mut Memory::new(),
    )
}

fn holds(ty: &str, payload: &[u8], expr: &str) -> bool {
    let schema = schema(ty);
    let f = Expr::parse(expr)
        .unwrap()
        .compile(schema.root(), "/t")
        .unwrap_or_else(|e| panic!("{e}"));
    f.matches(decode(&schema, payload).unwrap().root())
}

fn error(ty: &str, expr: &str) -> ExprError {
    let schema = schema(ty);
    let e = Expr::parse(expr).unwrap();
    match (
        e.compile(schema.root(), "/t"),
        e.compile_quantity(schema.root(), "/t"),
    ) {
        (Err(e), _) | (_, Err(e)) => e,
        _ => panic!("{expr} compiled"),
    }
}

#[test]
fn arithmetic_has_pythons_precedence_and_types() {
    let p = pose([1.0, 2.0, 3.0], [0.0, 0.0, 0.0, 1.0]);
    let l = log(4, 42);
    for (ty, payload, expr, want) in [
        (LOG, &l, "2 + 3 * 4", Num::Int(14)),
        (LOG, &l, "(2 + 3) * 4", Num::Int(20)),
        (LOG, &l, "-2 * -3", Num::Int(6)),
        (LOG, &l, "10 - 4 - 3", Num::Int(3)),
        (LOG, &l, "8 / 4 / 2", Num::Float(1.0)),
        (LOG, &l, "7 / 2", Num::Float(3.5)),
        (LOG, &l, "line * 2 - level", Num::Int(80)),
        (LOG, &l, "-line", Num::Int(-42)),
        (LOG, &l, "line + 0.5", Num::Float(42.5)),
        (LOG, &l, "header.seq + header.stamp.secs", Num::Int(107)),
        (LOG, &l, "level + WARN", Num::Int(8)),
        (LOG, &l, "len(name) * 10", Num::Int(50)),
        (LOG, &l, "abs(3 - line)", Num::Int(39)),
        (
            POSE,
            &p,
            "position.x + position.y * position.z",
            Num::Float(7.0),
        ),
        (POSE, &p, "position/y - 1", Num::Float(1.0)),
        (POSE, &p, "position.z/position.y", Num::Float(1.5)),
        (POSE, &p, "norm(position)", Num::Float(14f64.sqrt())),
        (
            POSE,
            &p,
            "norm(position.x, position.y)",
            Num::Float(5f64.sqrt()),
        ),
        (POSE, &p, "norm(3, 4)", Num::Float(5.0)),
        (POSE, &p, "sqrt(16)", Num::Float(4.0)),
        (POSE, &p, "abs(-position.z)", Num::Float(3.0)),
        (
            POSE,
            &p,
            "atan2(position.y, position.x)",
            Num::Float(2f64.atan2(1.0)),
        ),
        (POSE, &p, "norm(orientation)", Num::Float(1.0)),
    ] {
        assert_eq!(value(ty, payload, expr), Some(want), "{expr}");
    }
    assert!(quantity(LOG, "line * 2").is_integer());
    assert!(!quantity(LOG, "line / 2").is_integer());
    assert!(!quantity(POSE, "position.x * 2").is_integer());
    for (expr, want) in [
        ("norm(position) > 3.7", true),
        ("norm(position) > 3.75", false),
        ("position.z > 2 * position.x", true),
        ("position.x * 3 == position.z", true),
        ("2 * position.y == position.x + position.z", true),
        ("position.x + position.y", true),
        ("position.x - 1", false),
        ("not position.x - 1", true),
        ("-position.x < 0 and position.y > -3", true),
        ("yaw(orientation) == 0", true),
        ("position.x < position.y", true),
    ] {
        assert_eq!(holds(POSE, &p, expr), want, "{expr}");
    }
    assert!(holds(LOG, &l, "line > 2 * level + 1"));
    assert!(holds(LOG, &l, "line / 2 == 21"));
    assert!(holds(LOG, &l, "level >= WARN and line - 40 == 2"));
}

#[test]
#[allow(
    clippy::unreadable_literal,
    clippy::approx_constant,
    reason = "the values as Python prints them"
)]
fn angles_equal_tf_transformations() {
    // tf.transformations.euler_from_quaternion(q) (roll, pitch, yaw), computed in Python.
    let cases: [([f64; 4], [f64; 3]); 7] = [
        ([0.0, 0.0, 0.0, 1.0], [0.0, -0.0, 0.0]),
        (
            [0.1, 0.2, 0.3, 0.9],
            [0.3392926144540446, 0.32128858926481035, 0.6989996140390011],
        ),
        (
            [0.0, 0.0, 0.479425538604203, 0.8775825618903728],
            [0.0, -0.0, 1.0],
        ),
        (
            [0.5, 0.5, 0.5, 0.5],
            [1.5707963267948968, -0.0, 1.5707963267948968],
        ),
        (
            [0.7071067811865476, 0.0, 0.7071067811865475, 0.0],
            [-3.141592653589793, -1.5707963267948966, 0.0],
        ),
        (
            [1e-9, -2e-9, 0.25, -0.968],
            [
                -2.9373982015439347e-09,
                3.3736058363781165e-09,
                -0.5054834578251596,
            ],
        ),
        (
            [1.0, 2.0, 3.0, 4.0],
            [0.7853981633974482, 0.3398369094541219, 1.4288992721907325],
        ),
    ];
    for (q, [roll, pitch, yaw]) in cases {
        let p = pose([0.0; 3], q);
        for (f, want) in [("roll", roll), ("pitch", pitch), ("yaw", yaw)] {
            let got = value(POSE, &p, &format!("{f}(orientation)"));
            let Some(Num::Float(got)) = got else {
                panic!("{f}{q:?}: {got:?}")
            };
            let tolerance = 1e-15 * want.abs().max(1e-300);
            assert!(
                (got - want).abs() <= tolerance,
                "{f}{q:?}: {got:?} != {want:?}"
            );
        }
    }
    // A zero quaternion is the identity, as in tf.
    let p = pose([0.0; 3], [0.0; 4]);
    assert_eq!(value(POSE, &p, "yaw(orientation)"), Some(Num::Float(0.0)));
}

#[test]
fn no_value_makes_comparisons_false() {
    let p = pose([1.0, 0.0, -4.0], [0.0, 0.0, 0.0, 1.0]);
    for expr in [
        "1 / 0",
        "position.x / position.y",
        "sqrt(position.z)",
        "diff(position.x)",
    ] {
        assert_eq!(value(POSE, &p, expr), None, "{expr}");
    }
    for (expr, want) in [
        ("position.x / position.y > 0", false),
        ("position.x / position.y != 0", false),
        ("not position.x / position.y > 0", true),
        ("position.x / position.y or position.x == 1", true),
    ] {
        assert_eq!(holds(POSE, &p, expr), want, "{expr}");
    }
    // An index past the end in a computation: no value.
    let schema = schema("sensor_msgs/NavSatFix");
    let f = Expr::parse("position_covariance[8] * 2 > 1").unwrap();
    assert!(f.compile(schema.root(), "/t").is_ok());
}

#[test]
#[allow(clippy::cognitive_complexity, reason = "one assertion per error form")]
fn computation_errors_point_at_the_column() {
    let e = error(POSE, "nrm(position) > 1");
    assert_eq!(e.column, 1);
    assert!(e.kind.to_string().contains("unknown function 'nrm'"), "{e}");
    assert!(e.kind.to_string().contains("norm, pitch, rate"), "{e}");
    let e = error(POSE, "1 + atan2(position.x) > 1");
    assert_eq!(e.column, 5);
    assert!(e.kind.to_string().contains("takes two numbers"), "{e}");
    assert!(e.kind.to_string().contains("given 1 argument"), "{e}");
    let e = error(LOG, "norm(header) > 1");
    assert_eq!(e.column, 6);
    assert!(e.kind.to_string().contains("no numeric field 'x'"), "{e}");
    let e = error(POSE, "yaw(position) > 1");
    assert_eq!(e.column, 5);
    assert!(e.kind.to_string().contains("quaternion"), "{e}");
    assert!(e.kind.to_string().contains("'w'"), "{e}");
    let e = error(POSE, "yaw(position.x)");
    assert!(e.kind.to_string().contains("is a number"), "{e}");
    let e = error(LOG, "line + name > 1");
    assert_eq!(e.column, 8);
    assert!(e.kind.to_string().contains("name is a string"), "{e}");
    let e = error(LOG, "line + 'x' > 1");
    assert_eq!(e.column, 8);
    let e = error("sensor_msgs/NavSatFix", "position_covariance[*] * 2 > 1");
    assert_eq!(e.column, 1);
    assert!(e.kind.to_string().contains("pick one element"), "{e}");
    let e = error(POSE, "position * 2 > 1");
    assert!(e.kind.to_string().contains("norm(position)"), "{e}");
    let e = error(POSE, "position.x > 1");
    assert!(e.kind.to_string().contains("not a condition"), "{e}");
    let e = error(POSE, "position.q + 1");
    assert_eq!(e.column, 10);
    let e = error(LOG, "diff(line, level) > 1");
    assert!(
        e.kind.to_string().contains("diff() takes one number"),
        "{e}"
    );
    let e = error(LOG, "level * 2 >= WARNING");
    assert_eq!(e.column, 14);
    assert!(e.kind.to_string().contains("not a constant"), "{e}");
    // Hostile texts do not panic.
    for text in [
        "norm(", "norm()", "norm(,)", "a(b(c(", "1 +", "* 2", "- - - 1", "2 ** 3", "(1) (2)",
        "yaw()", "1/", "/", "a / / b", "1 2",
    ] {
        if let Ok(e) = Expr::parse(text) {
            let schema = schema(POSE);
            let _ = e.compile(schema.root(), "/t");
            let _ = e.compile_quantity(schema.root(), "/t");
        }
    }
    assert!(Expr::parse(&format!("{}1{}", "(".repeat(500), ")".repeat(500))).is_err());
}

/// Messages of a `Log` topic: (receive time in ns, line).
const STREAM: [(i64, u32); 7] = [
    (1_000_000_000, 10),
    (1_100_000_000, 15),
    (1_100_000_000, 15),
    (1_350_000_000, 12),
    (2_000_000_000, 12),
    (2_500_000_000, 40),
    (3_000_000_000, 39),
];

#[test]
fn diff_and_rate_over_a_topic() {
    let schema = schema(LOG);
    let diff = quantity(LOG, "diff(line)");
    let rate = quantity(LOG, "rate(line)");
    let twice = quantity(LOG, "diff(diff(line))");
    assert!(diff.is_stateful() && diff.is_integer() && !rate.is_integer());
    assert!(!quantity(LOG, "line").is_stateful());
    let mut memories = [Memory::new(), Memory::new(), Memory::new()];
    let mut got = Vec::new();
    for (t, line) in STREAM {
        let payload = log(4, line);
        let m = decode(&schema, &payload).unwrap();
        let [a, b, c] = &mut memories;
        got.push((
            diff.eval_num(m.root(), t, a),
            rate.eval(m.root(), t, b),
            twice.eval_num(m.root(), t, c),
        ));
    }
    let want = [
        (None, None, None),
        (Some(Num::Int(5)), Some(5.0 / 0.1), None),
        (Some(Num::Int(0)), None, Some(Num::Int(-5))),
        (Some(Num::Int(-3)), Some(-3.0 / 0.25), Some(Num::Int(-3))),
        (Some(Num::Int(0)), Some(0.0), Some(Num::Int(3))),
        (Some(Num::Int(28)), Some(28.0 / 0.5), Some(Num::Int(28))),
        (Some(Num::Int(-1)), Some(-1.0 / 0.5), Some(Num::Int(-29))),
    ];
    assert_eq!(got, want);
    assert_eq!(memories[0].previous_ns(), Some(3_000_000_000));
    memories[0].clear();
    let m = log(4, 1);
    let m = decode(&schema, &m).unwrap();
    assert_eq!(
        diff.eval_num(m.root(), 4_000_000_000, &mut memories[0]),
        None
    );
}

#[test]
fn gathering_in_any_order_then_finishing_in_order_equals_eval() {
    let schema = schema(LOG);
    let payloads: Vec<Vec<u8>> = STREAM.iter().map(|(_, l)| log(4, *l)).collect();
    let filters = [
        "diff(line) > 0",
        "rate(line) < -1 or level == WARN and diff(line) == 0",
        "name ~ 'NODE' and abs(diff(line)) >= 3",
        "line > 12",
        "not diff(line)",
    ];
    for text in filters {
        let f = Expr::parse(text)
            .unwrap()
            .compile(schema.root(), "/t")
            .unwrap();
        // Gathered last message first (as workers may), finished in order.
        let mut gathered = vec![Vec::new(); payloads.len()];
        for (i, p) in payloads.iter().enumerate().rev() {
            let m = decode(&schema, p).unwrap();
            f.gather(m.root(), &mut gathered[i]);
            assert_eq!(gathered[i].len(), f.width(), "{text}");
        }
        let (mut a, mut b) = (Memory::new(), Memory::new());
        for (i, (t, _)) in STREAM.iter().enumerate() {
            let m = decode(&schema, &payloads[i]).unwrap();
            let direct = f.eval(m.root(), *t, &mut a);
            assert_eq!(f.finish(&gathered[i], *t, &mut b), direct, "{text} at {i}");
        }
    }
    for text in [
        "rate(line) * 2 + diff(level)",
        "line - 1",
        "norm(line, diff(line))",
    ] {
        let q = quantity(LOG, text);
        let mut all = Vec::new();
        for p in payloads.iter().rev() {
            q.gather(decode(&schema, p).unwrap().root(), &mut all);
        }
        let (mut a, mut b) = (Memory::new(), Memory::new());
        for (i, (t, _)) in STREAM.iter().enumerate() {
            let m = decode(&schema, &payloads[i]).unwrap();
            let at = (payloads.len() - 1 - i) * q.width();
            let mine = &all[at..at + q.width()];
            assert_eq!(
                q.finish_num(mine, *t, &mut b),
                q.eval_num(m.root(), *t, &mut a),
                "{text} at {i}"
            );
        }
    }
    // A NaN in a field is a value (`!=` holds), not "no value".
    let p = pose([f64::NAN, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0]);
    let pose_schema = super::tests_compute::schema(POSE);
    let f = Expr::parse("position.x * 1 != 0")
        .unwrap()
        .compile(pose_schema.root(), "/t")
        .unwrap();
    let m = decode(&pose_schema, &p).unwrap();
    let mut g = Vec::new();
    f.gather(m.root(), &mut g);
    assert!(f.matches(m.root()));
    assert!(f.finish(&g, 0, &mut Memory::new()));
}
