//! What can go wrong while writing a bag.

use std::path::PathBuf;

use super::kind::FileKind;

/// An error of [`super::BagWriter`] or of a rewrite. Nothing is left at the target path when
/// one occurs: the temporary file is removed.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    /// Creating, writing, syncing or renaming a file failed.
    #[error("{}: {what}: {source}", path.display())]
    Io {
        /// The file concerned (the target, or the temporary file beside it).
        path: PathBuf,
        /// What was being done.
        what: &'static str,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// The output path names one of the inputs (directly, through a symbolic link, or as
    /// another hard link to the same file).
    #[error(
        "{}: is the input {} (the same file); choose another output path",
        output.display(),
        input.display()
    )]
    SameFile {
        /// The output path as given.
        output: PathBuf,
        /// The input it refers to.
        input: PathBuf,
    },
    /// The output path names something that cannot take a file: a directory, a block device,
    /// a socket.
    #[error(
        "{}: is {kind}: bagscope writes regular files, FIFOs and character devices (such as /dev/stdout)",
        path.display()
    )]
    Unwritable {
        /// The output path as given.
        path: PathBuf,
        /// What is there.
        kind: FileKind,
    },
    /// The output is a FIFO that no process opened for reading within the time waited.
    #[error(
        "{}: is a FIFO that no process reads (waited {waited_secs} s for a reader): start the reader first",
        path.display()
    )]
    NoReader {
        /// The FIFO.
        path: PathBuf,
        /// How long bagscope waited for a reader.
        waited_secs: u64,
    },
    /// Inside an output directory, a name the output needs is taken by something bagscope
    /// will not write through or replace: a symbolic link where a directory goes, a FIFO, a
    /// device, a socket or a directory where a file goes.
    #[error(
        "{}: is {kind} inside the output directory: bagscope does not write through it or replace it (remove it, or choose another directory)",
        path.display()
    )]
    Planted {
        /// The path inside the output directory.
        path: PathBuf,
        /// What is there.
        kind: FileKind,
    },
    /// A file name inside an output directory that is not a plain relative path (`..`, an
    /// absolute path).
    #[error("{}: not a plain name below the output directory", path.display())]
    NotBelow {
        /// The name.
        path: PathBuf,
    },
    /// A message refers to a connection that was never added.
    #[error("{}: message for unknown connection {conn}", path.display())]
    UnknownConnection {
        /// The target.
        path: PathBuf,
        /// The connection id given.
        conn: u32,
    },
    /// A connection id was added twice.
    #[error("{}: connection {conn} was added twice", path.display())]
    DuplicateConnection {
        /// The target.
        path: PathBuf,
        /// The connection id given.
        conn: u32,
    },
    /// A record (message payload, connection header or chunk) does not fit the format's
    /// 32-bit lengths.
    #[error("{}: {what} of {len} bytes does not fit a bag record (at most 4 GiB - 1)", path.display())]
    TooLarge {
        /// The target.
        path: PathBuf,
        /// What was too large.
        what: &'static str,
        /// Its size.
        len: u64,
    },
    /// More chunks or connections than the bag header's 32-bit counts can hold.
    #[error("{}: too many {what} for one bag", path.display())]
    TooMany {
        /// The target.
        path: PathBuf,
        /// `chunks` or `connections`.
        what: &'static str,
    },
}
