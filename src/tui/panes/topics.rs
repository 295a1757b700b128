//! The topic pane: name (filter matches highlighted), type, count, rate, size.

use std::fmt::Write as _;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::{block, inner};
use crate::tui::action::Pane;
use crate::tui::app::{App, Mode};
use crate::tui::text::{bytes, fit, fit_left, pad, pad_left, width};
use crate::tui::theme::Theme;

/// Draws the topic pane.
pub fn draw(frame: &mut Frame<'_>, app: &App, theme: Theme, area: Rect) {
    if area.width == 0 || area.height == 0 {
        return;
    }
    let list = &app.topics;
    let total_bags = app.catalog.bags().len();
    let mut title = format!(
        " Topics {}/{} · {} ",
        list.visible().len(),
        list.rows().len(),
        list.sort().name()
    );
    if !list.filter().is_empty() && app.mode != Mode::Filter {
        let _ = write!(title, "· filter: {} ", list.filter());
    }
    frame.render_widget(
        block(
            app,
            theme,
            Pane::Topics,
            fit(&title, area.width.saturating_sub(2) as usize),
        ),
        area,
    );
    let inner = inner(area);
    let w = inner.width as usize;
    // Columns: name, type (if room), count, rate, size.
    let count_w = 7;
    let rate_w = 8;
    let size_w = if w >= 60 { 9 } else { 0 };
    let type_w = if w >= 50 {
        (w.saturating_sub(count_w + rate_w + size_w)) * 2 / 5
    } else {
        0
    };
    let name_w = w.saturating_sub(count_w + rate_w + size_w + type_w);
    let mut lines = Vec::with_capacity(inner.height as usize);
    let mut header = pad("topic", name_w);
    if type_w > 0 {
        header.push_str(&pad("type", type_w));
    }
    header.push_str(&pad_left("msgs", count_w));
    header.push_str(&pad_left("Hz", rate_w));
    if size_w > 0 {
        header.push_str(&pad_left("size", size_w));
    }
    lines.push(Line::styled(header, theme.header()));
    let rows = inner.height.saturating_sub(1) as usize;
    if list.visible().is_empty() {
        let text = if list.filter().is_empty() {
            "no topics"
        } else {
            "no topic matches the filter"
        };
        lines.push(Line::styled(fit(text, w), theme.dim()));
    }
    for (i, v) in list
        .visible()
        .iter()
        .enumerate()
        .skip(list.offset())
        .take(rows)
    {
        let Some(row) = list.rows().get(v.row) else {
            continue;
        };
        let selected = i == list.selected();
        let base = if selected {
            theme.selected(app.focus == Pane::Topics)
        } else {
            Style::new()
        };
        let mut spans = Vec::new();
        let marker = if row.conflicting { "!" } else { "" };
        // With several bags, say which ones hold a topic when not all do.
        let bags = if total_bags > 1 && row.bags.len() < total_bags {
            let list: Vec<String> = row.bags.iter().map(|b| (b + 1).to_string()).collect();
            format!(" #{}", list.join(","))
        } else {
            String::new()
        };
        let name_room = name_w.saturating_sub(1 + marker.len() + width(&bags));
        let shown = if width(&row.topic) <= name_room {
            row.topic.clone()
        } else {
            fit_left(&row.topic, name_room)
        };
        // Highlight matched characters; indices refer to the full name, which may be cut on
        // the left ("…" + its last characters).
        let cut = shown != row.topic;
        let total = row.topic.chars().count();
        let kept = shown.chars().count().saturating_sub(usize::from(cut));
        for (ci, c) in shown.chars().enumerate() {
            let orig = if cut {
                (ci + total).checked_sub(kept + 1)
            } else {
                Some(ci)
            };
            let is_match = !(cut && ci == 0) && orig.is_some_and(|o| v.matched.contains(&o));
            let style = if is_match {
                base.patch(theme.matched())
            } else {
                base
            };
            spans.push(Span::styled(c.to_string(), style));
        }
        if !marker.is_empty() {
            spans.push(Span::styled(marker, base.patch(theme.warning())));
        }
        if !bags.is_empty() {
            spans.push(Span::styled(bags.clone(), base.patch(theme.dim())));
        }
        let used = width(&shown) + marker.len() + width(&bags);
        spans.push(Span::styled(" ".repeat(name_w.saturating_sub(used)), base));
        if type_w > 0 {
            spans.push(Span::styled(
                pad(&fit(&row.datatype, type_w.saturating_sub(1)), type_w),
                base.patch(theme.dim()),
            ));
        }
        spans.push(Span::styled(
            pad_left(&row.count.to_string(), count_w),
            base,
        ));
        let rate = row.rate.map_or("–".to_string(), |r| {
            if r >= 100.0 {
                format!("{r:.0}")
            } else {
                format!("{r:.1}")
            }
        });
        spans.push(Span::styled(pad_left(&rate, rate_w), base));
        if size_w > 0 {
            spans.push(Span::styled(
                pad_left(&row.bytes.map_or("…".to_string(), bytes), size_w),
                base,
            ));
        }
        lines.push(Line::from(spans));
    }
    if app.mode == Mode::Filter {
        // The prompt takes the last line.
        let prompt = format!("/{}█", app.prompt);
        while lines.len() + 1 < inner.height as usize {
            lines.push(Line::raw(""));
        }
        lines.truncate(inner.height.saturating_sub(1) as usize);
        lines.push(Line::styled(fit(&prompt, w), theme.matched()));
    }
    frame.render_widget(Paragraph::new(lines), inner);
}
