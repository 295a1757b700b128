//! Plot series computed in the background: one thread per series runs
//! [`series::extract`] and reports each piece through a [`Notify`] (the event loop wraps it
//! into an event); the app appends the pieces to its cached column. Dropping the
//! [`PlotJob`] (the series was removed) stops the thread at its next chunk.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

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

/// A running series extraction; dropping it cancels it.
#[derive(Debug)]
pub struct PlotJob {
    /// The job's id, as in its [`PlotNews`].
    pub id: u64,
    cancel: Arc<AtomicBool>,
}

impl Drop for PlotJob {
    fn drop(&mut self) {
        self.cancel.store(true, Ordering::Relaxed);
    }
}

/// Starts computing `request` as `label` on its own thread.
pub fn start(
    catalog: Catalog,
    request: SeriesRequest,
    registry: Registry,
    (id, label): (u64, String),
    notify: Notify<PlotNews>,
) -> std::io::Result<PlotJob> {
    let cancel = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&cancel);
    std::thread::Builder::new()
        .name("plot-series".into())
        .spawn(move || {
            let mut finished = false;
            let result = series::extract(&catalog, &request, &registry, &flag, |u| {
                finished = u.done;
                !flag.load(Ordering::Relaxed)
                    && notify.send(PlotNews {
                        id,
                        label: label.clone(),
                        update: Ok(u.clone()),
                    })
            });
            let last = match result {
                Err(e) => Some(Err(e)),
                // A topic without messages ends without any update: say it is done.
                Ok((column, stats)) if !finished && !flag.load(Ordering::Relaxed) => {
                    Some(Ok(SeriesUpdate {
                        points: column.len(),
                        piece: series::Column::new(),
                        fraction: 1.0,
                        stats,
                        done: true,
                        through: None,
                    }))
                }
                Ok(_) => None,
            };
            if let Some(update) = last {
                let _ = notify.send(PlotNews { id, label, update });
            }
        })?;
    Ok(PlotJob { id, cancel })
}
