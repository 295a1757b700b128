//! The timeline pane: message density per column, the time cursor, axis labels in seconds from
//! the start and in absolute time.

use std::fmt::Write as _;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::block::block;
use super::ctx::DrawCtx;
use super::find::SearchView;
use super::timeline::TimelineView;
use crate::printable::escape_line;
use crate::tui::action::Pane;
use crate::tui::layout::inner;
use crate::tui::model::timefmt::{TimeFormat, offset};
use crate::tui::model::topics::TopicList;
use crate::tui::text::fit;
use crate::tui::theme::Theme;

/// Draws the timeline pane.
pub fn draw(
    frame: &mut Frame<'_>,
    tl: &TimelineView,
    (topics, search): (&TopicList, &SearchView),
    ctx: &DrawCtx<'_>,
    area: Rect,
) {
    let theme = ctx.theme;
    if area.width == 0 || area.height == 0 {
        return;
    }
    if let Some(lanes) = &tl.lanes {
        super::lanes::draw(frame, tl, lanes, (topics, search), ctx, area);
        return;
    }
    let title = title(tl, topics, ctx);
    frame.render_widget(
        block(
            ctx.focus == Pane::Histogram,
            theme,
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
    let cursor_col = tl.timeline.bin_of(tl.timeline.cursor(), w);
    let mut lines: Vec<Line> = Vec::with_capacity(inner.height as usize);
    // A search's marks take the top row when there are rows to spare.
    let bar_rows = if search.search.is_active() && bar_rows > 1 {
        lines.push(super::find::marks_row(
            search,
            &tl.timeline,
            theme,
            w,
            cursor_col,
        ));
        bar_rows - 1
    } else {
        bar_rows
    };
    lines.extend((0..bar_rows).map(|r| bar_row(tl, theme, (w, bar_rows, r), cursor_col)));
    // Axis: offsets from the start, then absolute times.
    let fmt = if ctx.time_format == TimeFormat::Offset {
        TimeFormat::Epoch
    } else {
        ctx.time_format
    };
    let (start, _) = tl.timeline.bounds();
    let (v0, v1) = tl.timeline.view();
    let cursor = tl.timeline.cursor();
    let mut labels = vec![super::axis::axis(
        (w, cursor_col),
        [
            format!("{} s", offset(v0, start, 1)),
            format!("{} s", offset(cursor, start, 3)),
            format!("{} s", offset(v1, start, 1)),
        ],
        true,
    )];
    if label_rows > 1 {
        labels.push(super::axis::axis(
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
    super::axis::prompts(&mut lines, search, ctx, w, inner.height as usize);
    frame.render_widget(Paragraph::new(lines), inner);
}

/// The pane's title, after what the user started.
fn title(tl: &TimelineView, topics: &TopicList, ctx: &DrawCtx<'_>) -> String {
    let h = &tl.histogram;
    let scope = if tl.hist_all {
        "all topics".to_string()
    } else {
        // The topic's name comes from the bag: escaped, as everywhere.
        topics
            .selected_row()
            .map_or("no topic".into(), |r| escape_line(&r.topic).into_owned())
    };
    let (start, end) = tl.timeline.bounds();
    let (v0, v1) = tl.timeline.view();
    let zoom = end.nanos_since(start) as f64 / v1.nanos_since(v0).max(1) as f64;
    let mut title = super::axis::started(tl, ctx.play);
    // Rounded as before (an estimate spreads a chunk's messages over bins in fractions).
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let shown = crate::wording::count(h.total().round().max(0.0) as u64, "msg");
    let _ = write!(title, "Timeline · {scope} · {shown} in view");
    if !h.exact {
        title.push_str(" (est.)");
    }
    if tl.timeline.is_zoomed() {
        let _ = write!(title, " · zoom ×{zoom:.1}");
    }
    title.push(' ');
    title
}

/// Row `row` (0 is the top) of `bar_rows` rows of bars, `width` columns wide.
#[allow(clippy::many_single_char_names)]
fn bar_row(
    tl: &TimelineView,
    theme: Theme,
    (width, bar_rows, row): (usize, usize, usize),
    cursor_col: Option<usize>,
) -> Line<'static> {
    let (w, hist) = (width, &tl.histogram);
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
            super::axis::bar_cell(tl, col, w, level, cursor_col, theme)
        })
        .collect();
    Line::from(spans)
}
