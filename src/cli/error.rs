//! Why a command could not do its work: the typed errors commands return, each printed as
//! `bagscope: error: …` naming the file, byte offset and what (see [`CliError::report`]),
//! and exit code 2.

use crate::bag::BagError;
use crate::bag::follow::FollowError;
use crate::bag::writer::WriteError;
use crate::msg::MsgError;

use super::outcome::Outcome;
use super::term::{print_error, print_note};
use super::where_args::WhereError;

/// A command that could not run: a usage error, or a file that cannot be used at all.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// The arguments ask for what cannot be done (the message says what and how instead).
    #[error("{0}")]
    Usage(String),
    /// A bag that cannot be opened or read at all.
    #[error(transparent)]
    Bag(#[from] BagError),
    /// A `--msg-path` directory that cannot be read.
    #[error("--msg-path: {0}")]
    MsgPath(#[source] MsgError),
    /// `--where` does not parse or does not fit a selected topic's type.
    #[error(transparent)]
    Where(#[from] WhereError),
    /// None of the bags given could be opened: why for each, and hints for arguments that
    /// look like topics rather than files.
    #[error("no bag could be opened")]
    NoBag {
        /// Why each bag could not be opened.
        errors: Vec<BagError>,
        /// Notes on `BAG` arguments that look like topics.
        hints: Vec<String>,
    },
    /// A recording that cannot be followed (any more).
    #[error(transparent)]
    Follow(#[from] FollowError),
    /// An output that cannot be written (the message names it).
    #[error(transparent)]
    Write(#[from] WriteError),
    /// The ROS graph cannot be joined (the message says why: no master, a bad name).
    #[error(transparent)]
    Ros(#[from] crate::ros::RosError),
    /// Playing cannot start (the message says why).
    #[error(transparent)]
    Play(#[from] crate::play::StartError),
    /// A persistent index that cannot be used (the message names the file).
    #[error(transparent)]
    Index(#[from] crate::catalog::index::IndexError),
    /// An export that cannot be started (the message names the file).
    #[error(transparent)]
    Sink(#[from] crate::sink::SinkError),
    /// An output file that cannot be created (the message names it).
    #[error(transparent)]
    Output(#[from] std::io::Error),
}

impl CliError {
    /// Prints the error on stderr as the commands always have: `bagscope: error: …` lines
    /// (and, for `--where`, the expression with a `^` under the column).
    pub fn report(&self) {
        match self {
            CliError::Where(e) => e.print(),
            CliError::NoBag { errors, hints } => {
                for e in errors {
                    print_error(e);
                }
                for h in hints {
                    print_note(h);
                }
            }
            other => print_error(other),
        }
    }

    /// The outcome the error ends the command with ([`Outcome::Failed`], exit code 2).
    pub fn outcome(&self) -> Outcome {
        Outcome::Failed
    }
}

/// The outcome of a command's result, its error (if any) printed.
pub fn finish(result: Result<Outcome, CliError>) -> Outcome {
    result.unwrap_or_else(|e| {
        e.report();
        e.outcome()
    })
}
