//! The log view's state: the log lines read in the background, the filters (minimum or exact
//! level, the nodes shown, text), the lines they let through and the selection. No ratatui
//! here.

use crate::catalog::log::{LogLevel, LogLine, LogLines, LogStats, LogTopics};

use super::log_nodes::NodePicker;
use super::scroll::offset_for;

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
    /// Lines below this level are hidden (all but this level with `exact_level`).
    pub min_level: LogLevel,
    /// Only lines of `min_level` itself are shown.
    pub exact_level: bool,
    /// The nodes shown (indices into `lines.nodes`, ascending; empty: every node).
    pub nodes: Vec<u32>,
    /// The node picker, while it is open.
    pub picker: Option<NodePicker>,
    /// Text filter (empty: every line).
    pub text_filter: String,
    /// The text filter before it was being typed (`Some` while typing).
    pub editing: Option<String>,
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

    /// True when the line passes the level and text filters (`nodes`: which nodes pass, by
    /// index; empty: all).
    fn passes(&self, line: &LogLine, nodes: &[bool], text: &str) -> bool {
        let level = if self.exact_level {
            line.level == self.min_level
        } else {
            line.level >= self.min_level
        };
        level
            && (nodes.is_empty() || nodes.get(line.node as usize).copied().unwrap_or(false))
            && contains_folded(&line.text, text)
    }

    /// Applies the filters again; the selection stays on the same line, or the nearest one
    /// after it in time.
    pub fn refilter(&mut self) {
        let keep = self.selected_line().map(|l| l.time);
        self.refilter_keeping(keep);
    }

    fn refilter_keeping(&mut self, keep: Option<crate::time::RosTime>) {
        let mut nodes = Vec::new();
        if !self.nodes.is_empty() {
            nodes.resize(self.lines.nodes.len(), false);
            for &n in &self.nodes {
                if let Some(slot) = nodes.get_mut(n as usize) {
                    *slot = true;
                }
            }
        }
        let text = self.text_filter.to_ascii_lowercase();
        let mut shown = std::mem::take(&mut self.shown);
        shown.clear();
        shown.extend(
            self.lines
                .lines
                .iter()
                .enumerate()
                .filter(|(_, l)| self.passes(l, &nodes, &text))
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

    /// Shows only the minimum level's lines, or again every level from it up.
    pub fn toggle_exact_level(&mut self) {
        self.exact_level = !self.exact_level;
        self.refilter();
    }

    /// Starts typing the text filter.
    pub fn begin_edit(&mut self) {
        self.editing = Some(self.text_filter.clone());
    }

    /// Sets the text filter being typed (live) and filters again.
    pub fn set_edited(&mut self, text: &str) {
        if self.editing.is_none() {
            return;
        }
        text.clone_into(&mut self.text_filter);
        self.refilter();
    }

    /// Ends typing: keeps the text filter (`accept`) or restores the one before.
    pub fn end_edit(&mut self, accept: bool) {
        let Some(before) = self.editing.take() else {
            return;
        };
        if !accept {
            self.text_filter = before;
            self.refilter();
        }
    }

    /// Opens the node picker on the nodes shown now.
    pub fn open_picker(&mut self) {
        self.picker = Some(NodePicker::open(&self.lines, &self.nodes));
    }

    /// Closes the node picker, showing what it chose (`accept`) or leaving the nodes as
    /// they were.
    pub fn close_picker(&mut self, accept: bool) {
        let Some(picker) = self.picker.take() else {
            return;
        };
        if accept {
            self.nodes = picker.choice(&self.lines);
            self.refilter();
        }
    }

    /// The names of the nodes shown, sorted (empty: every node).
    pub fn node_names(&self) -> Vec<&str> {
        let mut names: Vec<&str> = self
            .nodes
            .iter()
            .filter_map(|&n| self.lines.nodes.get(n as usize).map(|s| &**s))
            .collect();
        names.sort_unstable();
        names
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
        v.nodes = vec![1]; // /Driver
        v.refilter();
        assert_eq!(v.shown, vec![3, 9]);
        v.open_picker();
        v.close_picker(false);
        assert_eq!(v.nodes, vec![1], "a cancelled picker changes nothing");
        v.open_picker();
        let all = v.lines.clone();
        let picker = v.picker.as_mut().unwrap();
        assert_eq!(picker.cursor, 1, "on /Driver");
        picker.move_by(-1, &all);
        picker.toggle(&all); // on "every node": unchecks all
        v.close_picker(true);
        assert_eq!(v.nodes, Vec::<u32>::new(), "every node");
        assert_eq!(v.shown, vec![3, 4, 8, 9]);
        v.toggle_exact_level();
        assert_eq!(v.shown, vec![3, 8], "ERROR only");
        v.toggle_exact_level();
        v.begin_edit();
        v.set_edited("timeOUT");
        v.end_edit(true);
        assert_eq!(v.shown.len(), 4);
        v.begin_edit();
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
