//! The timeline in lanes mode: one row per shown topic (name, then its message density on the
//! timeline's time axis), the cursor and the marks across every lane, a search's matches as
//! `▼` and its stretches as `━` bars in the lane of the topic they are on, the axis below.

use std::fmt::Write as _;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::axis::axis;
use super::block::block;
use super::ctx::DrawCtx;
use super::find::SearchView;
use super::timeline::TimelineView;
use crate::printable::escape_line;
use crate::tui::action::Pane;
use crate::tui::layout::inner;
use crate::tui::model::lanes::{self, Lane, Lanes};
use crate::tui::model::timefmt::{TimeFormat, offset};
use crate::tui::model::topics::TopicList;
use crate::tui::text::{common_prefix, fit, fit_middle, width};
use crate::tui::theme::Theme;

/// Draws the timeline pane as lanes.
pub fn draw(
    frame: &mut Frame<'_>,
    tl: &TimelineView,
    lanes: &Lanes,
    (topics, search): (&TopicList, &SearchView),
    ctx: &DrawCtx<'_>,
    area: Rect,
) {
    let theme = ctx.theme;
    frame.render_widget(
        block(
            ctx.focus == Pane::Histogram,
            theme,
            fit(
                &title(tl, lanes, ctx),
                area.width.saturating_sub(2) as usize,
            ),
        ),
        area,
    );
    let inner = inner(area);
    let (w, h) = (inner.width as usize, inner.height as usize);
    if w == 0 || h == 0 {
        return;
    }
    let name_w = lanes::name_width(w);
    let bars = w.saturating_sub(name_w).max(1);
    let cursor_col = tl.timeline.bin_of(tl.timeline.cursor(), bars);
    let mut lines: Vec<Line> = Vec::with_capacity(h);
    if lanes.lanes.is_empty() {
        lines.push(Line::styled(fit("no topic shown", w), theme.dim()));
    }
    for (i, lane) in lanes.lanes.iter().enumerate().take(lanes::lane_rows(h)) {
        let mut spans = name(topics, ctx, lanes, i, name_w);
        spans.extend(density((tl, search), lane, bars, cursor_col, theme));
        lines.push(Line::from(spans));
    }
    while lines.len() < lanes::lane_rows(h) {
        lines.push(Line::raw(""));
    }
    let indent = " ".repeat(name_w);
    let (start, _) = tl.timeline.bounds();
    let (v0, v1) = tl.timeline.view();
    let cursor = tl.timeline.cursor();
    let axis_line = |labels: [String; 3], marker: bool, style: Style| {
        let mut spans = vec![Span::raw(indent.clone())];
        spans.extend(axis((bars, cursor_col), labels, marker).spans);
        Line::from(spans).style(style)
    };
    lines.push(axis_line(
        [
            format!("{} s", offset(v0, start, 1)),
            format!("{} s", offset(cursor, start, 3)),
            format!("{} s", offset(v1, start, 1)),
        ],
        true,
        Style::new(),
    ));
    if lanes::axis_rows(h) > 1 {
        let fmt = if ctx.time_format == TimeFormat::Offset {
            TimeFormat::Epoch
        } else {
            ctx.time_format
        };
        lines.push(axis_line(
            [
                fmt.short(v0, start),
                fmt.short(cursor, start),
                fmt.short(v1, start),
            ],
            false,
            theme.dim(),
        ));
    }
    super::axis::prompts(&mut lines, search, ctx, w, inner.height as usize);
    frame.render_widget(Paragraph::new(lines), inner);
}

/// The title: what the user started first (as the histogram's), then which lanes are shown.
fn title(tl: &TimelineView, lanes: &Lanes, ctx: &DrawCtx<'_>) -> String {
    let mut title = super::axis::started(tl, ctx.play);
    title.push_str("Timeline · lanes · ");
    let shown = lanes.lanes.len();
    if shown < lanes.total {
        let _ = write!(
            title,
            "{}–{} of {} topics",
            lanes.offset + 1,
            lanes.offset + shown,
            lanes.total
        );
    } else {
        let _ = write!(title, "{} topics", lanes.total);
    }
    if !lanes.exact {
        title.push_str(" (est.)");
    }
    if tl.timeline.is_zoomed() {
        let (start, end) = tl.timeline.bounds();
        let (v0, v1) = tl.timeline.view();
        let zoom = end.nanos_since(start) as f64 / v1.nanos_since(v0).max(1) as f64;
        let _ = write!(title, " · zoom ×{zoom:.1}");
    }
    title.push(' ');
    title
}

/// The name column of lane `i`: shortened in the middle like the topic list, keeping where it
/// differs from the lanes above and below; the selected topic highlighted.
fn name(
    topics: &TopicList,
    ctx: &DrawCtx<'_>,
    lanes: &Lanes,
    i: usize,
    name_w: usize,
) -> Vec<Span<'static>> {
    let Some(lane) = lanes.lanes.get(i) else {
        return Vec::new();
    };
    // Names from the bag, escaped (as everywhere) before they are compared and cut.
    let topic = escape_line(&lane.topic);
    let neighbour = |j: Option<usize>| {
        j.and_then(|j| lanes.lanes.get(j))
            .map_or(0, |n| common_prefix(&escape_line(&n.topic), &topic))
    };
    let keep = neighbour(i.checked_sub(1)).max(neighbour(Some(i + 1)));
    let (shown, _) = fit_middle(&topic, name_w.saturating_sub(1), Some(keep));
    let style = if lane.visible == topics.selected() {
        ctx.theme.selected(ctx.focus == Pane::Histogram)
    } else {
        ctx.theme.dim()
    };
    let pad = name_w.saturating_sub(width(&shown));
    vec![Span::styled(shown, style), Span::raw(" ".repeat(pad))]
}

/// The density glyphs of a lane, `bars` columns, with the cursor and the marks.
fn density(
    (tl, search): (&TimelineView, &SearchView),
    lane: &Lane,
    bars: usize,
    cursor_col: Option<usize>,
    theme: Theme,
) -> Vec<Span<'static>> {
    let searched = search.search.is_active() && !search.search.matches.is_empty();
    let stretches =
        super::find::bar_columns(&search.search, &tl.timeline, bars, Some(&lane.connections));
    (0..bars)
        .map(|col| {
            if stretches.get(col) == Some(&true) {
                return super::find::bar_cell(cursor_col == Some(col), theme);
            }
            if searched {
                let (from, to) = super::find::column_span(&tl.timeline, col, bars);
                if search.search.any_of_in(from, to, &lane.connections) {
                    return super::find::mark_cell(cursor_col == Some(col), theme);
                }
            }
            super::axis::bar_cell(tl, col, bars, lane.level(col), cursor_col, theme)
        })
        .collect()
}
