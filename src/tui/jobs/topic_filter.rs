//! The topic filter's background thread: from
//! [`BACKGROUND_FROM`](crate::tui::model::topic_filter::BACKGROUND_FROM) rows on, the topic list
//! hands the scoring of each filter typed to a newest-wins [`Job`], so the filters typed over
//! are never computed.

use super::job::Job;
use super::notify::Notify;
use crate::tui::model::topic_filter::{Deliver, FilterJob, Filtered, compute};

/// The background filtering thread; it ends when this handle is dropped.
pub struct Filterer(Option<Job<Filtered, FilterJob>>);

impl std::fmt::Debug for Filterer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Filterer")
    }
}

impl Filterer {
    /// Starts the thread; results are handed to `deliver`. Without a thread (none could be
    /// started), [`Filterer::send`] says so and the list filters inline.
    pub fn start(deliver: Deliver) -> Filterer {
        let work = |job: FilterJob| Filtered {
            generation: job.generation,
            visible: compute(&job.rows, &job.filter, job.sort, job.within),
            filter: job.filter,
        };
        let notify = Notify::new(move |done| {
            deliver(done);
            true
        });
        Filterer(Job::latest("topic-filter", work, notify).ok())
    }

    /// Queues a job (one queued and not started is skipped). False when the thread is gone.
    pub fn send(&self, job: FilterJob) -> bool {
        match &self.0 {
            Some(thread) if thread.is_running() => {
                thread.request(job);
                true
            }
            _ => false,
        }
    }
}
