//! What is at an output path: nothing yet, a regular file, or something else (a FIFO, a
//! device, a directory…), which decides how the output is written (see [`super::atomic`]).

use std::fmt;
use std::path::Path;

/// The kind of file at a path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileKind {
    /// Nothing there.
    Missing,
    /// A regular file.
    Regular,
    /// A directory.
    Directory,
    /// A symbolic link (only when links are not followed).
    Symlink,
    /// A FIFO (named pipe), or an anonymous pipe reached through `/dev/stdout`.
    Fifo,
    /// A character device (`/dev/null`, a terminal).
    CharDevice,
    /// A block device (a disk).
    BlockDevice,
    /// A Unix socket.
    Socket,
    /// Anything else.
    Other,
}

impl FileKind {
    /// The kind of a file's type.
    pub fn of(t: std::fs::FileType) -> FileKind {
        #[cfg(unix)]
        {
            use std::os::unix::fs::FileTypeExt;
            if t.is_fifo() {
                return FileKind::Fifo;
            }
            if t.is_char_device() {
                return FileKind::CharDevice;
            }
            if t.is_block_device() {
                return FileKind::BlockDevice;
            }
            if t.is_socket() {
                return FileKind::Socket;
            }
        }
        if t.is_symlink() {
            FileKind::Symlink
        } else if t.is_dir() {
            FileKind::Directory
        } else if t.is_file() {
            FileKind::Regular
        } else {
            FileKind::Other
        }
    }

    /// What is at `path`, symbolic links followed (so `/dev/stdout` is the pipe or terminal
    /// it leads to). A path that cannot be examined counts as missing: creating the file
    /// then says why it cannot be.
    pub fn at(path: &Path) -> FileKind {
        std::fs::metadata(path).map_or(FileKind::Missing, |m| FileKind::of(m.file_type()))
    }

    /// True for what is written straight into rather than replaced: FIFOs and character
    /// devices.
    pub fn is_stream(self) -> bool {
        matches!(self, FileKind::Fifo | FileKind::CharDevice)
    }
}

impl fmt::Display for FileKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            FileKind::Missing => "missing",
            FileKind::Regular => "a regular file",
            FileKind::Directory => "a directory",
            FileKind::Symlink => "a symbolic link",
            FileKind::Fifo => "a FIFO",
            FileKind::CharDevice => "a character device",
            FileKind::BlockDevice => "a block device",
            FileKind::Socket => "a socket",
            FileKind::Other => "not a regular file",
        })
    }
}
