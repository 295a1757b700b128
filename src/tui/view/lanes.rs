//! The timeline in lanes mode: one row per shown topic (name, then its message density on the
//! timeline's time axis), the cursor and the marks across every lane, a search's matches as
//! `▼` and its stretches as `━` bars in the lane of the topic they are on, ERROR and FATAL log
//! lines as `E` and `F` on the log topic's lane, the axis below. An image lane with room for
//! them shows camera thumbnails in half-blocks under its density row, each at its time (`░`
//! while loading, `×` for a frame that cannot be drawn).
//!
//! A lane is drawn in steps: its name, its density row (cell by cell: a search's mark or
//! stretch, else a tick, else the density), then its thumbnail rows.

use std::fmt::Write as _;

use ratatui::Frame;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::axis::axis;
use super::block::block;
use super::ctx::DrawCtx;
use super::find::SearchView;
use super::timeline::TimelineView;
use crate::catalog::log::LogLevel;
use crate::printable::escape_line;
use crate::tui::action::Pane;
use crate::tui::layout::inner;
use crate::tui::model::lanes::{self, Lane, Lanes};
use crate::tui::model::thumbs::Shown;
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
    let rows = lanes::lane_rows(h);
    // Where each lane's thumbnails go, drawn over the lines once they are on the screen.
    let mut films: Vec<(&Lane, Rect)> = Vec::new();
    for (i, lane) in lanes.lanes.iter().enumerate() {
        if lines.len() >= rows {
            break;
        }
        let mut spans = name(topics, ctx, lanes, i, name_w);
        spans.extend(density((tl, search), lane, bars, cursor_col, theme));
        lines.push(Line::from(spans));
        let film = lane.rows.saturating_sub(1).min(rows - lines.len());
        if film > 0 && !lane.slots.is_empty() {
            let y = inner.y + u16::try_from(lines.len()).unwrap_or(u16::MAX);
            let x = inner.x + u16::try_from(name_w).unwrap_or(u16::MAX);
            let (bw, fh) = (
                u16::try_from(bars).unwrap_or(u16::MAX),
                u16::try_from(film).unwrap_or(u16::MAX),
            );
            films.push((lane, Rect::new(x, y, bw, fh).intersection(inner)));
        }
        lines.extend(film_rows(lane, film, (name_w, bars), cursor_col, theme));
    }
    while lines.len() < rows {
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
    let unprompted = (!films.is_empty()).then(|| lines.clone());
    super::axis::prompts(&mut lines, search, ctx, w, inner.height as usize);
    // A prompt takes the last rows: frames stay above it.
    let kept = unprompted.map_or(0, |u| {
        u.iter().zip(&lines).take_while(|(a, b)| a == b).count()
    });
    let kept = Rect::new(
        inner.x,
        inner.y,
        inner.width,
        u16::try_from(kept).unwrap_or(u16::MAX),
    );
    frame.render_widget(Paragraph::new(lines), inner);
    for (lane, area) in films {
        thumbnails(
            lane,
            lanes,
            area.intersection(kept),
            theme,
            frame.buffer_mut(),
        );
    }
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

/// The density glyphs of a lane, `bars` columns, with the cursor and the marks; a search's
/// match first, then an ERROR/FATAL tick, then the density.
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
            if let Some(Some(level)) = lane.ticks.get(col) {
                return tick_cell(*level, cursor_col == Some(col), theme);
            }
            super::axis::bar_cell(tl, col, bars, lane.level(col), cursor_col, theme)
        })
        .collect()
}

/// The cell of a column holding an ERROR (`E`) or FATAL (`F`) log line (`cursor`: the
/// cursor's column too): a letter, so it reads without colour.
fn tick_cell(level: LogLevel, cursor: bool, theme: Theme) -> Span<'static> {
    let glyph = if level >= LogLevel::Fatal { "F" } else { "E" };
    let style = if cursor {
        theme.cursor()
    } else {
        theme.error()
    };
    Span::styled(glyph, style)
}

/// The `film` rows under an image lane's density row, before its frames are drawn over them:
/// the cursor's column, and in the name column how many frames could not be drawn.
fn film_rows(
    lane: &Lane,
    film: usize,
    (name_w, bars): (usize, usize),
    cursor_col: Option<usize>,
    theme: Theme,
) -> Vec<Line<'static>> {
    let failed = lane
        .slots
        .iter()
        .filter(|s| matches!(s.shown, Shown::Failed(_)))
        .count();
    (0..film)
        .map(|row| {
            let note = if row == 0 && failed > 0 {
                fit(&format!(" × {failed} not drawn"), name_w)
            } else {
                String::new()
            };
            let pad = name_w.saturating_sub(width(&note));
            let mut spans = vec![Span::styled(note, theme.dim()), Span::raw(" ".repeat(pad))];
            match cursor_col {
                Some(c) if c < bars => {
                    spans.push(Span::raw(" ".repeat(c)));
                    spans.push(Span::styled("│", theme.cursor()));
                }
                _ => {}
            }
            Line::from(spans)
        })
        .collect()
}

/// Draws the slots of `lane` in `area` (its thumbnail rows, on the time axis's columns): each
/// frame as half-blocks, `░` while it loads, `×` when it cannot be drawn.
fn thumbnails(lane: &Lane, lanes: &Lanes, area: Rect, theme: Theme, buf: &mut Buffer) {
    for slot in &lane.slots {
        let x = area.x + u16::try_from(slot.left).unwrap_or(u16::MAX);
        let w = u16::try_from(slot.width).unwrap_or(u16::MAX);
        let cell = Rect::new(x, area.y, w, area.height).intersection(area);
        if cell.is_empty() {
            continue;
        }
        match &slot.shown {
            Shown::Frame { raster, .. } => super::halfblock::draw(raster, lanes.depth, cell, buf),
            Shown::Loading => buf.set_string(
                cell.x,
                cell.y + cell.height / 2,
                "░".repeat(cell.width as usize),
                theme.dim(),
            ),
            Shown::Failed(_) => buf.set_string(
                cell.x + cell.width / 2,
                cell.y + cell.height / 2,
                "×",
                theme.error(),
            ),
            Shown::Empty | Shown::Skipped => {}
        }
    }
}
