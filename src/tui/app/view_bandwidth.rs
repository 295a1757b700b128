//! The topic list's bandwidth over the visible window: while the timeline is zoomed, each
//! topic's bytes per second inside the window (exact once the index scan has loaded the index
//! data, estimated from chunk infos before); zoomed out, the whole bag's.
//!
//! The sum is O(chunks in the window): on a thread of its own ([`Job::latest`]: only the newest
//! window is summed) when the event loop runs, so a zoom on a bag of a million chunks never
//! waits for it; the rows keep the previous window's figures until the new ones arrive.

use super::App;
use crate::catalog::window_bytes::{self, EXACT_BUDGET, WindowBytes};
use crate::tui::jobs::job::Job;
use crate::tui::jobs::notify::Notify;
use crate::tui::view::timeline::BandwidthRequest;

impl App {
    /// Where the bandwidth over the window is reported (the event loop's channel).
    pub fn set_bandwidth_notify(&mut self, notify: Notify<WindowBytes>) {
        self.views.timeline.bandwidth.notify = Some(notify);
    }

    /// Recomputes the per-topic bandwidth over the window after a zoom or pan (from index data
    /// in memory, bounded like the histogram: no file is read).
    pub(super) fn refresh_view_bandwidth(&mut self) {
        if !self.views.timeline.timeline.is_zoomed() {
            self.views.timeline.bandwidth.asked = None;
            if self.views.topics.bytes.take().is_some() {
                self.views
                    .topics
                    .list
                    .update_stats(|row| row.view_bandwidth = None);
            }
            return;
        }
        let window = self.views.timeline.timeline.view();
        let rows_lack = self.rows_lack_view_bandwidth();
        // An exact count for this window stands (moving the selection costs nothing); an
        // estimate is redone, as the index data may have come in meanwhile.
        if !rows_lack
            && self
                .views
                .topics
                .bytes
                .as_ref()
                .is_some_and(|v| v.exact && v.window == window)
        {
            return;
        }
        // A thread that ended (its work panicked) is started again rather than asked in vain.
        if !self
            .views
            .timeline
            .bandwidth
            .thread
            .as_ref()
            .is_some_and(Job::is_running)
        {
            if let Some(notify) = self.views.timeline.bandwidth.notify.clone() {
                let sum =
                    |r: BandwidthRequest| window_bytes::compute(&r.catalog, r.window, EXACT_BUDGET);
                match Job::latest("view-bandwidth", sum, notify) {
                    Ok(t) => self.views.timeline.bandwidth.thread = Some(t),
                    Err(e) => self.flash(format!("cannot start a thread: {e}"), true),
                }
            }
        }
        if let Some(t) = &self.views.timeline.bandwidth.thread {
            t.request(BandwidthRequest {
                catalog: self.catalog.clone(),
                window,
            });
            self.views.timeline.bandwidth.asked = Some(window);
        } else {
            let bytes = window_bytes::compute(&self.catalog, window, EXACT_BUDGET);
            self.show_view_bytes(bytes, rows_lack);
        }
    }

    /// Whether a topic row has no bandwidth over the window yet.
    fn rows_lack_view_bandwidth(&self) -> bool {
        self.views
            .topics
            .list
            .rows()
            .iter()
            .any(|r| r.view_bandwidth.is_none())
    }

    /// A sum made in the background: shown when it is for the window asked for last.
    pub(crate) fn view_bytes_news(&mut self, bytes: WindowBytes) -> bool {
        if self.views.timeline.bandwidth.asked != Some(bytes.window)
            || !self.views.timeline.timeline.is_zoomed()
        {
            return false;
        }
        let rows_lack = self.rows_lack_view_bandwidth();
        self.show_view_bytes(bytes, rows_lack)
    }

    /// Puts `bytes` into the topic rows; false when nothing changed.
    fn show_view_bytes(&mut self, bytes: WindowBytes, rows_lack: bool) -> bool {
        if self.views.topics.bytes.as_ref() == Some(&bytes) && !rows_lack {
            return false;
        }
        self.views
            .topics
            .list
            .update_stats(|row| row.view_bandwidth = Some(bytes.rate(&row.topic)));
        self.views.topics.bytes = Some(bytes);
        true
    }
}
