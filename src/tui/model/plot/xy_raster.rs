//! XY mode's picture, kept between frames: everything the pane draws except the point at
//! the cursor, for one pair of series, visible range and pane size ([`XyKey`]). Making one
//! ([`raster`]) walks every point in view twice (bounds, then pixels), so the explorer makes
//! it on a background thread and only when the key changes (see `tui::jobs::xy_painter`); a frame
//! whose key is unchanged (a cursor step, a redraw) only looks up the point at the cursor
//! ([`pair_at`], a binary search).

use super::PlotSeries;
use super::xy::{self, XyScale};
use crate::tui::text::width;

/// A braille dot's height over its width on a terminal whose cells are twice as high as
/// wide (2×4 dots per cell): square.
pub const DOT_ASPECT: f64 = 1.0;

/// Braille dot bits for (x in 0..2, y in 0..4), y down.
const DOTS: [[u8; 4]; 2] = [[0x01, 0x02, 0x04, 0x40], [0x08, 0x10, 0x20, 0x80]];

/// What a raster was made for: two series (by label and length, so a series that grew or
/// was replaced by one of another length makes a new key), the visible range (ns, both
/// ends included) and the size of the pane's inside in cells.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct XyKey {
    /// The x series' label and point count.
    pub x: (String, usize),
    /// The y series' label and point count.
    pub y: (String, usize),
    /// The visible range.
    pub range: (i64, i64),
    /// Cells across and down inside the pane's border.
    pub inner: (usize, usize),
}

/// XY mode's picture for one [`XyKey`].
#[derive(Debug, Clone, PartialEq)]
pub struct XyRaster {
    /// What it was made for.
    pub key: XyKey,
    /// The scale (`None` without points in view).
    pub scale: Option<XyScale>,
    /// Cells across the plot (right of the y labels).
    pub cols: usize,
    /// Rows of the plot (above the x axis and the legend).
    pub rows: usize,
    /// Width of the y labels.
    pub label_w: usize,
    /// Braille dot bits per cell, row by row (`cols` × `rows`; 0: blank).
    pub cells: Vec<u8>,
    /// Ticks across (value, label).
    pub x_ticks: Vec<(f64, String)>,
    /// Ticks up (value, label).
    pub y_ticks: Vec<(f64, String)>,
    /// Points in view.
    pub points: usize,
}

impl XyRaster {
    /// The braille character of cell (col, row), if any dot is lit.
    pub fn glyph(&self, col: usize, row: usize) -> Option<char> {
        if col >= self.cols {
            return None;
        }
        let bits = *self.cells.get(row * self.cols + col)?;
        (bits != 0)
            .then(|| char::from_u32(0x2800 + u32::from(bits)))
            .flatten()
    }

    /// The cell (col, row) of the point (x, y), if it is inside the plot.
    pub fn cell_of(&self, x: f64, y: f64) -> Option<(usize, usize)> {
        let (px, py) = self.scale?.pixel(x, y)?;
        Some((px / 2, py / 4))
    }
}

/// The plot's columns, pixel size and most ticks (across, up) in a pane `w` cells wide
/// with `rows` plot rows, given y labels `label_w` wide.
fn size(w: usize, rows: usize, label_w: usize) -> (usize, (usize, usize), (usize, usize)) {
    let cols = w.saturating_sub(label_w + 1);
    (
        cols,
        (cols * 2, rows * 4),
        ((cols / 8).max(2), (rows / 2).max(2)),
    )
}

/// Makes the picture of `x` against `y` for `key` (O(points in view): call it off the UI
/// thread). The y labels' width depends on the scale, which depends on the area: the
/// points' bounds (one pass) give the labels at a nominal label width, then the pixels are
/// lit once at the real one.
#[allow(clippy::many_single_char_names)]
pub fn raster(x: &PlotSeries, y: &PlotSeries, key: XyKey) -> XyRaster {
    let (w, h) = key.inner;
    let rows = h.saturating_sub(2);
    let points = xy::xy_points(x, y, key.range, None);
    let (_, probe_px, probe_ticks) = size(w, rows, 6);
    let label_w = xy::y_ticks(&points, probe_px, DOT_ASPECT, probe_ticks)
        .iter()
        .map(|(_, l)| width(l))
        .max()
        .unwrap_or(1)
        .min(w / 3);
    let (cols, size_px, max_ticks) = size(w, rows, label_w);
    let f = xy::xy_frame_of(x, y, key.range, &points, size_px, DOT_ASPECT, max_ticks);
    let mut cells = vec![0u8; cols * rows];
    for (r, row) in cells.chunks_mut(cols.max(1)).enumerate() {
        for (c, bits) in row.iter_mut().enumerate() {
            for (dx, column) in DOTS.iter().enumerate() {
                for (dy, bit) in column.iter().enumerate() {
                    if f.is_lit(c * 2 + dx, r * 4 + dy) {
                        *bits |= bit;
                    }
                }
            }
        }
    }
    XyRaster {
        key,
        scale: f.scale,
        cols,
        rows,
        label_w,
        cells,
        x_ticks: f.x_ticks,
        y_ticks: f.y_ticks,
        points: f.points,
    }
}

/// Most points [`pair_at`] steps back over (values that are not numbers, times only one
/// series has) before it gives up.
const MAX_STEPS_BACK: usize = 1 << 16;

/// The last point of `x` against `y` (paired as [`xy::for_each_pair`] pairs them) with
/// `start <= time <= min(cursor, end)`: its time, x and y. A binary search and a walk
/// back over what does not pair (at most `MAX_STEPS_BACK` points).
#[allow(clippy::many_single_char_names)]
pub fn pair_at(
    x: &PlotSeries,
    y: &PlotSeries,
    (start_ns, end_ns): (i64, i64),
    cursor_ns: i64,
) -> Option<(i64, f64, f64)> {
    let last = cursor_ns.min(end_ns);
    if last < start_ns {
        return None;
    }
    let (rx, ry) = (x.range_of(start_ns, last), y.range_of(start_ns, last));
    if x.times() == y.times() {
        // Two fields of the same messages: the points pair one to one.
        return (rx.start..rx.end)
            .rev()
            .take(MAX_STEPS_BACK)
            .find_map(|i| finite_pair(x, y, i, i));
    }
    // Points pair within a run of equal times, the k-th of x with the k-th of y.
    let (mut i, mut j) = (rx.end, ry.end);
    let mut steps = 0usize;
    while i > rx.start && j > ry.start && steps < MAX_STEPS_BACK {
        let (tx, ty) = (x.times().get(i - 1)?, y.times().get(j - 1)?);
        let run = |s: &PlotSeries, end: usize, from: usize, t: i64| {
            let mut k = end;
            while k > from && s.times().get(k - 1) == Some(t) {
                k -= 1;
            }
            k
        };
        let (ix, jy) = (run(x, i, rx.start, tx), run(y, j, ry.start, ty));
        steps += (i - ix) + (j - jy);
        match tx.cmp(&ty) {
            std::cmp::Ordering::Greater => i = ix,
            std::cmp::Ordering::Less => j = jy,
            std::cmp::Ordering::Equal => {
                let n = (i - ix).min(j - jy);
                if let Some(p) = (0..n).rev().find_map(|k| finite_pair(x, y, ix + k, jy + k)) {
                    return Some(p);
                }
                (i, j) = (ix, jy);
            }
        }
    }
    None
}

/// Point `i` of `x` and point `j` of `y` as (time, x, y) when both values are numbers.
#[allow(clippy::many_single_char_names)]
fn finite_pair(x: &PlotSeries, y: &PlotSeries, i: usize, j: usize) -> Option<(i64, f64, f64)> {
    let (t, vx) = x.point(i)?;
    let (_, vy) = y.point(j)?;
    (vx.is_finite() && vy.is_finite()).then_some((t, vx, vy))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn series(points: &[(i64, f64)]) -> PlotSeries {
        PlotSeries::from_points(points)
    }

    /// `pair_at` by brute force: the last pair `for_each_pair` gives.
    fn brute(
        x: &PlotSeries,
        y: &PlotSeries,
        range: (i64, i64),
        cursor: i64,
    ) -> Option<(i64, f64, f64)> {
        let mut last = None;
        xy::for_each_pair(x, y, range.0, range.1, |t, a, b| {
            if t <= cursor {
                last = Some((t, a, b));
            }
        });
        last
    }

    #[test]
    fn the_point_at_the_cursor_is_the_last_pair_before_it() {
        // Times only one side has, runs of equal times of different lengths, NaNs.
        let x = series(&[
            (10, 1.0),
            (20, 2.0),
            (30, 3.0),
            (30, 3.5),
            (30, 3.7),
            (40, f64::NAN),
            (50, 5.0),
            (60, 6.0),
        ]);
        let y = series(&[
            (10, -1.0),
            (25, 9.0),
            (30, -3.0),
            (30, f64::NAN),
            (40, 4.0),
            (50, -5.0),
            (55, 1.0),
        ]);
        let same = series(&[(10, 7.0), (20, f64::NAN), (30, 8.0), (30, 9.0), (40, 1.0)]);
        let other = series(&[(10, 1.0), (20, 2.0), (30, 3.0), (30, f64::NAN), (40, 4.0)]);
        for (a, b) in [(&x, &y), (&y, &x), (&same, &other), (&x, &x)] {
            for range in [(i64::MIN, i64::MAX), (15, 45), (31, 39), (30, 30)] {
                for cursor in [0, 10, 19, 20, 25, 29, 30, 31, 40, 50, 55, 60, 99] {
                    assert_eq!(
                        pair_at(a, b, range, cursor),
                        brute(a, b, range, cursor),
                        "range {range:?} cursor {cursor}"
                    );
                }
            }
        }
        assert_eq!(pair_at(&x, &y, (0, 100), 30), Some((30, 3.0, -3.0)));
        assert_eq!(pair_at(&same, &other, (0, 100), 35), Some((30, 8.0, 3.0)));
    }

    #[test]
    fn the_raster_holds_what_the_frame_lights() {
        // A square walked corner to corner: four corners lit, every cell in bounds.
        let x = series(&[(0, 0.0), (1, 1.0), (2, 1.0), (3, 0.0), (4, 0.0)]);
        let y = series(&[(0, 0.0), (1, 0.0), (2, 1.0), (3, 1.0), (4, 0.0)]);
        let key = XyKey {
            x: ("x".into(), 5),
            y: ("y".into(), 5),
            range: (0, 4),
            inner: (30, 12),
        };
        let r = raster(&x, &y, key.clone());
        assert_eq!(r.key, key);
        assert_eq!(r.points, 5);
        assert_eq!(r.rows, 10);
        assert_eq!(r.cells.len(), r.cols * r.rows);
        for (px, py) in [(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)] {
            let (c, row) = r.cell_of(px, py).unwrap();
            assert!(r.glyph(c, row).is_some(), "corner ({px}, {py})");
        }
        assert!(r.glyph(r.cols, 0).is_none(), "outside the plot");
        // Nothing in view: no scale, blank cells.
        let empty = raster(
            &x,
            &y,
            XyKey {
                range: (10, 20),
                ..key
            },
        );
        assert_eq!((empty.scale, empty.points), (None, 0));
        assert!(empty.cells.iter().all(|&b| b == 0));
    }
}
