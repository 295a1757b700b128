//! `p`: publishing the marked interval into a live ROS graph (the session itself runs on its
//! own thread, see `tui/jobs/publish.rs`), and its reports. Nothing is sent before the user has
//! seen what would be published (topics and counts, the namespace, the master) and said `y`.

use crate::catalog::Selection;
use crate::ros::master_uri_from;
use crate::tui::action::Action;
use crate::tui::model::publish_plan::PublishPlan;

use super::super::jobs::publish::{Job, Phase, Publisher, Publishing, RosEvent, Scope};
use super::super::jobs::worker::pending::{RequestId, RequestKind};
use super::{App, Mode};

impl App {
    /// `p`: stops the running publication, or asks whether to publish the marked interval
    /// (the topics the topic list shows), listing what would be sent.
    pub(super) fn toggle_publish(&mut self) {
        if let Some(p) = &self.jobs.publishing {
            if p.phase == Phase::Stopping {
                self.flash("still stopping the ROS publisher…", false);
                return;
            }
            if p.is_active() {
                self.stop_publishing();
                return;
            }
        }
        let (Some(a), Some(b)) = self.views.timeline.marks else {
            self.flash(
                "mark an interval first: [ at its start, ] at its end; then p publishes it",
                true,
            );
            return;
        };
        if self.jobs.ros.is_none() {
            self.flash("publishing to ROS is not available here", true);
            return;
        }
        if self.still_filtering() {
            return;
        }
        let (topics, filtered) = match self.views.topics.list.filtered_topics() {
            None => (Vec::new(), None),
            Some(topics) => {
                let shown = (topics.len(), self.views.topics.list.rows().len());
                (topics, Some(shown))
            }
        };
        if topics.is_empty() && filtered.is_some() {
            self.flash("no topic matches the filter: nothing to publish", true);
            return;
        }
        let master = self.settings.publish.config.as_ref().map_or_else(
            || master_uri_from(|k| std::env::var(k).ok()),
            |c| c.master_uri.clone(),
        );
        let settings = &self.settings.publish;
        let mut plan = PublishPlan::new(
            &self.catalog,
            &topics,
            (a, b),
            (&settings.namespace, &master, settings.rate),
        );
        plan.filtered = filtered;
        if plan.topics.is_empty() {
            self.flash(
                "no message in the marked interval: nothing to publish",
                true,
            );
            return;
        }
        self.overlays.publish_plan = Some(plan);
        self.overlays.mode = Mode::ConfirmPublish;
    }

    /// Keys while the question "publish?" is shown: `y` publishes, anything else cancels.
    pub(super) fn confirm_publish_action(&mut self, action: Action) -> bool {
        match action {
            Action::Resize(w, h) => return self.resize(w, h),
            Action::Confirm => {
                self.overlays.mode = Mode::Normal;
                if let Some(plan) = self.overlays.publish_plan.take() {
                    self.start_publishing(&plan);
                }
            }
            _ => {
                self.overlays.mode = Mode::Normal;
                self.overlays.publish_plan = None;
                self.flash("not published", false);
            }
        }
        true
    }

    /// Starts publishing what `plan` lists, from a new thread.
    fn start_publishing(&mut self, plan: &PublishPlan) {
        let Some(events) = self.jobs.ros.clone() else {
            self.flash("publishing to ROS is not available here", true);
            return;
        };
        let (topics, scope) = match plan.filtered {
            None => (Vec::new(), Scope::All),
            Some((shown, of)) => (plan.selected.clone(), Scope::Filtered { shown, of }),
        };
        let RequestId(run) = self.jobs.requests.issue(RequestKind::Publish);
        let job = Job {
            run,
            selection: Selection {
                topics,
                start: Some(plan.interval.0),
                end: Some(plan.interval.1),
                parallel: true,
            },
        };
        let mut state = Publishing::new(run, scope, &self.settings.publish);
        match Publisher::start(
            self.catalog.clone(),
            job,
            self.settings.publish.clone(),
            events,
        ) {
            Ok(p) => self.jobs.publisher = Some(p),
            Err(e) => state.phase = Phase::Failed(format!("cannot start a thread: {e}")),
        }
        self.jobs.publishing = Some(state);
    }

    /// Asks the running publication to stop (it unregisters on its thread and reports
    /// when done). False when none runs.
    pub fn stop_publishing(&mut self) -> bool {
        let Some(p) = self.jobs.publishing.as_mut().filter(|p| p.is_active()) else {
            return false;
        };
        if let Some(publisher) = &self.jobs.publisher {
            publisher.stop();
        }
        p.phase = Phase::Stopping;
        true
    }

    /// True while a publisher thread runs (until its last report arrived).
    pub fn is_publishing(&self) -> bool {
        self.jobs
            .publishing
            .as_ref()
            .is_some_and(Publishing::is_active)
    }

    pub(crate) fn ros_event(&mut self, event: RosEvent) -> bool {
        let Some(p) = self.jobs.publishing.as_mut().filter(|p| p.run == event.run) else {
            return false;
        };
        let changed = p.apply(event.update);
        if !p.is_active() {
            self.jobs.publisher = None;
        }
        changed
    }
}
