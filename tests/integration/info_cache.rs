//! `bagscope info` remembers the compression statistics of a bag it read (under
//! `BAGSCOPE_CACHE_DIR`) and uses them, instead of reading every chunk record header again,
//! only for the same unchanged file; the output is the same either way.

use std::path::Path;
use std::time::{Duration, SystemTime};

use bagscope::bag::Bag;
use bagscope::bag::stats_cache::{MIN_AGE, MIN_CHUNKS, StatsCache};
use bagscope::bag::writer::{BagWriter, WriterOptions};
use bagscope::format::{Compression, ConnectionHeader};
use bagscope::time::RosTime;

use crate::common;

/// A bag of `n` one-message lz4 chunks.
fn write(path: &Path, n: u32) {
    let mut w = BagWriter::create(
        path,
        WriterOptions {
            compression: Compression::Lz4,
            chunk_size: 1,
        },
    )
    .unwrap();
    let h = ConnectionHeader::build(
        "/tick",
        "std_msgs/String",
        "992ce8a1687cec8c8bd883ec73ca41d1",
        "string data\n",
        None,
        None,
    );
    let conn = w.add_connection("/tick", &h).unwrap();
    for i in 0..n {
        let text = format!("tick {i}");
        let mut data = u32::try_from(text.len()).unwrap().to_le_bytes().to_vec();
        data.extend_from_slice(text.as_bytes());
        w.write(conn, RosTime::new(100 + i, 0), &data).unwrap();
    }
    w.finish().unwrap();
}

/// `bagscope info ARGS` with the cache in `cache` ("" turns it off): (stdout, exit code).
fn info(cache: &Path, args: &[&str]) -> (String, i32) {
    let out = common::bagscope()
        .env("BAGSCOPE_CACHE_DIR", cache)
        .env("TZ", "UTC")
        .arg("info")
        .args(args)
        .output()
        .unwrap();
    (
        String::from_utf8(out.stdout).unwrap(),
        out.status.code().unwrap_or(-1),
    )
}

fn entries(dir: &Path) -> usize {
    std::fs::read_dir(dir.join("compression")).map_or(0, Iterator::count)
}

/// The one entry in `cache`.
fn entry(cache: &Path) -> std::path::PathBuf {
    let mut names = std::fs::read_dir(cache.join("compression")).unwrap();
    let one = names.next().unwrap().unwrap().path();
    assert!(names.next().is_none());
    one
}

/// Writes a bag of more than [`MIN_CHUNKS`] chunks in `dir` and returns its path and the
/// text `info` printed for it just after it was written (then not remembered), once it is
/// old enough to be remembered.
fn aged_bag(dir: &Path, cache: &Path) -> (String, String) {
    let path = dir.join("many.bag");
    write(&path, u32::try_from(MIN_CHUNKS).unwrap() + 88);
    let bag = path.to_str().unwrap().to_string();
    let (fresh, code) = info(cache, &[&bag]);
    assert_eq!(code, 0);
    assert!(
        fresh.contains("compression:  lz4 [600/600 chunks;"),
        "{fresh}"
    );
    assert_eq!(entries(cache), 0, "just written: not remembered");
    std::thread::sleep(MIN_AGE + Duration::from_millis(200));
    (bag, fresh)
}

#[test]
fn info_shows_what_it_remembers_and_the_same_as_when_it_reads() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let (bag, fresh) = aged_bag(dir.path(), &cache);
    let bag = bag.as_str();
    let (first, _) = info(&cache, &[bag]);
    assert_eq!(entries(&cache), 1);
    let (second, _) = info(&cache, &[bag]);
    let (read, _) = info(&cache, &["--no-cache", bag]);
    assert_eq!(first, fresh);
    assert_eq!(second, fresh);
    assert_eq!(read, fresh);
    for form in ["--yaml", "--json"] {
        assert_eq!(
            info(&cache, &[form, bag]),
            info(&cache, &["--no-cache", form, bag])
        );
    }

    // What is remembered is what is shown (made-up statistics here), unless told not to.
    let opened = Bag::open(bag).unwrap();
    let mut made_up = opened.compression_stats();
    made_up[0].uncompressed *= 2;
    assert!(StatsCache::new(cache.join("compression")).store(&opened, &made_up));
    let (shown, _) = info(&cache, &[bag]);
    assert_ne!(shown, fresh);
    assert_eq!(info(&cache, &["--no-cache", bag]).0, fresh);
    // `--health` reads every header.
    let uncompressed = |t: &str| {
        let line = t.lines().find(|l| l.starts_with("uncompressed:"));
        line.unwrap().to_string()
    };
    let health = info(&cache, &["--health", bag]).0;
    assert_ne!(uncompressed(&shown), uncompressed(&fresh));
    assert_eq!(uncompressed(&health), uncompressed(&fresh));
}

#[test]
fn a_written_file_is_read_again_and_the_cache_turns_off() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let (bag, fresh) = aged_bag(dir.path(), &cache);
    let bag = bag.as_str();
    assert_eq!(info(&cache, &[bag]).0, fresh);
    let entry = entry(&cache);
    let before = std::fs::read_to_string(&entry).unwrap();

    // Any write makes the entry stale (here the modification time set back an hour).
    std::fs::File::options()
        .write(true)
        .open(bag)
        .unwrap()
        .set_modified(SystemTime::now() - Duration::from_secs(3600))
        .unwrap();
    assert_eq!(info(&cache, &[bag]).0, fresh);
    let stale = std::fs::read_to_string(&entry).unwrap();
    assert_eq!(stale, before, "just changed: not remembered");

    // Turned off: nothing written; on again, the stale entry is replaced.
    std::thread::sleep(MIN_AGE + Duration::from_millis(200));
    assert_eq!(info(Path::new(""), &[bag]).0, fresh);
    assert_eq!(std::fs::read_to_string(&entry).unwrap(), stale);
    assert_eq!(info(&cache, &[bag]).0, fresh);
    assert_ne!(std::fs::read_to_string(&entry).unwrap(), stale);
    assert_eq!(entries(&cache), 1);
}
