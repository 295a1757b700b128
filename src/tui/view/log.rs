//! The log view (`r`): one line per log message — time, level, node, text — coloured by
//! severity (the level is always written out, so `NO_COLOR` loses nothing), and under it the
//! selected message wrapped in full with where it came from. Only the visible rows are
//! formatted.

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
use crate::tui::model::log::{LogField, LogView};
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

/// The title: what is shown of what, the filters, the progress.
fn title(view: &LogView, prompt: Option<(LogField, &str)>) -> String {
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
    let _ = write!(t, "≥{} ", view.min_level.name());
    let node = match prompt {
        Some((LogField::Node, p)) => format!("· node:{p}▏ "),
        _ if !view.node_filter.is_empty() => format!("· node:{} ", view.node_filter),
        _ => String::new(),
    };
    let text = match prompt {
        Some((LogField::Text, p)) => format!("· text:{p}▏ "),
        _ if !view.text_filter.is_empty() => format!("· text:\"{}\" ", view.text_filter),
        _ => String::new(),
    };
    t.push_str(&escape_line(&node));
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
    let node_w = if w >= 60 {
        view.node_width((w / 5).max(8))
    } else {
        0
    };
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
            "no line passes the filters (Tab: level, @: node, /: text)"
        };
        lines.push(Line::styled(fit(what, w), theme.dim()));
    }
    while lines.len() < rows {
        lines.push(Line::raw(""));
    }
    lines.push(Line::styled("─".repeat(w), theme.dim()));
    lines.extend(detail(pane, ctx, w, detail_rows, theme));
    let prompt = match (ctx.mode, &view.editing) {
        (Mode::LogPrompt, Some((field, _))) => Some((*field, ctx.prompt)),
        _ => None,
    };
    let keys = " Tab level · @ node · / text · Enter go there · r/Esc close ";
    frame.render_widget(Clear, area);
    frame.render_widget(
        Paragraph::new(lines).block(
            Block::default()
                .borders(Borders::ALL)
                .title(fit(&title(view, prompt), w))
                .title_bottom(fit(keys, w))
                .border_style(theme.border(true)),
        ),
        area,
    );
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
