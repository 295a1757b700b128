//! The message list of the selected topic: a [`Window`] of entries around the time cursor
//! (asked of the catalog by the worker, see [`Catalog::window`]), extended as the user
//! scrolls, with the selection and scroll position.
//!
//! [`Catalog::window`]: crate::catalog::Catalog::window

use std::collections::HashMap;

use crate::catalog::{MsgRef, Window};
use crate::time::RosTime;

/// The list state: the window, selection, scroll, and sizes learnt so far.
#[derive(Clone, Debug, Default)]
pub struct MessageList {
    /// Topic shown.
    pub topic: Option<String>,
    /// The messages known.
    pub window: Window,
    /// Selected entry index.
    pub selected: usize,
    /// First entry shown.
    pub offset: usize,
    /// Payload sizes read so far.
    pub sizes: HashMap<MsgRef, usize>,
    /// One-line previews decoded so far (the worker decodes the visible rows).
    pub previews: HashMap<MsgRef, String>,
    /// True while a window request is outstanding.
    pub loading: bool,
}

impl MessageList {
    /// The selected message.
    pub fn selected_ref(&self) -> Option<MsgRef> {
        self.window.entries.get(self.selected).copied()
    }

    /// Replaces the window and selects the entry nearest `near`.
    pub fn set_window(&mut self, window: Window, near: RosTime, height: usize) {
        self.window = window;
        self.loading = false;
        self.select_time(near, height);
    }

    /// Merges an extension into the window, keeping the selected message selected.
    pub fn extend(&mut self, more: Window, height: usize) {
        let keep = self.selected_ref();
        let mut all = std::mem::take(&mut self.window.entries);
        all.extend(more.entries);
        all.sort_unstable();
        all.dedup();
        self.window.entries = all;
        if more.from < self.window.from {
            self.window.from = more.from;
            self.window.at_start = more.at_start;
        }
        if more.to > self.window.to {
            self.window.to = more.to;
            self.window.at_end = more.at_end;
        }
        self.loading = false;
        if let Some(k) = keep {
            if let Ok(i) = self.window.entries.binary_search(&k) {
                self.selected = i;
            }
        }
        self.scroll_into_view(height);
    }

    /// Selects the last message at or before `t` (or the first one).
    pub fn select_time(&mut self, t: RosTime, height: usize) {
        let i = self.window.entries.partition_point(|m| m.entry.time <= t);
        self.selected = i.saturating_sub(1);
        self.scroll_into_view(height);
    }

    /// Moves the selection.
    pub fn move_by(&mut self, delta: isize, height: usize) {
        if self.window.entries.is_empty() {
            return;
        }
        self.selected = self
            .selected
            .saturating_add_signed(delta)
            .min(self.window.entries.len() - 1);
        self.scroll_into_view(height);
    }

    /// Keeps the selection in a viewport of `height` rows, centred when it jumps.
    pub fn scroll_into_view(&mut self, height: usize) {
        self.offset = super::scroll::offset_for(
            self.selected,
            self.offset,
            self.window.entries.len(),
            height,
        );
    }

    /// Which side needs more entries: the selection is within `margin` of an edge that is not
    /// the end of the data.
    pub fn needs_more(&self, margin: usize) -> Option<bool> {
        if self.loading || self.window.entries.is_empty() {
            return None;
        }
        if self.selected < margin && !self.window.at_start {
            return Some(false);
        }
        if self.selected + margin >= self.window.entries.len() && !self.window.at_end {
            return Some(true);
        }
        None
    }
}
