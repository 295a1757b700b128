//! The health view: per-topic rate and gaps, out-of-order times, type conflicts, chunk
//! compression, and how each bag was read. Draws the lines prepared in
//! [`crate::tui::model::health`]: only the visible ones.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;

use crate::tui::model::health::HealthView;
use crate::tui::model::health::Kind;
use crate::tui::text::{fit, pad};
use crate::tui::theme::Theme;

/// Draws the health view over `area`.
pub fn draw(
    frame: &mut Frame<'_>,
    (view, banner): (&HealthView, Option<String>),
    theme: Theme,
    area: Rect,
) {
    let w = area.width.saturating_sub(2) as usize;
    // While the bag is still being scanned: how far, on the first line (wrapped).
    let banner: Vec<Line> = banner.map_or_else(Vec::new, |b| {
        crate::tui::text::wrap(&b, w, 2)
            .into_iter()
            .map(|t| Line::styled(t, theme.warning()))
            .collect()
    });
    let rows = (area.height.saturating_sub(2) as usize).saturating_sub(banner.len());
    // Before the report: how far it is, then the session's messages (the lines so far).
    let progress: Vec<Line> = if view.report.is_none() {
        vec![Line::styled(
            fit(
                &format!("reading the index… {:.0}%", view.progress * 100.0),
                w,
            ),
            theme.dim(),
        )]
    } else {
        Vec::new()
    };
    let rows = rows.saturating_sub(progress.len());
    let body: Vec<Line> = (view.scroll..view.lines.len())
        .take(rows)
        .filter_map(|i| Some((i, view.line(i, w)?)))
        .map(|(i, (text, kind))| {
            let style = match kind {
                Kind::Bad => theme.warning(),
                Kind::Header => theme.header(),
                Kind::Plain => ratatui::style::Style::new(),
                Kind::Dim => theme.dim(),
            };
            if i == view.selected {
                Line::styled(pad(&text, w), style.patch(theme.selected(true)))
            } else {
                Line::styled(fit(&text, w), style)
            }
        })
        .collect();
    let lines: Vec<Line> = banner.into_iter().chain(progress).chain(body).collect();
    let position = if view.lines.is_empty() {
        String::new()
    } else {
        format!("{}/{} · ", view.selected + 1, view.lines.len())
    };
    let title =
        format!(" Health · {position}↑↓ PgUp PgDn g G · Enter: go there · ! or Esc closes ");
    super::block::overlay(frame, area, lines, &title, theme);
}
