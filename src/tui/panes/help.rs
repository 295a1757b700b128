//! The help overlay, generated from the keymap; laid out in as many columns as it needs.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};

use crate::tui::app::App;
use crate::tui::keymap::Context;
use crate::tui::text::{fit, pad};
use crate::tui::theme::Theme;

/// Draws the help overlay over `area`.
pub fn draw(frame: &mut Frame<'_>, app: &App, theme: Theme, area: Rect) {
    // Entries: (key, description, is_heading).
    let mut entries: Vec<(String, String, bool)> = app
        .keymap
        .help(Context::Global)
        .into_iter()
        .map(|(k, d)| (k, d.to_string(), false))
        .collect();
    entries.push((String::new(), "Typing a filter or a time".into(), true));
    entries.extend(
        app.keymap
            .help(Context::Prompt)
            .into_iter()
            .map(|(k, d)| (k, d.to_string(), false)),
    );
    entries.push((String::new(), "In the log view (r)".into(), true));
    entries.extend(
        app.keymap
            .help(Context::Log)
            .into_iter()
            .map(|(k, d)| (k, d.to_string(), false)),
    );
    entries.push((
        String::new(),
        "Mouse: click selects, wheel scrolls".into(),
        true,
    ));
    let key_w = entries
        .iter()
        .map(|(k, _, _)| k.chars().count())
        .max()
        .unwrap_or(4)
        + 2;
    let desc_w = entries
        .iter()
        .map(|(_, d, _)| d.chars().count())
        .max()
        .unwrap_or(10);
    let inner_h = area.height.saturating_sub(2).max(1) as usize;
    let inner_w = area.width.saturating_sub(2).max(1) as usize;
    // Two columns when they fit with readable descriptions; scroll when still too long.
    let full = key_w + desc_w + 2;
    let columns = if entries.len() > inner_h && inner_w >= 2 * (key_w + 26) {
        2
    } else {
        1
    };
    let col_w = full.min(inner_w / columns).max(8);
    let rows = entries.len().div_ceil(columns);
    let scroll = app.help_scroll.min(rows.saturating_sub(inner_h));
    let mut lines: Vec<Line> = Vec::with_capacity(rows);
    for r in scroll..rows.min(scroll + inner_h) {
        let mut spans = Vec::new();
        for c in 0..columns {
            let Some((k, d, heading)) = entries.get(c * rows + r) else {
                continue;
            };
            if *heading {
                spans.push(Span::styled(pad(&fit(d, col_w - 1), col_w), theme.header()));
            } else {
                spans.push(Span::styled(pad(k, key_w), theme.key()));
                spans.push(Span::raw(pad(
                    &fit(d, col_w.saturating_sub(key_w + 1)),
                    col_w.saturating_sub(key_w),
                )));
            }
        }
        lines.push(Line::from(spans));
    }
    let cells = |n: usize| u16::try_from(n).unwrap_or(u16::MAX);
    let want_w = cells(col_w * columns + 2).min(area.width);
    let want_h = cells(rows.min(inner_h) + 2).min(area.height);
    let popup = Rect::new(
        area.x + (area.width - want_w) / 2,
        area.y + (area.height - want_h) / 2,
        want_w,
        want_h,
    );
    frame.render_widget(Clear, popup);
    frame.render_widget(
        Paragraph::new(lines).block(
            Block::default()
                .borders(Borders::ALL)
                .title(if rows > inner_h {
                    " Keys · ↑↓ scroll · Esc closes "
                } else {
                    " Keys · Esc closes "
                })
                .border_style(theme.border(true)),
        ),
        popup,
    );
}
