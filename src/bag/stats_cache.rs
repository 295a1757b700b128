//! The compression statistics of bags read before, remembered on disk so that `info` on the
//! same unchanged file reads no chunk record header again.
//!
//! `rosbag info`'s compression line needs every chunk record's header: one small read per
//! chunk, scattered over the whole file. For a bag of a few thousand chunks in the page cache
//! that is about half of `info`'s time; for a terabyte bag of 1.3 M chunks on a network file
//! system it is minutes, every time. Its answer depends only on the file's bytes, so it is
//! kept, one small text file per bag, under the user's cache directory, and used again only
//! while the file is provably the one it was computed from:
//!
//! * the same device, inode, size, modification and status change times (nanoseconds; a
//!   write moves both times, and the status change time cannot be set back);
//! * the file had not changed for [`MIN_AGE`] when the entry was written, so a later write
//!   lands on a later time even on file systems with coarse timestamps;
//! * the same index: a hash of every chunk's position and times, and every connection's
//!   message count, as read this time;
//! * an entry whose text does not check out (its own checksum) is ignored;
//! * the directory is private: owned by the user running `bagscope` and writable by no one
//!   else. In a directory others can write (a shared `BAGSCOPE_CACHE_DIR=/tmp/x`), anyone
//!   could plant an entry that makes `info` show statistics of their choosing, or a link that
//!   makes a write land on another file: such a directory is neither read nor written.
//!
//! Only a bag opened cleanly from its index, with every chunk header read and no warning, is
//! remembered. Anything that goes wrong with the cache (no directory, read-only, full, a torn
//! or foreign entry) only means the headers are read as before: it never fails the command.

use std::fmt::Write as _;
use std::hash::Hasher;
use std::io::{Read as _, Write as _};
use std::os::unix::fs::{DirBuilderExt as _, OpenOptionsExt as _};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use twox_hash::XxHash64;

use super::compression_stats::CompressionStats;
use super::handle::Bag;
use super::source::FileStamp;
use crate::format::Compression;

/// How long a file must have been unchanged before its statistics are remembered.
pub const MIN_AGE: Duration = Duration::from_secs(2);
/// Bags of fewer chunks are not remembered: their headers are read in well under a
/// millisecond.
pub const MIN_CHUNKS: usize = 512;
/// Entries kept at most; beyond, the least recently written are removed.
const MAX_ENTRIES: usize = 4096;
/// The longest entry read (a real one is a few hundred bytes).
const MAX_ENTRY_BYTES: u64 = 16 << 10;
/// The first line of every entry (the format's version is in it).
const MAGIC: &str = "bagscope compression statistics 1";

/// A directory of remembered compression statistics.
#[derive(Clone, Debug)]
pub struct StatsCache {
    dir: PathBuf,
    min_age: Duration,
    min_chunks: usize,
}

impl StatsCache {
    /// Entries under `dir` (created when the first one is written).
    pub fn new(dir: PathBuf) -> StatsCache {
        StatsCache {
            dir,
            min_age: MIN_AGE,
            min_chunks: MIN_CHUNKS,
        }
    }

    /// The same, remembering bags of any age and size (tests).
    #[cfg(test)]
    pub(crate) fn eager(dir: PathBuf) -> StatsCache {
        StatsCache {
            dir,
            min_age: Duration::ZERO,
            min_chunks: 1,
        }
    }

    /// Where `bag`'s entry is: its key (file and index hash), worked out once for the lookup
    /// and the store that may follow it (hashing a million chunks' index takes milliseconds).
    pub fn slot(&self, bag: &Bag) -> Slot {
        Slot(Key::of(bag, self.min_chunks))
    }

    /// The statistics remembered for `bag`, when there is an entry for this very file and
    /// index that checks out.
    pub fn load(&self, bag: &Bag) -> Option<Vec<CompressionStats>> {
        self.load_in(&self.slot(bag))
    }

    /// [`StatsCache::load`] for the bag whose [`StatsCache::slot`] `slot` is.
    pub fn load_in(&self, slot: &Slot) -> Option<Vec<CompressionStats>> {
        let key = slot.0.as_ref()?;
        if !private(&self.dir) {
            return None;
        }
        let mut text = String::new();
        std::fs::File::open(self.entry_path(&key.stamp))
            .ok()?
            .take(MAX_ENTRY_BYTES)
            .read_to_string(&mut text)
            .ok()?;
        parse(&text, key)
    }

    /// Remembers `stats`, the compression statistics just read for `bag`, when the bag
    /// qualifies (opened cleanly from its index, every header read, no warning, unchanged for
    /// [`MIN_AGE`], at least [`MIN_CHUNKS`] chunks). True when an entry was written.
    pub fn store(&self, bag: &Bag, stats: &[CompressionStats]) -> bool {
        self.store_in(&self.slot(bag), bag, stats)
    }

    /// [`StatsCache::store`], `slot` being `bag`'s [`StatsCache::slot`].
    pub fn store_in(&self, slot: &Slot, bag: &Bag, stats: &[CompressionStats]) -> bool {
        let Some(key) = &slot.0 else {
            return false;
        };
        let clean = bag.is_indexed()
            && bag.pending_heads() == 0
            && bag.changed_on_disk().is_none()
            && bag.warnings().is_empty();
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX));
        let age = now.saturating_sub(key.stamp.last_change());
        let old_enough = u64::try_from(age).is_ok_and(|a| a >= self.min_age.as_secs())
            && key.stamp.last_change() <= now;
        if !clean || !old_enough {
            return false;
        }
        self.write(key, &entry_text(key, stats)).is_ok()
    }

    /// Writes an entry beside its final name and renames it there (a reader sees the old
    /// entry or the new one, never half of one; a torn entry left by a crash fails its
    /// checksum). No `fsync`: losing an entry only means reading the headers again.
    fn write(&self, key: &Key, text: &str) -> std::io::Result<()> {
        // Readable by the user alone: the entries name the user's files by inode.
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&self.dir)?;
        if !private(&self.dir) {
            return Err(std::io::Error::other("the cache directory is not private"));
        }
        let path = self.entry_path(&key.stamp);
        let tmp = path.with_extension(format!("tmp{}", std::process::id()));
        // A file left there by a run that crashed (a link is removed, not followed); then a
        // new file or nothing: never one that exists, nor where a link points.
        let _ = std::fs::remove_file(&tmp);
        std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&tmp)?
            .write_all(text.as_bytes())?;
        if let Err(e) = std::fs::rename(&tmp, &path) {
            let _ = std::fs::remove_file(&tmp);
            return Err(e);
        }
        self.prune();
        Ok(())
    }

    /// Keeps at most [`MAX_ENTRIES`] entries, removing the least recently written.
    fn prune(&self) {
        let Ok(dir) = std::fs::read_dir(&self.dir) else {
            return;
        };
        let mut entries: Vec<(SystemTime, PathBuf)> = dir
            .filter_map(Result::ok)
            .filter(|e| e.file_name().to_str().is_some_and(is_entry_name))
            .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())))
            .collect();
        if entries.len() <= MAX_ENTRIES {
            return;
        }
        entries.sort_unstable();
        let excess = entries.len() - MAX_ENTRIES;
        for (_, path) in entries.into_iter().take(excess) {
            let _ = std::fs::remove_file(path);
        }
    }

    /// Where the entry of the file with `stamp` lives: one per device and inode, so a file
    /// that changes replaces its entry.
    fn entry_path(&self, stamp: &FileStamp) -> PathBuf {
        let mut h = XxHash64::with_seed(0);
        h.write_u64(stamp.dev);
        h.write_u64(stamp.ino);
        self.dir.join(format!("{:016x}", h.finish()))
    }

    /// The directory the entries are in.
    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

/// True when `dir` is a directory of the user running this process that no one else can
/// write to (so no one else can put entries or links in it).
fn private(dir: &Path) -> bool {
    use std::os::unix::fs::MetadataExt as _;
    std::fs::metadata(dir)
        .is_ok_and(|m| m.is_dir() && m.uid() == effective_uid() && m.mode() & 0o022 == 0)
}

/// The effective user id of this process.
fn effective_uid() -> u32 {
    rustix::process::geteuid().as_raw()
}

/// An entry's file name: 16 lowercase hex digits.
fn is_entry_name(name: &str) -> bool {
    name.len() == 16
        && name
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// What an entry must match: the file, and the index as read this time.
/// A bag's place in the cache ([`StatsCache::slot`]); none for a bag that is never remembered
/// (too few chunks, not a file).
pub struct Slot(Option<Key>);

struct Key {
    stamp: FileStamp,
    index: u64,
    chunks: usize,
}

impl Key {
    /// The key of `bag`; `None` for bags without a file, or of fewer than `min_chunks` chunks.
    fn of(bag: &Bag, min_chunks: usize) -> Option<Key> {
        let stamp = bag.stamp()?;
        let chunks = bag.chunks();
        if chunks.len() < min_chunks.max(1) {
            return None;
        }
        // Each chunk's position and times, 24 bytes, hashed a few thousand at a time (one
        // call of the hasher per value costs several times more at a million chunks).
        let mut h = XxHash64::with_seed(0);
        h.write_u64(chunks.len() as u64);
        let mut buf = vec![0u8; 24 * 1024];
        for group in chunks.chunks(1024) {
            let mut used = 0;
            for (slot, c) in buf.chunks_exact_mut(24).zip(group) {
                let time = |t: crate::time::RosTime| u64::from(t.sec) << 32 | u64::from(t.nsec);
                let values = [c.pos, time(c.start), time(c.end)];
                slot.copy_from_slice(bytemuck::cast_slice(&values));
                used += 24;
            }
            h.write(buf.get(..used).unwrap_or_default());
        }
        for c in bag.connections() {
            h.write_u64(c.message_count);
        }
        Some(Key {
            stamp,
            index: h.finish(),
            chunks: chunks.len(),
        })
    }

    /// The entry's lines that identify the file and its index.
    fn head(&self) -> String {
        let s = &self.stamp;
        format!(
            "{MAGIC}\nfile {} {} {} {}.{:09} {}.{:09}\nindex {:016x} {}\n",
            s.dev,
            s.ino,
            s.len,
            s.modified.0,
            s.modified.1,
            s.changed.0,
            s.changed.1,
            self.index,
            self.chunks
        )
    }
}

/// The whole text of an entry: the key's lines, one line per compression method, and a
/// checksum of everything before it.
fn entry_text(key: &Key, stats: &[CompressionStats]) -> String {
    let mut text = key.head();
    for s in stats {
        let _ = writeln!(
            text,
            "stats {} {} {} {}",
            s.compression.name(),
            s.chunks,
            s.compressed,
            s.uncompressed
        );
    }
    let sum = XxHash64::oneshot(0, text.as_bytes());
    let _ = writeln!(text, "check {sum:016x}");
    text
}

/// The statistics of an entry's `text`, when it is whole and made for `key`.
fn parse(text: &str, key: &Key) -> Option<Vec<CompressionStats>> {
    let (body, check) = text.strip_suffix('\n')?.rsplit_once('\n')?;
    let body = text.get(..=body.len())?;
    let sum = u64::from_str_radix(check.strip_prefix("check ")?, 16).ok()?;
    if sum != XxHash64::oneshot(0, body.as_bytes()) {
        return None;
    }
    let lines = body.strip_prefix(key.head().as_str())?;
    let mut stats = Vec::new();
    for line in lines.lines() {
        let mut f = line.strip_prefix("stats ")?.split(' ');
        let compression = Compression::parse(f.next()?.as_bytes())?;
        let mut number = || f.next()?.parse::<u64>().ok();
        let (chunks, compressed, uncompressed) = (number()?, number()?, number()?);
        stats.push(CompressionStats {
            compression,
            chunks,
            compressed,
            uncompressed,
        });
    }
    let counted: u64 = stats.iter().map(|s| s.chunks).sum();
    (counted <= key.chunks as u64).then_some(stats)
}

#[cfg(test)]
#[path = "stats_cache_tests.rs"]
mod tests;
