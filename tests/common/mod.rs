//! Shared helpers for integration tests: locating the shared corpus and our fixtures, and
//! reading reference dumps made by the official reader.

#![allow(
    dead_code,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing
)]

use std::path::{Path, PathBuf};

use serde_json::Value;

/// The shared corpus (`../shared/corpus`, or `$BAGSCOPE_CORPUS`), if present.
pub fn corpus_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("BAGSCOPE_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus"));
    dir.is_dir().then_some(dir)
}

/// Our own fixtures directory.
pub fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// Every bag-like file in `dir` that has a `.ref.jsonl` next to it: `(bag, ref)`.
pub fn bags_with_refs(dir: &Path) -> Vec<(PathBuf, PathBuf)> {
    let mut out = Vec::new();
    let Ok(rd) = std::fs::read_dir(dir) else {
        return out;
    };
    for e in rd.flatten() {
        let p = e.path();
        let name = p.file_name().unwrap().to_string_lossy().to_string();
        if name.ends_with(".ref.jsonl")
            || name.ends_with(".info.txt")
            || name.ends_with(".md")
            || p.is_dir()
        {
            continue;
        }
        let stem = name.strip_suffix(".bag").unwrap_or(&name);
        let r = dir.join(format!("{stem}.ref.jsonl"));
        if r.exists() {
            out.push((p, r));
        }
    }
    out.sort();
    out
}

/// A parsed reference dump: header line and message lines.
pub struct Reference {
    pub header: Value,
    pub messages: Vec<Value>,
}

impl Reference {
    pub fn load(path: &Path) -> Reference {
        let text = std::fs::read_to_string(path).unwrap();
        let mut lines = text.lines().filter(|l| !l.trim().is_empty());
        let header: Value = serde_json::from_str(lines.next().unwrap_or("{}")).unwrap();
        let messages = lines.map(|l| serde_json::from_str(l).unwrap()).collect();
        Reference { header, messages }
    }

    pub fn is_error(&self) -> bool {
        self.header["kind"] == "error"
    }
}

/// Total nanoseconds of a `{"sec","nsec"}` object.
pub fn nanos(v: &Value) -> Option<i128> {
    Some(i128::from(v["sec"].as_i64()?) * 1_000_000_000 + i128::from(v["nsec"].as_i64()?))
}

/// Prints why a test is skipped.
pub fn skip(why: &str) {
    eprintln!("skipping: {why}");
}

/// The Python interpreter that has Debian's ROS packages (`/usr/bin/python3` when present:
/// a `python3` earlier on PATH, e.g. from pyenv, usually lacks them).
pub fn ros_python() -> &'static str {
    if Path::new("/usr/bin/python3").exists() {
        "/usr/bin/python3"
    } else {
        "python3"
    }
}

pub mod many_topics;
pub mod msg_support;
pub mod official;
pub mod pictures;
pub mod ros_graph;
pub mod synth;
pub mod tmux;
pub mod tui;
pub mod unindexed;
pub mod watched;

/// The whole standard error of `child` (spawned with a piped stderr), as text.
pub fn read_stderr(child: &mut std::process::Child) -> String {
    use std::io::Read;
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    err
}

/// The exit code (-1 for a signal) and the standard error of a finished command.
pub fn code_and_stderr(out: &std::process::Output) -> (i32, String) {
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The `bagscope` binary built for these tests (remembering nothing between runs: a test
/// that wants the cache sets `BAGSCOPE_CACHE_DIR` again).
pub fn bagscope() -> std::process::Command {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_bagscope"));
    cmd.env("BAGSCOPE_CACHE_DIR", "");
    cmd
}

/// Runs `bagscope ARGS`: (stdout, stderr, exit code; -1 when killed by a signal).
pub fn run_bagscope(args: &[&str]) -> (String, String, i32) {
    let out = bagscope().args(args).output().unwrap();
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code().unwrap_or(-1),
    )
}

/// A bag of `../shared/corpus`, or `None` after printing why the test skips.
pub fn corpus_bag(name: &str) -> Option<PathBuf> {
    let Some(dir) = corpus_dir() else {
        skip("../shared/corpus is not there");
        return None;
    };
    let bag = dir.join(name);
    if !bag.exists() {
        skip(&format!("{name} is not in the corpus"));
        return None;
    }
    Some(bag)
}

/// The RoCKIn YAML fixtures (`tests/fixtures/rockin/*.yaml`), sorted.
pub fn rockin_fixtures() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(fixtures_dir().join("rockin"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    v.sort();
    v
}

/// The topics of `tests/fixtures/recorded.bag`, sorted.
pub const RECORDED_TOPICS: &[&str] = &[
    "/camera/image_raw",
    "/chatter",
    "/imu",
    "/map_name",
    "/odom",
    "/rosout",
    "/tf",
    "/tf_static",
];

/// `bagscope convert INPUT OUTPUT EXTRA...`, which must succeed.
pub fn convert(input: &Path, output: &Path, extra: &[&str]) {
    let o = bagscope()
        .arg("convert")
        .arg(input)
        .arg(output)
        .args(extra)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "convert {} {}: {}",
        input.display(),
        output.display(),
        String::from_utf8_lossy(&o.stderr)
    );
}

/// The names in `dir`, sorted.
pub fn listing(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}
