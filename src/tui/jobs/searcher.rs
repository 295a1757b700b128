//! The content search (`f`) in the background: one thread checks the expression against the
//! searched topics' types and compiles it ([`SearchPlan::new`]: regular expressions, one
//! plan per type; on thousands of topics this takes long enough to freeze the screen), says
//! so ([`SearchReport::Checked`], or why it cannot run), then runs the search and reports
//! each batch of matches through a [`Notify`] (the event loop wraps it into an event).
//! Dropping the [`SearchJob`] (a new search started, or `Esc`) stops the thread at its next
//! batch.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use super::notify::Notify;
use crate::catalog::Catalog;
use crate::catalog::search::{SearchError, SearchPlan, SearchRequest, SearchUpdate};
use crate::msg::Registry;

/// One report of a search thread.
#[derive(Debug)]
pub struct SearchNews {
    /// The search it belongs to (news of replaced searches are dropped).
    pub id: u64,
    /// What happened.
    pub report: SearchReport,
}

/// What a search thread reports, in this order: `Checked` or `Failed` first, then the
/// updates.
#[derive(Debug)]
pub enum SearchReport {
    /// The expression fits the searched topics: the search is running.
    Checked,
    /// A batch of matches with the progress.
    Update(SearchUpdate),
    /// Why the search cannot run (the expression does not fit, no topic).
    Failed(SearchError),
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

/// Starts checking then searching `request` as search `id` on its own thread.
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
            let send = |report| notify.send(SearchNews { id, report });
            let plan = match SearchPlan::new(&catalog, &request, &registry) {
                Ok(plan) => plan,
                Err(e) => {
                    send(SearchReport::Failed(e));
                    return;
                }
            };
            if flag.load(Ordering::Relaxed) || !send(SearchReport::Checked) {
                return;
            }
            plan.run(&catalog, &flag, |u| {
                !flag.load(Ordering::Relaxed) && send(SearchReport::Update(u.clone()))
            });
        })?;
    Ok(SearchJob { id, cancel })
}
