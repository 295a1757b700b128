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
