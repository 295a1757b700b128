//! The log lines read in the background: one thread runs [`log::extract`] over the catalog's
//! log topics and reports each piece through a [`Notify`] (the event loop wraps it into an
//! event); the app merges the pieces into its log view. Dropping the [`LogJob`] stops the
//! thread at its next batch. The thread waits for the explorer's first frame (a [`Gate`])
//! before it reads: on a cold cache its chunk reads (a bag's `/rosout` is in most of its
//! chunks) would otherwise queue before the first frame's, and on two cores its decoding would
//! take the core the first frame is drawn on.

use super::gate::{FIRST_FRAME_WAIT, Gate};
use super::job::Job;
use super::notify::Notify;
use crate::catalog::Catalog;
use crate::catalog::log::{self, LogPiece};
use crate::msg::Registry;

/// A running read of the log lines; dropping it cancels it (at the next batch).
pub type LogJob = Job<LogPiece>;

/// Starts reading the log lines of `topics` on their own thread, once `after` opens (the
/// explorer's first frame is on the screen; [`Gate::opened`] to start at once).
pub fn start(
    catalog: Catalog,
    topics: Vec<String>,
    registry: Registry,
    (notify, after): (Notify<LogPiece>, Gate),
) -> std::io::Result<LogJob> {
    Job::start("log-lines", 0, notify, move |out| {
        after.wait(FIRST_FRAME_WAIT);
        if out.cancelled() {
            return;
        }
        let _ = log::extract(&catalog, &topics, &registry, out.flag(), |p| out.send(p));
    })
}
