//! The content search (`f`) in the background: one thread checks the expression against the
//! searched topics' types and compiles it ([`SearchPlan::new`]: regular expressions, one
//! plan per type; on thousands of topics this takes long enough to freeze the screen), says
//! so ([`SearchReport::Checked`], or why it cannot run), then runs the search and reports
//! each batch of matches through a [`Notify`] (the event loop wraps it into an event).
//! Dropping the [`SearchJob`] (a new search started, or `Esc`) stops the thread at its next
//! batch.

use super::job::Job;
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

/// A running search; dropping it cancels it (at the next batch).
pub type SearchJob = Job<SearchNews>;

/// Starts checking then searching `request` as search `id` on its own thread.
pub fn start(
    catalog: Catalog,
    request: SearchRequest,
    registry: Registry,
    id: u64,
    notify: Notify<SearchNews>,
) -> std::io::Result<SearchJob> {
    Job::start("search", id, notify, move |out| {
        let send = |report| out.send(SearchNews { id, report });
        let plan = match SearchPlan::new(&catalog, &request, &registry) {
            Ok(plan) => plan,
            Err(e) => {
                send(SearchReport::Failed(e));
                return;
            }
        };
        if !send(SearchReport::Checked) {
            return;
        }
        plan.run(&catalog, out.flag(), |u| {
            send(SearchReport::Update(u.clone()))
        });
    })
}
