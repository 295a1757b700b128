//! Whether a followed recording is still being written: a file whose name now belongs to
//! another file (as `tail -F` notices), and a recording that has stopped growing with no
//! process holding it open for writing (a recorder that crashed or was killed leaves its
//! `.bag.active` behind: it must not look live forever).

use std::path::Path;
use std::time::{Duration, SystemTime};

use crate::bag::recovery::ago;

use super::error::FollowError;

/// How long a recording must go without growing before it is called stalled (when no
/// process is seen writing it).
pub const STALL_AFTER: Duration = Duration::from_secs(10);

/// The shortest time between two looks for a writing process (each reads `/proc`).
pub(super) const WRITER_CHECK_EVERY: Duration = Duration::from_secs(5);

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

/// A file's device and inode.
pub(super) fn identity(meta: &std::fs::Metadata) -> (u64, u64) {
    use std::os::unix::fs::MetadataExt;
    (meta.dev(), meta.ino())
}

/// Looks through `/proc/*/fd` for a descriptor of the file `(dev, ino)` open for writing
/// (its `/proc/PID/fdinfo/FD` flags say write-only or read-write). Bounded: at most
/// [`MAX_PROCESSES`] processes and [`MAX_FILES`] descriptors; only descriptors that link to
/// a path are looked at.
#[cfg(target_os = "linux")]
pub(crate) fn find_writer(id: (u64, u64)) -> Writer {
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
pub(crate) fn find_writer(_: (u64, u64)) -> Writer {
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
