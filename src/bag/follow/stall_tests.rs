//! Recordings that stopped, files that were replaced, and compressed chunks still in the
//! recorder's memory.

#![allow(clippy::cast_possible_truncation)] // small test files

use std::time::{Duration, SystemTime};

use super::tests::{as_written, finished};
use super::*;
use crate::format::Compression;

/// A recording as a recorder that died after `k` bytes leaves it, last modified `ago`.
fn left_behind(dir: &Path, compression: Compression, ago: Duration) -> PathBuf {
    let (full, bag) = finished(dir, compression, 40);
    let live = dir.join("rec.bag.active");
    std::fs::write(&live, as_written(&full, &bag, full.len() * 2 / 3)).unwrap();
    let f = std::fs::OpenOptions::new().write(true).open(&live).unwrap();
    f.set_modified(SystemTime::now() - ago).unwrap();
    live
}

#[test]
fn a_file_last_modified_long_ago_is_stalled_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let live = left_behind(dir.path(), Compression::None, Duration::from_secs(40 * 60));
    let mut f = Follower::open(&live).unwrap();
    while f.poll(usize::MAX).unwrap().more {}
    let stall = f.stalled().expect("stalled");
    assert!(stall.idle() >= Duration::from_secs(40 * 60 - 5));
    let text = stall.to_string();
    assert!(text.starts_with("not growing since "), "{text}");
    assert!(text.contains("(40 min)"), "{text}");
    assert!(text.contains("bagscope reindex"), "{text}");
    // Past a shorter idle time as well (`--idle-timeout`), not past a longer one.
    assert!(f.idle_for(Duration::from_secs(60)).is_some());
    assert!(f.idle_for(Duration::from_secs(3 * 3600)).is_none());
}

#[test]
fn a_file_that_just_grew_is_not_stalled() {
    let dir = tempfile::tempdir().unwrap();
    let live = left_behind(dir.path(), Compression::None, Duration::ZERO);
    let mut f = Follower::open(&live).unwrap();
    while f.poll(usize::MAX).unwrap().more {}
    assert_eq!(f.stalled(), None);
}

/// A quiet file held open for writing by another process (a recorder waiting for messages)
/// is not stalled.
#[cfg(target_os = "linux")]
#[test]
fn a_quiet_file_with_a_writer_is_not_stalled() {
    let dir = tempfile::tempdir().unwrap();
    let live = left_behind(dir.path(), Compression::None, Duration::ZERO);
    let mut child = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("exec 3>>'{}'; sleep 30", live.display()))
        .spawn()
        .unwrap();
    let fd = PathBuf::from(format!("/proc/{}/fd/3", child.id()));
    let start = std::time::Instant::now();
    while !fd.exists() && start.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(20));
    }
    let old = SystemTime::now() - Duration::from_secs(3600);
    std::fs::File::options()
        .write(true)
        .open(&live)
        .unwrap()
        .set_modified(old)
        .unwrap();
    let mut f = Follower::open(&live).unwrap();
    while f.poll(usize::MAX).unwrap().more {}
    let writer = f.writer();
    let stalled = f.stalled();
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(writer, Writer::Found);
    assert_eq!(stalled, None);
}

#[test]
fn a_replaced_file_ends_the_follow_after_what_it_held() {
    let dir = tempfile::tempdir().unwrap();
    let live = left_behind(dir.path(), Compression::None, Duration::ZERO);
    let mut f = Follower::open(&live).unwrap();
    let other = dir.path().join("other");
    std::fs::write(&other, b"not the recording").unwrap();
    std::fs::rename(&other, &live).unwrap();
    // What the open file holds is still read...
    let mut n = 0;
    loop {
        let u = f.poll(usize::MAX).unwrap();
        n += u.messages.len();
        if !u.more {
            break;
        }
    }
    assert!(n > 0);
    // ...then the follow ends, saying why.
    let e = f.poll(usize::MAX).unwrap_err();
    assert!(matches!(e, FollowError::Replaced { .. }), "{e}");
    assert!(e.to_string().contains("another file"), "{e}");
}

#[test]
fn a_deleted_file_ends_the_follow_but_the_recorders_rename_does_not() {
    let dir = tempfile::tempdir().unwrap();
    let live = left_behind(dir.path(), Compression::None, Duration::ZERO);
    let mut f = Follower::open(&live).unwrap();
    while f.poll(usize::MAX).unwrap().more {}
    // `rosbag record` renames X.bag.active to X.bag: the same file.
    std::fs::rename(&live, dir.path().join("rec.bag")).unwrap();
    assert!(f.poll(usize::MAX).is_ok());
    assert!(f.poll(usize::MAX).is_ok());
    std::fs::remove_file(dir.path().join("rec.bag")).unwrap();
    assert!(
        f.poll(usize::MAX).is_ok(),
        "the poll that notices still reads"
    );
    let e = f.poll(usize::MAX).unwrap_err();
    assert!(matches!(e, FollowError::Deleted { .. }), "{e}");
}

#[test]
fn a_compressed_chunk_being_written_is_not_yet_on_disk() {
    for (compression, open) in [(Compression::Lz4, true), (Compression::None, false)] {
        let dir = tempfile::tempdir().unwrap();
        let (full, bag) = finished(dir.path(), compression, 40);
        let h = bag.head(2).unwrap();
        let k = (h.data_offset + h.compressed_size / 2) as usize;
        let live = dir.path().join("rec.bag.active");
        std::fs::write(&live, as_written(&full, &bag, k)).unwrap();
        let mut f = Follower::open(&live).unwrap();
        let u = f.poll(usize::MAX).unwrap();
        assert!(u.losses.is_empty(), "{:?}", u.losses);
        assert_eq!(f.unwritten().is_some(), open, "{compression:?}");
        // Nothing of it is reported lost by the snapshot either.
        assert!(f.snapshot().recovery().unwrap().losses.is_empty());
    }
}
