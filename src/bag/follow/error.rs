//! [`FollowError`]: why a bag cannot be followed.

use std::path::PathBuf;

use crate::format::Version;

/// Why a bag cannot be followed.
#[derive(Debug, thiserror::Error)]
pub enum FollowError {
    /// The file could not be opened or read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What failed.
        source: std::io::Error,
    },
    /// Neither a 2.0 bag nor an MCAP file (older bag versions are never written live).
    #[error("{path}: only ROS bag V2.0 and MCAP files can be followed (this one is {version:?})")]
    Version {
        /// The file.
        path: PathBuf,
        /// Its version.
        version: Version,
    },
    /// The file is not a bag, or its bag header is unreadable.
    #[error("{path}: {what}")]
    NotABag {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        what: String,
    },
    /// The file became shorter than what was already read: it was replaced or truncated.
    #[error("{path}: the file shrank to {now} bytes after {read} had been read: it was replaced")]
    Shrunk {
        /// The file.
        path: PathBuf,
        /// Bytes already read.
        read: u64,
        /// Its size now.
        now: u64,
    },
    /// Another file now has the followed file's name (as `tail -F` notices: the name's
    /// device and inode are no longer the open file's).
    #[error(
        "{path}: another file was put in its place after following began: following stopped (what was read is kept)"
    )]
    Replaced {
        /// The file.
        path: PathBuf,
    },
    /// The followed file's name is gone, and not because the recorder finished it.
    #[error(
        "{path}: the file was deleted or moved away while it was followed: following stopped (what was read is kept)"
    )]
    Deleted {
        /// The file.
        path: PathBuf,
    },
}
