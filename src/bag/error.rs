//! Errors and warnings of an open bag, always naming the file and, where known, the byte
//! offset.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::format::FormatError;
use crate::time::RosTime;

/// What went wrong while opening or reading a bag.
#[derive(Debug, thiserror::Error)]
pub enum BagErrorKind {
    /// The file could not be opened or mapped.
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// The bytes are malformed.
    #[error("{0}")]
    Format(#[from] FormatError),
    /// A message refers to a connection that was never defined.
    #[error("message refers to unknown connection {conn}")]
    UnknownConnection {
        /// The connection id in the file.
        conn: u32,
    },
    /// An index entry does not lead to the message it describes.
    #[error("index entry (time {time}, connection {conn}) points to {found}")]
    IndexMismatch {
        /// Time in the index.
        time: RosTime,
        /// Connection id in the index.
        conn: u32,
        /// What is there instead.
        found: String,
    },
    /// Messages of a damaged chunk could not be read; `lost` 0: the chunk does not decode to
    /// its end, but the messages wanted lie before the damage (those past it, if any, are
    /// counted by their own errors).
    #[error("{}", chunk_damaged(*.lost, .reason))]
    ChunkDamaged {
        /// Messages lost.
        lost: u64,
        /// Why.
        reason: FormatError,
    },
    /// The file shrank or was replaced while it was read (copied over, reindexed, its disk
    /// removed): what was read before may no longer match it, so reading stops.
    #[error("changed on disk while it was read: {changed}")]
    ChangedOnDisk {
        /// The read that came back short.
        changed: super::source::Changed,
        /// Selected messages that were not read because of it (when reading stopped during
        /// an iteration; 1 for a single message read, 0 while opening).
        unread: u64,
    },
    /// The index lists messages of a chunk that its records do not hold (the chunk's index
    /// data did not check out and walking the chunk found fewer messages).
    #[error("{lost} message(s) the index lists in this chunk were not found in it")]
    NotFound {
        /// Messages listed but not found.
        lost: u64,
    },
    /// A recovery scan was stopped by its [`PartialFn`](crate::bag::PartialFn) (nobody waits
    /// for the bag any more).
    #[error("the recovery scan was cancelled")]
    Cancelled,
    /// The bag holds nothing readable at all.
    #[error("{0}")]
    Unreadable(String),
}

/// An error reading a bag: the file, the byte offset where known, and what.
#[derive(Debug, Clone)]
pub struct BagError {
    /// The bag file.
    pub path: Arc<Path>,
    /// File offset of the problem, where known.
    pub offset: Option<u64>,
    /// What went wrong.
    pub kind: Arc<BagErrorKind>,
}

impl BagError {
    /// Builds an error for `path`; the offset is taken from format errors.
    pub fn new(path: &Arc<Path>, kind: BagErrorKind) -> Self {
        let offset = match &kind {
            BagErrorKind::Format(e) | BagErrorKind::ChunkDamaged { reason: e, .. } => {
                Some(e.file_offset())
            }
            _ => None,
        };
        BagError {
            path: Arc::clone(path),
            offset,
            kind: Arc::new(kind),
        }
    }

    /// Sets the offset.
    #[must_use]
    pub fn at(mut self, offset: u64) -> Self {
        self.offset = Some(offset);
        self
    }

    /// How many messages this error cost a reader: the count of a damaged chunk or of
    /// messages not found, else one (a message that did not read).
    pub fn lost_messages(&self) -> u64 {
        match &*self.kind {
            BagErrorKind::ChunkDamaged { lost, .. }
            | BagErrorKind::NotFound { lost }
            | BagErrorKind::ChangedOnDisk { unread: lost, .. } => *lost,
            _ => 1,
        }
    }

    /// The message without the path and offset.
    pub fn what(&self) -> String {
        self.kind.to_string()
    }
}

/// `FILE: WHAT (at byte N)`, the shape of the CLI contract's error lines.
impl fmt::Display for BagError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.kind)?;
        if let Some(o) = self.offset {
            write!(f, " (at byte {o})")?;
        }
        Ok(())
    }
}

impl std::error::Error for BagError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&*self.kind)
    }
}

/// Something suspicious that did not stop the bag from being read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    /// File offset, where known.
    pub offset: Option<u64>,
    /// What was noticed.
    pub message: String,
}

impl Warning {
    /// A warning at an offset.
    pub fn at(offset: u64, message: impl Into<String>) -> Self {
        Warning {
            offset: Some(offset),
            message: message.into(),
        }
    }

    /// A warning about the whole file.
    pub fn general(message: impl Into<String>) -> Self {
        Warning {
            offset: None,
            message: message.into(),
        }
    }
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)?;
        if let Some(o) = self.offset {
            write!(f, " (at byte {o})")?;
        }
        Ok(())
    }
}

/// Convenience for building errors about one file.
pub(crate) fn path_arc(path: &Path) -> Arc<Path> {
    Arc::from(PathBuf::from(path).into_boxed_path())
}

/// The text of [`BagErrorKind::ChunkDamaged`]: never "0 messages could not be read".
fn chunk_damaged(lost: u64, reason: &FormatError) -> String {
    if lost == 0 {
        format!(
            "this chunk does not decode to its end (the messages read lie before the damage): {reason}"
        )
    } else {
        format!("{lost} message(s) of this chunk could not be read: {reason}")
    }
}
