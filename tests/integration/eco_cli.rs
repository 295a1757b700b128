//! The command line's manners: "did you mean" for a mistyped subcommand, and every time form
//! of the explorer's `:` in `--start`/`--end`.

use crate::common::{bagscope, fixtures_dir, run_bagscope};

#[test]
fn a_mistyped_subcommand_gets_did_you_mean() {
    let bag = fixtures_dir().join("recorded.bag");
    let (out, err, code) = run_bagscope(&["inof", bag.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(out.is_empty());
    assert!(err.contains("did you mean `info`?"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    let (_, err, code) = run_bagscope(&["exprot", "-t", "/a", bag.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("did you mean `export`?"), "{err}");
}

#[test]
fn a_file_named_like_a_subcommand_still_opens() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(fixtures_dir().join("recorded.bag"), dir.path().join("inof")).unwrap();
    let out = bagscope()
        .arg("inof")
        .current_dir(dir.path())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    // Not a terminal: the explorer refuses, after having taken `inof` as a bag.
    assert!(!err.contains("did you mean"), "{err}");
    assert!(err.contains("needs a terminal"), "{err}");
}

/// `bagscope echo --format json` of the fixture bag between `start` and `end`.
fn echo(start: &str, end: &str) -> (String, String, i32) {
    let bag = fixtures_dir().join("recorded.bag");
    run_bagscope(&[
        "echo",
        "--format",
        "json",
        "--start",
        start,
        "--end",
        end,
        bag.to_str().unwrap(),
    ])
}

#[test]
fn start_and_end_take_every_time_form() {
    // The bag runs from 1795297617.27 (2026-11-21 21:46:57.27 UTC) to 1795297620.26.
    let (want, err, code) = echo("1795297618", "1795297619.5");
    assert_eq!(code, 0, "{err}");
    let n = want.lines().count();
    assert!(n > 10 && n < 159, "{n}");
    for (start, end) in [
        ("2026-11-21 21:46:58Z", "2026-11-21T21:46:59.5Z"),
        ("2026-11-21 21:46:58 UTC", "21:46:59.5Z"),
        ("21:46:58Z", "1795297619.5"),
    ] {
        let (got, err, code) = echo(start, end);
        assert_eq!(code, 0, "{start} {end}: {err}");
        assert_eq!(got, want, "{start} .. {end}");
    }
    // Offsets as seconds and as durations.
    let (want, _, code) = echo("+0.5", "+1.25");
    assert_eq!(code, 0);
    assert!(!want.is_empty());
    for (start, end) in [("+500ms", "+1s250ms"), ("+0.5s", "+1250ms")] {
        let (got, err, code) = echo(start, end);
        assert_eq!(code, 0, "{start} {end}: {err}");
        assert_eq!(got, want, "{start} .. {end}");
    }
    let (all, _, _) = echo("+0", "+1m30s");
    assert_eq!(all.lines().count(), 159);
}

#[test]
fn a_time_outside_the_bag_says_so() {
    for (start, end) in [
        ("2020-01-01Z", "2020-01-02Z"),
        ("+1h", "+2h"),
        ("1795297620.5", "1795297699"),
    ] {
        let (out, err, code) = echo(start, end);
        assert_eq!(code, 2, "{start} {end}: {err}");
        assert!(out.is_empty());
        assert!(
            err.contains("outside") && err.contains("1795297617.") && err.contains("1795297620."),
            "{start} .. {end}: {err}"
        );
    }
    let (_, err, code) = echo("yesterday", "+1");
    assert_eq!(code, 2);
    assert!(
        err.contains("'yesterday'") && err.contains("+1m30s"),
        "{err}"
    );
}
