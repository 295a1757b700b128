//! The message list of the selected topic: a window of entries around the time cursor that is
//! complete between its bounds, extended as the user scrolls (index data is read per chunk, by
//! the worker; the whole bag is never loaded).

use std::collections::HashMap;

use crate::bag::IndexEntry;
use crate::catalog::Catalog;
use crate::time::RosTime;

/// A message in a catalog: its bag and index entry. Ordered by time, then bag, then position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MsgRef {
    /// Bag index in the catalog.
    pub bag: usize,
    /// Entry in that bag.
    pub entry: IndexEntry,
}

impl PartialOrd for MsgRef {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for MsgRef {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (
            self.entry.time,
            self.bag,
            self.entry.conn,
            self.entry.chunk,
            self.entry.offset,
        )
            .cmp(&(
                other.entry.time,
                other.bag,
                other.entry.conn,
                other.entry.chunk,
                other.entry.offset,
            ))
    }
}

/// A slice of a topic's messages that is complete between `from` and `to`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Window {
    /// Entries, sorted.
    pub entries: Vec<MsgRef>,
    /// Every message of the topic with a time in `[from, to]` is in `entries`.
    pub from: RosTime,
    /// See `from`.
    pub to: RosTime,
    /// Nothing exists before `from`.
    pub at_start: bool,
    /// Nothing exists after `to`.
    pub at_end: bool,
}

/// Finds the messages of `connections` around `center`: at least `before` earlier and `after`
/// later ones where they exist, complete between the returned bounds. Reads index data of the
/// chunks it needs only.
pub fn window(
    catalog: &Catalog,
    connections: &[(usize, crate::bag::ConnId)],
    center: RosTime,
    before: usize,
    after: usize,
) -> Window {
    // Candidate chunks over all bags.
    let mut chunks: Vec<(usize, u32, RosTime, RosTime)> = Vec::new();
    for (bi, bag) in catalog.bags().iter().enumerate() {
        for c in bag.chunks() {
            if c.counts
                .iter()
                .any(|&(conn, n)| n > 0 && connections.contains(&(bi, conn)))
            {
                chunks.push((bi, c.index, c.start, c.end));
            }
        }
    }
    let load = |bag: usize, chunk: u32| -> Vec<MsgRef> {
        catalog.bag(bag).map_or_else(Vec::new, |b| {
            b.chunk_entries(chunk)
                .iter()
                .filter(|e| connections.contains(&(bag, e.conn)))
                .map(|&entry| MsgRef { bag, entry })
                .collect()
        })
    };
    // Forward from the center, by chunk start.
    let mut fwd: Vec<_> = chunks.iter().filter(|c| c.3 >= center).copied().collect();
    fwd.sort_by_key(|c| (c.2, c.0, c.1));
    let mut later: Vec<MsgRef> = Vec::new();
    let mut to = RosTime::MAX;
    let mut at_end = true;
    for (i, &(bag, chunk, _, _)) in fwd.iter().enumerate() {
        later.extend(
            load(bag, chunk)
                .into_iter()
                .filter(|m| m.entry.time >= center),
        );
        later.sort_unstable();
        if later.len() >= after.max(1) {
            let bound = later
                .get(after.max(1) - 1)
                .map_or(RosTime::MAX, |m| m.entry.time);
            if fwd.get(i + 1).is_none_or(|next| next.2 > bound) {
                to = bound;
                at_end =
                    fwd.get(i + 1).is_none() && later.last().is_some_and(|m| m.entry.time <= bound);
                break;
            }
        }
    }
    if to == RosTime::MAX {
        to = later.last().map_or(center, |m| m.entry.time).max(center);
    } else {
        later.retain(|m| m.entry.time <= to);
    }
    // Backward from the center, by chunk end.
    let mut back: Vec<_> = chunks.iter().filter(|c| c.2 < center).copied().collect();
    back.sort_by_key(|c| std::cmp::Reverse((c.3, c.0, c.1)));
    let mut earlier: Vec<MsgRef> = Vec::new();
    let mut from = RosTime::MIN;
    let mut at_start = true;
    for (i, &(bag, chunk, _, _)) in back.iter().enumerate() {
        earlier.extend(
            load(bag, chunk)
                .into_iter()
                .filter(|m| m.entry.time < center),
        );
        earlier.sort_unstable_by(|a, b| b.cmp(a));
        if before > 0 && earlier.len() >= before {
            let bound = earlier
                .get(before - 1)
                .map_or(RosTime::MIN, |m| m.entry.time);
            if back.get(i + 1).is_none_or(|next| next.3 < bound) {
                from = bound;
                at_start = back.get(i + 1).is_none()
                    && earlier.last().is_some_and(|m| m.entry.time >= bound);
                break;
            }
        }
    }
    if before == 0 {
        from = center;
        at_start = back.is_empty();
        earlier.clear();
    } else if from == RosTime::MIN {
        from = earlier.last().map_or(center, |m| m.entry.time).min(center);
    } else {
        earlier.retain(|m| m.entry.time >= from);
    }
    earlier.reverse();
    earlier.extend(later);
    earlier.dedup();
    Window {
        entries: earlier,
        from,
        to,
        at_start,
        at_end,
    }
}

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
