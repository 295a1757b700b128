//! Every bag `bagscope filter` and `bagscope reindex` write opens in Debian's `rosbag info` and
//! `rosbag check`, and the official Python reader reads from it exactly the selected input
//! messages: topic, receive time, payload (size and md5) and the full connection header of
//! each. The input side is read by the official reader too (a `rosbag reindex`ed copy where
//! it is unindexed: then the copy must hold at least what the official reindex keeps), or,
//! for versions it cannot read, compared with the reference dumps made from the source
//! messages.
//!
//! Skipped (with the reason printed) when `rosbag` or Python's `rosbag` are absent.

use std::collections::HashMap;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common;
use crate::common::official::{connection_headers, dump_full, have_rosbag_cli, rosbag};
use crate::common::{Reference, bagscope, corpus_dir, fixtures_dir, nanos, skip};

/// A message as compared: (time ns, topic, size, payload md5, connection header as JSON).
type Msg = (i128, String, u64, String, String);

/// The messages of a dump with their connection headers.
fn messages(dump: &Value) -> Vec<Msg> {
    assert!(dump["ok"] == true, "official reader failed: {dump}");
    let headers = connection_headers(dump);
    let mut v: Vec<Msg> = common::official::rows(dump)
        .into_iter()
        .map(|(t, topic, size, md5, conn)| {
            let (_, header) = &headers[&conn];
            (t, topic, size, md5, header.to_string())
        })
        .collect();
    v.sort();
    v
}

/// Asserts that `sub` is contained in `sup` (both sorted multisets).
fn assert_contains(sup: &[Msg], sub: &[Msg], what: &str) {
    let mut counts: HashMap<&Msg, i64> = HashMap::new();
    for m in sup {
        *counts.entry(m).or_default() += 1;
    }
    for m in sub {
        let n = counts.entry(m).or_default();
        *n -= 1;
        assert!(*n >= 0, "{what}: {m:?} missing from the copy");
    }
}

/// `rosbag info` and `rosbag check` accept the bag; info shows `messages` messages.
fn official_tools_accept(path: &Path, messages: usize, system_types: bool) {
    let name = path.display();
    let (ok, out, err) = rosbag(&[OsStr::new("info"), path.as_os_str()]);
    assert!(
        ok && !err.contains("ERROR") && !err.contains("Traceback"),
        "rosbag info {name}: {out}{err}"
    );
    let row = |key: &str| {
        out.lines()
            .find_map(|l| l.strip_prefix(key))
            .map(|v| v.trim().to_string())
            .unwrap_or_default()
    };
    assert_eq!(row("version:"), "2.0", "rosbag info {name}: {out}");
    assert_eq!(
        row("messages:"),
        messages.to_string(),
        "rosbag info {name}: {out}"
    );
    let (ok, out, err) = rosbag(&[OsStr::new("check"), path.as_os_str()]);
    assert!(
        ok && !err.contains("Traceback") && !out.contains("ERROR"),
        "rosbag check {name}: {out}{err}"
    );
    if system_types {
        assert!(
            out.contains("does not need any migrations"),
            "rosbag check {name}: {out}"
        );
    }
}

fn run_bagscope(args: &[&OsStr]) -> std::process::Output {
    let o = bagscope().args(args).output().unwrap();
    assert!(
        o.status.code().is_some_and(|c| c <= 1),
        "bagscope {args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    o
}

/// (time ns, topic) bounds of a selection, absolute.
struct Selection {
    topics: Option<Vec<&'static str>>,
    start: Option<i128>,
    end: Option<i128>,
}

impl Selection {
    fn keeps(&self, m: &Msg) -> bool {
        self.topics
            .as_ref()
            .is_none_or(|t| t.contains(&m.1.as_str()))
            && self.start.is_none_or(|s| m.0 >= s)
            && self.end.is_none_or(|e| m.0 <= e)
    }
}

fn time_arg(ns: i128) -> String {
    format!("{}.{:09}", ns / 1_000_000_000, ns % 1_000_000_000)
}

#[test]
fn filtered_copies_read_like_the_selection() {
    if let Err(why) = have_rosbag_cli() {
        skip(&why);
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let fx = fixtures_dir();
    let recorded = fx.join("recorded.bag");
    let t0 = messages(&dump_full(std::slice::from_ref(&recorded), &[])[0])[0].0;
    let window = (t0 + 500_000_000, t0 + 2_500_000_000);
    let mut cases: Vec<(PathBuf, Vec<String>, Selection, &str)> = Vec::new();
    for compression in ["none", "bz2", "lz4"] {
        cases.push((
            recorded.clone(),
            vec![
                "-t",
                "/chatter",
                "-t",
                "/tf_static",
                "-t",
                "/imu",
                "--compression",
                compression,
                "--start",
            ]
            .into_iter()
            .map(String::from)
            .chain([time_arg(window.0), "--end".into(), time_arg(window.1)])
            .collect(),
            Selection {
                topics: Some(vec!["/chatter", "/tf_static", "/imu"]),
                start: Some(window.0),
                end: Some(window.1),
            },
            compression,
        ));
    }
    cases.push((
        fx.join("recorded_lz4.bag"),
        vec!["--chunk-size".into(), "4".into()],
        Selection {
            topics: None,
            start: None,
            end: None,
        },
        "lz4",
    ));
    cases.push((
        fx.join("recorded_record_lz4.bag"),
        [
            "-t",
            "/camera/image_raw",
            "-t",
            "/rosout",
            "--compression",
            "bz2",
        ]
        .map(String::from)
        .to_vec(),
        Selection {
            topics: Some(vec!["/camera/image_raw", "/rosout"]),
            start: None,
            end: None,
        },
        "bz2",
    ));
    let inputs: Vec<PathBuf> = cases.iter().map(|c| c.0.clone()).collect();
    let input_dumps = dump_full(&inputs, &[]);
    let mut outputs = Vec::new();
    for (i, (input, args, _, _)) in cases.iter().enumerate() {
        let out = dir.path().join(format!("filtered_{i}.bag"));
        let mut a: Vec<&OsStr> = vec![OsStr::new("filter"), input.as_os_str(), out.as_os_str()];
        a.extend(args.iter().map(OsStr::new));
        let o = run_bagscope(&a);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
        outputs.push(out);
    }
    let output_dumps = dump_full(&outputs, &[]);
    for (i, ((input, _, selection, compression), out)) in cases.iter().zip(&outputs).enumerate() {
        let what = format!("case {i} ({})", input.display());
        let want: Vec<Msg> = messages(&input_dumps[i])
            .into_iter()
            .filter(|m| selection.keeps(m))
            .collect();
        let got = messages(&output_dumps[i]);
        assert!(!want.is_empty(), "{what}");
        assert_eq!(got, want, "{what}");
        let chunks = output_dumps[i]["compression"].as_array().unwrap();
        assert!(
            !chunks.is_empty() && chunks.iter().all(|c| c == compression),
            "{what}: {chunks:?}"
        );
        official_tools_accept(out, got.len(), true);
    }
}

#[test]
fn reindexed_fixtures_keep_what_the_official_reindex_keeps() {
    if let Err(why) = have_rosbag_cli() {
        skip(&why);
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let fx = fixtures_dir();
    let v2 = [
        "recorded.bag",
        "recorded_bz2.bag",
        "recorded_crash.bag.active",
        "recorded_crash_lz4.bag.active",
        "truncated.bag",
        "truncated_lz4.bag",
    ];
    let inputs: Vec<PathBuf> = v2.iter().map(|n| fx.join(n)).collect();
    let input_dumps = dump_full(&inputs, &["--reindex-copy"]);
    let mut outputs = Vec::new();
    for (i, input) in inputs.iter().enumerate() {
        let out = dir.path().join(format!("reindexed_{i}.bag"));
        run_bagscope(&[OsStr::new("reindex"), input.as_os_str(), out.as_os_str()]);
        outputs.push(out);
    }
    let output_dumps = dump_full(&outputs, &[]);
    for (i, name) in v2.iter().enumerate() {
        let theirs = messages(&input_dumps[i]);
        let ours = messages(&output_dumps[i]);
        if input_dumps[i]["reindexed"] == true {
            assert_contains(&ours, &theirs, name);
            assert!(ours.len() >= theirs.len(), "{name}");
        } else {
            assert_eq!(ours, theirs, "{name}");
        }
        // Connection ids are kept.
        let ids = |d: &Value| {
            let mut v: Vec<(u64, String)> = connection_headers(d)
                .into_iter()
                .map(|(id, (t, _))| (id, t))
                .collect();
            v.sort();
            v
        };
        assert_eq!(ids(&output_dumps[i]), ids(&input_dumps[i]), "{name}");
        official_tools_accept(&outputs[i], ours.len(), true);
    }
    // The crash and truncation fixtures hold more than the official reindex recovers.
    let more = |n: &str| {
        let i = v2.iter().position(|x| *x == n).unwrap();
        messages(&output_dumps[i]).len() - messages(&input_dumps[i]).len()
    };
    assert!(more("recorded_crash.bag.active") > 0);
    assert!(more("truncated.bag") > 0);

    // Versions the official reader cannot read (or not fully): compared with the reference
    // dumps (the official reader's for 1.2, made from the source messages for 1.0 and 0).
    let old = [
        "v12_indexed.bag",
        "v12_unindexed.bag",
        "v12_crashed.bag",
        "v10.bag",
        "v0.bag",
    ];
    let mut outputs = Vec::new();
    for name in old {
        let out = dir.path().join(format!("old_{name}"));
        run_bagscope(&[
            OsStr::new("reindex"),
            fx.join(name).as_os_str(),
            out.as_os_str(),
        ]);
        outputs.push(out);
    }
    let output_dumps = dump_full(&outputs, &["--decode"]);
    for (i, name) in old.iter().enumerate() {
        let stem = name.strip_suffix(".bag").unwrap();
        let reference = Reference::load(&fx.join(format!("{stem}.ref.jsonl")));
        let mut want: Vec<(i128, String, u64, String)> = reference
            .messages
            .iter()
            .map(|m| {
                (
                    nanos(&m["time"]).unwrap(),
                    m["topic"].as_str().unwrap().to_string(),
                    m["size"].as_u64().unwrap(),
                    m["md5"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        want.sort();
        let mut got: Vec<(i128, String, u64, String)> = messages(&output_dumps[i])
            .into_iter()
            .map(|m| (m.0, m.1, m.2, m.3))
            .collect();
        got.sort();
        assert!(!want.is_empty(), "{name}");
        assert_eq!(got, want, "{name}");
        // The definitions in the copy (from the 1.2 bag, or the bundled ones for older
        // versions) decode every message: genpy's classes serialize it back to the same bytes.
        for row in output_dumps[i]["messages"].as_array().unwrap() {
            assert_eq!(row[5], row[3], "{name}: {row}");
        }
        // The v12 fixtures use `roslib/Log`, a type today's ROS no longer has.
        let system_types = !name.starts_with("v12");
        official_tools_accept(&outputs[i], got.len(), system_types);
    }
}

#[test]
fn reindexed_corpus_bags_read_like_their_inputs() {
    if let Err(why) = have_rosbag_cli() {
        skip(&why);
        return;
    }
    let Some(corpus) = corpus_dir() else {
        skip("the shared corpus is not present");
        return;
    };
    let mut inputs: Vec<PathBuf> = std::fs::read_dir(&corpus)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "bag"))
        .collect();
    inputs.sort();
    let input_dumps = dump_full(&inputs, &["--reindex-copy"]);
    let dir = tempfile::tempdir().unwrap();
    let mut compared = Vec::new();
    for (i, input) in inputs.iter().enumerate() {
        if input_dumps[i]["ok"] != true {
            continue; // the official reader cannot read it either
        }
        let out = dir.path().join(format!("{i}.bag"));
        let o = bagscope()
            .args([OsStr::new("reindex"), input.as_os_str(), out.as_os_str()])
            .output()
            .unwrap();
        assert!(
            o.status.code().is_some_and(|c| c <= 1),
            "{}: {}",
            input.display(),
            String::from_utf8_lossy(&o.stderr)
        );
        compared.push((i, out));
    }
    assert!(compared.len() >= 10, "most of the corpus is readable");
    let outs: Vec<PathBuf> = compared.iter().map(|(_, o)| o.clone()).collect();
    let output_dumps = dump_full(&outs, &[]);
    for ((i, out), dump) in compared.iter().zip(&output_dumps) {
        let name = inputs[*i].display().to_string();
        let theirs = messages(&input_dumps[*i]);
        let ours = messages(dump);
        if input_dumps[*i]["reindexed"] == true {
            assert_contains(&ours, &theirs, &name);
        } else {
            assert_eq!(ours, theirs, "{name}");
        }
        let (ok, info, err) = rosbag(&[OsStr::new("info"), out.as_os_str()]);
        assert!(
            ok && !err.contains("ERROR"),
            "rosbag info of the copy of {name}: {info}{err}"
        );
    }
}
