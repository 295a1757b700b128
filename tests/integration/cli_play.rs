//! `bagscope play` without a ROS graph: usage errors and an unreachable master end with exit
//! code 2 and a message, quickly.

use std::time::{Duration, Instant};

use crate::common;

fn play(args: &[&str]) -> (i32, String) {
    common::code_and_stderr(&common::ros_graph::without_master(
        &[&["play"], args].concat(),
    ))
}

#[test]
fn errors_exit_2() {
    let bag = common::fixtures_dir().join("recorded.bag");
    let bag = bag.to_str().unwrap();
    let start = Instant::now();
    let (code, err) = play(&[bag]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.starts_with("bagscope: error: cannot reach the ROS master at http://127.0.0.1:"),
        "{err}"
    );
    assert!(start.elapsed() < Duration::from_secs(10));
    for bad in [
        vec![bag, "--rate", "0"],
        vec![bag, "--rate", "-1"],
        vec![bag, "--rate", "nan"],
        vec![bag, "--delay", "-1"],
        vec![bag, "--skip-empty", "-1"],
        vec![bag, "--skip-empty", "inf"],
        vec![bag, "--hz", "0"],
        vec![bag, "--namespace", "bad-ns"],
        vec![bag, "-t", "/no_such_topic"],
        vec!["/no/such.bag"],
        vec![],
    ] {
        let (code, err) = play(&bad);
        assert_eq!(code, 2, "{bad:?}: {err}");
        assert!(err.contains("error"), "{bad:?}: {err}");
        assert!(!err.contains("panicked"), "{bad:?}: {err}");
    }
    let (code, err) = play(&[bag, "-t", "/chatter"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("cannot reach the ROS master"), "{err}");
}

#[test]
fn explorer_ros_options_are_checked() {
    let bag = common::fixtures_dir().join("recorded.bag");
    for bad in [
        "--ros-namespace=bad-ns",
        "--ros-rate=0",
        "--ros-rate=-2",
        "--ros-rate=nan",
    ] {
        let out = common::bagscope()
            .arg(bad)
            .arg(&bag)
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{bad:?}: {err}");
        let option = bad.split('=').next().unwrap();
        assert!(err.contains(option), "{bad:?}: {err}");
    }
}
