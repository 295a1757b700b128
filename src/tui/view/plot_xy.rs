//! The plot pane in XY mode: two fields of one topic drawn against each other over the
//! timeline's visible range (a trajectory), in braille with equal aspect (a braille dot is
//! about as high as it is wide), tick labels on both axes, the point at the cursor marked,
//! and one legend line (which field is x and which y, the point at the cursor).

use std::fmt::Write as _;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::ctx::DrawCtx;
use crate::tui::jobs::notify::Notify;
use crate::tui::jobs::xy_painter::XyPainter;
use crate::tui::layout::inner;
use crate::tui::model::plot::xy_raster::XyKey;
use crate::tui::model::plot::xy_raster::{XyRaster, pair_at};
use crate::tui::model::plot::{time_ns, value_label};
use crate::tui::model::plots::Plots;
use crate::tui::model::timeline::Timeline;
use crate::tui::text::{fit, width};
use crate::tui::theme::Theme;
use std::sync::Arc;

/// The app's XY picture state.
#[derive(Debug, Default)]
pub struct XyView {
    /// Where pictures made in the background are reported (set by the event loop).
    pub(crate) notify: Option<Notify<Arc<XyRaster>>>,
    /// The painting thread, started on the first request.
    pub(crate) painter: Option<XyPainter>,
    /// The newest picture received.
    pub(crate) shown: Option<Arc<XyRaster>>,
    /// What was asked for last.
    pub(crate) asked: Option<XyKey>,
}

/// The marker of the point at the cursor.
const CURSOR_MARK: char = '◉';

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

/// Draws the plot pane in XY mode from the newest picture the app has (made in the
/// background for a view and size, see `app::xy_view`; `…` in the title while a newer one
/// is on its way); per frame only the point at the cursor is looked up. False (nothing
/// drawn) when the plot is not two fields of one topic.
pub fn draw(
    frame: &mut Frame<'_>,
    (plots, raster): (&Plots, Option<&XyRaster>),
    (timeline, xy_pending): (&Timeline, bool),
    ctx: &DrawCtx<'_>,
    area: Rect,
) -> bool {
    let theme = ctx.theme;
    let Some((xe, ye)) = plots.xy_pair() else {
        return false;
    };
    let topic = xe.topic.as_deref().unwrap_or("");
    let inner = inner(area);
    let (w, h) = (inner.width as usize, inner.height as usize);
    let mut t = String::from(" ");
    if let Some(pct) = plots.progress() {
        let _ = write!(t, "{pct}% · ");
    } else if xy_pending {
        t.push_str("… · ");
    }
    let _ = write!(
        t,
        "XY · {} · equal aspect · {} points ",
        crate::printable::escape_line(topic),
        raster.map_or(0, |r| r.points)
    );
    frame.render_widget(
        super::block::block(false, theme, fit(&t, area.width.saturating_sub(2) as usize)),
        area,
    );
    if w < 4 || h == 0 {
        return true;
    }
    // The point at the cursor, within the range the picture shows.
    let at_cursor = raster.and_then(|r| {
        pair_at(
            &xe.series,
            &ye.series,
            r.key.range,
            time_ns(timeline.cursor()),
        )
    });
    let mut lines = match raster {
        Some(r) => plot_lines(r, at_cursor, theme, (w, h)),
        None => Vec::new(),
    };
    let now = at_cursor.map_or_else(
        || "–".to_string(),
        |(_, x, y)| format!("({}, {})", value_label(x), value_label(y)),
    );
    let (fx, fy) = (field(&xe.label, topic), field(&ye.label, topic));
    let legend = format!("{CURSOR_MARK} {now}  x {fx}  y {}", short_y(fx, fy));
    lines.truncate(h.saturating_sub(1));
    lines.push(Line::styled(fit(&legend, w), theme.series(0)));
    frame.render_widget(Paragraph::new(lines), inner);
    true
}

/// The picture's rows (y labels, braille, the cursor's mark) and its x axis, cut to a pane
/// `w` × `h` cells inside (the picture may have been made for another size).
fn plot_lines(
    r: &XyRaster,
    at_cursor: Option<(i64, f64, f64)>,
    theme: Theme,
    (w, h): (usize, usize),
) -> Vec<Line<'static>> {
    let label_w = r.label_w;
    let cols = r.cols.min(w.saturating_sub(label_w + 1));
    let rows = r.rows.min(h.saturating_sub(2));
    // Per row and per column: which tick label sits there.
    let mut row_labels: Vec<Option<&str>> = vec![None; rows];
    let mut x_row = vec![' '; cols];
    if let Some(s) = r.scale {
        for (v, label) in &r.y_ticks {
            if let Some((_, py)) = s.pixel(s.x_lo, *v) {
                if let Some(slot) = row_labels.get_mut(py / 4) {
                    *slot = Some(label.as_str());
                }
            }
        }
        let mut free_from = 0usize;
        for (v, label) in &r.x_ticks {
            let Some((px, _)) = s.pixel(*v, s.y_lo) else {
                continue;
            };
            let lw = width(label);
            let at = (px / 2).min(cols.saturating_sub(lw));
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
    let cursor_cell = at_cursor.and_then(|(_, x, y)| r.cell_of(x, y));
    let mut lines = Vec::with_capacity(rows + 1);
    for (row, label) in row_labels.iter().enumerate() {
        let label = label.unwrap_or("");
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
            let (ch, style) = if cursor_cell == Some((c, row)) {
                (CURSOR_MARK, theme.cursor())
            } else if let Some(g) = r.glyph(c, row) {
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
    lines
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
