//! Tests of the remembered compression statistics: used only for the very file and index
//! they were read from, never from an entry that does not check out, and never written for a
//! bag that is young, small or damaged.

use std::path::Path;

use super::*;

/// A bag of 40 small messages on three topics, in lz4 chunks of about 200 bytes.
fn write(path: &Path) {
    crate::bag::read::entries_ahead::tests::write(path, 200, 40);
}

fn open(path: &Path) -> Bag {
    Bag::open(path).unwrap()
}

/// The one entry file in `dir`.
fn entry(dir: &Path) -> PathBuf {
    let mut names: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(names.len(), 1, "{names:?}");
    names.pop().unwrap()
}

#[test]
fn remembered_stats_are_used_for_the_same_file_only_until_it_changes() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.bag");
    write(&path);
    let cache = StatsCache::eager(dir.path().join("cache"));
    let bag = open(&path);
    assert!(bag.chunks().len() > 4, "{}", bag.chunks().len());
    assert_eq!(cache.load(&bag), None);
    let read = bag.compression_stats();
    assert_eq!(read[0].chunks, bag.chunks().len() as u64);
    assert!(cache.store(&bag, &read));
    assert_eq!(cache.load(&open(&path)), Some(read.clone()));
    let mode = std::os::unix::fs::PermissionsExt::mode(
        &std::fs::metadata(cache.dir()).unwrap().permissions(),
    );
    assert_eq!(mode & 0o777, 0o700);

    // What is remembered is what is shown: made-up statistics come back as they were given.
    let mut made_up = read.clone();
    made_up[0].uncompressed += 1;
    assert!(cache.store(&bag, &made_up));
    let again = open(&path);
    let remembered = cache.load(&again).unwrap();
    assert_eq!(remembered, made_up);
    again.know_compression_stats(remembered);
    assert_eq!(again.compression_stats(), made_up);

    // A write (here only the modification time set back a day) makes the entry stale.
    let old = std::time::SystemTime::now() - Duration::from_secs(86_400);
    std::fs::File::options()
        .write(true)
        .open(&path)
        .unwrap()
        .set_modified(old)
        .unwrap();
    assert_eq!(cache.load(&open(&path)), None);

    // A copy is another file.
    let copy = dir.path().join("b.bag");
    std::fs::copy(&path, &copy).unwrap();
    assert_eq!(cache.load(&open(&copy)), None);
}

#[test]
fn an_entry_that_does_not_check_out_is_ignored() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.bag");
    write(&path);
    let cache = StatsCache::eager(dir.path().join("cache"));
    let bag = open(&path);
    let stats = bag.compression_stats();
    assert!(cache.store(&bag, &stats));
    let file = entry(cache.dir());
    let good = std::fs::read_to_string(&file).unwrap();
    assert_eq!(cache.load(&bag), Some(stats.clone()));
    let bad = [
        // A number changed, the checksum not.
        good.replacen("stats lz4 ", "stats lz4 1", 1),
        // Torn.
        good[..good.len() - 5].to_string(),
        good[..good.len() / 2].to_string(),
        String::new(),
        // Another index (the same checksum recomputed would still not match the key).
        good.replacen("index ", "index 0", 1),
    ];
    for text in bad {
        std::fs::write(&file, &text).unwrap();
        assert_eq!(cache.load(&bag), None, "{text}");
    }
    // More chunks counted than the bag has, with a checksum that checks out.
    let head = good.split("stats ").next().unwrap();
    let n = bag.chunks().len() + 1;
    let text = format!("{head}stats lz4 {n} 1 2\n");
    let sum = XxHash64::oneshot(0, text.as_bytes());
    let text = format!("{text}check {sum:016x}\n");
    std::fs::write(&file, &text).unwrap();
    assert_eq!(cache.load(&bag), None);
    // The same with a count that fits is taken: the checks above are what failed.
    let text = text.replace(&format!("stats lz4 {n} "), "stats lz4 3 ");
    let (body, _) = text.trim_end().rsplit_once('\n').unwrap();
    let body = format!("{body}\n");
    let sum = XxHash64::oneshot(0, body.as_bytes());
    std::fs::write(&file, format!("{body}check {sum:016x}\n")).unwrap();
    assert_eq!(cache.load(&bag).map(|s| s[0].chunks), Some(3));
}

#[test]
fn young_small_or_damaged_bags_are_not_remembered() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.bag");
    write(&path);
    let bag = open(&path);
    let stats = bag.compression_stats();
    // Just written, and few chunks: the default cache keeps nothing.
    let cache = StatsCache::new(dir.path().join("default"));
    assert!(!cache.store(&bag, &stats));
    assert!(!cache.dir().exists());

    // A chunk whose record header is not what its chunk info says.
    let bytes = std::fs::read(&path).unwrap();
    let pos = usize::try_from(bag.chunks()[2].pos).unwrap();
    let damaged = dir.path().join("d.bag");
    let mut copy = bytes.clone();
    let at = pos + memchr::memmem::find(&bytes[pos..], b"compression=lz4").unwrap();
    copy[at + 12..at + 15].copy_from_slice(b"xz9");
    std::fs::write(&damaged, &copy).unwrap();
    let eager = StatsCache::eager(dir.path().join("eager"));
    // Headers read when asked for: the bad one is a warning.
    let lazy = crate::bag::handle::OpenOptions {
        lazy_heads_from: 1,
        ..crate::bag::handle::OpenOptions::default()
    };
    let bad = Bag::open_with(&damaged, lazy).unwrap();
    assert!(bad.is_indexed());
    let stats = bad.compression_stats();
    assert!(!bad.warnings().is_empty());
    assert!(!eager.store(&bad, &stats));
    // Headers read when opened: the bag is scanned instead of opened from its index.
    let scanned = open(&damaged);
    assert!(!scanned.is_indexed());
    assert!(!eager.store(&scanned, &scanned.compression_stats()));

    // Bytes in memory have no file to be remembered by.
    let owned =
        Bag::from_bytes("mem.bag", bytes, crate::bag::handle::OpenOptions::default()).unwrap();
    assert!(!eager.store(&owned, &owned.compression_stats()));
    assert!(!eager.dir().exists());
}

#[test]
fn the_least_recently_written_entries_beyond_the_limit_are_removed() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.bag");
    write(&path);
    let cache = StatsCache::eager(dir.path().join("cache"));
    std::fs::create_dir_all(cache.dir()).unwrap();
    let old = std::time::SystemTime::now() - Duration::from_secs(3600);
    for i in 0..MAX_ENTRIES {
        let f = cache.dir().join(format!("{i:016x}"));
        std::fs::write(&f, "x").unwrap();
        std::fs::File::options()
            .write(true)
            .open(&f)
            .unwrap()
            .set_modified(old + Duration::from_secs(i as u64))
            .unwrap();
    }
    std::fs::write(cache.dir().join("not-an-entry"), "kept").unwrap();
    let bag = open(&path);
    assert!(cache.store(&bag, &bag.compression_stats()));
    let left: Vec<String> = std::fs::read_dir(cache.dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(left.len(), MAX_ENTRIES + 1);
    assert!(left.contains(&"not-an-entry".to_string()));
    assert!(
        !left.contains(&format!("{:016x}", 0)),
        "the oldest is removed"
    );
    assert!(left.contains(&format!("{:016x}", 1)));
    assert_eq!(cache.load(&bag), Some(bag.compression_stats()));
}

#[test]
fn a_directory_others_can_write_to_is_neither_read_nor_written() {
    use std::os::unix::fs::PermissionsExt as _;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.bag");
    write(&path);
    let cache = StatsCache::eager(dir.path().join("cache"));
    let bag = open(&path);
    let read = bag.compression_stats();
    assert!(cache.store(&bag, &read));
    let remembered = entry(cache.dir());
    assert_eq!(cache.load(&open(&path)), Some(read.clone()));

    // Anyone may write there now: an entry someone else planted could say anything.
    let shared = std::fs::Permissions::from_mode(0o777);
    std::fs::set_permissions(cache.dir(), shared).unwrap();
    assert_eq!(cache.load(&open(&path)), None);
    let before = std::fs::read(&remembered).unwrap();
    let mut made_up = read.clone();
    made_up[0].uncompressed += 1;
    assert!(!cache.store(&bag, &made_up));
    assert_eq!(std::fs::read(&remembered).unwrap(), before);

    // Private again: the entry is used again (it was not touched).
    std::fs::set_permissions(cache.dir(), std::fs::Permissions::from_mode(0o700)).unwrap();
    assert_eq!(cache.load(&open(&path)), Some(read));
}

#[test]
fn a_link_where_the_temporary_file_goes_is_replaced_not_followed() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.bag");
    write(&path);
    let cache = StatsCache::eager(dir.path().join("cache"));
    let bag = open(&path);
    assert!(cache.store(&bag, &bag.compression_stats()));
    let name = entry(cache.dir());
    let victim = dir.path().join("victim");
    std::fs::write(&victim, "precious").unwrap();
    let tmp = name.with_extension(format!("tmp{}", std::process::id()));
    std::os::unix::fs::symlink(&victim, &tmp).unwrap();
    assert!(cache.store(&bag, &bag.compression_stats()));
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
    assert!(!tmp.exists() && std::fs::symlink_metadata(&tmp).is_err());
    assert_eq!(cache.load(&bag), Some(bag.compression_stats()));
}
