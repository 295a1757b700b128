//! The plot pane under the timeline: the plotted series over the timeline's visible range
//! (same cursor, zoom and marks), braille strokes per series, a y axis with the model's tick
//! labels, time ticks in the bottom border, one legend line per series at the top
//! ([`plot_legend`](super::plot_legend)) and the `P` prompt over the last rows while open.

use std::fmt::Write as _;

use ratatui::Frame;
use ratatui::buffer::Buffer;
use ratatui::layout::{Position, Rect};
use ratatui::style::Style;
use ratatui::text::Line;
use ratatui::widgets::Paragraph;

use super::braille::Grid;
use super::ctx::DrawCtx;
use super::plot_legend::{LegendRow, glyph, legend_line};
use super::plot_xy::XyView;
use super::timeline::TimelineView;
use crate::catalog::series::SeriesRequest;
use crate::time::RosTime;
use crate::tui::action::Pane;
use crate::tui::jobs::notify::Notify;
use crate::tui::jobs::plotter::{PlotJob, PlotNews};
use crate::tui::layout::inner;
use crate::tui::model::plot::time_ticks::{TimeTick, time_ticks};
use crate::tui::model::plot::{Legend, TimeView, YMode, time_ns, value_label};
use crate::tui::model::plots::{Plots, SpecError};
use crate::tui::model::timefmt::TimeFormat;
use crate::tui::text::{fit, width};
use crate::tui::theme::Theme;
use ratatui::style::Modifier;
use std::collections::HashMap;

/// The plot pane's state: the plotted series, the threads computing them, XY mode's
/// picture and the series' growth with a followed recording.
#[derive(Default)]
pub struct PlotView {
    /// The plotted series.
    pub plots: Plots,
    /// The series still being computed, by label.
    pub(crate) jobs: HashMap<String, PlotJob>,
    /// Where series threads report (set by the event loop).
    pub(crate) notify: Option<Notify<PlotNews>>,
    /// The id of the next series job.
    pub(crate) next_id: u64,
    /// XY mode's picture, made in the background.
    pub(crate) xy: XyView,
    /// The plotted series extended as a followed recording grows.
    pub(crate) growth: PlotGrowth,
    /// What is wrong with the text of the open `P` prompt.
    pub prompt_error: Option<SpecError>,
    /// The pane focused before the `P` prompt took the screen (compact layout).
    pub(crate) prompt_return: Option<Pane>,
}

/// What the app remembers to extend its plotted series.
#[derive(Debug, Default)]
pub struct PlotGrowth {
    /// Snapshots swapped in so far.
    pub(crate) generation: u64,
    /// Per plotted label.
    pub(crate) series: HashMap<String, Grown>,
}

/// One plotted series as far as growing it goes.
#[derive(Debug)]
pub struct Grown {
    /// The whole series' request (no resume point).
    pub(crate) request: SeriesRequest,
    /// Its latest extraction.
    pub(crate) job: u64,
    /// The snapshot generation that extraction started on.
    pub(crate) started: u64,
    /// True when that extraction extends the series (no progress shown).
    pub(crate) extending: bool,
    /// Every message of the topic up to this time has been read.
    pub(crate) through: Option<RosTime>,
}

impl PlotGrowth {
    /// Remembers a whole extraction of `label` started as job `job`.
    pub fn track(&mut self, label: &str, request: &SeriesRequest, job: u64) {
        let mut request = request.clone();
        request.from = None;
        self.series.insert(
            label.to_string(),
            Grown {
                request,
                job,
                started: self.generation,
                extending: false,
                through: None,
            },
        );
    }

    /// Forgets `label` (no longer plotted).
    pub fn forget(&mut self, label: &str) {
        self.series.remove(label);
    }

    /// True when job `job` of `label` extends an already complete series.
    pub fn is_extension(&self, label: &str, job: u64) -> bool {
        self.series
            .get(label)
            .is_some_and(|g| g.job == job && g.extending)
    }
}

/// The pane's title: progress while computing, series count, scale mode, and the y labels'
/// offset when they count from one.
fn title(v: &PlotView, offset: f64) -> String {
    let p = &v.plots;
    let mut t = String::from(" ");
    if let Some(pct) = p.progress() {
        let _ = write!(t, "{pct}% · ");
    }
    let n = p.entries.len();
    let _ = write!(
        t,
        "Plot · {n} series · {} ",
        match p.mode {
            YMode::Shared => "shared y",
            YMode::Normalised => "normalised y",
        }
    );
    if offset != 0.0 {
        let _ = write!(t, "· y from {} ", value_label(offset));
    }
    t
}

/// Draws the plot pane: the legend at the top, the series under it with the y labels on
/// the left, the time ticks in the bottom border; the `P` prompt over the last rows while
/// it is open (the pane is shown for it even with nothing plotted).
#[allow(clippy::many_single_char_names)]
pub fn draw(
    frame: &mut Frame<'_>,
    v: &PlotView,
    (tl, xy_pending): (&TimelineView, bool),
    ctx: &DrawCtx<'_>,
    area: Rect,
) {
    let theme = ctx.theme;
    let focused = ctx.focus == Pane::Plot;
    if area.width == 0 || area.height == 0 {
        return;
    }
    if v.plots.is_empty() {
        frame.render_widget(
            super::block::block(focused, theme, fit(" Plot ", area.width as usize)),
            area,
        );
        draw_prompt(frame, v, ctx, area);
        return;
    }
    if v.plots.xy
        && super::plot_xy::draw(
            frame,
            (&v.plots, v.xy.shown.as_deref()),
            (&tl.timeline, xy_pending),
            ctx,
            area,
        )
    {
        draw_prompt(frame, v, ctx, area);
        return;
    }
    draw_series(frame, v, (tl, focused), ctx, area);
    draw_prompt(frame, v, ctx, area);
}

/// The `P` prompt over the last rows of the pane, when open.
fn draw_prompt(frame: &mut Frame<'_>, v: &PlotView, ctx: &DrawCtx<'_>, area: Rect) {
    let inner = inner(area);
    let rows = (inner.height as usize).min(6);
    let lines =
        super::plot_legend::prompt_lines(v.prompt_error.as_ref(), ctx, inner.width as usize, rows);
    if lines.is_empty() {
        return;
    }
    let n = u16::try_from(lines.len()).unwrap_or(0);
    let at = Rect {
        y: inner.y + inner.height.saturating_sub(n),
        height: n.min(inner.height),
        ..inner
    };
    frame.render_widget(ratatui::widgets::Clear, at);
    frame.render_widget(Paragraph::new(lines), at);
}

/// The plot in time mode.
#[allow(clippy::many_single_char_names)]
fn draw_series(
    frame: &mut Frame<'_>,
    v: &PlotView,
    (tl, focused): (&TimelineView, bool),
    ctx: &DrawCtx<'_>,
    area: Rect,
) {
    let theme = ctx.theme;
    let (timeline, marks) = (&tl.timeline, tl.marks);
    let inner = inner(area);
    let w = inner.width as usize;
    let h = inner.height as usize;
    let n = v.plots.entries.len();
    if w < 4 || h == 0 {
        frame.render_widget(super::block::block(focused, theme, String::new()), area);
        return;
    }
    let legend_rows = n.min(h.saturating_sub(2).max(1));
    let plot_rows = h.saturating_sub(legend_rows);
    let (v0, v1) = timeline.view();
    let cursor = time_ns(timeline.cursor());
    // The y labels' width depends on the axis, which depends on the view only: a first
    // frame at a nominal width gives the labels, the real one the envelopes.
    let max_ticks = (plot_rows / 2).max(2);
    let probe = TimeView {
        start_ns: time_ns(v0),
        end_ns: time_ns(v1),
        width_px: 1,
    };
    let axis = v.plots.frame(&probe, None, max_ticks).axis;
    let t = title(v, axis.offset);
    frame.render_widget(
        super::block::block(
            focused,
            theme,
            fit(&t, area.width.saturating_sub(2) as usize),
        ),
        area,
    );
    let label_w = axis
        .labels
        .iter()
        .map(|l| width(l))
        .max()
        .unwrap_or(1)
        .min(w / 3);
    let cols = w.saturating_sub(label_w + 1);
    let view = TimeView {
        start_ns: time_ns(v0),
        end_ns: time_ns(v1),
        width_px: cols * 2,
    };
    let f = v.plots.frame(&view, Some(cursor), max_ticks);
    let selected = v.plots.selected;
    let mut grid = Grid::new(cols, plot_rows);
    // The selected series last, over the others, when the pane is focused.
    let mut order: Vec<usize> = (0..f.envelopes.len()).collect();
    if focused {
        order.retain(|i| *i != selected);
        order.push(selected);
    }
    for i in order {
        if let (Some(env), Some(scale)) = (f.envelopes.get(i), f.scales.get(i)) {
            grid.draw(env, &view, scale, i);
        }
    }
    // Per row: which tick label (if any) sits there.
    let mut row_labels: Vec<Option<&str>> = vec![None; plot_rows];
    if plot_rows > 0 {
        for (tick, label) in f.axis.ticks.iter().zip(&f.axis.labels) {
            let frac = f.axis.fraction(*tick).clamp(0.0, 1.0);
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            let r = ((1.0 - frac) * (plot_rows - 1) as f64).round() as usize;
            if let Some(slot) = row_labels.get_mut(r) {
                *slot = Some(label.as_str());
            }
        }
    }
    let cursor_col = view.column_of(cursor).map(|px| px / 2);
    let mark_cols: Vec<usize> = [marks.0, marks.1]
        .into_iter()
        .flatten()
        .filter_map(|m| view.column_of(time_ns(m)).map(|px| px / 2))
        .collect();
    // Series markers at the cursor: (row, series).
    let markers: Vec<(usize, usize)> = if cursor_col.is_some() && plot_rows > 0 {
        f.legends
            .iter()
            .zip(&f.scales)
            .enumerate()
            .filter_map(|(i, (l, s))| {
                let (_, v) = l.at_cursor?;
                Some((grid.y_of(s, v)? / 4, i))
            })
            .collect()
    } else {
        Vec::new()
    };
    let legend_y = u16::try_from(legend_rows).unwrap_or(u16::MAX);
    let plot_area = Rect {
        y: inner.y.saturating_add(legend_y),
        height: inner.height.saturating_sub(legend_y),
        ..inner
    };
    put_rows(
        frame.buffer_mut(),
        plot_area,
        &Rows {
            grid: &grid,
            labels: &row_labels,
            label_w,
            cursor_col,
            mark_cols: &mark_cols,
            markers: &markers,
        },
        theme,
    );
    let legend_area = Rect {
        height: legend_y.min(inner.height),
        ..inner
    };
    draw_legend(frame, v, (&f.legends, focused), theme, legend_area);
    // Time ticks in the bottom border, under the plot's columns: offsets from the start
    // where times are shown as epoch seconds (ten digits a tick would not read).
    let tick_format = match ctx.time_format {
        TimeFormat::Epoch => TimeFormat::Offset,
        f => f,
    };
    let ticks = time_ticks(
        (view.start_ns, view.end_ns),
        cols,
        tick_format,
        time_ns(ctx.start),
    );
    let x0 = inner.x as usize + label_w + 1;
    let bottom = area.y + area.height - 1;
    put_time_ticks(
        frame.buffer_mut(),
        &ticks,
        &view,
        (x0, bottom, area.right().saturating_sub(1)),
        theme,
    );
}

/// The legend lines in `area` (one per series; the rows around the selected one when not
/// all fit).
fn draw_legend(
    frame: &mut Frame<'_>,
    v: &PlotView,
    (legends, focused): (&[Legend], bool),
    theme: Theme,
    area: Rect,
) {
    let rows = area.height as usize;
    let selected = v.plots.selected;
    let names = v.plots.names();
    let first = if focused {
        selected.saturating_sub(rows.saturating_sub(1))
    } else {
        0
    };
    let mut lines: Vec<Line> = Vec::with_capacity(rows);
    for (i, ((e, l), name)) in v
        .plots
        .entries
        .iter()
        .zip(legends)
        .zip(&names)
        .enumerate()
        .skip(first)
        .take(rows)
    {
        let name = crate::printable::escape_line(name);
        let row = LegendRow {
            index: i,
            name: &name,
            legend: l,
            precision: e.precision,
            selected: focused.then_some(i == selected),
        };
        let style = if focused && i == selected {
            theme.series(i).add_modifier(Modifier::BOLD)
        } else {
            theme.series(i)
        };
        lines.push(Line::styled(legend_line(&row, area.width as usize), style));
    }
    frame.render_widget(Paragraph::new(lines), area);
}

/// Writes `ticks` into the border row `y`: `┴` at each tick's column (from `x0`), its label
/// after it, up to (not including) column `end`; a label that would touch the next one or the
/// corner is left out.
fn put_time_ticks(
    buf: &mut Buffer,
    ticks: &[TimeTick],
    view: &TimeView,
    (x0, y, end): (usize, u16, u16),
    theme: Theme,
) {
    let mut free_from = 0usize;
    for t in ticks {
        let Some(col) = view.column_of(t.time_ns).map(|px| px / 2) else {
            continue;
        };
        let x = x0 + col;
        let w = width(&t.label);
        if x < free_from || x + w + 1 >= usize::from(end) {
            continue;
        }
        let text = std::iter::once('┴').chain(t.label.chars());
        for (k, ch) in text.enumerate() {
            let Ok(cx) = u16::try_from(x + k) else {
                break;
            };
            if let Some(cell) = buf.cell_mut(Position::new(cx, y)) {
                cell.set_char(ch).set_style(theme.dim());
            }
        }
        free_from = x + w + 2;
    }
}

/// What the plot's rows show: the raster, the y labels and what sits at the cursor.
struct Rows<'a> {
    grid: &'a Grid,
    /// Per row, the tick label there.
    labels: &'a [Option<&'a str>],
    label_w: usize,
    cursor_col: Option<usize>,
    mark_cols: &'a [usize],
    /// Series markers at the cursor: (row, series).
    markers: &'a [(usize, usize)],
}

/// Writes the plot's rows into `buf` from the top left of `inner`: a cell each, straight into
/// the buffer (no text layout, nothing allocated per cell).
fn put_rows(buf: &mut Buffer, inner: Rect, rows: &Rows<'_>, theme: Theme) {
    let mut put = |x: usize, y: usize, ch: char, style: Style| {
        let (Ok(dx), Ok(dy)) = (u16::try_from(x), u16::try_from(y)) else {
            return;
        };
        let at = Position::new(inner.x.saturating_add(dx), inner.y.saturating_add(dy));
        if let Some(cell) = buf.cell_mut(at) {
            cell.set_char(ch).set_style(style);
        }
    };
    let label_w = rows.label_w;
    for (r, label) in rows.labels.iter().enumerate() {
        let label = label.unwrap_or("");
        let shown = fit(label, label_w);
        let pad = label_w.saturating_sub(width(&shown));
        for (k, ch) in std::iter::repeat_n(' ', pad)
            .chain(shown.chars())
            .enumerate()
        {
            put(k, r, ch, theme.dim());
        }
        put(
            label_w,
            r,
            if label.is_empty() { '│' } else { '┤' },
            theme.dim(),
        );
        for c in 0..rows.grid.cols() {
            let cell = rows.grid.cell(c, r);
            let is_cursor = rows.cursor_col == Some(c);
            let marker = rows
                .markers
                .iter()
                .rev()
                .find(|(row, _)| *row == r)
                .filter(|_| is_cursor);
            let (ch, style) = if let Some((_, i)) = marker {
                (glyph(*i), theme.series(*i))
            } else if let Some(g) = cell.glyph() {
                let style = if is_cursor {
                    theme.cursor()
                } else {
                    cell.owner.map_or(Style::new(), |i| theme.series(i))
                };
                (g, style)
            } else if is_cursor {
                ('│', theme.cursor())
            } else if rows.mark_cols.contains(&c) {
                ('┊', theme.marked())
            } else {
                (' ', Style::new())
            };
            put(label_w + 1 + c, r, ch, style);
        }
    }
}
