//! Computed values against the official reader: `export --column` (norms, angles, `diff`,
//! `rate`, arithmetic) equals the same computation in Python on the messages Debian's
//! `rosbag` reads (to 1e-12 relative; the angles with `tf.transformations`' own code), and
//! `echo --where --intervals` prints exactly the runs Python finds.
//!
//! Skipped (with the reason printed) when Python's `rosbag` or `numpy` is absent (CI:
//! `python3-rosbag`, `python3-numpy`).

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::{corpus_bag, fixtures_dir, ros_python, run_bagscope, skip};

/// `tf.transformations`' quaternion → Euler angles (axes 'sxyz'), verbatim, and a driver:
/// argv = bag, topic, mode (`columns` or `runs`), then Python expressions of `m` (the
/// message), `P` (the topic's previous message, None for the first) and `dt` (seconds since
/// it, from nanoseconds). `columns`: per message, the time in ns and each value (empty when
/// the expression raises or gives None). `runs`: the runs of consecutive messages for which
/// the (one) expression is true.
const SCRIPT: &str = r#"
import math, sys, numpy, rosbag
_EPS = numpy.finfo(float).eps * 4.0
def quaternion_matrix(quaternion):
    q = numpy.array(quaternion[:4], dtype=numpy.float64, copy=True)
    nq = numpy.dot(q, q)
    if nq < _EPS:
        return numpy.identity(4)
    q *= math.sqrt(2.0 / nq)
    q = numpy.outer(q, q)
    return numpy.array((
        (1.0-q[1, 1]-q[2, 2],     q[0, 1]-q[2, 3],     q[0, 2]+q[1, 3], 0.0),
        (    q[0, 1]+q[2, 3], 1.0-q[0, 0]-q[2, 2],     q[1, 2]-q[0, 3], 0.0),
        (    q[0, 2]-q[1, 3],     q[1, 2]+q[0, 3], 1.0-q[0, 0]-q[1, 1], 0.0),
        (                0.0,                 0.0,                 0.0, 1.0)
        ), dtype=numpy.float64)
def euler_from_matrix(matrix):
    i, j, k = 0, 1, 2
    M = numpy.array(matrix, dtype=numpy.float64, copy=False)[:3, :3]
    cy = math.sqrt(M[i, i]*M[i, i] + M[j, i]*M[j, i])
    if cy > _EPS:
        ax = math.atan2( M[k, j],  M[k, k])
        ay = math.atan2(-M[k, i],  cy)
        az = math.atan2( M[j, i],  M[i, i])
    else:
        ax = math.atan2(-M[j, k],  M[j, j])
        ay = math.atan2(-M[k, i],  cy)
        az = 0.0
    return ax, ay, az
def euler(q):
    return euler_from_matrix(quaternion_matrix([q.x, q.y, q.z, q.w]))
def roll(q): return euler(q)[0]
def pitch(q): return euler(q)[1]
def yaw(q): return euler(q)[2]
def norm(v): return math.sqrt(v.x * v.x + v.y * v.y + v.z * v.z)
def norm2(v): return math.sqrt(v.x * v.x + v.y * v.y)

bag, topic, mode = sys.argv[1:4]
exprs = [compile(e, e, 'eval') for e in sys.argv[4:]]
P, prev_t, run = None, None, None
def value(code, m, P, dt):
    try:
        v = eval(code)
    except (AttributeError, TypeError, ZeroDivisionError, ValueError):
        return None
    return v
def stamp(t):
    return '%d.%09d' % (t.secs, t.nsecs)
for _, m, t in rosbag.Bag(bag).read_messages(topics=[topic]):
    dt = (t - prev_t).to_nsec() / 1e9 if prev_t is not None else None
    if mode == 'columns':
        cells = []
        for code in exprs:
            v = value(code, m, P, dt)
            cells.append('' if v is None else repr(v))
        print(','.join([str(t.to_nsec())] + cells))
    else:
        if value(exprs[0], m, P, dt):
            run = [run[0], t, run[2] + 1] if run else [t, t, 1]
        elif run:
            print('%s %s %d' % (stamp(run[0]), stamp(run[1]), run[2]))
            run = None
    P, prev_t = m, t
if run:
    print('%s %s %d' % (stamp(run[0]), stamp(run[1]), run[2]))
"#;

fn python_ready() -> Result<(), String> {
    let out = Command::new(ros_python())
        .args(["-c", "import rosbag, numpy"])
        .output()
        .map_err(|e| format!("{}: {e}", ros_python()))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{} cannot import rosbag and numpy (python3-rosbag, python3-numpy)",
            ros_python()
        ))
    }
}

fn python(bag: &Path, topic: &str, mode: &str, exprs: &[&str]) -> String {
    let out = Command::new(ros_python())
        .args(["-c", SCRIPT])
        .arg(bag)
        .args([topic, mode])
        .args(exprs)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// A bag of the fixtures or of the corpus (`None`: skipped, said why).
fn bag(name: &str) -> Option<PathBuf> {
    let fixture = fixtures_dir().join(name);
    if fixture.exists() {
        return Some(fixture);
    }
    corpus_bag(name)
}

/// (bag, topic, [(bagscope expression, the same in Python)]).
type Case = (
    &'static str,
    &'static str,
    &'static [(&'static str, &'static str)],
);

const COLUMNS: &[Case] = &[
    (
        "recorded.bag",
        "/odom",
        &[
            ("norm(twist.twist.linear)", "norm(m.twist.twist.linear)"),
            ("yaw(pose.pose.orientation)", "yaw(m.pose.pose.orientation)"),
            (
                "roll(pose.pose.orientation)",
                "roll(m.pose.pose.orientation)",
            ),
            (
                "pitch(pose.pose.orientation)",
                "pitch(m.pose.pose.orientation)",
            ),
            ("diff(header.seq)", "m.header.seq - P.header.seq"),
            (
                "rate(pose.pose.position.x)",
                "(m.pose.pose.position.x - P.pose.pose.position.x) / dt",
            ),
            (
                "pose.pose.position.x * 2 - pose.pose.position.y / 3",
                "m.pose.pose.position.x * 2 - m.pose.pose.position.y / 3",
            ),
            ("header.seq * 3 + 1", "m.header.seq * 3 + 1"),
        ],
    ),
    (
        "recorded.bag",
        "/imu",
        &[
            ("norm(linear_acceleration)", "norm(m.linear_acceleration)"),
            (
                "rate(angular_velocity.z)",
                "(m.angular_velocity.z - P.angular_velocity.z) / dt",
            ),
            (
                "diff(header.stamp)",
                "m.header.stamp.to_sec() - P.header.stamp.to_sec()",
            ),
            ("yaw(orientation)", "yaw(m.orientation)"),
            (
                "atan2(linear_acceleration.y, linear_acceleration.x)",
                "math.atan2(m.linear_acceleration.y, m.linear_acceleration.x)",
            ),
        ],
    ),
    (
        "gen-mixed_lz4.bag",
        "/odom_pose",
        &[
            ("yaw(pose.orientation)", "yaw(m.pose.orientation)"),
            ("norm(pose.position)", "norm(m.pose.position)"),
            (
                "diff(yaw(pose.orientation))",
                "yaw(m.pose.orientation) - yaw(P.pose.orientation)",
            ),
        ],
    ),
    (
        "rosbagjs-example.bag",
        "/turtle1/cmd_vel",
        &[
            ("norm(linear)", "norm(m.linear)"),
            ("rate(angular.z)", "(m.angular.z - P.angular.z) / dt"),
            ("sqrt(abs(angular.z))", "math.sqrt(abs(m.angular.z))"),
        ],
    ),
    (
        "rosbagjs-example.bag",
        "/turtle1/pose",
        &[
            ("norm(x, y)", "math.sqrt(m.x * m.x + m.y * m.y)"),
            ("rate(theta)", "(m.theta - P.theta) / dt"),
            (
                "x / (y - 5.544444561004639)",
                "m.x / (m.y - 5.544444561004639)",
            ),
        ],
    ),
];

/// True when `a` and `b` (CSV cells) are both empty, or numbers equal to 1e-12 relative.
fn close(a: &str, b: &str) -> bool {
    if a.is_empty() || b.is_empty() {
        return a == b;
    }
    if a == b {
        return true;
    }
    let (Ok(x), Ok(y)) = (a.parse::<f64>(), b.parse::<f64>()) else {
        return false;
    };
    (x - y).abs() <= 1e-12 * x.abs().max(y.abs())
}

#[test]
fn export_columns_equal_python_on_the_official_reader() {
    if let Err(why) = python_ready() {
        skip(&why);
        return;
    }
    for (name, topic, columns) in COLUMNS {
        let Some(bag) = bag(name) else { continue };
        let mut args: Vec<String> = vec![
            "export".into(),
            bag.to_string_lossy().into(),
            "-t".into(),
            (*topic).into(),
            "--format".into(),
            "csv".into(),
        ];
        for (i, (ours, _)) in columns.iter().enumerate() {
            args.push("--column".into());
            args.push(format!("c{i}={ours}"));
        }
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        let (out, err, code) = run_bagscope(&refs);
        assert_eq!(code, 0, "{name} {topic}: {err}");
        let theirs: Vec<&str> = columns.iter().map(|(_, p)| *p).collect();
        let want = python(&bag, topic, "columns", &theirs);
        let mut lines = out.lines();
        let header = lines.next().unwrap();
        assert!(header.starts_with("%time,c0"), "{header}");
        let ours: Vec<&str> = lines.collect();
        let want: Vec<&str> = want.lines().collect();
        assert_eq!(ours.len(), want.len(), "{name} {topic}: rows");
        assert!(!ours.is_empty(), "{name} {topic}");
        let mut values = 0;
        for (row, (a, b)) in ours.iter().zip(&want).enumerate() {
            let a: Vec<&str> = a.split(',').collect();
            let b: Vec<&str> = b.split(',').collect();
            assert_eq!(a.len(), b.len(), "{name} {topic} row {row}");
            assert_eq!(a[0], b[0], "{name} {topic} row {row}: time");
            for (i, (x, y)) in a.iter().zip(&b).enumerate().skip(1) {
                assert!(
                    close(x, y),
                    "{name} {topic} row {row} column {}: ours {x}, Python {y}",
                    columns[i - 1].0
                );
                values += usize::from(!x.is_empty());
            }
        }
        assert!(values > ours.len(), "{name} {topic}: values compared");
    }
}

/// (bag, topic, bagscope condition, the same in Python).
const RUNS: &[(&str, &str, &str, &str)] = &[
    (
        "rosbagjs-example.bag",
        "/turtle1/cmd_vel",
        "norm(linear) > 1.5",
        "norm(m.linear) > 1.5",
    ),
    (
        "rosbagjs-example.bag",
        "/turtle1/pose",
        "rate(theta) > 0.5 or x < 3",
        "(P is not None and dt != 0 and (m.theta - P.theta) / dt > 0.5) or m.x < 3",
    ),
    (
        "rosbagjs-example.bag",
        "/turtle2/pose",
        "linear_velocity == 0",
        "m.linear_velocity == 0",
    ),
    (
        "gen-mixed_lz4.bag",
        "/odom_pose",
        "abs(yaw(pose.orientation)) < 1",
        "abs(yaw(m.pose.orientation)) < 1",
    ),
    (
        "recorded.bag",
        "/imu",
        "diff(header.seq) == 1 and angular_velocity.z > 0",
        "P is not None and m.header.seq - P.header.seq == 1 and m.angular_velocity.z > 0",
    ),
];

#[test]
fn intervals_equal_the_runs_python_finds() {
    if let Err(why) = python_ready() {
        skip(&why);
        return;
    }
    for (name, topic, ours, theirs) in RUNS {
        let Some(bag) = bag(name) else { continue };
        let path = bag.to_string_lossy();
        let (out, err, code) =
            run_bagscope(&["echo", &path, "-t", topic, "--where", ours, "--intervals"]);
        assert_eq!(code, 0, "{name} {topic} {ours}: {err}");
        let want = python(&bag, topic, "runs", &[theirs]);
        assert_eq!(out, want, "{name} {topic} {ours}");
        assert!(!want.is_empty(), "{name} {topic} {ours}: some stretch");
        let stretches = want.lines().count();
        let s = if stretches == 1 { "" } else { "es" };
        assert!(err.contains(&format!("{stretches} stretch{s}, ")), "{err}");
    }
}

#[test]
fn columns_and_intervals_say_what_is_wrong() {
    let bag = fixtures_dir().join("recorded.bag");
    let path = bag.to_string_lossy();
    for (args, want) in [
        (
            vec![
                "export",
                &path,
                "-t",
                "/odom",
                "--format",
                "csv",
                "--column",
                "a=nrm(twist.twist.linear)",
            ],
            "unknown function 'nrm'",
        ),
        (
            vec![
                "export", &path, "-t", "/odom", "--format", "csv", "--column", "a=1", "--column",
                "a=2",
            ],
            "already a column named 'a'",
        ),
        (
            vec![
                "export", &path, "-t", "/odom", "--format", "csv", "--column", "=1",
            ],
            "needs a name",
        ),
        (
            vec![
                "export", &path, "-t", "/odom", "--format", "mcap", "-o", "x.mcap", "--column",
                "a=1",
            ],
            "--format csv or jsonl",
        ),
        (
            vec![
                "export",
                &path,
                "-t",
                "/odom",
                "--format",
                "csv",
                "--column",
                "a=yaw(pose.pose.position)",
            ],
            "no numeric field 'w'",
        ),
        (vec!["echo", &path, "-t", "/odom", "--intervals"], "--where"),
        (
            vec![
                "echo",
                &path,
                "-t",
                "/odom",
                "--where",
                "transforms[*].x * 2 > 1",
                "--intervals",
            ],
            "has no field",
        ),
    ] {
        let (out, err, code) = run_bagscope(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(out.is_empty(), "{args:?}");
        assert!(err.contains(want), "{args:?}: {err}");
    }
    // jsonl takes --column; no value is null.
    let (out, err, code) = run_bagscope(&[
        "export",
        &path,
        "-t",
        "/odom",
        "--format",
        "jsonl",
        "--column",
        "d=diff(header.seq)",
    ]);
    assert_eq!(code, 0, "{err}");
    let first = out.lines().next().unwrap();
    assert!(first.ends_with(r#""values":{"d":null}}"#), "{first}");
    assert!(
        out.lines()
            .nth(1)
            .unwrap()
            .ends_with(r#""values":{"d":1}}"#),
        "{out}"
    );
    // A topic without its leading '/' (the bag has /odom), with a field.
    let (out, err, code) = run_bagscope(&["echo", &path, "odom/header/seq", "-n", "2"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.lines().filter(|l| *l != "---").count(), 2, "{out}");
}
