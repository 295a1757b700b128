//! An open directory in which output files are created, renamed and removed by name, never
//! through a symbolic link at that name: on Unix every operation is relative to the open
//! directory (`openat`, `renameat`, `unlinkat`) with `O_NOFOLLOW`/`O_EXCL`, so a link planted
//! in an output directory (or a directory swapped for a link) cannot send a write elsewhere.

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};

use super::kind::FileKind;

/// An open directory (on Unix, its file descriptor), with the path it was opened by for
/// messages.
#[derive(Debug)]
pub(super) struct Dir {
    path: PathBuf,
    #[cfg(unix)]
    fd: std::os::fd::OwnedFd,
}

/// Why a subdirectory could not be opened.
pub(super) enum SubError {
    /// Something other than a directory is there (a link is never followed).
    NotADirectory(FileKind),
    /// The system's error.
    Io(io::Error),
}

#[cfg(unix)]
mod imp {
    use super::{Dir, FileKind, SubError};
    use rustix::fs::{AtFlags, FileType, Mode, OFlags};
    use std::ffi::OsStr;
    use std::fs::File;
    use std::io;
    use std::path::Path;

    const DIR_FLAGS: OFlags = OFlags::RDONLY
        .union(OFlags::DIRECTORY)
        .union(OFlags::CLOEXEC)
        .union(OFlags::NOFOLLOW);

    fn kind_of(t: FileType) -> FileKind {
        match t {
            FileType::RegularFile => FileKind::Regular,
            FileType::Directory => FileKind::Directory,
            FileType::Symlink => FileKind::Symlink,
            FileType::Fifo => FileKind::Fifo,
            FileType::CharacterDevice => FileKind::CharDevice,
            FileType::BlockDevice => FileKind::BlockDevice,
            FileType::Socket => FileKind::Socket,
            FileType::Unknown => FileKind::Other,
        }
    }

    impl Dir {
        pub(in super::super) fn open(path: &Path) -> io::Result<Dir> {
            // The directory the user named: links on its way are theirs, and followed.
            let fd = rustix::fs::open(path, DIR_FLAGS.difference(OFlags::NOFOLLOW), Mode::empty())?;
            Ok(Dir {
                path: path.to_path_buf(),
                fd,
            })
        }

        pub(in super::super) fn sub(&self, name: &OsStr, create: bool) -> Result<Dir, SubError> {
            if create {
                match rustix::fs::mkdirat(&self.fd, name, Mode::from_raw_mode(0o777)) {
                    Ok(()) | Err(rustix::io::Errno::EXIST) => {}
                    Err(e) => return Err(SubError::Io(e.into())),
                }
            }
            match rustix::fs::openat(&self.fd, name, DIR_FLAGS, Mode::empty()) {
                Ok(fd) => Ok(Dir {
                    path: self.path.join(name),
                    fd,
                }),
                Err(rustix::io::Errno::LOOP | rustix::io::Errno::NOTDIR) => Err(
                    SubError::NotADirectory(self.kind(name).unwrap_or(FileKind::Other)),
                ),
                Err(e) => Err(SubError::Io(e.into())),
            }
        }

        pub(in super::super) fn kind(&self, name: &OsStr) -> io::Result<FileKind> {
            match rustix::fs::statat(&self.fd, name, AtFlags::SYMLINK_NOFOLLOW) {
                Ok(st) => Ok(kind_of(FileType::from_raw_mode(st.st_mode))),
                Err(rustix::io::Errno::NOENT) => Ok(FileKind::Missing),
                Err(e) => Err(e.into()),
            }
        }

        pub(in super::super) fn create_new(&self, name: &OsStr) -> io::Result<File> {
            let flags =
                OFlags::RDWR | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
            // 0666 less the umask, as any new file.
            let fd = rustix::fs::openat(&self.fd, name, flags, Mode::from_raw_mode(0o666))?;
            Ok(File::from(fd))
        }

        pub(in super::super) fn reopen(&self, name: &OsStr) -> io::Result<File> {
            let flags = OFlags::RDWR | OFlags::NOFOLLOW | OFlags::CLOEXEC;
            let fd = rustix::fs::openat(&self.fd, name, flags, Mode::empty())?;
            Ok(File::from(fd))
        }

        pub(in super::super) fn rename(&self, from: &OsStr, to: &OsStr) -> io::Result<()> {
            Ok(rustix::fs::renameat(&self.fd, from, &self.fd, to)?)
        }

        pub(in super::super) fn remove(&self, name: &OsStr) -> io::Result<()> {
            Ok(rustix::fs::unlinkat(&self.fd, name, AtFlags::empty())?)
        }

        pub(in super::super) fn sync(&self) -> io::Result<()> {
            Ok(rustix::fs::fsync(&self.fd)?)
        }
    }
}

#[cfg(not(unix))]
mod imp {
    use super::{Dir, FileKind, SubError};
    use std::ffi::OsStr;
    use std::fs::File;
    use std::io;
    use std::path::Path;

    impl Dir {
        pub(in super::super) fn open(path: &Path) -> io::Result<Dir> {
            if !std::fs::metadata(path)?.is_dir() {
                return Err(io::Error::other("not a directory"));
            }
            Ok(Dir {
                path: path.to_path_buf(),
            })
        }

        pub(in super::super) fn sub(&self, name: &OsStr, create: bool) -> Result<Dir, SubError> {
            let path = self.path.join(name);
            if create {
                match std::fs::create_dir(&path) {
                    Ok(()) => {}
                    Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
                    Err(e) => return Err(SubError::Io(e)),
                }
            }
            match self.kind(name).map_err(SubError::Io)? {
                FileKind::Directory => Ok(Dir { path }),
                other => Err(SubError::NotADirectory(other)),
            }
        }

        pub(in super::super) fn kind(&self, name: &OsStr) -> io::Result<FileKind> {
            match std::fs::symlink_metadata(self.path.join(name)) {
                Ok(m) => Ok(FileKind::of(m.file_type())),
                Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(FileKind::Missing),
                Err(e) => Err(e),
            }
        }

        pub(in super::super) fn create_new(&self, name: &OsStr) -> io::Result<File> {
            std::fs::OpenOptions::new()
                .read(true)
                .write(true)
                .create_new(true)
                .open(self.path.join(name))
        }

        pub(in super::super) fn reopen(&self, name: &OsStr) -> io::Result<File> {
            std::fs::OpenOptions::new()
                .read(true)
                .write(true)
                .open(self.path.join(name))
        }

        pub(in super::super) fn rename(&self, from: &OsStr, to: &OsStr) -> io::Result<()> {
            std::fs::rename(self.path.join(from), self.path.join(to))
        }

        pub(in super::super) fn remove(&self, name: &OsStr) -> io::Result<()> {
            std::fs::remove_file(self.path.join(name))
        }

        pub(in super::super) fn sync(&self) -> io::Result<()> {
            Ok(())
        }
    }
}

impl Dir {
    /// The path the directory was opened by.
    pub(super) fn path(&self) -> &Path {
        &self.path
    }
}

/// What identifies an open file and its state: device, inode, size and change time. A file
/// reopened by name whose stamp differs from the one taken when it was closed is not the file
/// left there (a new file can get a freed inode number, but not the old change time).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub(super) struct Stamp {
    dev: u64,
    ino: u64,
    len: u64,
    ctime: (i64, i64),
}

/// The [`Stamp`] of an open file.
pub(super) fn stamp(file: &File) -> io::Result<Stamp> {
    let meta = file.metadata()?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        Ok(Stamp {
            dev: meta.dev(),
            ino: meta.ino(),
            len: meta.len(),
            ctime: (meta.ctime(), meta.ctime_nsec()),
        })
    }
    #[cfg(not(unix))]
    {
        Ok(Stamp {
            len: meta.len(),
            ..Stamp::default()
        })
    }
}

/// A name for a temporary file for `name`: `.NAME.XXXXXX.partial`, `NAME` cut to 200 bytes
/// so the whole stays within the usual 255-byte limit of a file name.
pub(super) fn temp_name(name: &OsStr) -> OsString {
    let text = name.to_string_lossy();
    let mut end = text.len().min(200);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let stem = text.get(..end).unwrap_or("output");
    OsString::from(format!(".{stem}.{}.partial", random_tag()))
}

/// Six random letters and digits (from the standard library's randomly seeded hasher and a
/// counter: unpredictable enough that another user cannot pre-create the name, and
/// `O_EXCL` catches any collision).
fn random_tag() -> String {
    use std::hash::{BuildHasher, Hasher};
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
    h.write_u32(std::process::id());
    if let Ok(t) = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH) {
        h.write_u128(t.as_nanos());
    }
    let mut v = h.finish();
    let alphabet = b"abcdefghijklmnopqrstuvwxyz0123456789";
    let mut out = String::with_capacity(6);
    for _ in 0..6 {
        let i = usize::try_from(v % alphabet.len() as u64).unwrap_or(0);
        out.push(char::from(alphabet.get(i).copied().unwrap_or(b'x')));
        v /= alphabet.len() as u64;
    }
    out
}
