//! `--where EXPR` of `echo` and `filter` against the official tools: `rosbag filter IN OUT
//! 'topic == T and PYTHON'` keeps the same messages (times) as `bagscope filter -t T --where`,
//! and `echo --where` prints as many; a field the type lacks is an error (exit 2).

use std::path::Path;
use std::process::Command;

use crate::common::official::{have_rosbag_cli, rosbag};
use crate::common::{corpus_bag, ros_python, run_bagscope, skip};

/// Receive times (ns) of every message of `bag`, read by the official reader.
fn official_times(bag: &Path) -> Vec<u64> {
    let out = Command::new(ros_python())
        .args([
            "-c",
            "import rosbag, sys\nfor _, _, t in rosbag.Bag(sys.argv[1]).read_messages(): print(t.to_nsec())",
        ])
        .arg(bag)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| l.parse().unwrap())
        .collect()
}

/// (bag, topic, bagscope expression, the same in `rosbag filter`'s Python).
const CASES: &[(&str, &str, &str, &str)] = &[
    (
        "rosbagjs-example.bag",
        "/rosout",
        "level >= WARN",
        "m.level >= m.WARN",
    ),
    (
        "rosbagjs-example.bag",
        "/rosout",
        "level == INFO and not name ~ \"RECORD\"",
        "m.level == m.INFO and not 'record' in m.name.lower()",
    ),
    (
        "rosbagjs-example.bag",
        "/rosout",
        "msg =~ \"^Spawning\" or \"CARROT\"",
        "__import__('re').search('^Spawning', m.msg) or any('carrot' in s.lower() for s in [m.header.frame_id, m.name, m.msg, m.file, m.function] + list(m.topics))",
    ),
    (
        "rosbagjs-example.bag",
        "/tf",
        "transforms[*].child_frame_id == \"turtle2\"",
        "any(x.child_frame_id == 'turtle2' for x in m.transforms)",
    ),
    (
        "rosbagjs-example.bag",
        "/turtle1/pose",
        "x > 5.5 and not theta < 0",
        "m.x > 5.5 and not m.theta < 0",
    ),
    (
        "rosbagjs-example.bag",
        "/turtle1/pose",
        "abs(angular_velocity) >= 1 or linear_velocity == 0",
        "abs(m.angular_velocity) >= 1 or m.linear_velocity == 0",
    ),
    (
        "rosbagjs-example.bag",
        "/turtle2/color_sensor",
        "m.r == 179 and (g != 184 or b < 100)",
        "m.r == 179 and (m.g != 184 or m.b < 100)",
    ),
    (
        "gen-mixed_lz4.bag",
        "/gps/fix",
        "status.status == STATUS_NO_FIX or position_covariance[*] > 1.5",
        "m.status.status == m.status.STATUS_NO_FIX or any(c > 1.5 for c in m.position_covariance)",
    ),
    (
        "gen-mixed_lz4.bag",
        "/chatter",
        "len(data) > 12 or data == 'from b #3'",
        "len(m.data) > 12 or m.data == 'from b #3'",
    ),
    (
        "gen-mixed_lz4.bag",
        "/tf",
        "transforms[0].transform.translation.x < 0.5",
        "m.transforms[0].transform.translation.x < 0.5",
    ),
];

#[test]
fn echo_and_filter_keep_what_rosbag_filter_keeps() {
    if let Err(why) = have_rosbag_cli() {
        skip(&why);
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mut partial = 0;
    for (i, (name, topic, ours, python)) in CASES.iter().enumerate() {
        let Some(bag) = corpus_bag(name) else {
            return;
        };
        let theirs_bag = dir.path().join(format!("theirs{i}.bag"));
        let python = format!("topic == '{topic}' and ({python})");
        let (ok, _, err) = rosbag(&[
            "filter".as_ref(),
            bag.as_os_str(),
            theirs_bag.as_os_str(),
            python.as_ref(),
        ]);
        assert!(ok, "rosbag filter {python}: {err}");
        let want = official_times(&theirs_bag);

        let ours_bag = dir.path().join(format!("ours{i}.bag"));
        let (_, err, code) = run_bagscope(&[
            "filter",
            bag.to_str().unwrap(),
            ours_bag.to_str().unwrap(),
            "-t",
            topic,
            "--where",
            ours,
        ]);
        assert_eq!(code, 0, "{ours}: {err}");
        assert_eq!(
            official_times(&ours_bag),
            want,
            "filter --where {ours} on {name} {topic}"
        );

        let (out, err, code) = run_bagscope(&[
            "echo",
            bag.to_str().unwrap(),
            "-t",
            topic,
            "--format",
            "json",
            "--where",
            ours,
        ]);
        assert_eq!(code, 0, "{ours}: {err}");
        assert_eq!(
            out.lines().count(),
            want.len(),
            "echo --where {ours} on {name} {topic}"
        );
        let all = official_times(&bag).len();
        if !want.is_empty() && want.len() < all {
            partial += 1;
        }
    }
    // The cases are meant to keep some messages and drop others.
    assert!(
        partial >= CASES.len() / 2,
        "only {partial} cases selected a strict subset"
    );
}

#[test]
fn a_field_the_type_lacks_is_an_error_naming_topic_type_and_fields() {
    let Some(bag) = corpus_bag("gen-mixed_lz4.bag") else {
        return;
    };
    let bag = bag.to_str().unwrap();
    let (out, err, code) = run_bagscope(&["echo", bag, "--where", "data == 'x'"]);
    assert_eq!(code, 2, "{err}");
    assert!(out.is_empty());
    assert!(
        err.contains("has no field 'data'; its fields are:") && err.contains("topic '/"),
        "{err}"
    );
    let (_, err, code) = run_bagscope(&["echo", bag, "-t", "/chatter", "--where", "data =="]);
    assert_eq!(code, 2);
    assert!(err.contains("expected a number"), "{err}");
    assert!(err.contains("  data ==\n         ^"), "{err}");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("o.bag");
    let (_, err, code) = run_bagscope(&[
        "filter",
        bag,
        out.to_str().unwrap(),
        "-t",
        "/gps/fix",
        "--where",
        "status.status == NO_SUCH",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("STATUS_NO_FIX"), "{err}");
    assert!(!out.exists());
    let (_, err, code) = run_bagscope(&[
        "export", bag, "-t", "/chatter", "--format", "jsonl", "--where", "data > 3",
    ]);
    assert_eq!(code, 2);
    assert!(
        err.contains("/chatter") && err.contains("is a string"),
        "{err}"
    );
    let (out, _, code) = run_bagscope(&[
        "export",
        bag,
        "-t",
        "/chatter",
        "--format",
        "jsonl",
        "--where",
        "data ~ 'FROM B #1'",
    ]);
    assert_eq!(code, 0);
    assert!(
        !out.is_empty() && out.lines().all(|l| l.contains("from b #1")),
        "{out}"
    );
}
