//! The text overlay (`d` definition, `w` long value): the rows of a [`TextView`] that fit,
//! with where they are in the title.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;

use super::ctx::DrawCtx;
use crate::tui::model::text_view::TextView;
use crate::tui::text::fit;

/// Draws the text overlay over `area`.
pub fn draw(frame: &mut Frame<'_>, view: &TextView, ctx: &DrawCtx<'_>, area: Rect) {
    let theme = ctx.theme;
    let w = area.width.saturating_sub(2) as usize;
    let rows = area.height.saturating_sub(2) as usize;
    let lines: Vec<Line> = view
        .rows
        .iter()
        .skip(view.scroll)
        .take(rows)
        .map(|r| Line::raw(fit(r, w)))
        .collect();
    let total = view.rows.len();
    let last = (view.scroll + rows).min(total);
    let place = if total <= rows {
        String::new()
    } else if last == total {
        format!("rows {}–{last} of {total} (end) · ", view.scroll + 1)
    } else {
        format!("rows {}–{last} of {total} · ", view.scroll + 1)
    };
    let title = format!(" {} · {place}↑↓ PgUp PgDn g G · Esc closes ", view.title);
    super::block::overlay(frame, area, lines, &title, theme);
}
