//! Converted files kept between runs: hit, miss, stale, off, damaged entries, pruning, and
//! inputs too fresh to keep — through `output::convert_into_file`, counting conversions.

use std::io::{BufWriter, Seek as _, SeekFrom, Write as _};
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::*;
use crate::bag::ros2::db3::tests::make_db3;
use crate::bag::ros2::db3::{ConvertOptions, convert_db3};
use crate::bag::ros2::error::Ros2Error;
use crate::bag::ros2::order::Window;
use crate::bag::ros2::output::{Made, Written, convert_into_file};
use crate::bag::ros2::sqlite::{open_db, sidecar};

/// Opens `path` through `cache`; counts the conversions in `calls`.
fn open(path: &Path, cache: Option<&Cache>, calls: &mut u32) -> Made {
    let wal = sidecar(path, "-wal");
    let len = std::fs::metadata(path).unwrap().len();
    let mut convert = |out: BufWriter<std::fs::File>| -> Result<Written, Ros2Error> {
        *calls += 1;
        let db = open_db(path, path, None)?;
        let options = ConvertOptions {
            message_zstd: false,
            max_message: 1 << 20,
            max_total: 1 << 30,
            window: Window::default(),
        };
        let c = convert_db3(&db, options, out)?;
        Ok((c.out, c.facts, c.notes))
    };
    convert_into_file(path, &[path, &wal], "db3", len, cache, &mut convert).unwrap()
}

/// The entries in `dir` (file names, sorted), temporary files left out.
fn entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|d| {
            d.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .filter(|n| !n.starts_with(".tmp-"))
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

fn with_ext(dir: &Path, ext: &str) -> PathBuf {
    let name = entries(dir).into_iter().find(|n| n.ends_with(ext)).unwrap();
    dir.join(name)
}

/// Messages in a made MCAP, by its summary.
fn count(made: &Made) -> u64 {
    made.facts.message_count.unwrap()
}

#[test]
fn a_hit_converts_nothing_and_a_changed_input_is_converted_again() {
    let tmp = tempfile::tempdir().unwrap();
    let input = tmp.path().join("in.db3");
    make_db3(&input, &[10, 20, 30], true);
    let cache_dir = tmp.path().join("cache/ros2");
    let cache = Cache::with_max_total(cache_dir.clone(), 1 << 40);
    let mut calls = 0;
    let first = open(&input, Some(&cache), &mut calls);
    assert_eq!((calls, count(&first)), (1, 3));
    assert_eq!(entries(&cache_dir).len(), 2, "{:?}", entries(&cache_dir));
    let mode = std::fs::metadata(&cache_dir).unwrap().permissions().mode();
    assert_eq!(mode & 0o077, 0, "private: {mode:o}");
    // Hit: the same facts, nothing converted.
    let second = open(&input, Some(&cache), &mut calls);
    assert_eq!(calls, 1);
    assert_eq!(second.facts, first.facts);
    // The input changes (a row added): the entry is stale, converted again and replaced.
    let conn = rusqlite::Connection::open(&input).unwrap();
    conn.execute("INSERT INTO messages VALUES (4, 1, 40, x'00')", [])
        .unwrap();
    drop(conn);
    let third = open(&input, Some(&cache), &mut calls);
    assert_eq!((calls, count(&third)), (2, 4));
    assert_eq!(entries(&cache_dir).len(), 2);
    let fourth = open(&input, Some(&cache), &mut calls);
    assert_eq!((calls, count(&fourth)), (2, 4));
    // No cache: converted each time, the cache left alone.
    let before = entries(&cache_dir);
    open(&input, None, &mut calls);
    open(&input, None, &mut calls);
    assert_eq!(calls, 4);
    assert_eq!(entries(&cache_dir), before);
    // Nothing was ever written beside the input.
    assert_eq!(entries(tmp.path()), ["cache", "in.db3"]);
}

#[test]
fn damaged_entries_are_ignored_and_written_again() {
    let tmp = tempfile::tempdir().unwrap();
    let input = tmp.path().join("in.db3");
    make_db3(&input, &[10, 20, 30], false);
    let dir = tmp.path().join("c");
    let cache = Cache::with_max_total(dir.clone(), 1 << 40);
    let mut calls = 0;
    open(&input, Some(&cache), &mut calls);
    assert_eq!(calls, 1);
    // Cut short (a copy interrupted, a disk that lost the end).
    let mcap = with_ext(&dir, ".mcap");
    let len = std::fs::metadata(&mcap).unwrap().len();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&mcap)
        .unwrap()
        .set_len(len - 10)
        .unwrap();
    assert_eq!(count(&open(&input, Some(&cache), &mut calls)), 3);
    assert_eq!(calls, 2);
    // A byte of the summary changed in place (same size, same inode).
    let mut f = std::fs::OpenOptions::new().write(true).open(&mcap).unwrap();
    f.seek(SeekFrom::Start(len - 60)).unwrap();
    f.write_all(&[0x55]).unwrap();
    drop(f);
    assert_eq!(count(&open(&input, Some(&cache), &mut calls)), 3);
    assert_eq!(calls, 3);
    // The key file edited (its checksum no longer matches), or gone.
    let key = with_ext(&dir, ".key");
    let text = std::fs::read_to_string(&key).unwrap();
    std::fs::write(&key, text.replace("entry ", "entry 1")).unwrap();
    open(&input, Some(&cache), &mut calls);
    assert_eq!(calls, 4);
    std::fs::remove_file(&key).unwrap();
    open(&input, Some(&cache), &mut calls);
    assert_eq!(calls, 5);
    // Another file put in the entry's place (a different inode).
    std::fs::copy(&mcap, tmp.path().join("x")).unwrap();
    std::fs::rename(tmp.path().join("x"), &mcap).unwrap();
    open(&input, Some(&cache), &mut calls);
    assert_eq!(calls, 6);
    // Whole again: a hit.
    open(&input, Some(&cache), &mut calls);
    assert_eq!(calls, 6);
}

#[test]
fn notes_of_the_conversion_come_back_with_a_hit() {
    let tmp = tempfile::tempdir().unwrap();
    let input = tmp.path().join("in.db3");
    make_db3(&input, &[10, 20], false);
    let conn = rusqlite::Connection::open(&input).unwrap();
    conn.execute("INSERT INTO messages VALUES (3, 9, 30, x'00')", [])
        .unwrap();
    drop(conn);
    let cache = Cache::with_max_total(tmp.path().join("c"), 1 << 40);
    let mut calls = 0;
    let first = open(&input, Some(&cache), &mut calls);
    assert_eq!(first.notes.len(), 1, "{:?}", first.notes);
    assert!(first.notes[0].contains("topic id"), "{:?}", first.notes);
    let second = open(&input, Some(&cache), &mut calls);
    assert_eq!(calls, 1);
    assert_eq!(second.notes, first.notes);
}

#[test]
fn the_least_recently_used_entries_go_beyond_the_total() {
    let tmp = tempfile::tempdir().unwrap();
    let (a, b) = (tmp.path().join("a.db3"), tmp.path().join("b.db3"));
    let times: Vec<i64> = (0..3000).collect();
    make_db3(&a, &times, false);
    make_db3(&b, &times, false);
    let dir = tmp.path().join("c");
    let mut calls = 0;
    open(
        &a,
        Some(&Cache::with_max_total(dir.clone(), 1 << 40)),
        &mut calls,
    );
    let one_entry: u64 = entries(&dir)
        .iter()
        .map(|n| std::fs::metadata(dir.join(n)).unwrap().len())
        .sum();
    // Room for one entry (and the estimate, the input's size): the second replaces the first.
    let input = std::fs::metadata(&b).unwrap().len();
    let cap = one_entry.max(input) + 100;
    assert!(cap < 2 * one_entry, "{cap} {one_entry}");
    let cache = Cache::with_max_total(dir.clone(), cap);
    open(&b, Some(&cache), &mut calls);
    assert_eq!(entries(&dir).len(), 2);
    open(&b, Some(&cache), &mut calls);
    assert_eq!(calls, 2, "b is the one kept");
    open(&a, Some(&cache), &mut calls);
    assert_eq!(calls, 3, "a was removed");
}

#[test]
fn fresh_inputs_and_shared_directories_are_not_cached() {
    let tmp = tempfile::tempdir().unwrap();
    let input = tmp.path().join("in.db3");
    make_db3(&input, &[1, 2], false);
    // Just written: maybe still being recorded.
    let dir = tmp.path().join("c");
    let cache = Cache::new(dir.clone());
    assert!(cache.min_age >= Duration::from_secs(1));
    let mut calls = 0;
    open(&input, Some(&cache), &mut calls);
    open(&input, Some(&cache), &mut calls);
    assert_eq!(calls, 2);
    assert!(entries(&dir).is_empty());
    // A directory others can write to is neither read nor written.
    let shared = tmp.path().join("shared");
    std::fs::create_dir(&shared).unwrap();
    std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o777)).unwrap();
    let cache = Cache::with_max_total(shared.clone(), 1 << 40);
    open(&input, Some(&cache), &mut calls);
    open(&input, Some(&cache), &mut calls);
    assert_eq!(calls, 4);
    assert!(entries(&shared).is_empty());
}

#[test]
fn key_text_round_trips_odd_paths_and_notes() {
    for s in ["plain", "a\nb", "back\\slash\\n", "cr\r"] {
        assert_eq!(unescape(&escape(s)), s);
        assert!(!escape(s).contains('\n'));
    }
}
