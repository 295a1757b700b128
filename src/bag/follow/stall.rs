//! Whether a followed recording is still being written: a file whose name now belongs to
//! another file (as `tail -F` notices), and a recording that has stopped growing with no
//! process holding it open for writing (a recorder that crashed or was killed leaves its
//! `.bag.active` behind: it must not look live forever).

use std::path::Path;
use std::time::{Duration, Instant, SystemTime};

use super::{FollowError, Follower};

/// How long a recording must go without growing before it is called stalled (when no
/// process is seen writing it).
pub const STALL_AFTER: Duration = Duration::from_secs(10);

/// The shortest time between two looks for a writing process (each reads `/proc`).
const WRITER_CHECK_EVERY: Duration = Duration::from_secs(5);

/// The most processes, and open files in all, one look for a writer goes through.
const MAX_PROCESSES: usize = 8192;
const MAX_FILES: usize = 200_000;

/// What became of the followed file's name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Gone {
    /// Another file has the name now.
    Replaced,
    /// Nothing has the name (and the recorder's finished name is another file, or none).
    Deleted,
}

impl Gone {
    /// The error that ends the follow.
    pub(super) fn error(self, path: &Path) -> FollowError {
        let path = path.to_path_buf();
        match self {
            Gone::Replaced => FollowError::Replaced { path },
            Gone::Deleted => FollowError::Deleted { path },
        }
    }
}

/// Whether a process holds the followed file open for writing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Writer {
    /// One does.
    Found,
    /// None does, as far as this system shows (processes of other users may be hidden).
    None,
    /// This system does not tell (no `/proc`).
    Unknown,
}

/// A recording that stopped growing: since when (the file's modification time).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stall {
    /// The file's modification time.
    pub since: SystemTime,
}

impl Stall {
    /// How long ago the file last grew.
    pub fn idle(&self) -> Duration {
        SystemTime::now()
            .duration_since(self.since)
            .unwrap_or_default()
    }
}

impl std::fmt::Display for Stall {
    /// `not growing since HH:MM:SS (N min) — the recorder may have stopped; …`
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let secs = self
            .since
            .duration_since(SystemTime::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let clock = i64::try_from(secs)
            .ok()
            .and_then(|s| chrono::TimeZone::timestamp_opt(&chrono::Local, s, 0).earliest())
            .map_or_else(|| secs.to_string(), |t| t.format("%H:%M:%S").to_string());
        write!(
            f,
            "not growing since {clock} ({}) — the recorder may have stopped; `bagscope reindex` makes a complete copy",
            ago(self.idle())
        )
    }
}

/// `5 s`, `20 s`, `40 min`, `3 h 5 min`: past ten seconds in steps of ten, so that a text
/// redrawn on each change (`info --follow`) changes at most every ten seconds.
pub fn ago(d: Duration) -> String {
    let s = d.as_secs();
    match s {
        0..10 => format!("{s} s"),
        10..60 => format!("{} s", s / 10 * 10),
        60..3600 => format!("{} min", s / 60),
        _ => format!("{} h {} min", s / 3600, s % 3600 / 60),
    }
}

/// A file's device and inode.
pub(super) fn identity(meta: &std::fs::Metadata) -> (u64, u64) {
    use std::os::unix::fs::MetadataExt;
    (meta.dev(), meta.ino())
}

impl Follower {
    /// Whether the followed name still names the open file: `None` when it does (or the
    /// recorder renamed `X.bag.active` to `X.bag`, its finished name), else what happened.
    pub(super) fn name_moved(&self) -> Result<Option<Gone>, FollowError> {
        match std::fs::metadata(&self.path) {
            Ok(m) if identity(&m) == self.identity => Ok(None),
            Ok(_) => Ok(Some(Gone::Replaced)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let done = self.final_path();
                let renamed = done != self.path
                    && std::fs::metadata(&done).is_ok_and(|m| identity(&m) == self.identity);
                Ok((!renamed).then_some(Gone::Deleted))
            }
            Err(source) => Err(FollowError::Io {
                path: self.path.clone(),
                source,
            }),
        }
    }

    /// The file's modification time now.
    pub fn modified(&self) -> Option<SystemTime> {
        self.stat().ok().and_then(|s| s.1)
    }

    /// The recording has not grown for [`STALL_AFTER`] (by the file's modification time, so
    /// that a file left by a recorder that died long ago is stalled at once) and no process
    /// is seen holding it open for writing: since when. `None` while it grows, while a
    /// process writes it, or once it is finished. Looks for a writer at most every few
    /// seconds, only once the file has been quiet that long.
    pub fn stalled(&mut self) -> Option<Stall> {
        self.idle_for(STALL_AFTER)
    }

    /// [`Follower::stalled`] after `quiet` without growth instead of [`STALL_AFTER`]
    /// (`--idle-timeout`).
    pub fn idle_for(&mut self, quiet: Duration) -> Option<Stall> {
        if self.finished {
            return None;
        }
        let since = self.modified()?;
        let idle = SystemTime::now().duration_since(since).ok()?;
        if idle < quiet {
            return None;
        }
        (self.writer() != Writer::Found).then_some(Stall { since })
    }

    /// Whether a process holds the file open for writing (looked up again at most every
    /// `WRITER_CHECK_EVERY`).
    pub fn writer(&mut self) -> Writer {
        if let Some((at, w)) = self.writer_check {
            if at.elapsed() < WRITER_CHECK_EVERY {
                return w;
            }
        }
        let w = find_writer(self.identity);
        self.writer_check = Some((Instant::now(), w));
        w
    }

    /// The recorder compresses its chunks and holds the one it is writing in memory: how
    /// long ago the newest message on disk was received (by the wall clock; since the open
    /// chunk was first seen when the receive times are not the wall clock's). `None` when no
    /// compressed chunk is open.
    pub fn unwritten(&self) -> Option<Duration> {
        let seen = self.pending_seen?;
        let by_clock = self
            .last_time
            .and_then(super::super::recovery::not_on_disk_for);
        Some(by_clock.unwrap_or_else(|| seen.elapsed()))
    }
}

/// Looks through `/proc/*/fd` for a descriptor of the file `(dev, ino)` open for writing
/// (its `/proc/PID/fdinfo/FD` flags say write-only or read-write). Bounded: at most
/// [`MAX_PROCESSES`] processes and [`MAX_FILES`] descriptors; only descriptors that link to
/// a path are looked at.
#[cfg(target_os = "linux")]
fn find_writer(id: (u64, u64)) -> Writer {
    let Ok(procs) = std::fs::read_dir("/proc") else {
        return Writer::Unknown;
    };
    let me = std::process::id().to_string();
    let mut files = 0usize;
    for entry in procs.flatten().take(MAX_PROCESSES) {
        let name = entry.file_name();
        let Some(pid) = name.to_str() else { continue };
        if pid == me || !pid.bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        let Ok(fds) = std::fs::read_dir(entry.path().join("fd")) else {
            continue;
        };
        for fd in fds.flatten() {
            files += 1;
            if files > MAX_FILES {
                return Writer::None;
            }
            let is_path = std::fs::read_link(fd.path())
                .is_ok_and(|l| l.as_os_str().as_encoded_bytes().first() == Some(&b'/'));
            if !is_path || !std::fs::metadata(fd.path()).is_ok_and(|m| identity(&m) == id) {
                continue;
            }
            let info = entry.path().join("fdinfo").join(fd.file_name());
            if std::fs::read_to_string(info).is_ok_and(|t| writes(&t)) {
                return Writer::Found;
            }
        }
    }
    Writer::None
}

#[cfg(not(target_os = "linux"))]
fn find_writer(_: (u64, u64)) -> Writer {
    Writer::Unknown
}

/// True when a `/proc/PID/fdinfo/FD` text's `flags:` (octal) open the file for writing.
fn writes(fdinfo: &str) -> bool {
    fdinfo
        .lines()
        .find_map(|l| l.strip_prefix("flags:"))
        .and_then(|v| u32::from_str_radix(v.trim(), 8).ok())
        .is_some_and(|flags| flags & 0o3 != 0)
}

#[cfg(test)]
mod tests {
    #[test]
    fn fdinfo_flags_tell_writers() {
        assert!(super::writes("pos:\t0\nflags:\t0100001\nmnt_id:\t1\n"));
        assert!(super::writes("flags:\t02\n"));
        assert!(!super::writes("pos:\t0\nflags:\t0100000\n"));
        assert!(!super::writes("nothing"));
    }
}
