//! The message pane: the selected topic's messages around the cursor, with time, a one-line
//! preview (decoded by the worker for the visible rows) and size.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::block::block;
use super::ctx::DrawCtx;
use super::handle::{Ctx, Effect, Handled, page};
use crate::printable::escape_line;
use crate::tui::action::Action;
use crate::tui::action::Pane;
use crate::tui::layout::inner;
use crate::tui::model::messages::MessageList;
use crate::tui::text::{bytes, fit, pad, pad_left, width};

/// The preview column is shown when it gets at least this many cells.
const MIN_PREVIEW: usize = 8;
/// The size column's cells (`1023.9 KiB`), and where the pane is narrow (`1023K`).
const WIDE_SIZE: usize = 10;
/// See [`WIDE_SIZE`].
const COMPACT_SIZE: usize = 6;

/// A size in at most five cells: `366B`, `1.2K`, `12K`, `1023M`.
fn compact_bytes(n: u64) -> String {
    const UNITS: [&str; 5] = ["B", "K", "M", "G", "T"];
    let mut v = n as f64;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    let unit = UNITS.get(u).unwrap_or(&"");
    if u == 0 {
        format!("{n}{unit}")
    } else if v < 9.95 {
        format!("{v:.1}{unit}")
    } else {
        format!("{v:.0}{unit}")
    }
}

/// Movement keys while the message list has the focus.
pub fn handle(list: &mut MessageList, action: Action, ctx: &mut Ctx) -> Handled {
    let h = ctx.rows;
    match action {
        Action::Up => list.move_by(-1, h),
        Action::Down => list.move_by(1, h),
        Action::PageUp => list.move_by(-page(h), h),
        Action::PageDown => list.move_by(page(h), h),
        Action::Top => return ctx.then(Effect::CursorToEdge(false)),
        Action::Bottom => return ctx.then(Effect::CursorToEdge(true)),
        Action::Enter | Action::Right => return ctx.then(Effect::Focus(Pane::Inspector)),
        Action::Left => return ctx.then(Effect::Focus(Pane::Topics)),
        _ => return Handled::No,
    }
    ctx.then(Effect::MessageChanged)
}

/// Draws the message pane.
pub fn draw(frame: &mut Frame<'_>, list: &MessageList, total: u64, ctx: &DrawCtx<'_>, area: Rect) {
    let theme = ctx.theme;
    if area.width == 0 || area.height == 0 {
        return;
    }
    let title = match (&list.topic, list.window.entries.is_empty()) {
        (Some(t), _) => format!(" Messages · {} · {total} ", escape_line(t)),
        (None, _) => " Messages ".to_string(),
    };
    frame.render_widget(
        block(
            ctx.focus == Pane::Messages,
            theme,
            fit(&title, area.width.saturating_sub(2) as usize),
        ),
        area,
    );
    let inner = inner(area);
    let w = inner.width as usize;
    let bag_w = if ctx.catalog.bags().len() > 1 { 4 } else { 0 };
    let start = ctx.start;
    let label = format!("time ({})", ctx.time_format.name());
    // The time column as wide as its text; the preview gets the rest when that is enough.
    // Where it is not (80 columns), the sizes go compact (`1.2K`) and the gap after the time
    // narrows, so that a preview stays.
    let time_text_w = list
        .window
        .entries
        .get(list.offset)
        .map_or(0, |m| width(&ctx.time_format.short(m.entry.time, start)));
    let time_text_w = time_text_w.max(width(&label));
    let room = |size_w: usize, gap: usize| {
        w.saturating_sub(size_w + bag_w) >= time_text_w + gap + MIN_PREVIEW
    };
    // Compact only when that makes room for a preview.
    let wide = room(WIDE_SIZE, 2) || !room(COMPACT_SIZE, 1);
    let (size_w, gap) = if wide {
        (WIDE_SIZE, 2)
    } else {
        (COMPACT_SIZE, 1)
    };
    let size_text = if wide { bytes } else { compact_bytes };
    let rest = w.saturating_sub(size_w + bag_w);
    let (time_w, preview_w) = match time_text_w + gap {
        tw if rest >= tw + MIN_PREVIEW => (tw, rest - tw),
        _ => (rest, 0),
    };
    let mut lines = vec![Line::styled(
        format!(
            "{}{}{}{}",
            pad(&label, time_w),
            pad(if preview_w > 0 { "preview" } else { "" }, preview_w),
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
            theme.selected(ctx.focus == Pane::Messages)
        } else {
            Style::new()
        };
        let time = ctx.time_format.short(m.entry.time, start);
        let size = list
            .sizes
            .get(m)
            .map_or("…".to_string(), |s| size_text(*s as u64));
        let mut spans = vec![Span::styled(pad(&time, time_w), style)];
        if preview_w > 0 {
            let text = list
                .previews
                .get(m)
                .map_or(std::borrow::Cow::Borrowed(""), |p| escape_line(p));
            spans.push(Span::styled(pad(&text, preview_w), style));
        }
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

#[cfg(test)]
mod tests {
    use super::compact_bytes;

    #[test]
    fn compact_sizes_take_five_cells_at_most() {
        assert_eq!(compact_bytes(366), "366B");
        assert_eq!(compact_bytes(1023), "1023B");
        assert_eq!(compact_bytes(1234), "1.2K");
        assert_eq!(compact_bytes(10_189), "10K");
        assert_eq!(compact_bytes(1_048_575), "1024K");
        assert_eq!(compact_bytes(1_300_000), "1.2M");
        assert_eq!(compact_bytes(5 << 40), "5.0T");
    }
}
