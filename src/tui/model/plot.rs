//! The plot, without a terminal: which values each pixel column shows, where the data has
//! gaps, the y axis, and the numbers of the legend.
//!
//! A [`PlotSeries`] is a column of `(time, value)` (the times compact, see [`Times`]) plus
//! [`Levels`] of min/max and the series' typical period, built once. For a [`TimeView`] (visible time range and width in
//! pixels — 2 per cell column with braille), [`PlotSeries::envelope`] gives per pixel column
//! the min/max of its points plus the first and last (for the line through the values), so a
//! spike one sample wide always shows; consecutive points further apart than
//! [`PlotSeries::gap_threshold`] are not joined. The work per frame is O(width · log n): the
//! visible range and each column's points are found by binary search, their min/max from
//! the levels. [`frame`] puts several series on one (shared or normalised) y [`Axis`] and
//! gives the legend's value at the cursor and exact min/max over the visible range. Beside:
//! the legend's short names (`names`), how numbers print (`numbers`: six significant digits,
//! float32 as float32), the y axis (`ticks`) and the time axis (`time_ticks`).

mod levels;
pub mod names;
pub mod numbers;
mod ticks;
pub mod time_ticks;
mod times;
pub mod xy;
pub mod xy_raster;

use std::ops::Range;

pub use levels::{BLOCK, Levels, MinMax};
pub use numbers::Precision;
pub use ticks::{Axis, nice_step, tick_label, value_label};
pub use times::{TIME_BLOCK, Times};

use crate::catalog::series::{Column, Resume};

/// `t` as the plot's nanoseconds (`i64::MAX` past the year 2262).
pub fn time_ns(t: crate::time::RosTime) -> i64 {
    i64::try_from(t.as_nanos()).unwrap_or(i64::MAX)
}

/// Points further apart than this many typical periods are a gap.
pub const GAP_PERIODS: i64 = 5;

/// The visible time range and the pixels across it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimeView {
    /// First visible time (ns), inclusive.
    pub start_ns: i64,
    /// Last visible time (ns), inclusive.
    pub end_ns: i64,
    /// Pixel columns (2 per terminal cell with braille).
    pub width_px: usize,
}

impl TimeView {
    /// Where pixel column `c` starts (ns); `c == width_px` gives one past the end.
    pub fn column_start(&self, c: usize) -> i64 {
        let span = i128::from(self.end_ns) - i128::from(self.start_ns);
        let w = self.width_px.max(1) as i128;
        let off = span * (c.min(self.width_px) as i128) / w;
        i64::try_from(i128::from(self.start_ns) + off).unwrap_or(self.end_ns)
    }

    /// Nanoseconds one pixel column spans (at least 1).
    pub fn column_ns(&self) -> i64 {
        let span = i128::from(self.end_ns) - i128::from(self.start_ns);
        i64::try_from(span / self.width_px.max(1) as i128)
            .unwrap_or(i64::MAX)
            .max(1)
    }

    /// The pixel column of time `t`, if visible.
    pub fn column_of(&self, t: i64) -> Option<usize> {
        if t < self.start_ns || t > self.end_ns || self.width_px == 0 {
            return None;
        }
        let span = (i128::from(self.end_ns) - i128::from(self.start_ns)).max(1);
        let c = (i128::from(t) - i128::from(self.start_ns)) * self.width_px as i128 / span;
        Some(usize::try_from(c).unwrap_or(0).min(self.width_px - 1))
    }
}

/// What one pixel column shows of one series.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bucket {
    /// Smallest finite value in the column.
    pub min: f64,
    /// Largest finite value in the column.
    pub max: f64,
    /// The column's first value (its `min` if that is not finite).
    pub first: f64,
    /// The column's last value (its `max` if that is not finite).
    pub last: f64,
    /// Points in the column (saturating).
    pub points: u32,
    /// True when a line joins the previous point (in an earlier column, or before the view)
    /// to `first`: false after a gap.
    pub joined: bool,
}

/// A point outside the view that the line leaves or enters through the view's edge.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EdgePoint {
    /// Its time (ns).
    pub time_ns: i64,
    /// Its value.
    pub value: f64,
}

/// One series across the pixel columns of a view.
#[derive(Debug, Clone, PartialEq)]
pub struct Envelope {
    /// Per pixel column: what it shows, `None` without points.
    pub buckets: Vec<Option<Bucket>>,
    /// The last point before the view, when a line joins it to the next point (no gap).
    pub enter: Option<EdgePoint>,
    /// The first point after the view, when a line joins the previous point to it.
    pub leave: Option<EdgePoint>,
}

/// A series ready to plot.
#[derive(Debug, Clone, Default)]
pub struct PlotSeries {
    times: Times,
    values: Vec<f64>,
    levels: Levels,
    period_ns: Option<i64>,
}

/// Intervals looked at to find the typical period (evenly spread over longer series).
const PERIOD_SAMPLES: usize = 100_000;

impl PlotSeries {
    /// A series of `(time ns, value)` points (tests).
    #[cfg(test)]
    pub(crate) fn from_points(points: &[(i64, f64)]) -> Self {
        Self::new(Column {
            times: points.iter().map(|p| p.0).collect(),
            values: points.iter().map(|p| p.1).collect(),
        })
    }

    /// A series over `column` (O(n) once: compact times, levels and typical period).
    pub fn new(column: Column) -> Self {
        let n = column.len();
        let times = Times::from_slice(column.times.get(..n).unwrap_or_default());
        let mut values = column.values;
        values.truncate(n);
        values.shrink_to_fit();
        let levels = Levels::new(&values);
        let period_ns = median_interval(&times);
        PlotSeries {
            times,
            values,
            levels,
            period_ns,
        }
    }

    /// Adds points (a piece of an extraction in progress). A piece after the last point (the
    /// usual case: pieces arrive in time order) only extends the times and levels; one that
    /// interleaves rebuilds the series.
    pub fn extend(&mut self, piece: Column) {
        let before = self.len();
        let appended = match (self.times.last(), piece.times.first()) {
            (Some(last), Some(first)) => *first >= last,
            _ => true,
        };
        if !appended {
            let mut all = self.to_column();
            all.merge(piece);
            *self = PlotSeries::new(all);
            return;
        }
        let n = piece.len();
        let values = piece.values.get(..n).unwrap_or_default();
        self.times.extend(piece.times.get(..n).unwrap_or_default());
        self.values.extend_from_slice(values);
        self.levels.update(&self.values, before);
        self.period_ns = median_interval(&self.times);
    }

    /// Number of points.
    pub fn len(&self) -> usize {
        self.times.len().min(self.values.len())
    }

    /// True without points.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The times of the points.
    pub fn times(&self) -> &Times {
        &self.times
    }

    /// The values of the points.
    pub fn values(&self) -> &[f64] {
        &self.values
    }

    /// The first point with `start <= time <= end` holding the largest (`max`) or smallest
    /// finite value there.
    pub fn extreme(&self, start_ns: i64, end_ns: i64, max: bool) -> Option<(i64, f64)> {
        let (lo, hi) = self.min_max(start_ns, end_ns)?;
        let target = if max { hi } else { lo };
        let range = self.range_of(start_ns, end_ns);
        // The very value the levels found among these.
        #[allow(clippy::float_cmp)]
        let at = self
            .values
            .get(range.clone())?
            .iter()
            .position(|v| *v == target)?;
        self.point(range.start + at)
    }

    /// The `i`-th point.
    pub fn point(&self, i: usize) -> Option<(i64, f64)> {
        Some((self.times.get(i)?, *self.values.get(i)?))
    }

    /// The points as a plain column (a copy: for tests and rebuilds).
    pub fn to_column(&self) -> Column {
        Column {
            times: self.times.to_vec(),
            values: self.values.clone(),
        }
    }

    /// Where an extraction that extends this series resumes: after its last point (`None`
    /// when it has none). See [`Resume`].
    pub fn resume(&self) -> Option<Resume> {
        let n = self.len();
        let last = self.times.last()?;
        let skip = n - self.times.partition_point(0..n, |x| x < last);
        Some(Resume {
            time: crate::time::RosTime::from_nanos(u64::try_from(last).unwrap_or(0)),
            skip,
        })
    }

    /// The median interval between consecutive points (ns), with at least two points.
    pub fn period_ns(&self) -> Option<i64> {
        self.period_ns
    }

    /// Bytes held (points and levels).
    pub fn heap_bytes(&self) -> usize {
        self.times.heap_bytes()
            + self.values.capacity() * size_of::<f64>()
            + self.levels.heap_bytes()
    }

    /// First and last time, when there are points.
    pub fn time_range(&self) -> Option<(i64, i64)> {
        Some((self.times.first()?, self.times.last()?))
    }

    /// Consecutive points further apart than this are not joined in a view whose columns
    /// span `column_ns`: more than [`GAP_PERIODS`] typical periods and more than one column.
    pub fn gap_threshold(&self, column_ns: i64) -> i64 {
        self.period_ns
            .map_or(i64::MAX, |p| p.saturating_mul(GAP_PERIODS).max(column_ns))
    }

    /// Indices of the points with `start <= time <= end`.
    pub fn range_of(&self, start_ns: i64, end_ns: i64) -> Range<usize> {
        let n = self.len();
        let a = self.times.partition_point(0..n, |x| x < start_ns);
        let b = self.times.partition_point(a..n, |x| x <= end_ns);
        a..b
    }

    /// The last point at or before `cursor_ns`.
    pub fn value_at(&self, cursor_ns: i64) -> Option<(i64, f64)> {
        let i = self
            .times
            .partition_point(0..self.len(), |x| x <= cursor_ns)
            .checked_sub(1)?;
        self.point(i)
    }

    /// Exact min and max of the finite values with `start <= time <= end`.
    pub fn min_max(&self, start_ns: i64, end_ns: i64) -> MinMax {
        self.levels
            .min_max(&self.values, self.range_of(start_ns, end_ns))
    }

    /// The series across the pixel columns of `view`.
    pub fn envelope(&self, view: &TimeView) -> Envelope {
        let times = &self.times;
        let threshold = self.gap_threshold(view.column_ns());
        let close = |i: usize| match (i.checked_sub(1).and_then(|p| times.get(p)), times.get(i)) {
            (Some(a), Some(b)) => b.saturating_sub(a) <= threshold,
            _ => false,
        };
        let range = self.range_of(view.start_ns, view.end_ns);
        let mut buckets = Vec::with_capacity(view.width_px);
        let mut at = range.start;
        for c in 0..view.width_px {
            let end = if c + 1 == view.width_px {
                range.end
            } else {
                let next = view.column_start(c + 1);
                times.partition_point(at..range.end, |x| x < next)
            };
            buckets.push(self.bucket(at..end, close(at)));
            at = end;
        }
        let edge = |i: usize| {
            let (time_ns, value) = self.point(i)?;
            Some(EdgePoint { time_ns, value })
        };
        let enter = range
            .start
            .checked_sub(1)
            .filter(|_| close(range.start))
            .and_then(edge);
        let leave = Some(range.end)
            .filter(|&i| i > 0 && close(i))
            .and_then(edge);
        Envelope {
            buckets,
            enter,
            leave,
        }
    }

    fn bucket(&self, r: Range<usize>, joined: bool) -> Option<Bucket> {
        if r.is_empty() {
            return None;
        }
        let values = &self.values;
        let (min, max) = self.levels.min_max(values, r.clone())?;
        let first = values.get(r.start).copied().filter(|v| v.is_finite());
        let last = values
            .get(r.end.saturating_sub(1))
            .copied()
            .filter(|v| v.is_finite());
        Some(Bucket {
            min,
            max,
            first: first.unwrap_or(min),
            last: last.unwrap_or(max),
            points: u32::try_from(r.len()).unwrap_or(u32::MAX),
            joined,
        })
    }
}

/// The median of the intervals between consecutive times (sampled evenly when long).
fn median_interval(times: &Times) -> Option<i64> {
    let n = times.len().checked_sub(1).filter(|&n| n > 0)?;
    let stride = n.div_ceil(PERIOD_SAMPLES).max(1);
    let mut d: Vec<i64> = (0..n)
        .step_by(stride)
        .filter_map(|i| Some(times.get(i + 1)?.saturating_sub(times.get(i)?)))
        .collect();
    let mid = d.len() / 2;
    if d.is_empty() {
        return None;
    }
    let (_, m, _) = d.select_nth_unstable(mid);
    Some(*m)
}

/// One scale or one per series.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum YMode {
    /// One y axis for every series.
    Shared,
    /// Each series on its own 0..1 scale (its visible min to max).
    Normalised,
}

/// How a series' values map to the plot's height.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Scale {
    /// Value at the bottom.
    pub lo: f64,
    /// Value at the top.
    pub hi: f64,
}

impl Scale {
    /// 0 at the bottom, 1 at the top (outside beyond them).
    pub fn fraction(&self, v: f64) -> f64 {
        ticks::fraction(self.lo, self.hi, v)
    }
}

/// The legend's numbers for one series.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Legend {
    /// The last point at or before the cursor.
    pub at_cursor: Option<(i64, f64)>,
    /// Exact min and max over the visible range.
    pub min_max: MinMax,
}

/// Everything one frame of the plot shows.
#[derive(Debug, Clone, PartialEq)]
pub struct Frame {
    /// Per series, its pixel columns.
    pub envelopes: Vec<Envelope>,
    /// Per series, its legend numbers.
    pub legends: Vec<Legend>,
    /// Per series, where its values sit on the plot's height.
    pub scales: Vec<Scale>,
    /// The y axis to label (0..1 when normalised).
    pub axis: Axis,
}

/// Computes one frame: envelopes, axis (at most `max_ticks` ticks), scales and legends.
pub fn frame(
    series: &[&PlotSeries],
    view: &TimeView,
    cursor_ns: Option<i64>,
    mode: YMode,
    max_ticks: usize,
) -> Frame {
    let legends: Vec<Legend> = series
        .iter()
        .map(|s| Legend {
            at_cursor: cursor_ns.and_then(|c| s.value_at(c)),
            min_max: s.min_max(view.start_ns, view.end_ns),
        })
        .collect();
    let envelopes = series.iter().map(|s| s.envelope(view)).collect();
    let (axis, scales) = match mode {
        YMode::Shared => {
            let all = legends
                .iter()
                .filter_map(|l| l.min_max)
                .reduce(|a, b| (a.0.min(b.0), a.1.max(b.1)));
            let axis = all.map_or_else(
                || Axis::new(0.0, 1.0, max_ticks),
                |(lo, hi)| Axis::new(lo, hi, max_ticks),
            );
            let scale = Scale {
                lo: axis.lo,
                hi: axis.hi,
            };
            (axis, vec![scale; series.len()])
        }
        YMode::Normalised => {
            let scales = legends
                .iter()
                .map(|l| match l.min_max {
                    Some((lo, hi)) if hi > lo => Scale { lo, hi },
                    Some((v, _)) => Scale {
                        lo: v - 0.5,
                        hi: v + 0.5,
                    },
                    None => Scale { lo: 0.0, hi: 1.0 },
                })
                .collect();
            (Axis::new(0.0, 1.0, max_ticks), scales)
        }
    };
    Frame {
        envelopes,
        legends,
        scales,
        axis,
    }
}

#[cfg(test)]
mod tests;
