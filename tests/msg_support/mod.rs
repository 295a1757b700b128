//! Helpers shared by the `msg_*` integration tests: finding the shared corpus and Debian's
//! Python tools, and reading reference dumps.

#![allow(dead_code, clippy::expect_used, clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// `../shared/corpus` next to the project, when present.
pub fn corpus_dir() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus");
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!("skipping: {} is absent", dir.display());
        None
    }
}

/// Every `*.ref.jsonl` of the corpus, sorted.
pub fn ref_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("read corpus dir")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.to_string_lossy().ends_with(".ref.jsonl"))
        .collect();
    files.sort();
    files
}

/// The header line of a reference dump (`None` for `"kind":"error"` dumps).
pub fn ref_header(path: &Path) -> Option<serde_json::Value> {
    let text = std::fs::read_to_string(path).expect("read ref");
    let first = text.lines().next()?;
    let header: serde_json::Value = serde_json::from_str(first).expect("ref header json");
    header.get("connections")?;
    Some(header)
}

/// The Python interpreter that has Debian's `genmsg`, `genpy` and `rosbag`, if any.
pub fn debian_python() -> Option<PathBuf> {
    for python in ["/usr/bin/python3", "python3"] {
        let ok = Command::new(python)
            .args(["-c", "import genmsg, genpy, rosbag"])
            .output()
            .is_ok_and(|o| o.status.success());
        if ok {
            return Some(PathBuf::from(python));
        }
    }
    eprintln!(
        "skipping: no python3 with Debian's genmsg/genpy/rosbag (apt install python3-rosbag)"
    );
    None
}

/// Path of a file under `tests/fixtures/msg/`.
pub fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/msg")
        .join(name)
}
