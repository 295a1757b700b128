//! The bytes of an open bag: an open file read with positioned reads (`pread`) into owned
//! buffers, or an owned buffer (tests, fuzzing, stdin).
//!
//! A file another process shrinks while we read it (copied over with `cp`, rewritten by
//! `rosbag reindex`, on a USB stick that is pulled) must end in an error, not in SIGBUS: every
//! read of message data goes through [`Source::read_at`], which notices a short read and
//! reports it as [`Changed`]; so does the recovery walk of a 2.0 bag without a usable index
//! (through `bag/window.rs`). The whole-file view [`Source::whole`] of the pre-2.0 layouts is
//! a copy read at open, except for files over [`WHOLE_READ_MAX`], which are still mapped; see
//! `docs/reliability.md`.

#![allow(unsafe_code)]

use std::borrow::Cow;
use std::fs::File;
use std::io;
use std::path::Path;
use std::sync::OnceLock;

/// The file changed on disk while it was read: a positioned read returned fewer bytes than
/// the file held when it was opened.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Changed {
    /// Where the read started.
    pub offset: u64,
    /// Bytes asked for (all inside the file as it was opened).
    pub wanted: u64,
    /// Bytes the read returned.
    pub got: u64,
    /// File size when opened.
    pub was: u64,
    /// File size now, if it could be read.
    pub now: Option<u64>,
}

impl std::fmt::Display for Changed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "a read of {} bytes at byte {} returned {}; the file was {} bytes when opened",
            self.wanted, self.offset, self.got, self.was
        )?;
        match self.now {
            Some(now) if now != self.was => write!(f, " and is now {now}"),
            Some(_) => write!(f, " and its contents were replaced"),
            None => write!(f, " and can no longer be read"),
        }
    }
}

/// The largest file [`Source::whole`] reads into memory rather than maps.
pub const WHOLE_READ_MAX: u64 = 256 << 20;

/// The bytes of a bag file.
pub struct Source {
    kind: Kind,
    /// The first read that came back short: from then on the file is not what was opened.
    changed: OnceLock<Changed>,
}

enum Kind {
    /// An open file, its size and identity when opened, and (only once asked for) a map of it.
    File {
        file: File,
        len: u64,
        stamp: FileStamp,
        map: OnceLock<Option<memmap2::Mmap>>,
        /// The whole file read into memory (files up to [`WHOLE_READ_MAX`]).
        copy: OnceLock<Vec<u8>>,
    },
    /// Bytes held in memory.
    Owned(Vec<u8>),
}

impl Source {
    /// Opens `path` for positioned reads. Refuses at once anything that is not a regular file
    /// (a FIFO would block the open and every read, a directory or device has no bag in it):
    /// the error is `InvalidInput` "not a regular file".
    pub fn open(path: &Path) -> io::Result<Source> {
        Source::of_file(open_regular(path)?)
    }

    /// An open regular file (a followed recording's own descriptor, so that a snapshot reads
    /// the file that was followed even if another now has its name).
    pub fn of_file(file: File) -> io::Result<Source> {
        let meta = file.metadata()?;
        let len = meta.len();
        Ok(Source {
            kind: Kind::File {
                file,
                len,
                stamp: FileStamp::of(&meta),
                map: OnceLock::new(),
                copy: OnceLock::new(),
            },
            changed: OnceLock::new(),
        })
    }

    /// Bytes held in memory.
    pub fn owned(bytes: Vec<u8>) -> Source {
        Source {
            kind: Kind::Owned(bytes),
            changed: OnceLock::new(),
        }
    }

    /// Size in bytes (of the file when it was opened).
    pub fn len(&self) -> u64 {
        match &self.kind {
            Kind::File { len, .. } => *len,
            Kind::Owned(v) => v.len() as u64,
        }
    }

    /// Which file this is and when it last changed, as it was when opened (`None` for bytes
    /// held in memory).
    pub fn stamp(&self) -> Option<FileStamp> {
        match &self.kind {
            Kind::File { stamp, .. } => Some(*stamp),
            Kind::Owned(_) => None,
        }
    }

    /// True for an empty source.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// True once a read came back short (the file shrank or vanished under us).
    pub fn changed(&self) -> bool {
        self.changed.get().is_some()
    }

    /// The first short read (what [`Source::changed`] saw), or, when there was none, a
    /// description of the file as it is now.
    pub fn short_read(&self) -> Changed {
        if let Some(c) = self.changed.get() {
            return *c;
        }
        let now = match &self.kind {
            Kind::File { file, .. } => file.metadata().ok().map(|m| m.len()),
            Kind::Owned(v) => Some(v.len() as u64),
        };
        Changed {
            offset: 0,
            wanted: 0,
            got: 0,
            was: self.len(),
            now,
        }
    }

    /// Up to `len` bytes at `offset`, clamped to the size the file had when opened; an error
    /// when the file no longer holds them.
    pub fn read_exact_at(&self, offset: u64, len: u64) -> Result<Cow<'_, [u8]>, Changed> {
        let total = self.len();
        let start = offset.min(total);
        let want = (total - start).min(len);
        match &self.kind {
            Kind::Owned(v) => {
                let a = usize::try_from(start).unwrap_or(usize::MAX);
                let b = usize::try_from(start + want).unwrap_or(usize::MAX);
                Ok(Cow::Borrowed(v.get(a..b).unwrap_or_default()))
            }
            Kind::File { file, .. } => {
                // At most the file's size, and one record's (its length field is a u32).
                let n = usize::try_from(want).unwrap_or(usize::MAX);
                let mut buf = vec![0u8; n];
                let done = pread_full(file, &mut buf, start);
                if done < n {
                    return Err(self.short(start, want, done as u64, file));
                }
                Ok(Cow::Owned(buf))
            }
        }
    }

    /// Like [`Source::read_exact_at`], into `buf` (cleared first; its allocation is reused).
    pub fn read_exact_into(&self, offset: u64, len: u64, buf: &mut Vec<u8>) -> Result<(), Changed> {
        match &self.kind {
            Kind::Owned(_) => {
                buf.clear();
                buf.extend_from_slice(&self.read_exact_at(offset, len)?);
                Ok(())
            }
            Kind::File { file, .. } => {
                let total = self.len();
                let start = offset.min(total);
                let want = (total - start).min(len);
                // Resized, not cleared: only new room is zeroed, and the read overwrites it all.
                buf.resize(usize::try_from(want).unwrap_or(usize::MAX), 0);
                let done = pread_full(file, buf, start);
                if done < buf.len() {
                    buf.truncate(done);
                    return Err(self.short(start, want, done as u64, file));
                }
                Ok(())
            }
        }
    }

    /// Up to `len` bytes at `offset` (fewer at the end of the file, or if the file changed
    /// under us: then [`Source::changed`] turns true).
    ///
    /// Small scattered reads — the index section, chunk headers, a chunk's index data — go
    /// through here: one `pread` each.
    pub fn read_at(&self, offset: u64, len: usize) -> Cow<'_, [u8]> {
        match self.read_exact_at(offset, len as u64) {
            Ok(b) => b,
            Err(_) => Cow::Borrowed(&[]),
        }
    }

    /// The whole file as one slice, for the walks that need it: the pre-2.0 layouts. A file
    /// of up to `WHOLE_READ_MAX` bytes is read into memory once, with positioned reads (a
    /// short read gives the bytes read and turns [`Source::changed`] true): a file shrinking
    /// under us later cannot touch that copy. A larger file is mapped (once); the map is the
    /// one `unsafe` of the crate, and the one read path that a file shrinking under us can
    /// still end with SIGBUS (see `docs/reliability.md`). Empty if the map fails.
    pub fn whole(&self) -> &[u8] {
        match &self.kind {
            Kind::Owned(v) => v,
            Kind::File {
                file,
                len,
                map,
                copy,
                ..
            } => {
                if *len == 0 {
                    return &[];
                }
                if *len <= WHOLE_READ_MAX {
                    return copy.get_or_init(|| {
                        let mut buf = Vec::new();
                        // A short read is kept by `read_exact_into` (`changed`).
                        let _ = self.read_exact_into(0, *len, &mut buf);
                        buf
                    });
                }
                let map = map.get_or_init(|| {
                    // SAFETY: the map is read-only and private to this process. Another
                    // process truncating or rewriting the file while we read it changes the
                    // bytes under us (or raises SIGBUS on truncation); every byte read from
                    // the map is treated as untrusted and bounds-checked, so changed contents
                    // can only produce parse errors, not undefined behaviour in our code.
                    // Only the whole-file walks use the map (module docs).
                    unsafe { memmap2::MmapOptions::new().map(file) }.ok()
                });
                let whole: &[u8] = map.as_deref().unwrap_or_default();
                let end = usize::try_from(*len).unwrap_or(usize::MAX).min(whole.len());
                whole.get(..end).unwrap_or_default()
            }
        }
    }

    fn short(&self, offset: u64, wanted: u64, got: u64, file: &File) -> Changed {
        let c = Changed {
            offset,
            wanted,
            got,
            was: self.len(),
            now: file.metadata().ok().map(|m| m.len()),
        };
        let _ = self.changed.set(c);
        c
    }
}

/// Reads into all of `buf` from `offset`; returns the bytes read (fewer at end of file or on
/// an error).
fn pread_full(file: &File, buf: &mut [u8], offset: u64) -> usize {
    fill_at(file, buf, offset).0
}

/// A positioned read that retries until `buf` is full or the file ends: the bytes read, and
/// the error that stopped it early, if one did (an interrupted read is retried).
pub(crate) fn fill_at(file: &File, buf: &mut [u8], offset: u64) -> (usize, Option<io::Error>) {
    use std::os::unix::fs::FileExt;
    let mut done = 0;
    while done < buf.len() {
        let Some(rest) = buf.get_mut(done..) else {
            break;
        };
        match file.read_at(rest, offset + done as u64) {
            Ok(0) => break,
            Ok(n) => done += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return (done, Some(e)),
        }
    }
    (done, None)
}

/// Opens `path` read-only, refusing anything but a regular file without blocking on it: the
/// metadata is checked before opening (a FIFO's `open` waits for a writer), and the opened
/// handle is checked again (the path may have been replaced in between; `O_NONBLOCK` keeps
/// that open from blocking).
pub fn open_regular(path: &Path) -> io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    // O_NONBLOCK: harmless on a regular file. (Open flags are small positive numbers: no wrap.)
    #[allow(clippy::cast_possible_wrap)]
    const O_NONBLOCK: i32 = rustix::fs::OFlags::NONBLOCK.bits() as i32;
    // O_NOATIME: reading a bag leaves its access time alone, and the kernel skips the access
    // time check on every read (3–5 % of the CPU time of `info` on a bag of 3 000 chunks,
    // which makes one small read per chunk). Only the file's owner may ask for it: anyone else
    // opens the file without it.
    #[cfg(target_os = "linux")]
    #[allow(clippy::cast_possible_wrap)]
    const NO_ATIME: i32 = rustix::fs::OFlags::NOATIME.bits() as i32;
    #[cfg(not(target_os = "linux"))]
    const NO_ATIME: i32 = 0;
    let not_regular = || io::Error::new(io::ErrorKind::InvalidInput, "not a regular file");
    if !std::fs::metadata(path)?.is_file() {
        return Err(not_regular());
    }
    let open = |flags| {
        std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(flags)
            .open(path)
    };
    let file = match open(O_NONBLOCK | NO_ATIME) {
        Err(e) if NO_ATIME != 0 && e.kind() == io::ErrorKind::PermissionDenied => open(O_NONBLOCK)?,
        opened => opened?,
    };
    if !file.metadata()?.is_file() {
        return Err(not_regular());
    }
    Ok(file)
}

/// A file's identity (device and inode), size and change times: when all are the same, the
/// file was not written since (a write sets the modification and status change times, and
/// the status change time cannot be set back).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FileStamp {
    /// Device the file is on.
    pub dev: u64,
    /// Inode number.
    pub ino: u64,
    /// Size in bytes.
    pub len: u64,
    /// Last modification, seconds and nanoseconds since the Unix epoch.
    pub modified: (i64, i64),
    /// Last status change, seconds and nanoseconds since the Unix epoch.
    pub changed: (i64, i64),
}

impl FileStamp {
    /// The stamp of a file's metadata.
    pub fn of(meta: &std::fs::Metadata) -> FileStamp {
        use std::os::unix::fs::MetadataExt;
        FileStamp {
            dev: meta.dev(),
            ino: meta.ino(),
            len: meta.len(),
            modified: (meta.mtime(), meta.mtime_nsec()),
            changed: (meta.ctime(), meta.ctime_nsec()),
        }
    }

    /// The later of the two change times, in seconds since the Unix epoch.
    pub fn last_change(&self) -> i64 {
        self.modified.0.max(self.changed.0)
    }
}

impl std::fmt::Debug for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.kind {
            Kind::File { len, .. } => write!(f, "File({len} bytes)"),
            Kind::Owned(v) => write!(f, "Owned({} bytes)", v.len()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::open_regular;
    use std::os::unix::fs::FileExt;
    use std::time::{Duration, SystemTime};

    #[test]
    #[cfg(target_os = "linux")]
    fn reading_a_bag_leaves_its_access_time_alone() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.bag");
        std::fs::write(&path, vec![7u8; 10_000]).unwrap();
        // Two days old: a `relatime` mount would set the access time on the next read.
        let old = SystemTime::now() - Duration::from_secs(2 * 86_400);
        let times = std::fs::FileTimes::new()
            .set_accessed(old)
            .set_modified(old);
        std::fs::File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_times(times)
            .unwrap();
        let file = open_regular(&path).unwrap();
        let mut buf = [0u8; 100];
        assert_eq!(file.read_at(&mut buf, 5_000).unwrap(), 100);
        assert_eq!(buf, [7u8; 100]);
        let accessed = std::fs::metadata(&path).unwrap().accessed().unwrap();
        assert_eq!(accessed, old);
    }
}
