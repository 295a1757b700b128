//! `.db3` storage files through the command line with the conversion cache: `info`, `echo`
//! and `verify` say the same with the cache (first run converts, second reads the entry),
//! without it (`BAGSCOPE_CACHE_DIR=` empty), and with `info --no-cache`; the input
//! directory is left exactly as it was, and the entries are private.

use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crate::common;

fn split_db3() -> PathBuf {
    common::fixtures_dir().join("ros2/bags/split_db3")
}

/// Every file of `dir`: name, size, modification time, contents.
fn snapshot(dir: &Path) -> Vec<(String, u64, SystemTime, Vec<u8>)> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            let m = e.metadata().unwrap();
            (
                e.file_name().to_string_lossy().into_owned(),
                m.len(),
                m.modified().unwrap(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect();
    files.sort();
    files
}

/// `bagscope ARGS` with `BAGSCOPE_CACHE_DIR=cache`: stdout, asserting success.
fn run(cache: &str, args: &[&str]) -> String {
    let out = common::bagscope()
        .env("BAGSCOPE_CACHE_DIR", cache)
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// `bagscope ARGS` with `BAGSCOPE_CACHE_DIR=cache`: stdout, stderr, exit code.
fn outcome(cache: &str, args: &[&str]) -> (String, String, Option<i32>) {
    let out = common::bagscope()
        .env("BAGSCOPE_CACHE_DIR", cache)
        .args(args)
        .output()
        .unwrap();
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code(),
    )
}

/// The names in `dir` by extension, temporary files left out.
fn names(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let Ok(d) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut v: Vec<PathBuf> = d
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == ext))
        .collect();
    v.sort();
    v
}

#[test]
fn a_db3_is_converted_once_and_read_from_the_cache_after() {
    let input = split_db3();
    let shown = input.to_str().unwrap();
    let before = snapshot(&input);
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    let c = cache.to_str().unwrap();
    let entries = cache.join("ros2");

    let first = run(c, &["info", shown]);
    let keys = names(&entries, "key");
    assert_eq!(keys.len(), 2, "one entry per storage file");
    assert_eq!(names(&entries, "mcap").len(), 2);
    let mode = std::fs::metadata(&entries).unwrap().permissions().mode();
    assert_eq!(mode & 0o077, 0, "{mode:o}");
    let used = |k: &PathBuf| std::fs::metadata(k).unwrap().modified().unwrap();
    let written: Vec<SystemTime> = keys.iter().map(used).collect();
    std::thread::sleep(std::time::Duration::from_millis(20));

    // The second run reads the entries (their last use moves) and says the same.
    let second = run(c, &["info", shown]);
    assert_eq!(second, first);
    let reused: Vec<SystemTime> = keys.iter().map(used).collect();
    assert!(reused.iter().zip(&written).all(|(a, b)| a > b));
    assert_eq!(names(&entries, "mcap").len(), 2);

    // Without the cache, and with `info --no-cache`: the same, nothing new kept.
    assert_eq!(run("", &["info", shown]), first);
    assert_eq!(run(c, &["info", "--no-cache", shown]), first);
    assert_eq!(names(&entries, "key"), keys);

    // Messages and verification: the same through the cache as without (this bag's
    // placeholder definitions make `echo` report messages it cannot decode: the same ones).
    let echo = ["echo", "--format", "json", shown];
    let cached = outcome(c, &echo);
    assert_eq!(cached, outcome("", &echo));
    assert!(cached.0.lines().count() > 5, "{cached:?}");
    let verify = ["verify", shown];
    assert_eq!(outcome(c, &verify), outcome("", &verify));

    // The input: exactly as it was, nothing written beside it.
    assert_eq!(snapshot(&input), before);
}

#[test]
fn a_cache_entry_that_is_damaged_is_written_again() {
    let input = split_db3();
    let shown = input.to_str().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let c = tmp.path().to_str().unwrap();
    let first = run(c, &["info", shown]);
    let entries = tmp.path().join("ros2");
    for m in names(&entries, "mcap") {
        let len = std::fs::metadata(&m).unwrap().len();
        std::fs::write(&m, vec![0u8; usize::try_from(len).unwrap()]).unwrap();
    }
    assert_eq!(run(c, &["info", shown]), first);
    // Rewritten: whole MCAP files again.
    for m in names(&entries, "mcap") {
        let bytes = std::fs::read(&m).unwrap();
        assert!(
            mcap::Summary::read(&bytes).unwrap().is_some(),
            "{}",
            m.display()
        );
    }
}
