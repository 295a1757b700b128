//! The plot pane in XY mode: two fields of one topic drawn against each other over the
//! timeline's visible range (a trajectory), in braille with equal aspect (a braille dot is
//! about as high as it is wide), tick labels on both axes, the point at the cursor marked,
//! and one legend line (which field is x and which y, the point at the cursor).

use std::fmt::Write as _;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

use super::inner;
use crate::time::RosTime;
use crate::tui::app::App;
use crate::tui::model::plot::value_label;
use crate::tui::model::plot::xy::{self, XyFrame};
use crate::tui::text::{fit, width};
use crate::tui::theme::Theme;

/// A braille dot's height over its width on a terminal whose cells are twice as high as
/// wide (2×4 dots per cell): square.
const DOT_ASPECT: f64 = 1.0;

/// The marker of the point at the cursor.
const CURSOR_MARK: char = '◉';

/// Braille dot bits for (x in 0..2, y in 0..4), y down.
const DOTS: [[u8; 4]; 2] = [[0x01, 0x02, 0x04, 0x40], [0x08, 0x10, 0x20, 0x80]];

fn ns(t: RosTime) -> i64 {
    i64::try_from(t.as_nanos()).unwrap_or(i64::MAX)
}

/// The braille character of cell (col, row) of `f`, if any dot is lit.
fn cell(f: &XyFrame, col: usize, row: usize) -> Option<char> {
    let mut bits = 0u8;
    for (dx, column) in DOTS.iter().enumerate() {
        for (dy, bit) in column.iter().enumerate() {
            if f.is_lit(col * 2 + dx, row * 4 + dy) {
                bits |= bit;
            }
        }
    }
    (bits != 0)
        .then(|| char::from_u32(0x2800 + u32::from(bits)))
        .flatten()
}

/// `label` without its topic prefix (the title names the topic).
fn field<'a>(label: &'a str, topic: &str) -> &'a str {
    label
        .strip_prefix(topic.trim_end_matches('/'))
        .and_then(|s| s.strip_prefix('/'))
        .unwrap_or(label)
}

/// The y field without the parent path it shares with the x field (`…/y` for
/// `pose/pose/position/x` and `pose/pose/position/y`).
fn short_y<'a>(x: &str, y: &'a str) -> std::borrow::Cow<'a, str> {
    let common = x
        .char_indices()
        .zip(y.chars())
        .take_while(|((_, a), b)| a == b)
        .filter(|((_, a), _)| *a == '/')
        .last()
        .map(|((i, _), _)| i);
    match common.and_then(|i| y.get(i..)) {
        Some(rest) => format!("…{rest}").into(),
        None => y.into(),
    }
}

/// Draws the plot pane in XY mode; false (nothing drawn) when the plot is not two fields
/// of one topic.
#[allow(clippy::too_many_lines, clippy::many_single_char_names)]
pub fn draw(frame: &mut Frame<'_>, app: &App, theme: Theme, area: Rect) -> bool {
    let Some((xe, ye)) = app.plots.xy_pair() else {
        return false;
    };
    let topic = xe.topic.as_deref().unwrap_or("");
    let (v0, v1) = app.timeline.view();
    let cursor = ns(app.timeline.cursor());
    let inner = inner(area);
    let (w, h) = (inner.width as usize, inner.height as usize);
    let plot_rows = h.saturating_sub(2);
    // The y labels' width depends on the scale, which depends on the area: the points'
    // bounds (one pass) give the labels at a nominal label width, then the pixels are lit
    // once at the real one.
    let range = (ns(v0), ns(v1));
    let points = xy::xy_points(&xe.series, &ye.series, range, Some(cursor));
    let size = |label_w: usize| {
        let cols = w.saturating_sub(label_w + 1);
        (
            cols,
            (cols * 2, plot_rows * 4),
            ((cols / 8).max(2), (plot_rows / 2).max(2)),
        )
    };
    let (_, probe_px, probe_ticks) = size(6);
    let label_w = xy::y_ticks(&points, probe_px, DOT_ASPECT, probe_ticks)
        .iter()
        .map(|(_, l)| width(l))
        .max()
        .unwrap_or(1)
        .min(w / 3);
    let (cols, size_px, max_ticks) = size(label_w);
    let f = xy::xy_frame_of(
        &xe.series, &ye.series, range, &points, size_px, DOT_ASPECT, max_ticks,
    );
    let mut t = String::from(" ");
    if let Some(pct) = app.plots.progress() {
        let _ = write!(t, "{pct}% · ");
    }
    let _ = write!(t, "XY · {topic} · equal aspect · {} points ", f.points);
    frame.render_widget(
        Block::default()
            .borders(Borders::ALL)
            .border_style(theme.border(false))
            .title(fit(&t, area.width.saturating_sub(2) as usize)),
        area,
    );
    if w < 4 || h == 0 {
        return true;
    }
    let mut lines: Vec<Line> = Vec::with_capacity(h);
    let scale = f.scale;
    // Per row and per column: which tick label sits there.
    let mut row_labels: Vec<Option<&str>> = vec![None; plot_rows];
    let mut x_row = vec![' '; cols];
    if let Some(s) = scale {
        for (v, label) in &f.y_ticks {
            if let Some((_, py)) = s.pixel(s.x_lo, *v) {
                if let Some(slot) = row_labels.get_mut(py / 4) {
                    *slot = Some(label.as_str());
                }
            }
        }
        let mut free_from = 0usize;
        for (v, label) in &f.x_ticks {
            let Some((px, _)) = s.pixel(*v, s.y_lo) else {
                continue;
            };
            let c = px / 2;
            let lw = width(label);
            let at = c.min(cols.saturating_sub(lw));
            if at < free_from || at + lw > cols {
                continue;
            }
            for (k, ch) in label.chars().enumerate() {
                if let Some(slot) = x_row.get_mut(at + k) {
                    *slot = ch;
                }
            }
            free_from = at + lw + 1;
        }
    }
    let cursor_cell = match (scale, f.at_cursor) {
        (Some(s), Some((_, x, y))) => s.pixel(x, y).map(|(px, py)| (px / 2, py / 4)),
        _ => None,
    };
    for r in 0..plot_rows {
        let label = row_labels.get(r).copied().flatten().unwrap_or("");
        let mut spans = Vec::with_capacity(cols + 2);
        spans.push(Span::styled(
            format!("{:>label_w$}", fit(label, label_w)),
            theme.dim(),
        ));
        spans.push(Span::styled(
            if label.is_empty() { "│" } else { "┤" },
            theme.dim(),
        ));
        for c in 0..cols {
            let (ch, style) = if cursor_cell == Some((c, r)) {
                (CURSOR_MARK, theme.cursor())
            } else if let Some(g) = cell(&f, c, r) {
                (g, theme.series(0))
            } else {
                (' ', Style::new())
            };
            spans.push(Span::styled(ch.to_string(), style));
        }
        lines.push(Line::from(spans));
    }
    if h >= 2 {
        let mut axis = format!("{:>label_w$}└", "");
        axis.extend(x_row);
        lines.push(Line::styled(axis, theme.dim()));
    }
    let now = f.at_cursor.map_or_else(
        || "–".to_string(),
        |(_, x, y)| format!("({}, {})", value_label(x), value_label(y)),
    );
    let (fx, fy) = (field(&xe.label, topic), field(&ye.label, topic));
    let legend = format!("{CURSOR_MARK} {now}  x {fx}  y {}", short_y(fx, fy));
    lines.push(Line::styled(fit(&legend, w), theme.series(0)));
    frame.render_widget(Paragraph::new(lines), inner);
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn y_field_drops_the_shared_parent() {
        assert_eq!(
            short_y("pose/pose/position/x", "pose/pose/position/y"),
            "…/y"
        );
        assert_eq!(short_y("a/b", "c/d"), "c/d");
        assert_eq!(short_y("x", "y"), "y");
        assert_eq!(field("/odom/pose/x", "/odom"), "pose/x");
    }
}
