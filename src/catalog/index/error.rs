//! Errors of building and reading an index.

use std::path::PathBuf;

use crate::bag::BagError;

/// What went wrong with an index.
#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    /// A file could not be read or written.
    #[error("{}: {what}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What was being done.
        what: &'static str,
        /// The cause.
        source: std::io::Error,
    },
    /// The index file could not be written.
    #[error("{0}")]
    Write(#[from] crate::bag::writer::WriteError),
    /// A bag could not be opened.
    #[error("{0}")]
    Bag(#[from] BagError),
    /// The index file is not a valid index.
    #[error("{}: {what}", path.display())]
    Damaged {
        /// The index file.
        path: PathBuf,
        /// What is wrong.
        what: String,
    },
    /// A bag changed since the index was built.
    #[error("{}: the index is stale: {bag} {what} since the index was built; rebuild it with `bagscope index build`", index.display())]
    Stale {
        /// The index file.
        index: PathBuf,
        /// The bag.
        bag: String,
        /// What changed.
        what: String,
    },
    /// The index path holds (or, by its name, would be) something other than an index.
    #[error("{}: refusing to write the index there: {why} (give the index file first: `index build INDEX BAG...`)", path.display())]
    NotAnIndex {
        /// The path given for the index.
        path: PathBuf,
        /// What it is.
        why: String,
    },
    /// `--topics` names topics no bag holds.
    #[error("no bag holds topic {topics}; the topics are: {known}")]
    UnknownTopics {
        /// The topics asked for that were not found, quoted.
        topics: String,
        /// The topics the bags hold.
        known: String,
    },
    /// The output would overwrite an input.
    #[error("{}: refusing to overwrite an input", path.display())]
    SameFile {
        /// The output.
        path: PathBuf,
    },
}
