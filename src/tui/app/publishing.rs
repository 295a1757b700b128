//! `p`: publishing the marked interval into a live ROS graph (the session itself runs on its
//! own thread, see `tui/publish.rs`), and its reports.

use crate::catalog::Selection;

use super::super::publish::{Job, Phase, Publisher, Publishing, RosEvent, Scope};
use super::super::worker::pending::{RequestId, RequestKind};
use super::App;

impl App {
    /// `p`: stops the running publication, or publishes the marked interval (the topics
    /// the topic list shows) from a new thread.
    pub(super) fn toggle_publish(&mut self) {
        if let Some(p) = &self.publishing {
            if p.phase == Phase::Stopping {
                self.flash("still stopping the ROS publisher…", false);
                return;
            }
            if p.is_active() {
                self.stop_publishing();
                return;
            }
        }
        let (Some(a), Some(b)) = self.marks else {
            self.flash(
                "mark an interval first: [ at its start, ] at its end; then p publishes it",
                true,
            );
            return;
        };
        let Some(events) = self.ros.clone() else {
            self.flash("publishing to ROS is not available here", true);
            return;
        };
        if self.still_filtering() {
            return;
        }
        let (topics, scope) = match self.topics.filtered_topics() {
            None => (Vec::new(), Scope::All),
            Some(topics) => {
                let scope = Scope::Filtered {
                    shown: topics.len(),
                    of: self.topics.rows().len(),
                };
                (topics, scope)
            }
        };
        if topics.is_empty() && scope != Scope::All {
            self.flash("no topic matches the filter: nothing to publish", true);
            return;
        }
        let RequestId(run) = self.requests.issue(RequestKind::Publish);
        let job = Job {
            run,
            selection: Selection {
                topics,
                start: Some(a),
                end: Some(b),
                parallel: true,
            },
        };
        let mut state = Publishing::new(run, scope, &self.publish_settings);
        match Publisher::start(
            self.catalog.clone(),
            job,
            self.publish_settings.clone(),
            events,
        ) {
            Ok(p) => self.publisher = Some(p),
            Err(e) => state.phase = Phase::Failed(format!("cannot start a thread: {e}")),
        }
        self.publishing = Some(state);
    }

    /// Asks the running publication to stop (it unregisters on its thread and reports
    /// when done). False when none runs.
    pub fn stop_publishing(&mut self) -> bool {
        let Some(p) = self.publishing.as_mut().filter(|p| p.is_active()) else {
            return false;
        };
        if let Some(publisher) = &self.publisher {
            publisher.stop();
        }
        p.phase = Phase::Stopping;
        true
    }

    /// True while a publisher thread runs (until its last report arrived).
    pub fn is_publishing(&self) -> bool {
        self.publishing.as_ref().is_some_and(Publishing::is_active)
    }

    pub(crate) fn ros_event(&mut self, event: RosEvent) -> bool {
        let Some(p) = self.publishing.as_mut().filter(|p| p.run == event.run) else {
            return false;
        };
        let changed = p.apply(event.update);
        if !p.is_active() {
            self.publisher = None;
        }
        changed
    }
}
