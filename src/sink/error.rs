//! Errors of the sinks.

use std::path::PathBuf;

use crate::bag::writer::WriteError;

/// Why a sink could not write.
#[derive(Debug, thiserror::Error)]
pub enum SinkError {
    /// Creating, writing or completing an output file failed.
    #[error(transparent)]
    Write(#[from] WriteError),
    /// The MCAP writer refused (`what` names the step; an I/O error is shown with the
    /// system's reason, which the MCAP error's own text leaves out).
    #[error("{path}: MCAP: {what}: {}", mcap_reason(source))]
    Mcap {
        /// The output file.
        path: PathBuf,
        /// What was being written.
        what: String,
        /// The writer's error.
        source: ::mcap::McapError,
    },
    /// The Parquet writer refused.
    #[error("{path}: Parquet: {what}")]
    Parquet {
        /// The output file.
        path: PathBuf,
        /// What went wrong.
        what: String,
    },
    /// The output cannot hold what was asked (a usage error).
    #[error("{0}")]
    Usage(String),
}

/// The text of an MCAP error, with the system's reason of an I/O error (`No space left on
/// device`).
fn mcap_reason(e: &::mcap::McapError) -> String {
    match e {
        ::mcap::McapError::Io(io) => format!("{e}: {io}"),
        _ => e.to_string(),
    }
}
