//! `bagscope info` prints the `rosbag info` block (text and `--yaml`) exactly as the official
//! tool does for every bag it can read, and `--json` agrees with the reference dumps.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

use crate::common::{Reference, bags_with_refs, corpus_dir, fixtures_dir, nanos, skip};

fn bagscope(args: &[&str], dir: &Path) -> (String, String, i32) {
    let out = Command::new(env!("CARGO_BIN_EXE_bagscope"))
        .args(args)
        .current_dir(dir)
        .env("TZ", "UTC")
        .env("BAGSCOPE_CACHE_DIR", "")
        .output()
        .unwrap();
    (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
        out.status.code().unwrap_or(-1),
    )
}

/// Replaces the `path:` line's value, which depends on where the reference was made.
fn without_path(text: &str) -> String {
    text.lines()
        .map(|l| {
            if l.starts_with("path:") {
                "path: <bag>".to_string()
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn check_dir(dir: &Path) -> usize {
    let mut compared = 0;
    for (bag, refp) in bags_with_refs(dir) {
        let name = bag.file_name().unwrap().to_string_lossy().to_string();
        let stem = name.strip_suffix(".bag").unwrap_or(&name);
        let info_path = dir.join(format!("{stem}.info.txt"));
        let Ok(reference) = std::fs::read_to_string(&info_path) else {
            continue;
        };
        let (ref_text, ref_yaml) = reference.split_once("\n---\n").unwrap_or((&reference, ""));
        let r = Reference::load(&refp);
        let (text, err, code) = bagscope(&["info", &name], dir);
        if !ref_text.starts_with("path:") {
            // The official tool could not read it. We either read it (unindexed, truncated,
            // old versions) or fail cleanly like it.
            if r.is_error()
                && name != "gen-quirk_lz4_multiframe.bag"
                && r.header["version"].is_null()
            {
                assert_eq!(code, 2, "{name}: {err}");
                assert!(err.starts_with("bagscope: error: "), "{name}: {err}");
                assert!(err.contains("(at byte "), "{name}: {err}");
            } else {
                assert!(text.starts_with("path:"), "{name}: {text}{err}");
            }
            continue;
        }
        if !ref_text.contains("\nmessages:") && r.header["messages"].as_u64().unwrap_or(0) > 0 {
            // rosbag shows only path/version/size for unindexed 1.2 bags; we show everything.
            assert!(text.contains("\nmessages:"), "{name}: {text}");
            continue;
        }
        // rosbag's block is reproduced line for line; our additions follow it.
        let ours: Vec<&str> = text.lines().take(ref_text.lines().count()).collect();
        assert_eq!(
            without_path(&ours.join("\n")),
            without_path(ref_text.trim_end()),
            "{name}: text"
        );
        if ref_yaml.starts_with("path:") {
            let (yaml, _, _) = bagscope(&["info", "--yaml", &name], dir);
            let (mut ours, mut theirs) = (
                without_path(yaml.trim_end()),
                without_path(ref_yaml.trim_end()),
            );
            if r.header["version"] == "1.2" {
                // rosbag's YAML sums per-topic counts over chunks, so 1.2 bags show 0 there;
                // we print the real counts (docs/cli.md lists this difference).
                let drop = |t: &str| {
                    t.lines()
                        .filter(|l| !l.starts_with("      messages:"))
                        .collect::<Vec<_>>()
                        .join("\n")
                };
                ours = drop(&ours);
                theirs = drop(&theirs);
            }
            assert_eq!(ours, theirs, "{name}: yaml");
        }
        compared += 1;
    }
    compared
}

#[test]
fn text_and_yaml_match_rosbag_info() {
    let Some(dir) = corpus_dir() else {
        skip("../shared/corpus is not present");
        return;
    };
    assert!(check_dir(&dir) >= 20);
    let fixtures = fixtures_dir();
    if fixtures.is_dir() {
        check_dir(&fixtures);
    }
}

#[test]
fn json_agrees_with_the_reference_dumps() {
    let Some(dir) = corpus_dir() else {
        skip("../shared/corpus is not present");
        return;
    };
    for (bag, refp) in bags_with_refs(&dir) {
        let name = bag.file_name().unwrap().to_string_lossy().to_string();
        let r = Reference::load(&refp);
        if r.is_error() || r.header["version"] == "1.1" {
            continue;
        }
        let (text, err, _) = bagscope(&["info", "--json", &name], &dir);
        let j: Value =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{name}: {e}: {text}{err}"));
        let h = &r.header;
        assert_eq!(j["version"], h["version"], "{name}");
        if h["reindexed"] == true {
            assert!(j["messages"].as_u64() >= h["messages"].as_u64(), "{name}");
            continue;
        }
        assert_eq!(j["messages"], h["messages"], "{name}");
        assert_eq!(j["indexed"], h["indexed"], "{name}");
        assert_eq!(nanos(&j["start"]), nanos(&h["start"]), "{name}: start");
        assert_eq!(nanos(&j["end"]), nanos(&h["end"]), "{name}: end");
        assert_eq!(j["chunks"], h["chunks"], "{name}");
        for (method, stats) in h["compression"].as_object().unwrap() {
            assert_eq!(
                j["compression"][method], stats["chunks"],
                "{name}: {method}"
            );
        }
        let topics = j["topics"].as_array().unwrap();
        let mut names: Vec<&str> = topics
            .iter()
            .map(|t| t["topic"].as_str().unwrap())
            .collect();
        let sorted = {
            let mut s = names.clone();
            s.sort();
            s
        };
        assert_eq!(names, sorted, "{name}: topics sorted by name");
        names.dedup();
        for t in topics {
            let expected: u64 = h["connections"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|c| c["topic"] == t["topic"])
                .map(|c| c["count"].as_u64().unwrap())
                .sum();
            assert_eq!(
                t["messages"].as_u64().unwrap(),
                expected,
                "{name}: {}",
                t["topic"]
            );
        }
    }
}

#[test]
fn unreadable_files_fail_with_exit_2_and_a_located_error() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("empty.bag"), b"").unwrap();
    std::fs::write(dir.path().join("text.bag"), b"hello\nworld\n").unwrap();
    for name in ["empty.bag", "text.bag", "missing.bag"] {
        let (out, err, code) = bagscope(&["info", name], dir.path());
        assert_eq!(code, 2, "{name}");
        assert!(out.trim().is_empty(), "{name}: {out}");
        assert!(
            err.starts_with(&format!("bagscope: error: {name}: ")),
            "{name}: {err}"
        );
        assert!(!err.contains("panicked"), "{name}: {err}");
    }
}

/// `--freq` agrees with `rosbag info --freq` (run live; skipped without the official tool).
#[test]
fn freq_matches_rosbag_info_freq() {
    let Some(dir) = corpus_dir() else {
        skip("../shared/corpus is not present");
        return;
    };
    let have_rosbag = Command::new("sh")
        .args(["-c", "command -v rosbag"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !have_rosbag {
        skip("`rosbag` is not installed (apt-get install python3-rosbag)");
        return;
    }
    let mut compared = 0;
    for (bag, _) in bags_with_refs(&dir) {
        let name = bag.file_name().unwrap().to_string_lossy().to_string();
        // Documented differences (docs/cli.md): rosbag shows only path/version/size for
        // unindexed 1.2 bags, and computes rates from unsorted stamps when chunks are out of
        // time order (we sort them).
        if name.contains("v12_unindexed") || name.contains("unsorted-chunks") {
            continue;
        }
        let theirs = Command::new("rosbag")
            .args(["info", "--freq", &name])
            .current_dir(&dir)
            .env("TZ", "UTC")
            .output()
            .unwrap();
        let theirs = String::from_utf8_lossy(&theirs.stdout).to_string();
        if !theirs.starts_with("path:") {
            continue;
        }
        let (ours, _, _) = bagscope(&["info", "--freq", &name], &dir);
        let ours: Vec<&str> = ours
            .lines()
            .take(theirs.trim_end().lines().count())
            .collect();
        assert_eq!(ours.join("\n"), theirs.trim_end(), "{name}");
        compared += 1;
    }
    assert!(compared >= 15, "compared {compared}");
}
