//! The timeline's scope, cycled with `a`: the selected topic, all topics, lanes (one row per
//! shown topic).

use super::super::model::lanes::{self, Lanes};
use super::App;

impl App {
    /// `a`: selected topic → all topics → lanes → selected topic.
    pub(super) fn cycle_timeline_scope(&mut self) {
        match (
            self.views.timeline.hist_all,
            self.views.timeline.lanes.is_some(),
        ) {
            (false, false) => self.views.timeline.hist_all = true,
            (true, _) => {
                self.views.timeline.hist_all = false;
                self.views.timeline.lanes = Some(Lanes::default());
            }
            (false, true) => self.views.timeline.lanes = None,
        }
        self.refresh_histogram();
    }

    /// The columns of a timeline pane `width` cells wide inside: those before the time axis
    /// (the lanes' names) and those on it.
    pub(super) fn timeline_columns(&self, width: usize) -> (usize, usize) {
        if self.views.timeline.lanes.is_some() {
            let names = lanes::name_width(width);
            (names, width.saturating_sub(names).max(1))
        } else {
            (0, width)
        }
    }

    /// Rebuilds the lanes (when shown) for the timeline pane's size and window.
    pub(super) fn refresh_lanes(&mut self) {
        let Some(mut l) = self.views.timeline.lanes.take() else {
            return;
        };
        let inner = self.layout.histogram;
        let (w, h) = (
            inner.width.saturating_sub(2) as usize,
            inner.height.saturating_sub(2) as usize,
        );
        let w = if w == 0 {
            self.layout.histogram_width()
        } else {
            w
        };
        // (`self.views.timeline.lanes` is taken: the name column is the lanes' own.)
        let bars = w.saturating_sub(lanes::name_width(w)).max(1);
        l.refresh(
            &self.catalog,
            &self.views.topics.list,
            self.views.timeline.timeline.view(),
            (lanes::lane_rows(h), bars),
        );
        self.views.timeline.lanes = Some(l);
    }
}
