//! The timeline pane: message density per column, the time cursor, axis labels in seconds from
//! the start and in absolute time.

use std::fmt::Write as _;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::{block, inner};
use crate::printable::escape_line;
use crate::tui::action::Pane;
use crate::tui::app::{App, Mode};
use crate::tui::model::timefmt::{TimeFormat, offset};
use crate::tui::text::{fit, width};
use crate::tui::theme::Theme;

const LEVELS: [char; 9] = [' ', '▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];

/// Draws the timeline pane.
pub fn draw(frame: &mut Frame<'_>, app: &App, theme: Theme, area: Rect) {
    if area.width == 0 || area.height == 0 {
        return;
    }
    if let Some(lanes) = &app.lanes {
        super::lanes::draw(frame, app, lanes, theme, area);
        return;
    }
    let title = title(app);
    frame.render_widget(
        block(
            app,
            theme,
            Pane::Histogram,
            fit(&title, area.width.saturating_sub(2) as usize),
        ),
        area,
    );
    let inner = inner(area);
    let w = inner.width as usize;
    if w == 0 || inner.height == 0 {
        return;
    }
    let label_rows = match inner.height {
        0..=2 => 1,
        _ => 2,
    };
    let bar_rows = inner.height.saturating_sub(label_rows).max(1) as usize;
    let cursor_col = app.timeline.bin_of(app.timeline.cursor(), w);
    let mut lines: Vec<Line> = Vec::with_capacity(inner.height as usize);
    // A search's marks take the top row when there are rows to spare.
    let bar_rows = if app.search.is_active() && bar_rows > 1 {
        lines.push(super::find::marks_row(app, theme, w, cursor_col));
        bar_rows - 1
    } else {
        bar_rows
    };
    lines.extend((0..bar_rows).map(|r| bar_row(app, theme, (w, bar_rows, r), cursor_col)));
    // Axis: offsets from the start, then absolute times.
    let fmt = if app.time_format == TimeFormat::Offset {
        TimeFormat::Epoch
    } else {
        app.time_format
    };
    let (start, _) = app.timeline.bounds();
    let (v0, v1) = app.timeline.view();
    let cursor = app.timeline.cursor();
    let mut labels = vec![axis(
        (w, cursor_col),
        [
            format!("{} s", offset(v0, start, 1)),
            format!("{} s", offset(cursor, start, 3)),
            format!("{} s", offset(v1, start, 1)),
        ],
        true,
    )];
    if label_rows > 1 {
        labels.push(axis(
            (w, cursor_col),
            [
                fmt.short(v0, start),
                fmt.short(cursor, start),
                fmt.short(v1, start),
            ],
            false,
        ));
    }
    for (i, l) in labels.into_iter().enumerate() {
        let style = if i == 0 { Style::new() } else { theme.dim() };
        lines.push(l.style(style));
    }
    if app.mode == Mode::Jump {
        let prompt = format!(":{}█  (epoch, +offset, date or time of day)", app.prompt);
        if let Some(last) = lines.last_mut() {
            *last = Line::styled(fit(&prompt, w), theme.matched());
        }
    }
    replace_last(
        &mut lines,
        super::find::prompt_lines(app, theme, w, inner.height as usize),
    );
    frame.render_widget(Paragraph::new(lines), inner);
}

/// The start of the timeline's title (histogram or lanes): what the user started (playing,
/// marking) comes first, so that it stays visible when the title is cut at 80 columns.
pub(super) fn started(app: &App) -> String {
    let mut title = String::from(" ");
    if let Some(p) = app.play {
        let _ = write!(
            title,
            "{} {}× · ",
            if p.paused { "paused" } else { "▶" },
            p.speed
        );
    }
    match app.marks {
        (Some(a), Some(b)) => {
            let _ = write!(title, "marked {:.3} s · ", b.nanos_since(a) as f64 / 1e9);
        }
        (Some(_), None) => title.push_str("marking… · "),
        _ => {}
    }
    title
}

/// The pane's title, after what the user started.
fn title(app: &App) -> String {
    let h = &app.histogram;
    let scope = if app.hist_all {
        "all topics".to_string()
    } else {
        // The topic's name comes from the bag: escaped, as everywhere.
        app.topics
            .selected_row()
            .map_or("no topic".into(), |r| escape_line(&r.topic).into_owned())
    };
    let (start, end) = app.timeline.bounds();
    let (v0, v1) = app.timeline.view();
    let zoom = end.nanos_since(start) as f64 / v1.nanos_since(v0).max(1) as f64;
    let mut title = started(app);
    let _ = write!(title, "Timeline · {scope} · {:.0} msgs in view", h.total());
    if !h.exact {
        title.push_str(" (est.)");
    }
    if app.timeline.is_zoomed() {
        let _ = write!(title, " · zoom ×{zoom:.1}");
    }
    title.push(' ');
    title
}

/// Row `row` (0 is the top) of `bar_rows` rows of bars, `width` columns wide.
#[allow(clippy::many_single_char_names)]
fn bar_row(
    app: &App,
    theme: Theme,
    (width, bar_rows, row): (usize, usize, usize),
    cursor_col: Option<usize>,
) -> Line<'static> {
    let (w, hist) = (width, &app.histogram);
    let max = hist.max();
    let level_base = (bar_rows - 1 - row) * 8;
    let spans: Vec<Span> = (0..w)
        .map(|col| {
            let v = hist.bins.get(col).copied().unwrap_or(0.0);
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            let eighths = if max > 0.0 {
                ((v / max) * (bar_rows * 8) as f64).ceil() as usize
            } else {
                0
            };
            // A bin with messages shows at least a sliver.
            let eighths = if v > 0.0 { eighths.max(1) } else { 0 };
            let level = eighths.saturating_sub(level_base).min(8);
            bar_cell(app, col, w, level, cursor_col, theme)
        })
        .collect();
    Line::from(spans)
}

/// An axis line `w` wide: `[left, mid, right]` labels, the middle one at the cursor's column
/// (`marker`: with `▲` under the cursor).
pub(super) fn axis(
    (w, cursor_col): (usize, Option<usize>),
    [left, mid, right]: [String; 3],
    marker: bool,
) -> Line<'static> {
    let mut s = vec![' '; w];
    let put = |s: &mut Vec<char>, at: usize, text: &str| {
        for (i, c) in text.chars().enumerate() {
            if let Some(slot) = s.get_mut(at + i) {
                *slot = c;
            }
        }
    };
    let (lw, rw) = (width(&left), width(&right));
    // The cursor's label starts at the cursor's column (`▲` under it), or ends there when
    // it would run past the right edge.
    let mid_at = cursor_col.map(|col| {
        let mw = width(&mid) + usize::from(marker);
        let text = if col + mw <= w {
            if marker {
                format!("▲{mid}")
            } else {
                mid.clone()
            }
        } else if marker {
            format!("{mid}▲")
        } else {
            mid.clone()
        };
        let at = if col + mw <= w {
            col
        } else {
            (col + 1).saturating_sub(mw)
        };
        (at, mw, text)
    });
    // The ends give way to the cursor's label.
    let clear_of = |a: usize, aw: usize| {
        mid_at
            .as_ref()
            .is_none_or(|(m, mw, _)| a + aw < *m || *m + mw < a)
    };
    if clear_of(0, lw) {
        put(&mut s, 0, &left);
    }
    if clear_of(w.saturating_sub(rw), rw) {
        put(&mut s, w.saturating_sub(rw), &right);
    }
    if let Some((at, _, text)) = &mid_at {
        put(&mut s, *at, text);
    }
    Line::from(s.into_iter().collect::<String>())
}

/// Puts `new` in place of the last lines of `lines` (the prompt over the axis labels).
pub(super) fn replace_last(lines: &mut Vec<Line<'static>>, new: Vec<Line<'static>>) {
    let n = new.len().min(lines.len());
    lines.truncate(lines.len() - n);
    lines.extend(new.into_iter().take(n));
}

/// One column of a bar row: the glyph for `level` eighths (`│` for an empty column under the
/// cursor), styled as the cursor, inside the `[`/`]` marks, or plain.
pub(super) fn bar_cell(
    app: &App,
    col: usize,
    bins: usize,
    level: usize,
    cursor_col: Option<usize>,
    theme: Theme,
) -> Span<'static> {
    let is_cursor = cursor_col == Some(col);
    let t = app.timeline.time_of_bin(col, bins);
    let marked = match app.marks {
        (Some(a), Some(b)) => t >= a && t <= b,
        (Some(a), None) => t >= a && t <= app.timeline.cursor(),
        _ => false,
    };
    let c = match (level, is_cursor) {
        (0, true) => '│',
        (l, _) => LEVELS.get(l).copied().unwrap_or(' '),
    };
    let style = match (is_cursor, marked) {
        (true, _) => theme.cursor(),
        (false, true) => theme.marked(),
        (false, false) => theme.bars(),
    };
    Span::styled(c.to_string(), style)
}
