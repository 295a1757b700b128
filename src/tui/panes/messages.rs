//! The message pane: the selected topic's messages around the cursor, with time and size.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::{block, inner};
use crate::tui::action::Pane;
use crate::tui::app::App;
use crate::tui::text::{bytes, fit, pad, pad_left};
use crate::tui::theme::Theme;

/// Draws the message pane.
pub fn draw(frame: &mut Frame<'_>, app: &App, theme: Theme, area: Rect) {
    if area.width == 0 || area.height == 0 {
        return;
    }
    let list = &app.messages;
    let total = app.topics.selected_row().map_or(0, |r| r.count);
    let title = match (&list.topic, list.window.entries.is_empty()) {
        (Some(t), _) => format!(" Messages · {t} · {total} "),
        (None, _) => " Messages ".to_string(),
    };
    frame.render_widget(
        block(
            app,
            theme,
            Pane::Messages,
            fit(&title, area.width.saturating_sub(2) as usize),
        ),
        area,
    );
    let inner = inner(area);
    let w = inner.width as usize;
    let size_w = 10;
    let bag_w = if app.catalog.bags().len() > 1 { 4 } else { 0 };
    let time_w = w.saturating_sub(size_w + bag_w);
    let mut lines = vec![Line::styled(
        format!(
            "{}{}{}",
            pad(&format!("time ({})", app.time_format.name()), time_w),
            pad_left(if bag_w > 0 { "bag" } else { "" }, bag_w),
            pad_left("size", size_w)
        ),
        theme.header(),
    )];
    let rows = inner.height.saturating_sub(1) as usize;
    if list.window.entries.is_empty() {
        let text = if list.loading {
            "loading…"
        } else if list.topic.is_none() {
            "select a topic"
        } else {
            "no messages"
        };
        lines.push(Line::styled(text, theme.dim()));
    }
    let start = app.start();
    for (i, m) in list
        .window
        .entries
        .iter()
        .enumerate()
        .skip(list.offset)
        .take(rows)
    {
        let selected = i == list.selected;
        let style = if selected {
            theme.selected(app.focus == Pane::Messages)
        } else {
            Style::new()
        };
        let time = app.time_format.short(m.entry.time, start);
        let size = list
            .sizes
            .get(m)
            .map_or("…".to_string(), |s| bytes(*s as u64));
        let mut spans = vec![Span::styled(pad(&time, time_w), style)];
        if bag_w > 0 {
            spans.push(Span::styled(
                pad_left(&format!("#{}", m.bag + 1), bag_w),
                style.patch(theme.dim()),
            ));
        }
        spans.push(Span::styled(pad_left(&size, size_w), style));
        lines.push(Line::from(spans));
    }
    frame.render_widget(Paragraph::new(lines), inner);
}
