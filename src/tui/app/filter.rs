//! The topic filter's background results: shown when they are the newest.

use std::sync::Arc;

use super::super::jobs::notify::Notify;
use super::super::model::topic_filter::Filtered;
use super::App;

impl App {
    /// Large topic filters are scored on a thread whose results go to `notify` (the event
    /// loop, which hands them back to `App::filtered`). Without it, filters apply inline.
    pub fn filter_in_background(&mut self, notify: Notify<Filtered>) {
        self.views
            .topics
            .list
            .filter_in_background(Arc::new(move |done| {
                notify.send(done);
            }));
    }

    /// A filtering computed on the background thread arrived: shows it if it is still the
    /// current filter's (first row selected). True when the screen must be redrawn.
    pub(crate) fn filtered(&mut self, done: Filtered) -> bool {
        if !self.views.topics.list.apply_filtered(done) {
            return false;
        }
        self.views
            .topics
            .list
            .scroll_into_view(self.layout.topics_rows());
        self.topic_changed();
        true
    }

    /// The filter is still being computed (the rows shown are the previous filter's): says so
    /// and returns true, for actions on "the topics shown" that must not act on stale rows.
    pub(crate) fn still_filtering(&mut self) -> bool {
        if self.views.topics.list.is_filtering() {
            self.flash(
                "the filter is still being applied: try again in a moment",
                true,
            );
        }
        self.views.topics.list.is_filtering()
    }
}
