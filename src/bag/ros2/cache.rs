//! Converted storage files kept between runs ([`Cache`]): the MCAP made from a `.db3` (or a
//! file whose messages are compressed one by one) is written once under the cache
//! directory the caller names (`OpenOptions::ros2_cache`; the CLI passes
//! `$BAGSCOPE_CACHE_DIR/ros2` or `~/.cache/bagscope/ros2`), so that opening the same
//! unchanged file again reads the MCAP at once instead of converting again.
//!
//! One entry per input path: `NAME.mcap` and `NAME.key` (`NAME`: a hash of the path and how
//! the file is read). The key file holds what the entry was made from — the input's path,
//! and the device, inode, size, modification and status change times of the file and of its
//! `-wal` (or that it had none) — the entry's own inode and size, the conversion's notes, and
//! a checksum of its text. An entry is used only when all of that matches now, its MCAP
//! ends in a summary whose CRC checks out, and the directory is private (the user's own,
//! writable by no one else); anything else is ignored and written again, never trusted.
//!
//! Writing: the MCAP goes into a temporary file beside its final name, is synced, and
//! renamed; then the key file, the same way. A crash leaves an MCAP without a matching key
//! (ignored) or a temporary file (removed a day later). Inputs changed less than
//! [`MIN_AGE`] ago (a recording still being written) are not cached, nor inputs that
//! changed during the conversion. Size: entries are removed least recently used first to
//! keep the whole under [`MAX_TOTAL`]; an entry is not written when it would leave the file
//! system with less than a twentieth of its size (or 4 GiB) free: the conversion then goes
//! into an unlinked temporary file, as with no cache.

use std::fmt::Write as _;
use std::fs::File;
use std::hash::Hasher as _;
use std::io::{Read as _, Seek as _, SeekFrom, Write as _};
use std::os::unix::fs::{DirBuilderExt as _, MetadataExt as _};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use twox_hash::XxHash64;

/// The first line of every key file (the format's version is in it; a conversion that
/// writes a different MCAP changes it).
const MAGIC: &str = "bagscope converted rosbag2 storage 1";
/// How long an input must have been unchanged before its conversion is kept.
pub const MIN_AGE: Duration = Duration::from_secs(2);
/// The most the entries may take together (bytes).
pub const MAX_TOTAL: u64 = 32 << 30;
/// The most free space an entry must leave on its file system (else a twentieth of it).
const KEEP_FREE: u64 = 4 << 30;
/// The longest key file read.
const MAX_KEY_BYTES: u64 = 64 << 10;
/// Temporary files older than this are left by runs that ended early: removed.
const STALE_TEMP: Duration = Duration::from_secs(24 * 3600);

/// A directory of converted storage files.
#[derive(Clone, Debug)]
pub struct Cache {
    dir: PathBuf,
    max_total: u64,
    min_age: Duration,
}

/// Where an input's entry is and what it must match.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Key {
    name: String,
    text: String,
}

/// A cache entry found valid: its MCAP, open, and the notes of its conversion.
pub struct Hit {
    /// The MCAP.
    pub file: File,
    /// What the conversion noticed (rows left out, ...).
    pub notes: Vec<String>,
}

impl Cache {
    /// Entries under `dir` (created, private, when the first is written).
    pub fn new(dir: PathBuf) -> Cache {
        Cache {
            dir,
            max_total: MAX_TOTAL,
            min_age: MIN_AGE,
        }
    }

    /// The same with a total size and no minimum age (tests).
    #[cfg(test)]
    pub(crate) fn with_max_total(dir: PathBuf, max_total: u64) -> Cache {
        Cache {
            dir,
            max_total,
            min_age: Duration::ZERO,
        }
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The key of the input `shown` read from `files` (the storage file and its `-wal`, in
    /// that order) as `variant` says (how it is read); `None` when a file cannot be looked
    /// at or changed less than [`MIN_AGE`] ago.
    pub fn key(&self, shown: &Path, files: &[&Path], variant: &str) -> Option<Key> {
        let source = std::path::absolute(shown).ok()?;
        let mut text = format!(
            "{MAGIC}\nsource {}\nvariant {variant}\n",
            escape(&source.to_string_lossy())
        );
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX));
        let min_age = i64::try_from(self.min_age.as_secs()).unwrap_or(i64::MAX);
        for f in files {
            match std::fs::metadata(f) {
                Ok(m) => {
                    let last = m.mtime().max(m.ctime());
                    if now.saturating_sub(last) < min_age || last > now {
                        return None;
                    }
                    let _ = writeln!(
                        text,
                        "file {} {} {} {}.{:09} {}.{:09}",
                        m.dev(),
                        m.ino(),
                        m.len(),
                        m.mtime(),
                        m.mtime_nsec(),
                        m.ctime(),
                        m.ctime_nsec()
                    );
                }
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => text.push_str("file none\n"),
                Err(_) => return None,
            }
        }
        let mut h = XxHash64::with_seed(0);
        h.write(source.as_os_str().as_encoded_bytes());
        h.write(variant.as_bytes());
        Some(Key {
            name: format!("{:016x}", h.finish()),
            text,
        })
    }

    /// The valid entry for `key`, if there is one (its last use is set to now).
    pub fn lookup(&self, key: &Key) -> Option<Hit> {
        if !private(&self.dir) {
            return None;
        }
        let key_path = self.path(key, "key");
        let mut text = String::new();
        File::open(&key_path)
            .ok()?
            .take(MAX_KEY_BYTES)
            .read_to_string(&mut text)
            .ok()?;
        let (ino, len, notes) = parse(&text, key)?;
        let mut file = File::open(self.path(key, "mcap")).ok()?;
        let meta = file.metadata().ok()?;
        if meta.ino() != ino || meta.len() != len || !summary_checks_out(&mut file, len) {
            return None;
        }
        // Least recently used first when pruning: a use moves the key file's time.
        if let Ok(k) = File::options().write(true).open(&key_path) {
            let _ = k.set_modified(SystemTime::now());
        }
        Some(Hit { file, notes })
    }

    /// Whether an entry of about `size` bytes may be written: under [`MAX_TOTAL`] and
    /// leaving a twentieth of the file system (at most 4 GiB) free. Creates the directory
    /// (private).
    pub fn room_for(&self, size: u64) -> bool {
        if size > self.max_total {
            return false;
        }
        if std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&self.dir)
            .is_err()
            || !private(&self.dir)
        {
            return false;
        }
        free_space(&self.dir)
            .is_some_and(|(free, total)| free.saturating_sub(size) >= (total / 20).min(KEEP_FREE))
    }

    /// A new temporary file beside the entries, to write an entry into.
    pub fn temp_file(&self) -> std::io::Result<tempfile::NamedTempFile> {
        tempfile::Builder::new()
            .prefix(".tmp-")
            .tempfile_in(&self.dir)
    }

    /// Makes `tmp` (written, holding the MCAP) the entry of `key` with `notes`: synced,
    /// renamed, its key file written the same way; then old entries are pruned. Returns
    /// the entry's file.
    pub fn commit(
        &self,
        key: &Key,
        tmp: tempfile::NamedTempFile,
        notes: &[String],
    ) -> std::io::Result<File> {
        tmp.as_file().sync_all()?;
        let file = tmp.persist(self.path(key, "mcap")).map_err(|e| e.error)?;
        let meta = file.metadata()?;
        let mut text = key.text.clone();
        let _ = writeln!(text, "entry {} {}", meta.ino(), meta.len());
        for n in notes {
            let _ = writeln!(text, "note {}", escape(n));
        }
        let sum = XxHash64::oneshot(0, text.as_bytes());
        let _ = writeln!(text, "check {sum:016x}");
        let mut k = self.temp_file()?;
        k.write_all(text.as_bytes())?;
        k.as_file().sync_all()?;
        k.persist(self.path(key, "key")).map_err(|e| e.error)?;
        if let Ok(d) = File::open(&self.dir) {
            let _ = d.sync_all();
        }
        self.prune(&key.name);
        Ok(file)
    }

    /// Removes the least recently used entries (never `keep`) while the entries take more
    /// than the total allowed, and temporary files left by runs that ended early.
    fn prune(&self, keep: &str) {
        let Ok(dir) = std::fs::read_dir(&self.dir) else {
            return;
        };
        let now = SystemTime::now();
        // name → (last use, bytes)
        let mut entries: std::collections::HashMap<String, (SystemTime, u64)> =
            std::collections::HashMap::new();
        for e in dir.filter_map(Result::ok) {
            let Ok(meta) = e.metadata() else { continue };
            let Some(file_name) = e.file_name().to_str().map(str::to_string) else {
                continue;
            };
            let modified = meta.modified().unwrap_or(UNIX_EPOCH);
            if file_name.starts_with(".tmp-") {
                if now
                    .duration_since(modified)
                    .is_ok_and(|age| age > STALE_TEMP)
                {
                    let _ = std::fs::remove_file(e.path());
                }
                continue;
            }
            let Some((name, ext)) = file_name.rsplit_once('.') else {
                continue;
            };
            if !is_entry_name(name) || !matches!(ext, "mcap" | "key") {
                continue;
            }
            let slot = entries.entry(name.to_string()).or_insert((UNIX_EPOCH, 0));
            slot.1 += meta.len();
            if ext == "key" || slot.0 == UNIX_EPOCH {
                slot.0 = slot.0.max(modified);
            }
        }
        let mut total: u64 = entries.values().map(|(_, b)| b).sum();
        let mut oldest: Vec<(SystemTime, String, u64)> = entries
            .into_iter()
            .filter(|(name, _)| name != keep)
            .map(|(name, (used, bytes))| (used, name, bytes))
            .collect();
        oldest.sort_unstable();
        for (_, name, bytes) in oldest {
            if total <= self.max_total {
                break;
            }
            let _ = std::fs::remove_file(self.dir.join(format!("{name}.key")));
            let _ = std::fs::remove_file(self.dir.join(format!("{name}.mcap")));
            total = total.saturating_sub(bytes);
        }
    }

    fn path(&self, key: &Key, ext: &str) -> PathBuf {
        self.dir.join(format!("{}.{ext}", key.name))
    }
}

/// The entry's inode, size and notes from its key file's `text`, when the text is whole and
/// made for `key`.
fn parse(text: &str, key: &Key) -> Option<(u64, u64, Vec<String>)> {
    let (body, check) = text.strip_suffix('\n')?.rsplit_once('\n')?;
    let body = text.get(..=body.len())?;
    let sum = u64::from_str_radix(check.strip_prefix("check ")?, 16).ok()?;
    if sum != XxHash64::oneshot(0, body.as_bytes()) {
        return None;
    }
    let rest = body.strip_prefix(key.text.as_str())?;
    let mut lines = rest.lines();
    let mut entry = lines.next()?.strip_prefix("entry ")?.split(' ');
    let ino = entry.next()?.parse().ok()?;
    let len = entry.next()?.parse().ok()?;
    let notes = lines
        .map(|l| l.strip_prefix("note ").map(unescape))
        .collect::<Option<Vec<_>>>()?;
    Some((ino, len, notes))
}

/// Whether the MCAP `file` of `len` bytes ends in a footer naming a summary section whose
/// CRC checks out (a truncated or overwritten entry does not).
fn summary_checks_out(file: &mut File, len: u64) -> bool {
    const MAGIC: &[u8] = b"\x89MCAP0\r\n";
    // Footer record: opcode, length, summary start, summary offset start, summary CRC.
    const FOOTER: u64 = 1 + 8 + 8 + 8 + 4;
    let Some(footer_at) = len.checked_sub(FOOTER + MAGIC.len() as u64) else {
        return false;
    };
    let mut tail = [0u8; 37];
    if file.seek(SeekFrom::Start(footer_at)).is_err() || file.read_exact(&mut tail).is_err() {
        return false;
    }
    let le64 = |b: &[u8]| b.try_into().map_or(0, u64::from_le_bytes);
    let (record, magic) = tail.split_at(29);
    if magic != MAGIC || record.first() != Some(&0x02) {
        return false;
    }
    let summary_start = le64(record.get(9..17).unwrap_or_default());
    let crc = record
        .get(25..29)
        .and_then(|b| b.try_into().ok())
        .map_or(0, u32::from_le_bytes);
    if summary_start == 0 || summary_start > footer_at || crc == 0 {
        return false;
    }
    // The CRC covers the summary section and the footer up to the CRC itself.
    let covered = footer_at + 25 - summary_start;
    if file.seek(SeekFrom::Start(summary_start)).is_err() {
        return false;
    }
    let mut hasher = crc32fast::Hasher::new();
    let mut left = covered;
    let mut buf = vec![0u8; 1 << 16];
    while left > 0 {
        let n = usize::try_from(left.min(buf.len() as u64)).unwrap_or(buf.len());
        let Some(part) = buf.get_mut(..n) else {
            return false;
        };
        if file.read_exact(part).is_err() {
            return false;
        }
        hasher.update(part);
        left -= n as u64;
    }
    hasher.finalize() == crc
}

/// Free and total bytes of the file system holding `dir`.
pub fn free_space(dir: &Path) -> Option<(u64, u64)> {
    let s = rustix::fs::statvfs(dir).ok()?;
    Some((
        s.f_bavail.saturating_mul(s.f_frsize),
        s.f_blocks.saturating_mul(s.f_frsize),
    ))
}

/// True when `dir` is a directory of the user running this process that no one else can
/// write to (so no one else can put entries or links in it).
fn private(dir: &Path) -> bool {
    std::fs::metadata(dir).is_ok_and(|m| {
        m.is_dir() && m.uid() == rustix::process::geteuid().as_raw() && m.mode() & 0o022 == 0
    })
}

/// An entry's name: 16 lowercase hex digits.
fn is_entry_name(name: &str) -> bool {
    name.len() == 16
        && name
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// `s` on one line: backslashes and line ends escaped.
fn escape(s: &str) -> String {
    s.replace('\\', "\\\\")
        .replace('\n', "\\n")
        .replace('\r', "\\r")
}

/// The inverse of [`escape`].
fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some('n') => out.push('\n'),
                Some('r') => out.push('\r'),
                Some(other) => out.push(other),
                None => out.push('\\'),
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
#[path = "cache_tests.rs"]
mod tests;
