//! The log view's state: the log lines read in the background, the filters (minimum level,
//! node, text), the lines they let through and the selection. No ratatui here.

use crate::catalog::log::{LogLevel, LogLine, LogLines, LogStats, LogTopics};

use super::scroll::offset_for;

/// Which filter a prompt edits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LogField {
    /// The node filter (substring of the node name, any case).
    Node,
    /// The text filter (substring of the message, any case).
    Text,
}

/// The log view.
#[derive(Clone, Debug, Default)]
pub struct LogView {
    /// Every line read so far, in time order.
    pub lines: LogLines,
    /// The topics read (and those left out).
    pub topics: LogTopics,
    /// Fraction read.
    pub progress: f64,
    /// Reading is over.
    pub done: bool,
    /// What reading lost.
    pub stats: LogStats,
    /// Lines below this level are hidden.
    pub min_level: LogLevel,
    /// Node filter (empty: every node).
    pub node_filter: String,
    /// Text filter (empty: every line).
    pub text_filter: String,
    /// The filter being typed, with the value it had before.
    pub editing: Option<(LogField, String)>,
    /// Indices into `lines.lines` of the lines shown, ascending.
    pub shown: Vec<u32>,
    /// Selected row of `shown`.
    pub selected: usize,
    /// First row shown.
    pub scroll: usize,
}

/// True when `needle` (already lower case) is in `hay`, ignoring ASCII case; no allocation.
fn contains_folded(hay: &str, needle: &str) -> bool {
    if needle.is_empty() {
        return true;
    }
    let (h, n) = (hay.as_bytes(), needle.as_bytes());
    if n.len() > h.len() {
        return false;
    }
    h.windows(n.len())
        .any(|w| w.iter().zip(n).all(|(a, b)| a.to_ascii_lowercase() == *b))
}

impl LogView {
    /// Adds a piece read in the background and filters again, keeping the selected line.
    pub fn add(&mut self, piece: LogLines, progress: f64, stats: LogStats, done: bool) {
        let keep = self.selected_line().map(|l| l.time);
        self.lines.merge(piece);
        self.progress = progress;
        self.stats = stats;
        self.done = done;
        self.refilter_keeping(keep);
    }

    /// The selected line.
    pub fn selected_line(&self) -> Option<&LogLine> {
        let i = *self.shown.get(self.selected)?;
        self.lines.lines.get(i as usize)
    }

    /// Line `row` of the shown ones.
    pub fn shown_line(&self, row: usize) -> Option<&LogLine> {
        let i = *self.shown.get(row)?;
        self.lines.lines.get(i as usize)
    }

    /// True when the line passes the filters.
    fn passes(&self, line: &LogLine, node: &str, text: &str) -> bool {
        line.level >= self.min_level
            && contains_folded(self.lines.node(line), node)
            && contains_folded(&line.text, text)
    }

    /// Applies the filters again; the selection stays on the same line, or the nearest one
    /// after it in time.
    pub fn refilter(&mut self) {
        let keep = self.selected_line().map(|l| l.time);
        self.refilter_keeping(keep);
    }

    fn refilter_keeping(&mut self, keep: Option<crate::time::RosTime>) {
        let node = self.node_filter.to_ascii_lowercase();
        let text = self.text_filter.to_ascii_lowercase();
        let mut shown = std::mem::take(&mut self.shown);
        shown.clear();
        shown.extend(
            self.lines
                .lines
                .iter()
                .enumerate()
                .filter(|(_, l)| self.passes(l, &node, &text))
                .map(|(i, _)| u32::try_from(i).unwrap_or(u32::MAX)),
        );
        self.shown = shown;
        self.selected = match keep {
            Some(t) => self.row_at(t),
            None => 0,
        };
        self.selected = self.selected.min(self.shown.len().saturating_sub(1));
    }

    /// The first shown row at or after time `t` (the last row when none is).
    pub fn row_at(&self, t: crate::time::RosTime) -> usize {
        let lines = &self.lines.lines;
        self.shown
            .partition_point(|&i| lines.get(i as usize).is_some_and(|l| l.time < t))
            .min(self.shown.len().saturating_sub(1))
    }

    /// Moves the selection by `delta` rows in a viewport of `height` rows.
    pub fn move_by(&mut self, delta: isize, height: usize) {
        let last = self.shown.len().saturating_sub(1);
        self.selected = self.selected.saturating_add_signed(delta).min(last);
        self.scroll_into_view(height);
    }

    /// Keeps the selection inside a viewport of `height` rows.
    pub fn scroll_into_view(&mut self, height: usize) {
        self.scroll = offset_for(self.selected, self.scroll, self.shown.len(), height);
    }

    /// The next minimum level (wrapping from FATAL to DEBUG).
    pub fn cycle_level(&mut self) {
        self.min_level = self.min_level.next();
        self.refilter();
    }

    /// Starts typing `field`'s filter.
    pub fn begin_edit(&mut self, field: LogField) {
        let before = self.filter(field).to_string();
        self.editing = Some((field, before));
    }

    /// The filter text of `field`.
    pub fn filter(&self, field: LogField) -> &str {
        match field {
            LogField::Node => &self.node_filter,
            LogField::Text => &self.text_filter,
        }
    }

    /// Sets the filter being typed (live) and filters again.
    pub fn set_edited(&mut self, text: &str) {
        let Some((field, _)) = &self.editing else {
            return;
        };
        match field {
            LogField::Node => text.clone_into(&mut self.node_filter),
            LogField::Text => text.clone_into(&mut self.text_filter),
        }
        self.refilter();
    }

    /// Ends typing: keeps the filter (`accept`) or restores the one before.
    pub fn end_edit(&mut self, accept: bool) {
        let Some((field, before)) = self.editing.take() else {
            return;
        };
        if !accept {
            match field {
                LogField::Node => self.node_filter = before,
                LogField::Text => self.text_filter = before,
            }
            self.refilter();
        }
    }

    /// Widest node name (for the node column), at most `max`.
    pub fn node_width(&self, max: usize) -> usize {
        self.lines
            .nodes
            .iter()
            .map(|n| crate::tui::text::width(n))
            .max()
            .unwrap_or(0)
            .min(max)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::RosTime;

    fn lines() -> LogLines {
        let mut l = LogLines {
            lines: Vec::new(),
            nodes: vec!["/planner".into(), "/Driver".into()],
        };
        for i in 0..10u32 {
            l.lines.push(LogLine {
                time: RosTime::new(i, 0),
                level: LogLevel::ALL[(i % 5) as usize],
                node: i % 2,
                topic: 0,
                text: format!("line {i} Timeout").into(),
                origin: "".into(),
            });
        }
        l
    }

    #[test]
    fn filters_by_level_node_and_text_keeping_the_selection() {
        let mut v = LogView::default();
        v.add(lines(), 1.0, LogStats::default(), true);
        assert_eq!(v.shown.len(), 10);
        v.move_by(3, 5);
        assert_eq!(v.selected_line().unwrap().time, RosTime::new(3, 0));
        v.cycle_level(); // INFO and up
        assert_eq!(v.shown.len(), 8);
        assert_eq!(v.selected_line().unwrap().time, RosTime::new(3, 0));
        v.cycle_level();
        v.cycle_level(); // ERROR and up: 3, 4, 8, 9
        assert_eq!(v.shown, vec![3, 4, 8, 9]);
        v.begin_edit(LogField::Node);
        v.set_edited("DRIV");
        assert_eq!(v.shown, vec![3, 9]);
        v.end_edit(false);
        assert_eq!(v.node_filter, "");
        v.begin_edit(LogField::Text);
        v.set_edited("timeOUT");
        v.end_edit(true);
        assert_eq!(v.shown.len(), 4);
        v.begin_edit(LogField::Text);
        v.set_edited("line 8");
        v.end_edit(true);
        assert_eq!(v.shown, vec![8]);
        assert_eq!(v.selected, 0);
        v.cycle_level(); // FATAL only: nothing left
        v.cycle_level(); // DEBUG again
        assert_eq!(v.min_level, LogLevel::Debug);
    }

    #[test]
    fn row_at_finds_the_first_line_at_or_after_a_time() {
        let mut v = LogView::default();
        v.add(lines(), 1.0, LogStats::default(), true);
        assert_eq!(v.row_at(RosTime::new(4, 1)), 5);
        assert_eq!(v.row_at(RosTime::new(99, 0)), 9);
        assert!(contains_folded("Hello World", "o w"));
        assert!(!contains_folded("Hi", "hello"));
    }
}
