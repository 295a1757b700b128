//! The topic list: rows, sorting, fuzzy filtering with match positions, selection and scroll.

use std::sync::Arc;

use fuzzy_matcher::FuzzyMatcher;
use fuzzy_matcher::skim::SkimMatcherV2;

use super::topic_filter::{self, BACKGROUND_FROM, Deliver, FilterJob, Filtered};
pub use super::topic_row::{SortKey, TopicRow, VisibleRow};
use crate::tui::jobs::topic_filter::Filterer;

/// The topic list model.
#[derive(Debug, Default)]
pub struct TopicList {
    rows: Arc<Vec<TopicRow>>,
    visible: Vec<VisibleRow>,
    filter: String,
    /// The filter the visible rows were computed for (differs from `filter` while the
    /// background thread computes the current one).
    shown_filter: String,
    /// Generation of the newest filtering; results of older ones are dropped.
    generation: u64,
    /// A background filtering of generation `generation` is under way.
    pending: bool,
    /// The background filtering thread, when set up.
    filterer: Option<Filterer>,
    sort: SortKey,
    selected: usize,
    offset: usize,
    /// Widest topic name and type (characters), for column widths.
    widest: (usize, usize),
    /// The topic selected when filtering started (what cancelling the filter returns to).
    before_filter: Option<String>,
}

impl TopicList {
    /// A list of `rows` (put in name order), unfiltered.
    pub fn new(mut rows: Vec<TopicRow>) -> Self {
        // Name order (the catalog's already): the rows' order breaks ties and allows lookups.
        rows.sort_by(|a, b| a.topic.cmp(&b.topic));
        let widest = rows.iter().fold((0, 0), |(n, t), r| {
            (
                n.max(r.topic.chars().count()),
                t.max(r.datatype.chars().count()),
            )
        });
        let mut list = TopicList {
            rows: Arc::new(rows),
            widest,
            ..TopicList::default()
        };
        list.refresh();
        list
    }

    /// All rows.
    pub fn rows(&self) -> &[TopicRow] {
        &self.rows
    }

    /// Replaces per-topic statistics (rates, sizes) keeping the selection.
    pub fn update_stats(&mut self, f: impl Fn(&mut TopicRow)) {
        let selected = self.selected_row().map(|r| r.topic.clone());
        // Copied only if a background filtering still holds the rows.
        Arc::make_mut(&mut self.rows).iter_mut().for_each(f);
        self.refresh();
        if let Some(t) = selected {
            self.select_topic(&t);
        }
    }

    /// The widest topic name and type, in characters.
    pub fn widest(&self) -> (usize, usize) {
        self.widest
    }

    /// The rows shown, in order.
    pub fn visible(&self) -> &[VisibleRow] {
        &self.visible
    }

    /// The topics a filter selects, in the order shown: `None` without a filter (every
    /// topic), else the shown rows' names (empty when nothing matches).
    pub fn filtered_topics(&self) -> Option<Vec<String>> {
        if self.filter.is_empty() {
            return None;
        }
        Some(
            self.visible
                .iter()
                .filter_map(|v| self.rows.get(v.row))
                .map(|r| r.topic.clone())
                .collect(),
        )
    }

    /// The filter text.
    pub fn filter(&self) -> &str {
        &self.filter
    }

    /// The sort order.
    pub fn sort(&self) -> SortKey {
        self.sort
    }

    /// Index of the selected visible row.
    pub fn selected(&self) -> usize {
        self.selected
    }

    /// First visible row shown (scroll offset).
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// The selected topic, if any row is visible.
    pub fn selected_row(&self) -> Option<&TopicRow> {
        self.visible
            .get(self.selected)
            .and_then(|v| self.rows.get(v.row))
    }

    /// Scores filters of [`BACKGROUND_FROM`] rows or more on a background thread from now on,
    /// handing results to `deliver` (to be given back with [`TopicList::apply_filtered`]).
    pub fn filter_in_background(&mut self, deliver: Deliver) {
        self.filterer = Some(Filterer::start(deliver));
    }

    /// A background filtering is under way: the rows shown are those of the previous filter.
    pub fn is_filtering(&self) -> bool {
        self.pending
    }

    /// Sets the filter and recomputes the visible rows (best matches first): at once, or for
    /// many rows on the background thread (see [`TopicList::filter_in_background`]), the
    /// previous rows staying shown until [`TopicList::apply_filtered`].
    pub fn set_filter(&mut self, filter: &str) {
        if self.filter.is_empty() && !filter.is_empty() {
            self.before_filter = self.selected_row().map(|r| r.topic.clone());
        }
        // Typing one more character: only the rows shown can still match.
        let within = (!self.shown_filter.is_empty()
            && filter.starts_with(self.shown_filter.as_str()))
        .then(|| self.visible.iter().map(|v| v.row).collect());
        self.filter = filter.to_string();
        self.generation += 1;
        if !filter.is_empty() && self.rows.len() >= BACKGROUND_FROM {
            if let Some(f) = &self.filterer {
                let job = FilterJob {
                    generation: self.generation,
                    rows: Arc::clone(&self.rows),
                    filter: filter.to_string(),
                    sort: self.sort,
                    within,
                };
                if f.send(job) {
                    self.pending = true;
                    return;
                }
                self.filterer = None;
                self.selected = 0;
                self.offset = 0;
                self.refresh();
                return;
            }
        }
        self.selected = 0;
        self.offset = 0;
        self.refresh_from(within);
    }

    /// Shows a background result if it is the newest; true when it was applied (the
    /// selection is then the first row).
    pub fn apply_filtered(&mut self, done: Filtered) -> bool {
        if !self.pending || done.generation != self.generation || done.filter != self.filter {
            return false;
        }
        self.pending = false;
        self.visible = done.visible;
        self.shown_filter = done.filter;
        self.selected = 0;
        self.offset = 0;
        true
    }

    /// Typing a filter starts: remembers the selected topic for [`TopicList::clear_filter`].
    pub fn begin_filter(&mut self) {
        self.before_filter = self.selected_row().map(|r| r.topic.clone());
    }

    /// Removes the filter. The selected topic stays selected; with `cancel`, or when the
    /// filter matched nothing, the topic selected before filtering is selected again.
    pub fn clear_filter(&mut self, cancel: bool) {
        let current = self.selected_row().map(|r| r.topic.clone());
        let before = self.before_filter.take();
        let keep = if cancel {
            before.or(current)
        } else {
            current.or(before)
        };
        self.set_filter("");
        self.before_filter = None;
        if let Some(t) = keep {
            self.select_topic(&t);
        }
    }

    /// Cycles the sort order.
    pub fn cycle_sort(&mut self) {
        let selected = self.selected_row().map(|r| r.topic.clone());
        self.sort = self.sort.next();
        self.refresh();
        if let Some(t) = selected {
            self.select_topic(&t);
        }
    }

    /// Selects a topic by name if visible.
    pub fn select_topic(&mut self, topic: &str) -> bool {
        match self
            .visible
            .iter()
            .position(|v| self.rows.get(v.row).is_some_and(|r| r.topic == topic))
        {
            Some(i) => {
                self.selected = i;
                true
            }
            None => false,
        }
    }

    /// Moves the selection by `delta` rows (clamped), keeping it within a viewport of `height`.
    pub fn move_by(&mut self, delta: isize, height: usize) {
        if self.visible.is_empty() {
            return;
        }
        let max = self.visible.len() - 1;
        self.selected = self.selected.saturating_add_signed(delta).min(max);
        self.scroll_into_view(height);
    }

    /// Selects the first or last row.
    pub fn jump(&mut self, to_end: bool, height: usize) {
        self.selected = if to_end {
            self.visible.len().saturating_sub(1)
        } else {
            0
        };
        self.scroll_into_view(height);
    }

    /// Selects visible row `index` (mouse click).
    pub fn select_index(&mut self, index: usize, height: usize) {
        if index < self.visible.len() {
            self.selected = index;
            self.scroll_into_view(height);
        }
    }

    /// Adjusts the scroll offset so the selection is visible in `height` rows.
    pub fn scroll_into_view(&mut self, height: usize) {
        self.offset =
            super::scroll::offset_for(self.selected, self.offset, self.visible.len(), height);
    }

    /// Character positions of `topic` matched by the filter of the rows shown (for
    /// highlighting).
    pub fn matched(&self, topic: &str) -> Vec<usize> {
        if self.shown_filter.is_empty() {
            return Vec::new();
        }
        SkimMatcherV2::default()
            .ignore_case()
            .fuzzy_indices(topic, &self.shown_filter)
            .map(|(_, m)| m)
            .unwrap_or_default()
    }

    /// Replaces every row (a followed recording grew), keeping the filter, the sort and
    /// the selected topic; the filter is applied at once.
    pub fn replace_rows(&mut self, mut rows: Vec<TopicRow>) {
        let selected = self.selected_row().map(|r| r.topic.clone());
        rows.sort_by(|a, b| a.topic.cmp(&b.topic));
        self.widest = rows.iter().fold((0, 0), |(n, t), r| {
            (
                n.max(r.topic.chars().count()),
                t.max(r.datatype.chars().count()),
            )
        });
        self.rows = Arc::new(rows);
        self.refresh();
        if let Some(t) = selected {
            self.select_topic(&t);
        }
    }

    fn refresh(&mut self) {
        self.refresh_from(None);
    }

    /// Recomputes the visible rows at once (dropping any background result under way);
    /// `within`: only these rows can match (the filter was extended: a name matching the
    /// longer filter matches the shorter one).
    fn refresh_from(&mut self, within: Option<Vec<usize>>) {
        self.generation += 1;
        self.pending = false;
        self.visible = topic_filter::compute(&self.rows, &self.filter, self.sort, within);
        self.shown_filter.clone_from(&self.filter);
        self.selected = self.selected.min(self.visible.len().saturating_sub(1));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(topic: &str, count: u64) -> TopicRow {
        TopicRow {
            topic: topic.into(),
            datatype: "std_msgs/String".into(),
            count,
            rate: Some(count as f64),
            bytes: None,
            bandwidth: None,
            view_bandwidth: None,
            connections: vec![],
            bags: vec![0],
            conflicting: false,
        }
    }

    #[test]
    fn filters_fuzzily_with_match_positions() {
        let mut l = TopicList::new(vec![
            row("/camera/image_raw", 5),
            row("/imu/data", 50),
            row("/tf", 9),
        ]);
        assert_eq!(l.visible().len(), 3);
        l.set_filter("img");
        let names: Vec<_> = l
            .visible()
            .iter()
            .map(|v| l.rows()[v.row].topic.clone())
            .collect();
        assert_eq!(names, vec!["/camera/image_raw"]);
        assert_eq!(l.matched("/camera/image_raw").len(), 3);
        l.set_filter("zzz");
        assert!(l.visible().is_empty());
        assert!(l.selected_row().is_none());
        l.set_filter("");
        assert_eq!(l.visible().len(), 3);
    }

    #[test]
    fn clearing_the_filter_keeps_or_restores_the_selection() {
        let mut l = TopicList::new(vec![row("/a", 1), row("/b", 2), row("/c", 3)]);
        assert!(l.select_topic("/b"));
        l.set_filter("c");
        l.clear_filter(true);
        assert_eq!(
            l.selected_row().unwrap().topic,
            "/b",
            "cancelled: back to /b"
        );
        l.set_filter("c");
        l.clear_filter(false);
        assert_eq!(l.selected_row().unwrap().topic, "/c", "accepted: /c stays");
        l.set_filter("zzz");
        l.clear_filter(false);
        assert_eq!(
            l.selected_row().unwrap().topic,
            "/c",
            "nothing matched: back to /c"
        );
    }

    #[test]
    fn sorts_and_keeps_the_selection() {
        let mut l = TopicList::new(vec![row("/a", 1), row("/b", 30), row("/c", 20)]);
        assert!(l.select_topic("/c"));
        l.cycle_sort();
        assert_eq!(l.sort(), SortKey::Count);
        let names: Vec<_> = l
            .visible()
            .iter()
            .map(|v| l.rows()[v.row].topic.as_str())
            .collect();
        assert_eq!(names, vec!["/b", "/c", "/a"]);
        assert_eq!(l.selected_row().unwrap().topic, "/c");
    }

    #[test]
    fn scrolls_to_keep_the_selection_visible() {
        let rows = (0..50).map(|i| row(&format!("/t{i:02}"), i)).collect();
        let mut l = TopicList::new(rows);
        l.move_by(20, 10);
        assert_eq!(l.selected(), 20);
        assert_eq!(l.offset(), 11);
        l.move_by(-15, 10);
        assert_eq!(l.offset(), 5);
        l.jump(true, 10);
        assert_eq!((l.selected(), l.offset()), (49, 40));
        l.move_by(100, 10);
        assert_eq!(l.selected(), 49);
    }
}
