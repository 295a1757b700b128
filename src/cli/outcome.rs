//! How a command ended, and the process exit code it stands for.

use std::process::ExitCode;

/// How a command ended; ordered by severity.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Outcome {
    /// Everything fine.
    Ok,
    /// The data has problems (damaged bag read in part, verify findings).
    Problems,
    /// Usage error, or a file that cannot be opened at all.
    Failed,
    /// The explorer was ended by this signal (exit code 128 + n, as shells report it).
    Signal(u8),
}

impl From<Outcome> for ExitCode {
    fn from(o: Outcome) -> ExitCode {
        match o {
            Outcome::Ok => ExitCode::SUCCESS,
            Outcome::Problems => ExitCode::from(1),
            Outcome::Failed => ExitCode::from(2),
            Outcome::Signal(n) => ExitCode::from(128_u8.saturating_add(n)),
        }
    }
}
