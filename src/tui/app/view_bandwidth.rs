//! The topic list's bandwidth over the visible window: while the timeline is zoomed, each
//! topic's bytes per second inside the window (exact once the index scan has loaded the index
//! data, estimated from chunk infos before); zoomed out, the whole bag's.

use super::App;
use crate::catalog::window_bytes::{self, EXACT_BUDGET};

impl App {
    /// Recomputes the per-topic bandwidth over the window after a zoom or pan (from index data
    /// in memory, bounded like the histogram: no file is read here).
    pub(super) fn refresh_view_bandwidth(&mut self) {
        if !self.timeline.is_zoomed() {
            if self.view_bytes.take().is_some() {
                self.topics.update_stats(|row| row.view_bandwidth = None);
            }
            return;
        }
        let window = self.timeline.view();
        let rows_lack = self
            .topics
            .rows()
            .iter()
            .any(|r| r.view_bandwidth.is_none());
        // An exact count for this window stands (moving the selection costs nothing); an
        // estimate is redone, as the index data may have come in meanwhile.
        if !rows_lack
            && self
                .view_bytes
                .as_ref()
                .is_some_and(|v| v.exact && v.window == window)
        {
            return;
        }
        let bytes = window_bytes::compute(&self.catalog, window, EXACT_BUDGET);
        if self.view_bytes.as_ref() == Some(&bytes) && !rows_lack {
            return;
        }
        self.topics
            .update_stats(|row| row.view_bandwidth = Some(bytes.rate(&row.topic)));
        self.view_bytes = Some(bytes);
    }
}
