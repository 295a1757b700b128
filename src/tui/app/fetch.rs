//! What the selection fetches: the message window of the selected topic, payload sizes, the
//! decoded message, the histogram; and the worker's replies, applied when still current.

use super::super::jobs::worker::pending::RequestKind;
use super::super::jobs::worker::{Reply, Request};
use super::super::model::histogram;
use super::super::model::messages::MessageList;
use super::{App, Mode};
use crate::catalog::MsgRef;

/// Messages fetched on each side of the cursor when a topic is selected.
const WINDOW_SIDE: usize = 200;
/// Fetch more when the selection comes this close to an edge of the window.
const WINDOW_MARGIN: usize = 20;

impl App {
    /// The selected topic changed: new histogram, new message window.
    pub(crate) fn topic_changed(&mut self) {
        self.refresh_histogram();
        let Some(row) = self.views.topics.list.selected_row().cloned() else {
            self.views.messages = MessageList::default();
            return;
        };
        self.views.messages = MessageList {
            topic: Some(row.topic.clone()),
            loading: true,
            ..MessageList::default()
        };
        let id = self.jobs.requests.issue(RequestKind::Window);
        self.jobs.worker.send(Request::Window {
            id,
            topic: row.topic,
            connections: row.connections,
            center: self.views.timeline.timeline.cursor(),
            before: WINDOW_SIDE,
            after: WINDOW_SIDE,
            extend: None,
        });
    }

    /// The time cursor moved: follow it in the message list.
    pub(super) fn cursor_moved(&mut self) -> bool {
        let t = self.views.timeline.timeline.cursor();
        let w = &self.views.messages.window;
        let inside = !w.entries.is_empty() && t >= w.from && t <= w.to;
        if inside {
            if self.views.timeline.histogram.window != self.views.timeline.timeline.view() {
                // The cursor panned the zoomed window.
                self.refresh_histogram();
            }
            self.views
                .messages
                .select_time(t, self.layout.messages_rows());
            self.message_changed(false);
        } else if self.views.messages.topic.is_some() {
            self.topic_changed();
        }
        true
    }

    /// The selected message changed: decode it, keep sizes and the window topped up.
    pub(super) fn message_changed(&mut self, move_cursor: bool) {
        let Some(sel) = self.views.messages.selected_ref() else {
            return;
        };
        if move_cursor {
            self.views.timeline.timeline.set_cursor(sel.entry.time);
        }
        if self
            .views
            .inspector
            .tree
            .data
            .as_ref()
            .is_none_or(|d| d.msg != sel)
        {
            let id = self.jobs.requests.issue(RequestKind::Decode);
            self.views.inspector.tree.loading = Some(sel);
            self.jobs.worker.send(Request::Decode { id, msg: sel });
        }
        self.request_picture();
        self.request_sizes();
        if let Some(later) = self.views.messages.needs_more(WINDOW_MARGIN) {
            self.extend_window(later);
        }
    }

    pub(super) fn extend_window(&mut self, later: bool) {
        let Some(row) = self.views.topics.list.selected_row().cloned() else {
            return;
        };
        let w = &self.views.messages.window;
        let center = if later { w.to } else { w.from };
        let id = self.jobs.requests.issue(RequestKind::Window);
        self.views.messages.loading = true;
        self.jobs.worker.send(Request::Window {
            id,
            topic: row.topic,
            connections: row.connections,
            center,
            before: if later { 0 } else { WINDOW_SIDE },
            after: if later { WINDOW_SIDE } else { 0 },
            extend: Some(later),
        });
    }

    pub(super) fn request_sizes(&mut self) {
        let h = self.layout.messages_rows();
        let refs: Vec<MsgRef> = self
            .views
            .messages
            .window
            .entries
            .iter()
            .skip(self.views.messages.offset)
            .take(h)
            .filter(|r| !self.views.messages.sizes.contains_key(r))
            .copied()
            .collect();
        if refs.is_empty() {
            return;
        }
        let id = self.jobs.requests.issue(RequestKind::Sizes);
        self.jobs.worker.send(Request::Sizes { id, refs });
    }

    pub(super) fn refresh_histogram(&mut self) {
        let width = self.layout.histogram_width();
        let conns = if self.views.timeline.hist_all {
            None
        } else {
            self.views
                .topics
                .list
                .selected_row()
                .map(|r| r.connections.clone())
        };
        self.views.timeline.histogram = histogram::compute(
            &self.catalog,
            conns.as_deref(),
            self.views.timeline.timeline.view(),
            width,
        );
        self.refresh_lanes();
        self.refresh_view_bandwidth();
    }

    /// Applies a worker reply; stale replies are dropped.
    pub(crate) fn reply(&mut self, reply: Reply) -> bool {
        match reply {
            Reply::Window {
                id,
                topic,
                window,
                extend,
            } => {
                if !self.jobs.requests.is_current(RequestKind::Window, id)
                    || self.views.messages.topic.as_deref() != Some(topic.as_str())
                {
                    return false;
                }
                let h = self.layout.messages_rows();
                match extend {
                    None => {
                        self.views.messages.set_window(
                            window,
                            self.views.timeline.timeline.cursor(),
                            h,
                        );
                        self.message_changed(false);
                    }
                    Some(_) => self.views.messages.extend(window, h),
                }
                self.request_sizes();
                true
            }
            Reply::Sizes {
                id: _,
                sizes,
                previews,
            } => {
                for (r, s) in sizes {
                    if let Some(s) = s {
                        self.views.messages.sizes.insert(r, s);
                    }
                }
                self.views.messages.previews.extend(previews);
                true
            }
            Reply::Decoded { id, msg, result } => {
                if !self.jobs.requests.is_current(RequestKind::Decode, id)
                    || self.views.messages.selected_ref() != Some(msg)
                {
                    return false;
                }
                self.views
                    .inspector
                    .tree
                    .set(*result, self.settings.time_format, self.start());
                self.views
                    .inspector
                    .tree
                    .scroll_into_view(self.layout.inspector_rows());
                self.refresh_diff();
                true
            }
            Reply::Exported { id, result } => {
                if !self.jobs.requests.is_current(RequestKind::Export, id) {
                    return false;
                }
                match result {
                    Ok(text) => self.flash(text, false),
                    Err(e) => self.flash(e, true),
                }
                true
            }
            Reply::Yaml { id, topic, result } => {
                if !self.jobs.requests.is_current(RequestKind::Yaml, id) {
                    return false;
                }
                self.yaml_done(&topic, result);
                true
            }
            Reply::Picture {
                id,
                msg,
                result,
                graphic,
            } => self.picture_reply(id, msg, *result, graphic),
            Reply::ScanProgress(p) => {
                self.overlays.health.progress = p;
                self.overlays.mode == Mode::Health
            }
            Reply::Scanned(report) => {
                self.overlays.health.report = Some(*report);
                self.keep_health_stats();
                self.overlays.health.progress = 1.0;
                self.jobs.scan_clock.report_arrived();
                self.rebuild_health();
                // Index data is in memory now: the histogram can be exact.
                self.refresh_histogram();
                true
            }
        }
    }
}
