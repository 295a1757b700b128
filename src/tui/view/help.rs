//! The help overlay, generated from the keymap; laid out in as many columns as it needs.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};

use crate::tui::keymap::Context;
use crate::tui::keymap::KeyMap;
use crate::tui::text::{pad, wrap};
use crate::tui::theme::Theme;

/// Draws the help overlay over `area`.
pub fn draw(frame: &mut Frame<'_>, (keymap, scroll): (&KeyMap, usize), theme: Theme, area: Rect) {
    // Entries: (key, description, is_heading).
    let mut entries: Vec<(String, String, bool)> = keymap
        .help(Context::Global)
        .into_iter()
        .map(|(k, d)| (k, d.to_string(), false))
        .collect();
    entries.push((String::new(), "Typing a filter or a time".into(), true));
    entries.extend(
        keymap
            .help(Context::Prompt)
            .into_iter()
            .map(|(k, d)| (k, d.to_string(), false)),
    );
    entries.push((String::new(), "In the plot pane (5)".into(), true));
    entries.extend(
        keymap
            .help(Context::Plot)
            .into_iter()
            .map(|(k, d)| (k, d.to_string(), false)),
    );
    entries.push((String::new(), "In the log view (r)".into(), true));
    entries.extend(
        keymap
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
    // Each entry as the lines of its column: a description too long for the column goes on
    // under itself (never cut), a heading likewise.
    let blocks: Vec<Vec<Row>> = entries
        .iter()
        .map(|(k, d, heading)| entry_lines(k, d, *heading, (key_w, col_w), theme))
        .collect();
    let total: usize = blocks.iter().map(Vec::len).sum();
    // The columns split between entries, the first at least half of the lines.
    let mut split = blocks.len();
    if columns == 2 {
        let mut seen = 0;
        for (i, b) in blocks.iter().enumerate() {
            if seen * 2 >= total {
                split = i;
                break;
            }
            seen += b.len();
        }
    }
    let (left, right) = blocks.split_at(split);
    let left: Vec<&Row> = left.iter().flatten().collect();
    let right: Vec<&Row> = right.iter().flatten().collect();
    let rows = left.len().max(right.len());
    let scroll = scroll.min(rows.saturating_sub(inner_h));
    let blank: Row = vec![Span::raw(pad("", col_w))];
    let mut lines: Vec<Line> = Vec::with_capacity(rows);
    for r in scroll..rows.min(scroll + inner_h) {
        let mut spans = left.get(r).copied().unwrap_or(&blank).clone();
        if columns == 2 {
            spans.extend(right.get(r).copied().unwrap_or(&blank).iter().cloned());
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

/// One column line of the help: its spans, `col_w` cells in all.
type Row = Vec<Span<'static>>;

/// One help entry as lines of one column `col_w` cells wide (the key in the first `key_w`
/// cells of the first line). A long description or heading goes on over further lines,
/// under the description.
fn entry_lines(
    key: &str,
    desc: &str,
    heading: bool,
    (key_w, col_w): (usize, usize),
    theme: Theme,
) -> Vec<Row> {
    if heading {
        return wrap(desc, col_w.saturating_sub(1).max(1), 2)
            .into_iter()
            .map(|l| vec![Span::styled(pad(&l, col_w), theme.header())])
            .collect();
    }
    let room = col_w.saturating_sub(key_w + 1).max(1);
    wrap(desc, room, 0)
        .into_iter()
        .enumerate()
        .map(|(i, l)| {
            let k = if i == 0 { key } else { "" };
            vec![
                Span::styled(pad(k, key_w), theme.key()),
                Span::raw(pad(&l, col_w.saturating_sub(key_w))),
            ]
        })
        .collect()
}
