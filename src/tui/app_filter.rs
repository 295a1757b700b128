//! The topic filter's background results: shown when they are the newest.

use std::sync::Arc;
use std::sync::mpsc::Sender;

use super::app::App;
use super::event::AppEvent;
use super::model::topic_filter::Filtered;

impl App {
    /// Large topic filters are scored on a thread whose results come back as events.
    pub(crate) fn filter_in_background(&mut self, events: Sender<AppEvent>) {
        self.topics.filter_in_background(Arc::new(move |done| {
            let _ = events.send(AppEvent::Filtered(done));
        }));
    }

    /// A filtering computed on the background thread arrived: shows it if it is still the
    /// current filter's (first row selected). True when the screen must be redrawn.
    pub(crate) fn filtered(&mut self, done: Filtered) -> bool {
        if !self.topics.apply_filtered(done) {
            return false;
        }
        self.topics.scroll_into_view(self.layout.topics_rows());
        self.topic_changed();
        true
    }
}

impl App {
    /// The filter is still being computed (the rows shown are the previous filter's): says so
    /// and returns true, for actions on "the topics shown" that must not act on stale rows.
    pub(crate) fn still_filtering(&mut self) -> bool {
        if self.topics.is_filtering() {
            self.flash(
                "the filter is still being applied: try again in a moment",
                true,
            );
        }
        self.topics.is_filtering()
    }
}
