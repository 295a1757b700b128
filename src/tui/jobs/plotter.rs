//! Plot series computed in the background: one thread per series runs
//! [`series::extract`] and reports each piece through a [`Notify`] (the event loop wraps it
//! into an event); the app appends the pieces to its cached column. Dropping the
//! [`PlotJob`] (the series was removed) stops the thread at its next chunk.

use super::job::Job;
use super::notify::Notify;
use crate::catalog::Catalog;
use crate::catalog::series::{self, SeriesError, SeriesRequest, SeriesUpdate};
use crate::msg::Registry;

/// One report of a series thread.
#[derive(Debug)]
pub struct PlotNews {
    /// The job it belongs to (replies of removed or replaced jobs are dropped).
    pub id: u64,
    /// The series' label.
    pub label: String,
    /// A piece with the progress, or why the series cannot be computed.
    pub update: Result<SeriesUpdate, SeriesError>,
}

/// A running series extraction; dropping it cancels it (at the next chunk).
pub type PlotJob = Job<PlotNews>;

/// Starts computing `request` as `label` on its own thread.
pub fn start(
    catalog: Catalog,
    request: SeriesRequest,
    registry: Registry,
    (id, label): (u64, String),
    notify: Notify<PlotNews>,
) -> std::io::Result<PlotJob> {
    Job::start("plot-series", id, notify, move |out| {
        let flag = out.flag();
        let mut finished = false;
        let result = series::extract(&catalog, &request, &registry, flag, |u| {
            finished = u.done;
            out.send(PlotNews {
                id,
                label: label.clone(),
                update: Ok(u.clone()),
            })
        });
        let last = match result {
            Err(e) => Some(Err(e)),
            // A topic without messages ends without any update: say it is done.
            Ok((column, stats)) if !finished => Some(Ok(SeriesUpdate {
                points: column.len(),
                piece: series::Column::new(),
                fraction: 1.0,
                stats,
                done: true,
                through: None,
            })),
            Ok(_) => None,
        };
        if let Some(update) = last {
            out.send(PlotNews { id, label, update });
        }
    })
}
