//! The log view's node picker (`@`): the nodes that log, narrowed by what is typed, with how
//! many lines each wrote; `Space` checks nodes, `Enter` shows the checked ones (or the one
//! under the cursor when none is checked). Row 0 is "every node". No ratatui here.

use crate::catalog::log::LogLines;

/// The picker's state while it is open.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NodePicker {
    /// What is typed (a part of the name, any case).
    pub query: String,
    /// The checked nodes (indices into [`LogLines::nodes`]), ascending.
    pub checked: Vec<u32>,
    /// The row under the cursor: 0 is "every node", then [`NodePicker::rows`].
    pub cursor: usize,
    /// First node row shown (scrolling).
    pub scroll: usize,
    /// Lines per node (by index into [`LogLines::nodes`]) when the picker opened.
    pub counts: Vec<u64>,
}

/// True when `needle` (lower case) is in `hay`, ignoring ASCII case.
fn contains_folded(hay: &str, needle: &str) -> bool {
    needle.is_empty()
        || hay
            .as_bytes()
            .windows(needle.len())
            .any(|w| w.eq_ignore_ascii_case(needle.as_bytes()))
}

impl NodePicker {
    /// Opens on `lines`' nodes with `shown` (the nodes the view shows; empty: all) checked.
    pub fn open(lines: &LogLines, shown: &[u32]) -> NodePicker {
        let mut counts = vec![0u64; lines.nodes.len()];
        for l in &lines.lines {
            if let Some(c) = counts.get_mut(l.node as usize) {
                *c += 1;
            }
        }
        let mut picker = NodePicker {
            checked: shown.to_vec(),
            counts,
            ..NodePicker::default()
        };
        picker.checked.sort_unstable();
        // On the first checked node, or on "every node".
        if let Some(first) = picker.checked.first() {
            let rows = picker.rows(lines);
            picker.cursor = rows.iter().position(|r| r == first).map_or(0, |i| i + 1);
        }
        picker
    }

    /// The nodes that match the query, by name (indices into [`LogLines::nodes`]).
    pub fn rows(&self, lines: &LogLines) -> Vec<u32> {
        let query = self.query.to_ascii_lowercase();
        let mut rows: Vec<u32> = (0..lines.nodes.len())
            .filter_map(|i| u32::try_from(i).ok())
            .filter(|&i| {
                lines
                    .nodes
                    .get(i as usize)
                    .is_some_and(|n| contains_folded(n, &query))
            })
            .collect();
        rows.sort_by(|a, b| {
            lines
                .nodes
                .get(*a as usize)
                .cmp(&lines.nodes.get(*b as usize))
        });
        rows
    }

    /// Sets what is typed; the cursor goes to the first match (to "every node" when nothing
    /// is typed).
    pub fn set_query(&mut self, query: &str, lines: &LogLines) {
        query.clone_into(&mut self.query);
        self.cursor = usize::from(!query.is_empty() && !self.rows(lines).is_empty());
        self.scroll = 0;
    }

    /// Moves the cursor by `delta` rows.
    pub fn move_by(&mut self, delta: isize, lines: &LogLines) {
        let last = self.rows(lines).len();
        self.cursor = self.cursor.saturating_add_signed(delta).min(last);
    }

    /// The node under the cursor (`None` on "every node").
    fn under_cursor(&self, lines: &LogLines) -> Option<u32> {
        let row = self.cursor.checked_sub(1)?;
        self.rows(lines).get(row).copied()
    }

    /// `Space`: checks or unchecks the node under the cursor; on "every node", unchecks all.
    pub fn toggle(&mut self, lines: &LogLines) {
        let Some(node) = self.under_cursor(lines) else {
            self.checked.clear();
            return;
        };
        match self.checked.binary_search(&node) {
            Ok(i) => {
                self.checked.remove(i);
            }
            Err(i) => self.checked.insert(i, node),
        }
    }

    /// True when `node` is checked.
    pub fn is_checked(&self, node: u32) -> bool {
        self.checked.binary_search(&node).is_ok()
    }

    /// What `Enter` shows: the checked nodes; with none checked, the node under the cursor;
    /// on "every node" with none checked, every node (empty).
    pub fn choice(&self, lines: &LogLines) -> Vec<u32> {
        if !self.checked.is_empty() {
            return self.checked.clone();
        }
        self.under_cursor(lines).into_iter().collect()
    }

    /// Keeps the cursor inside a list of `height` rows (the "every node" row included).
    pub fn scroll_into_view(&mut self, height: usize, lines: &LogLines) {
        let total = self.rows(lines).len() + 1;
        self.scroll = super::scroll::offset_for(self.cursor, self.scroll, total, height);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::log::{LogLevel, LogLine};
    use crate::time::RosTime;

    fn lines() -> LogLines {
        let nodes: Vec<Box<str>> = vec!["/planner".into(), "/driver".into(), "/usb_cam".into()];
        let lines = (0..6u32)
            .map(|i| LogLine {
                time: RosTime::new(i, 0),
                level: LogLevel::Info,
                node: i % 3,
                topic: 0,
                text: "x".into(),
                origin: "".into(),
            })
            .collect();
        LogLines { lines, nodes }
    }

    #[test]
    fn narrows_checks_and_chooses() {
        let l = lines();
        let mut p = NodePicker::open(&l, &[]);
        assert_eq!(p.counts, [2, 2, 2]);
        assert_eq!(p.rows(&l), [1, 0, 2], "by name");
        assert_eq!(p.cursor, 0);
        assert_eq!(p.choice(&l), Vec::<u32>::new(), "every node");
        p.set_query("USB", &l);
        assert_eq!((p.rows(&l), p.cursor), (vec![2], 1));
        assert_eq!(p.choice(&l), [2], "the node under the cursor");
        p.set_query("", &l);
        p.move_by(1, &l);
        p.toggle(&l);
        p.move_by(1, &l);
        p.toggle(&l);
        assert_eq!(p.checked, [0, 1]);
        p.move_by(5, &l);
        assert_eq!(p.cursor, 3);
        assert_eq!(p.choice(&l), [0, 1], "the checked ones");
        p.move_by(-9, &l);
        p.toggle(&l);
        assert!(p.checked.is_empty(), "Space on every node unchecks all");
        let p = NodePicker::open(&l, &[2]);
        assert_eq!(p.cursor, 3, "opens on the first shown node");
        assert!(p.is_checked(2));
    }
}
