//! What can stop a ROS 2 bag directory (or one of its storage files) from opening: each
//! error names the file and what is wrong with it, and becomes a [`BagError`] at the edge.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::bag::error::{BagError, BagErrorKind};

/// Why a ROS 2 bag directory or one of its storage files could not be read.
#[derive(Debug, thiserror::Error)]
pub enum Ros2Error {
    /// Reading, copying or listing a file failed.
    #[error("{what}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What was being done (`reading`, `copying to a private directory`, ...).
        what: &'static str,
        /// The system's error.
        source: std::io::Error,
    },
    /// `metadata.yaml` is not the metadata of a rosbag2 bag.
    #[error("{what}")]
    Metadata {
        /// The metadata file.
        path: PathBuf,
        /// What is wrong (which field, and how).
        what: String,
    },
    /// SQLite could not read a `.db3` storage file.
    #[error("SQLite: {source}")]
    Sqlite {
        /// The storage file.
        path: PathBuf,
        /// SQLite's error.
        source: rusqlite::Error,
    },
    /// An MCAP storage file could not be read, or the converted MCAP not written.
    #[error("MCAP: {source}")]
    Mcap {
        /// The storage file.
        path: PathBuf,
        /// The mcap crate's error.
        source: mcap::McapError,
    },
    /// Decompressing a zstd storage file or message failed (damaged data).
    #[error("zstd: {source}")]
    Zstd {
        /// The storage file.
        path: PathBuf,
        /// The decoder's error.
        source: std::io::Error,
    },
    /// Decompressed data grew past the limit (a zstd bomb, or a bag larger than allowed).
    #[error("{what}: over the limit of {limit} bytes; refused")]
    TooLarge {
        /// The storage file.
        path: PathBuf,
        /// What grew (`decompressing the file`, `decompressing message id N`, ...).
        what: String,
        /// The limit in bytes.
        limit: u64,
    },
    /// The metadata names a compression this reader does not know.
    #[error(
        "unknown compression '{format}' (mode '{mode}'): only zstd with FILE or MESSAGE is read"
    )]
    UnknownCompression {
        /// The metadata file.
        path: PathBuf,
        /// `compression_format`.
        format: String,
        /// `compression_mode`.
        mode: String,
    },
    /// More topics or types than an MCAP file can hold (65 535).
    #[error("{count} {what}: an MCAP file holds at most 65535")]
    TooMany {
        /// The storage file.
        path: PathBuf,
        /// `topics` or `message types`.
        what: &'static str,
        /// How many there are.
        count: usize,
    },
    /// The disk filled up while the converted MCAP of a storage file was written.
    #[error(
        "no space left in {} for the MCAP this file converts to (about {needed} bytes{}): free some space there, or set TMPDIR to a directory on a larger disk",
        dir.display(),
        free.map_or(String::new(), |f| format!(", {f} free"))
    )]
    NoSpace {
        /// The storage file.
        path: PathBuf,
        /// Where the MCAP was being written.
        dir: PathBuf,
        /// About how many bytes the MCAP takes.
        needed: u64,
        /// Bytes free there now, when known.
        free: Option<u64>,
    },
    /// The directory has no storage file to open.
    #[error("{what}")]
    NoStorage {
        /// The directory.
        path: PathBuf,
        /// Why (no files listed, all listed files missing, ...).
        what: String,
    },
}

impl Ros2Error {
    /// The file (or directory) the error is about.
    pub fn path(&self) -> &Path {
        match self {
            Ros2Error::Io { path, .. }
            | Ros2Error::Metadata { path, .. }
            | Ros2Error::Sqlite { path, .. }
            | Ros2Error::Mcap { path, .. }
            | Ros2Error::Zstd { path, .. }
            | Ros2Error::TooLarge { path, .. }
            | Ros2Error::UnknownCompression { path, .. }
            | Ros2Error::TooMany { path, .. }
            | Ros2Error::NoSpace { path, .. }
            | Ros2Error::NoStorage { path, .. } => path,
        }
    }

    /// `FILE: WHAT`, one line.
    pub fn line(&self) -> String {
        format!("{}: {self}", self.path().display())
    }

    /// An I/O error about `path`.
    pub(crate) fn io(path: &Path, what: &'static str, source: std::io::Error) -> Self {
        Ros2Error::Io {
            path: path.to_path_buf(),
            what,
            source,
        }
    }
}

impl From<Ros2Error> for BagError {
    fn from(e: Ros2Error) -> Self {
        let path: Arc<Path> = Arc::from(e.path());
        let kind = match e {
            Ros2Error::Io { what, source, .. } => BagErrorKind::Io(std::io::Error::new(
                source.kind(),
                format!("{what}: {source}"),
            )),
            other => BagErrorKind::Unreadable(other.to_string()),
        };
        BagError::new(&path, kind)
    }
}
