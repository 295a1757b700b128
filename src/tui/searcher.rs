//! The content search (`f`) in the background: one thread runs [`search::search`] and reports
//! each batch of matches through a [`Notify`] (the event loop wraps it into an event).
//! Dropping the [`SearchJob`] (a new search started, or `Esc`) stops the thread at its next
//! batch.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use super::notify::Notify;
use crate::catalog::Catalog;
use crate::catalog::search::{self, SearchError, SearchRequest, SearchUpdate};
use crate::msg::Registry;

/// One report of a search thread.
#[derive(Debug)]
pub struct SearchNews {
    /// The search it belongs to (news of replaced searches are dropped).
    pub id: u64,
    /// A batch of matches with the progress, or why the search cannot run.
    pub update: Result<SearchUpdate, SearchError>,
}

/// A running search; dropping it cancels it.
#[derive(Debug)]
pub struct SearchJob {
    /// The search's id, as in its [`SearchNews`].
    pub id: u64,
    cancel: Arc<AtomicBool>,
}

impl Drop for SearchJob {
    fn drop(&mut self) {
        self.cancel.store(true, Ordering::Relaxed);
    }
}

/// Starts searching `request` as search `id` on its own thread.
pub fn start(
    catalog: Catalog,
    request: SearchRequest,
    registry: Registry,
    id: u64,
    notify: Notify<SearchNews>,
) -> std::io::Result<SearchJob> {
    let cancel = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&cancel);
    std::thread::Builder::new()
        .name("search".into())
        .spawn(move || {
            let result = search::search(&catalog, &request, &registry, &flag, |u| {
                !flag.load(Ordering::Relaxed)
                    && notify.send(SearchNews {
                        id,
                        update: Ok(u.clone()),
                    })
            });
            if let Err(e) = result {
                let _ = notify.send(SearchNews { id, update: Err(e) });
            }
        })?;
    Ok(SearchJob { id, cancel })
}
