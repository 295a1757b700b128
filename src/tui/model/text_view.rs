//! A scrolling text overlay: a message definition (`d`) or a long value read in full (`w`).
//! The text is wrapped once for the overlay's width (again on resize); drawing shows rows.

use crate::tui::text::{width, wrap};

/// The overlay's text and position.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TextView {
    /// Shown in the border.
    pub title: String,
    /// The logical lines (already safe for the terminal).
    pub lines: Vec<String>,
    /// `lines` wrapped for `width`.
    pub rows: Vec<String>,
    /// Width `rows` were wrapped for.
    pub width: usize,
    /// First row shown.
    pub scroll: usize,
}

impl TextView {
    /// An overlay of `lines` under `title`, wrapped for `width` cells.
    pub fn new(title: String, lines: Vec<String>, width: usize) -> TextView {
        let mut v = TextView {
            title,
            lines,
            ..TextView::default()
        };
        v.wrap_to(width);
        v
    }

    /// Wraps the lines again for `width` cells; continuation rows keep the line's
    /// indentation (plus two).
    pub fn wrap_to(&mut self, width_cells: usize) {
        let w = width_cells.max(4);
        self.width = w;
        self.rows = self
            .lines
            .iter()
            .flat_map(|l| {
                if width(l) <= w {
                    return vec![l.clone()];
                }
                let indent = l.len() - l.trim_start_matches(' ').len();
                wrap(l, w, indent + 2)
            })
            .collect();
    }

    /// Scrolls by `delta` rows in a viewport of `height` rows (never past the end).
    pub fn scroll_by(&mut self, delta: isize, height: usize) {
        let max = self.rows.len().saturating_sub(height.max(1));
        self.scroll = self.scroll.saturating_add_signed(delta).min(max);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wraps_long_lines_and_scrolls_to_the_end_only() {
        let long = "word ".repeat(40);
        let mut v = TextView::new("t".into(), vec!["a".into(), long.trim_end().into()], 20);
        assert!(v.rows.len() > 5);
        assert!(v.rows.iter().all(|r| width(r) <= 20));
        // Every word is there.
        let words: usize = v.rows.iter().map(|r| r.matches("word").count()).sum();
        assert_eq!(words, 40);
        v.scroll_by(1000, 4);
        assert_eq!(v.scroll, v.rows.len() - 4);
        v.scroll_by(-1000, 4);
        assert_eq!(v.scroll, 0);
    }
}
