//! The ERROR and FATAL lines of the log topics for the lanes' ticks, read once in the
//! background with the catalog's log reader ([`log::extract`]) when the lanes first open;
//! each piece's ticks go to a [`Notify`]. Dropping the job stops it at the next batch.

use super::job::Job;
use super::notify::Notify;
use crate::catalog::Catalog;
use crate::catalog::log;
use crate::msg::Registry;
use crate::tui::model::error_ticks::{ErrorTicks, Tick};

/// A piece of ticks, and whether it is the last.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TickNews {
    /// ERROR and FATAL lines of the piece.
    pub ticks: Vec<Tick>,
    /// Every log line was read.
    pub done: bool,
}

/// A running read of the ticks; dropping it cancels it.
pub type TickJob = Job<TickNews>;

/// Starts reading the ticks of `topics` on their own thread.
pub fn start(
    catalog: Catalog,
    topics: Vec<String>,
    registry: Registry,
    notify: Notify<TickNews>,
) -> std::io::Result<TickJob> {
    Job::start("error-ticks", 0, notify, move |out| {
        let _ = log::extract(&catalog, &topics, &registry, out.flag(), |p| {
            out.send(TickNews {
                ticks: ErrorTicks::of(&p.piece),
                done: p.done,
            })
        });
        // Also when there was nothing to read (no piece came).
        out.send(TickNews {
            ticks: Vec::new(),
            done: true,
        });
    })
}

/// Every tick of `topics`, read at once (when the app runs without background threads).
pub fn read_all(catalog: &Catalog, topics: &[String], registry: &Registry) -> Vec<Tick> {
    let (lines, _) = log::read_all(catalog, topics, registry);
    ErrorTicks::of(&lines)
}
