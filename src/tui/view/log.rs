//! The log view (`r`): one line per log message — time, level, node, text — coloured by
//! severity (the level is always written out, so `NO_COLOR` loses nothing), and under it the
//! selected message wrapped in full with where it came from; the node picker (`@`) in a box
//! over the list. Only the visible rows are formatted.

use std::fmt::Write as _;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};

use super::ctx::DrawCtx;
use super::handle::{Ctx, Effect, Handled, scroll_delta};
use super::overlays::Mode;
use crate::catalog::log::{LogLevel, LogLine};
use crate::printable::{escape, escape_line};
use crate::tui::action::Action;
use crate::tui::jobs::logger::LogJob;
use crate::tui::model::log::LogView;
use crate::tui::model::log_nodes::NodePicker;
use crate::tui::text::{fit, pad, width, wrap};
use crate::tui::theme::Theme;

/// The log view's state: the log lines and the thread reading them.
#[derive(Default)]
pub struct LogPane {
    /// The log view (`r`).
    pub view: LogView,
    /// The log lines being read in the background.
    pub(crate) job: Option<LogJob>,
}

impl LogPane {
    /// Keys of the log view that stay in it, in a list of `ctx.rows` rows (the filter
    /// prompts and `Enter`, which leaves for the line's time, are the app's).
    pub fn handle(&mut self, action: Action, ctx: &mut Ctx) -> Handled {
        match action {
            Action::ToggleLog | Action::Back => ctx.then(Effect::Close),
            Action::ToggleHelp => ctx.then(Effect::ShowHelp),
            Action::LogLevel => {
                self.view.cycle_level();
                self.view.scroll_into_view(ctx.rows);
                Handled::Yes
            }
            Action::LogExactLevel => {
                self.view.toggle_exact_level();
                self.view.scroll_into_view(ctx.rows);
                Handled::Yes
            }
            a => match scroll_delta(a, ctx.rows) {
                Some(d) => {
                    self.view.move_by(d, ctx.rows);
                    Handled::Yes
                }
                None => Handled::No,
            },
        }
    }
}

/// Bytes of a message looked at for one list row (the rest cannot show on a line anyway).
const ROW_BYTES: usize = 1024;
/// Bytes of a message wrapped in the detail area.
const DETAIL_BYTES: usize = 64 * 1024;

/// The style of a level.
pub fn level_style(theme: Theme, level: LogLevel) -> Style {
    match level {
        LogLevel::Debug => theme.dim(),
        LogLevel::Info => Style::new(),
        LogLevel::Warn => theme.warning(),
        LogLevel::Error => theme.error(),
        LogLevel::Fatal => theme.error().add_modifier(Modifier::REVERSED),
    }
}

/// The start of `s`, at most `n` bytes, cut at a character boundary.
fn head(s: &str, n: usize) -> &str {
    if s.len() <= n {
        return s;
    }
    let mut end = n;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    s.get(..end).unwrap_or("")
}

/// One list row.
fn row<'a>(
    pane: &LogPane,
    ctx: &DrawCtx<'_>,
    line: &LogLine,
    (node_w, w): (usize, usize),
    theme: Theme,
    selected: bool,
) -> Line<'a> {
    let view = &pane.view;
    let time = ctx.time_format.short(line.time, ctx.start);
    let node = escape(view.lines.node(line));
    let mut used = width(&time) + 1 + 5 + 1;
    let node_cell = if node_w > 0 {
        used += node_w + 1;
        format!("{} ", pad(&node, node_w))
    } else {
        String::new()
    };
    let text = escape_line(head(&line.text, ROW_BYTES));
    let rest = w.saturating_sub(used);
    let level = level_style(theme, line.level);
    let spans = vec![
        Span::styled(format!("{time} "), theme.dim()),
        Span::styled(format!("{:<5} ", line.level.name()), level),
        Span::styled(node_cell, theme.key()),
        Span::styled(pad(&text, rest), level),
    ];
    let mut l = Line::from(spans);
    if selected {
        l = l.patch_style(theme.selected(true));
    }
    l
}

/// The title: what is shown of what, the filters, the progress (`typing`: the text filter
/// being typed).
fn title(view: &LogView, typing: Option<&str>) -> String {
    let topics: Vec<_> = view.topics.topics.iter().map(|t| escape_line(t)).collect();
    let topics = topics.join(" ");
    let mut t = format!(" Log {topics} · ");
    if view.shown.is_empty() {
        let _ = write!(t, "0/{} · ", view.lines.lines.len());
    } else {
        let _ = write!(
            t,
            "{}/{} of {} · ",
            view.selected + 1,
            view.shown.len(),
            view.lines.lines.len()
        );
    }
    let sign = if view.exact_level { "=" } else { "≥" };
    let _ = write!(t, "{sign}{} ", view.min_level.name());
    match view.node_names().as_slice() {
        [] => {}
        [one] => {
            let _ = write!(t, "· node {} ", escape_line(one));
        }
        many => {
            let _ = write!(t, "· {} nodes ", many.len());
        }
    }
    let text = match typing {
        Some(p) => format!("· text:{p}▏ "),
        None if !view.text_filter.is_empty() => format!("· text:\"{}\" ", view.text_filter),
        None => String::new(),
    };
    t.push_str(&escape_line(&text));
    if !view.done {
        let _ = write!(t, "· reading {:.0}% ", view.progress * 100.0);
    }
    if !view.topics.left_out.is_empty() {
        let _ = write!(
            t,
            "· {} left out (same lines) ",
            view.topics.left_out.join(" ")
        );
    }
    t
}

/// The width of the node picker's box: the longest name, its count and the check box, at
/// least the keys line's width, at most 64 columns.
fn picker_width(view: &LogView, picker: &NodePicker) -> u16 {
    let count_w = picker
        .counts
        .iter()
        .max()
        .map_or(1, |m| m.to_string().len());
    let name_w = view.node_width(48);
    u16::try_from(name_w + count_w + 8)
        .unwrap_or(64)
        .clamp(52, 64)
}

/// The node picker in a box over `area` (the list's rows): "every node", then each node
/// that matches what is typed, checked or not, with its line count.
fn draw_picker(
    frame: &mut Frame<'_>,
    view: &LogView,
    picker: &NodePicker,
    ctx: &DrawCtx<'_>,
    area: Rect,
) {
    let theme = ctx.theme;
    let w = area.width.saturating_sub(2) as usize;
    let rows = picker.rows(&view.lines);
    let height = area.height.saturating_sub(2) as usize;
    let mut lines: Vec<Line> = Vec::new();
    let count_w = picker
        .counts
        .iter()
        .max()
        .map_or(1, |m| m.to_string().len());
    for r in (picker.scroll..=rows.len()).take(height) {
        let cursor = r == picker.cursor;
        let (mark, name, count) = if r == 0 {
            let mark = if picker.checked.is_empty() {
                "(•)"
            } else {
                "( )"
            };
            (mark, "every node".to_string(), String::new())
        } else {
            let Some(&node) = rows.get(r - 1) else {
                continue;
            };
            let mark = if picker.is_checked(node) {
                "[x]"
            } else {
                "[ ]"
            };
            let name = view.lines.nodes.get(node as usize).map_or("", |n| n);
            let count = picker.counts.get(node as usize).copied().unwrap_or(0);
            (
                mark,
                escape_line(name).into_owned(),
                format!("{count:>count_w$}"),
            )
        };
        let room = w.saturating_sub(4 + count.len() + 1);
        let text = format!("{mark} {} {count}", pad(&name, room));
        let style = if cursor {
            theme.selected(true)
        } else if r == 0 {
            theme.dim()
        } else {
            Style::new()
        };
        lines.push(Line::styled(fit(&text, w), style));
    }
    if rows.is_empty() {
        lines.push(Line::styled(fit("no node matches", w), theme.dim()));
    }
    let checked = match picker.checked.len() {
        0 => String::new(),
        n => format!("{n} checked · "),
    };
    let title = format!(
        " Nodes · {checked}type to narrow: {}▏ ",
        escape_line(ctx.prompt)
    );
    let keys = " ↑↓ move · Space check · Enter show · Esc cancel ";
    frame.render_widget(Clear, area);
    frame.render_widget(
        Paragraph::new(lines).block(
            Block::default()
                .borders(Borders::ALL)
                .title(fit(&title, w))
                .title_bottom(fit(keys, w))
                .border_style(theme.border(true)),
        ),
        area,
    );
}

/// Draws the log view over `area`.
pub fn draw(
    frame: &mut Frame<'_>,
    pane: &LogPane,
    (rows, detail_rows): (usize, usize),
    ctx: &DrawCtx<'_>,
    area: Rect,
) {
    let theme = ctx.theme;
    let w = area.width.saturating_sub(2) as usize;
    let view = &pane.view;
    // The node on every row: at most a fifth of the width (at least 6 columns).
    let node_w = view.node_width((w / 5).max(6));
    let mut lines: Vec<Line> = (view.scroll..view.shown.len())
        .take(rows)
        .filter_map(|r| Some((r, view.shown_line(r)?)))
        .map(|(r, l)| row(pane, ctx, l, (node_w, w), theme, r == view.selected))
        .collect();
    if view.shown.is_empty() {
        let what = if !view.done {
            "reading the log lines…"
        } else if view.lines.lines.is_empty() {
            "no log lines"
        } else {
            "no line passes the filters (Tab/=: level, @: nodes, /: text)"
        };
        lines.push(Line::styled(fit(what, w), theme.dim()));
    }
    while lines.len() < rows {
        lines.push(Line::raw(""));
    }
    lines.push(Line::styled("─".repeat(w), theme.dim()));
    lines.extend(detail(pane, ctx, w, detail_rows, theme));
    let typing = match (ctx.mode, &view.editing) {
        (Mode::LogPrompt, Some(_)) => Some(ctx.prompt),
        _ => None,
    };
    let keys = " Tab level · = only · @ nodes · / text · Enter go there · r/Esc close ";
    frame.render_widget(Clear, area);
    frame.render_widget(
        Paragraph::new(lines).block(
            Block::default()
                .borders(Borders::ALL)
                .title(fit(&title(view, typing), w))
                .title_bottom(fit(keys, w))
                .border_style(theme.border(true)),
        ),
        area,
    );
    if let Some(picker) = &view.picker {
        let rows = u16::try_from(rows).unwrap_or(u16::MAX);
        let over = Rect {
            x: area.x.saturating_add(1),
            y: area.y.saturating_add(1),
            width: picker_width(view, picker).min(area.width.saturating_sub(2)),
            height: rows.min(area.height.saturating_sub(2)),
        };
        draw_picker(frame, view, picker, ctx, over);
    }
}

/// The detail area: the selected line's time, level, node and origin, then its text wrapped
/// (the last row ends in `…` when there is more).
fn detail<'a>(
    pane: &LogPane,
    ctx: &DrawCtx<'_>,
    w: usize,
    rows: usize,
    theme: Theme,
) -> Vec<Line<'a>> {
    let Some(line) = pane.view.selected_line() else {
        return Vec::new();
    };
    let mut head_line = format!(
        "{} {} {}",
        ctx.time_format.format(line.time, ctx.start),
        line.level.name(),
        escape(pane.view.lines.node(line))
    );
    if !line.origin.is_empty() {
        let _ = write!(head_line, " · {}", escape_line(&line.origin));
    }
    let mut out = vec![Line::styled(
        fit(&head_line, w),
        level_style(theme, line.level),
    )];
    let text = head(&line.text, DETAIL_BYTES);
    let mut wrapped: Vec<String> = text
        .split('\n')
        .flat_map(|l| wrap(&escape(l), w, 0))
        .collect();
    let room = rows.saturating_sub(1);
    if wrapped.len() > room {
        wrapped.truncate(room);
        if let Some(last) = wrapped.last_mut() {
            *last = format!("{}…", fit(last, w.saturating_sub(1)).trim_end_matches('…'));
        }
    }
    out.extend(wrapped.into_iter().map(Line::raw));
    out
}
