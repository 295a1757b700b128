//! The plot pane under the timeline: the plotted series over the timeline's visible range
//! (same cursor, zoom and marks), braille strokes per series, a y axis with the model's tick
//! labels and one legend line per series (marker, field path, value at the cursor, min and max
//! over the visible range).

use std::fmt::Write as _;

use ratatui::Frame;
use ratatui::buffer::Buffer;
use ratatui::layout::{Position, Rect};
use ratatui::style::Style;
use ratatui::text::Line;
use ratatui::widgets::Paragraph;

use super::braille::Grid;
use super::ctx::DrawCtx;
use super::plot_xy::XyView;
use super::timeline::TimelineView;
use crate::catalog::series::SeriesRequest;
use crate::time::RosTime;
use crate::tui::jobs::notify::Notify;
use crate::tui::jobs::plotter::{PlotJob, PlotNews};
use crate::tui::layout::inner;
use crate::tui::model::plot::{Legend, TimeView, YMode, time_ns, value_label};
use crate::tui::model::plots::Plots;
use crate::tui::text::{fit, fit_left, width};
use crate::tui::theme::{SERIES_GLYPHS, Theme};
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

/// The marker of series `i`.
pub fn glyph(i: usize) -> char {
    SERIES_GLYPHS
        .get(i % SERIES_GLYPHS.len())
        .copied()
        .unwrap_or('●')
}

/// The pane's title: series count, scale mode, progress while computing.
fn title(v: &PlotView) -> String {
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
    t
}

/// One legend line `w` wide: marker, field path, value at the cursor, min and max. When it
/// does not fit, the path is shortened (its end kept), then dropped, then the cursor's value:
/// min and max are what must stay readable (last as `[min, max]`).
pub fn legend_line(i: usize, label: &str, legend: &Legend, w: usize) -> String {
    let now = legend
        .at_cursor
        .map_or_else(|| "–".to_string(), |(_, v)| value_label(v));
    let range = match legend.min_max {
        Some((lo, hi)) => format!("  min {}  max {}", value_label(lo), value_label(hi)),
        None => "  (no values in view)".to_string(),
    };
    let now = format!("  now {now}");
    let g = glyph(i);
    let full = format!("{g} {label}{now}{range}");
    if width(&full) <= w {
        return full;
    }
    let room = w.saturating_sub(2 + width(&now) + width(&range));
    if room >= 8 {
        return format!("{g} {}{now}{range}", fit_left(label, room));
    }
    let short = format!("{g}{now}{range}");
    if width(&short) <= w {
        return short;
    }
    let compact = legend.min_max.map_or_else(
        || "–".to_string(),
        |(lo, hi)| format!("[{}, {}]", value_label(lo), value_label(hi)),
    );
    fit(&format!("{g} {compact}"), w)
}

/// Draws the plot pane.
#[allow(clippy::many_single_char_names)]
pub fn draw(
    frame: &mut Frame<'_>,
    v: &PlotView,
    (tl, xy_pending): (&TimelineView, bool),
    ctx: &DrawCtx<'_>,
    area: Rect,
) {
    let theme = ctx.theme;
    let (timeline, marks) = (&tl.timeline, tl.marks);
    if area.width == 0 || area.height == 0 || v.plots.is_empty() {
        return;
    }
    if v.plots.xy
        && super::plot_xy::draw(
            frame,
            (&v.plots, v.xy.shown.as_deref()),
            (timeline, xy_pending),
            ctx,
            area,
        )
    {
        return;
    }
    let t = title(v);
    frame.render_widget(
        super::block::block(false, theme, fit(&t, area.width.saturating_sub(2) as usize)),
        area,
    );
    let inner = inner(area);
    let w = inner.width as usize;
    let h = inner.height as usize;
    let n = v.plots.entries.len();
    if w < 4 || h == 0 {
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
    let mut grid = Grid::new(cols, plot_rows);
    for (i, (env, scale)) in f.envelopes.iter().zip(&f.scales).enumerate() {
        grid.draw(env, &view, scale, i);
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
    put_rows(
        frame.buffer_mut(),
        inner,
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
    let mut lines: Vec<Line> = Vec::with_capacity(legend_rows);
    for (i, (e, l)) in v
        .plots
        .entries
        .iter()
        .zip(&f.legends)
        .enumerate()
        .take(legend_rows)
    {
        lines.push(Line::styled(
            legend_line(i, &crate::printable::escape_line(&e.label), l, w),
            theme.series(i),
        ));
    }
    let legend_area = Rect {
        y: inner
            .y
            .saturating_add(u16::try_from(plot_rows).unwrap_or(u16::MAX)),
        height: inner
            .height
            .saturating_sub(u16::try_from(plot_rows).unwrap_or(u16::MAX)),
        ..inner
    };
    frame.render_widget(Paragraph::new(lines), legend_area);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn legend_keeps_min_and_max_when_narrow() {
        let l = Legend {
            at_cursor: Some((0, 1.25)),
            min_max: Some((-1.499_999_998_655_011_9, 3.499_999_999_999_999_6)),
        };
        let label = "/imu/linear_acceleration/z";
        let wide = legend_line(0, label, &l, 120);
        assert_eq!(
            wide,
            "● /imu/linear_acceleration/z  now 1.25  min -1.4999999986550119  max 3.4999999999999996"
        );
        let mid = legend_line(1, label, &l, 70);
        assert!(mid.starts_with("■ …"), "{mid}");
        assert!(mid.ends_with("max 3.4999999999999996"), "{mid}");
        let narrow = legend_line(2, label, &l, 46);
        assert_eq!(narrow, "▲ [-1.4999999986550119, 3.4999999999999996]");
        let none = Legend {
            at_cursor: None,
            min_max: None,
        };
        assert_eq!(
            legend_line(3, "/a", &none, 80),
            "◆ /a  now –  (no values in view)"
        );
    }
}
