//! `bagscope serve` and `bagscope call` without a ROS graph: usage errors and an unreachable
//! master end with exit code 2 and a message, quickly.

use std::time::{Duration, Instant};

use crate::common;

fn run(args: &[&str]) -> (i32, String) {
    let out = common::ros_graph::without_master(args);
    assert!(out.stdout.is_empty(), "{args:?}: stdout {:?}", out.stdout);
    common::code_and_stderr(&out)
}

#[test]
fn errors_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("one.idx");
    let built = common::bagscope()
        .args(["index", "build"])
        .arg(&index)
        .arg(common::fixtures_dir().join("recorded.bag"))
        .output()
        .unwrap();
    assert!(built.status.success());
    let index = index.to_str().unwrap();

    let start = Instant::now();
    let (code, err) = run(&["serve", index, "--namespace", "/hist"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.starts_with("bagscope: error: cannot reach the ROS master at http://127.0.0.1:"),
        "{err}"
    );
    let (code, err) = run(&["call", "/hist", "1795297617", "1795297618"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.starts_with("bagscope: error: cannot reach the ROS master at http://127.0.0.1:"),
        "{err}"
    );
    let (code, err) = run(&["call", "/hist", "+0", "+1", "-t", "/imu", "--rate", "max"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("cannot reach the ROS master"), "{err}");
    assert!(start.elapsed() < Duration::from_secs(15));

    for bad in [
        vec!["serve", index],
        vec!["serve", index, "--namespace", "bad-ns"],
        vec!["serve", index, "--namespace", "/hist", "--rate", "0"],
        vec!["serve", index, "--namespace", "/hist", "--rate", "-1"],
        vec!["serve", index, "--namespace", "/hist", "--rate", "nan"],
        vec!["serve", index, "--namespace", "/hist", "--rate", "0.001"],
        vec!["serve", index, "--namespace", "/hist", "--skip-empty", "-1"],
        vec!["serve", "/no/such.idx", "--namespace", "/hist"],
        vec!["serve", "Cargo.toml", "--namespace", "/hist"],
        vec!["call"],
        vec!["call", "/hist", "1"],
        vec!["call", "/hist", "1", "+2"],
        vec!["call", "/hist", "+-1", "+2"],
        vec!["call", "/hist", "x", "2"],
        vec!["call", "bad-ns", "1", "2"],
        vec!["call", "/hist", "1", "2", "--rate", "0"],
        vec!["call", "/hist", "1", "2", "--timeout", "0"],
    ] {
        let (code, err) = run(&bad);
        assert_eq!(code, 2, "{bad:?}: {err}");
        assert!(err.contains("error"), "{bad:?}: {err}");
        assert!(!err.contains("panicked"), "{bad:?}: {err}");
    }
}
