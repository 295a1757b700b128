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
        let Some(row) = self.topics.selected_row().cloned() else {
            self.messages = MessageList::default();
            return;
        };
        self.messages = MessageList {
            topic: Some(row.topic.clone()),
            loading: true,
            ..MessageList::default()
        };
        let id = self.requests.issue(RequestKind::Window);
        self.worker.send(Request::Window {
            id,
            topic: row.topic,
            connections: row.connections,
            center: self.timeline.cursor(),
            before: WINDOW_SIDE,
            after: WINDOW_SIDE,
            extend: None,
        });
    }

    /// The time cursor moved: follow it in the message list.
    pub(super) fn cursor_moved(&mut self) -> bool {
        let t = self.timeline.cursor();
        let w = &self.messages.window;
        let inside = !w.entries.is_empty() && t >= w.from && t <= w.to;
        if inside {
            if self.histogram.window != self.timeline.view() {
                // The cursor panned the zoomed window.
                self.refresh_histogram();
            }
            self.messages.select_time(t, self.layout.messages_rows());
            self.message_changed(false);
        } else if self.messages.topic.is_some() {
            self.topic_changed();
        }
        true
    }

    /// The selected message changed: decode it, keep sizes and the window topped up.
    pub(super) fn message_changed(&mut self, move_cursor: bool) {
        let Some(sel) = self.messages.selected_ref() else {
            return;
        };
        if move_cursor {
            self.timeline.set_cursor(sel.entry.time);
        }
        if self.inspector.data.as_ref().is_none_or(|d| d.msg != sel) {
            let id = self.requests.issue(RequestKind::Decode);
            self.inspector.loading = Some(sel);
            self.worker.send(Request::Decode { id, msg: sel });
        }
        self.request_picture();
        self.request_sizes();
        if let Some(later) = self.messages.needs_more(WINDOW_MARGIN) {
            self.extend_window(later);
        }
    }

    pub(super) fn extend_window(&mut self, later: bool) {
        let Some(row) = self.topics.selected_row().cloned() else {
            return;
        };
        let w = &self.messages.window;
        let center = if later { w.to } else { w.from };
        let id = self.requests.issue(RequestKind::Window);
        self.messages.loading = true;
        self.worker.send(Request::Window {
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
            .messages
            .window
            .entries
            .iter()
            .skip(self.messages.offset)
            .take(h)
            .filter(|r| !self.messages.sizes.contains_key(r))
            .copied()
            .collect();
        if refs.is_empty() {
            return;
        }
        let id = self.requests.issue(RequestKind::Sizes);
        self.worker.send(Request::Sizes { id, refs });
    }

    pub(super) fn refresh_histogram(&mut self) {
        let width = self.layout.histogram_width();
        let conns = if self.hist_all {
            None
        } else {
            self.topics.selected_row().map(|r| r.connections.clone())
        };
        self.histogram =
            histogram::compute(&self.catalog, conns.as_deref(), self.timeline.view(), width);
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
                if !self.requests.is_current(RequestKind::Window, id)
                    || self.messages.topic.as_deref() != Some(topic.as_str())
                {
                    return false;
                }
                let h = self.layout.messages_rows();
                match extend {
                    None => {
                        self.messages.set_window(window, self.timeline.cursor(), h);
                        self.message_changed(false);
                    }
                    Some(_) => self.messages.extend(window, h),
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
                        self.messages.sizes.insert(r, s);
                    }
                }
                self.messages.previews.extend(previews);
                true
            }
            Reply::Decoded { id, msg, result } => {
                if !self.requests.is_current(RequestKind::Decode, id)
                    || self.messages.selected_ref() != Some(msg)
                {
                    return false;
                }
                self.inspector.set(*result, self.time_format, self.start());
                self.inspector
                    .scroll_into_view(self.layout.inspector_rows());
                self.refresh_diff();
                true
            }
            Reply::Exported { id, result } => {
                if !self.requests.is_current(RequestKind::Export, id) {
                    return false;
                }
                match result {
                    Ok(text) => self.flash(text, false),
                    Err(e) => self.flash(e, true),
                }
                true
            }
            Reply::Yaml { id, topic, result } => {
                if !self.requests.is_current(RequestKind::Yaml, id) {
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
                self.health.progress = p;
                self.mode == Mode::Health
            }
            Reply::Scanned(report) => {
                self.health.report = Some(*report);
                self.keep_health_stats();
                self.health.progress = 1.0;
                self.scan_clock.report_arrived();
                self.rebuild_health();
                // Index data is in memory now: the histogram can be exact.
                self.refresh_histogram();
                true
            }
        }
    }
}
