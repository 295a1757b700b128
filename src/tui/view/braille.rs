//! A grid of braille cells (2×4 dots each) that plot series are rasterised into: per pixel
//! column a vertical stroke from the column's min to its max, plus the line through the
//! values between columns; a gap leaves the columns unjoined. Each cell remembers the last
//! series that set a dot in it (its colour).

use crate::tui::model::plot::{Envelope, Scale, TimeView};

/// Braille dot bits for (x in 0..2, y in 0..4), y down.
const DOTS: [[u8; 4]; 2] = [[0x01, 0x02, 0x04, 0x40], [0x08, 0x10, 0x20, 0x80]];

/// One cell: its dots and the series that drew last in it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Cell {
    /// The braille dot bits.
    pub dots: u8,
    /// The series that last set a dot here.
    pub owner: Option<usize>,
}

impl Cell {
    /// The braille character of the dots (`None` when empty).
    pub fn glyph(&self) -> Option<char> {
        if self.dots == 0 {
            None
        } else {
            char::from_u32(0x2800 + u32::from(self.dots))
        }
    }
}

/// A `cols`×`rows` grid of cells (`2·cols` × `4·rows` pixels).
#[derive(Debug, Clone)]
pub struct Grid {
    cols: usize,
    rows: usize,
    cells: Vec<Cell>,
}

impl Grid {
    /// An empty grid.
    pub fn new(cols: usize, rows: usize) -> Grid {
        Grid {
            cols,
            rows,
            cells: vec![Cell::default(); cols.saturating_mul(rows)],
        }
    }

    /// Cell columns.
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// The cell at (col, row).
    pub fn cell(&self, col: usize, row: usize) -> Cell {
        if col >= self.cols || row >= self.rows {
            return Cell::default();
        }
        self.cells
            .get(row * self.cols + col)
            .copied()
            .unwrap_or_default()
    }

    fn height_px(&self) -> usize {
        self.rows * 4
    }

    fn set(&mut self, x: usize, y: usize, owner: usize) {
        let (col, row) = (x / 2, y / 4);
        if col >= self.cols || row >= self.rows {
            return;
        }
        let bit = DOTS
            .get(x % 2)
            .and_then(|d| d.get(y % 4))
            .copied()
            .unwrap_or(0);
        if let Some(c) = self.cells.get_mut(row * self.cols + col) {
            c.dots |= bit;
            c.owner = Some(owner);
        }
    }

    /// The pixel row of `v` (0 at the top), clamped to the grid; `None` if not finite.
    pub fn y_of(&self, scale: &Scale, v: f64) -> Option<usize> {
        if !v.is_finite() || self.rows == 0 {
            return None;
        }
        let h = (self.height_px() - 1) as f64;
        let y = ((1.0 - scale.fraction(v).clamp(0.0, 1.0)) * h).round();
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        Some(y.clamp(0.0, h) as usize)
    }

    fn stroke(&mut self, x: usize, y0: usize, y1: usize, owner: usize) {
        for y in y0.min(y1)..=y0.max(y1) {
            self.set(x, y, owner);
        }
    }

    /// A line from pixel (x0, y0) to (x1, y1) (x may lie outside the grid: clipped), as
    /// vertical strokes per pixel column so it stays unbroken when steep.
    fn line(&mut self, (x0, y0): (f64, f64), (x1, y1): (f64, f64), owner: usize) {
        let width = (self.cols * 2) as f64;
        if x1 <= x0 {
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            if (0.0..width).contains(&x1) {
                self.stroke(x1 as usize, y0 as usize, y1 as usize, owner);
            }
            return;
        }
        let at = |x: f64| y0 + (y1 - y0) * (x - x0) / (x1 - x0);
        let from = x0.max(0.0).floor();
        let to = x1.min(width - 1.0).floor();
        let mut x = from;
        while x <= to {
            let a = at(x.max(x0));
            let b = at((x + 1.0).min(x1));
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            self.stroke(x as usize, a.round() as usize, b.round() as usize, owner);
            x += 1.0;
        }
    }

    /// Draws one series' envelope over `view` with `scale` as series `owner`.
    pub fn draw(&mut self, env: &Envelope, view: &TimeView, scale: &Scale, owner: usize) {
        let col_ns = view.column_ns() as f64;
        let x_of = |t: i64| (t.saturating_sub(view.start_ns)) as f64 / col_ns;
        let yf = |g: &Grid, v: f64| g.y_of(scale, v).map(|y| y as f64);
        // The last drawn point: (pixel x, pixel y).
        let mut prev: Option<(f64, f64)> = env
            .enter
            .and_then(|p| Some((x_of(p.time_ns), yf(self, p.value)?)));
        for (x, b) in env.buckets.iter().enumerate() {
            let Some(b) = b else { continue };
            let (Some(lo), Some(hi)) = (self.y_of(scale, b.min), self.y_of(scale, b.max)) else {
                prev = None;
                continue;
            };
            if let (true, Some(p), Some(first)) = (b.joined, prev, yf(self, b.first)) {
                self.line(p, (x as f64, first), owner);
            }
            self.stroke(x, lo, hi, owner);
            prev = yf(self, b.last).map(|y| (x as f64, y));
        }
        if let (Some(p), Some(leave)) = (prev, env.leave) {
            if let Some(y) = yf(self, leave.value) {
                self.line(p, (x_of(leave.time_ns), y), owner);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::series::Column;
    use crate::tui::model::plot::PlotSeries;

    fn render(g: &Grid) -> Vec<String> {
        (0..g.rows)
            .map(|r| {
                (0..g.cols)
                    .map(|c| g.cell(c, r).glyph().unwrap_or(' '))
                    .collect()
            })
            .collect()
    }

    fn series(points: &[(i64, f64)]) -> PlotSeries {
        PlotSeries::new(Column {
            times: points.iter().map(|p| p.0).collect(),
            values: points.iter().map(|p| p.1).collect(),
        })
    }

    #[test]
    fn a_one_sample_spike_is_a_full_stroke() {
        let mut pts: Vec<(i64, f64)> = (0..1000).map(|i| (i, 0.0)).collect();
        pts[500].1 = 1.0;
        let s = series(&pts);
        let view = TimeView {
            start_ns: 0,
            end_ns: 999,
            width_px: 10,
        };
        let mut g = Grid::new(5, 2);
        g.draw(&s.envelope(&view), &view, &Scale { lo: 0.0, hi: 1.0 }, 0);
        // Column 5 (cell 2, right half) has dots from the top row to the bottom row.
        assert_ne!(g.cell(2, 0).dots & 0x08, 0, "{:?}", render(&g));
        assert_ne!(g.cell(2, 1).dots & 0x80, 0);
        // Elsewhere only the bottom pixel row.
        assert_eq!(g.cell(0, 0).dots, 0);
        assert_eq!(g.cell(0, 1).dots, 0x40 | 0x80);
        assert_eq!(g.cell(4, 1).owner, Some(0));
    }

    #[test]
    fn a_gap_is_not_joined() {
        // Points every 10 ns with nothing between 100 and 900.
        let pts: Vec<(i64, f64)> = (0..=10)
            .map(|i| (i * 10, 1.0))
            .chain((90..=100).map(|i| (i * 10, 0.0)))
            .collect();
        let s = series(&pts);
        let view = TimeView {
            start_ns: 0,
            end_ns: 1000,
            width_px: 20,
        };
        let mut g = Grid::new(10, 1);
        g.draw(&s.envelope(&view), &view, &Scale { lo: 0.0, hi: 1.0 }, 0);
        let rows = render(&g);
        for c in 2..=7 {
            assert_eq!(g.cell(c, 0).dots, 0, "column {c} inside the gap: {rows:?}");
        }
        assert_ne!(g.cell(0, 0).dots, 0);
        assert_ne!(g.cell(9, 0).dots, 0);
    }

    #[test]
    fn a_steep_line_between_columns_is_unbroken() {
        let s = series(&[(0, 0.0), (10, 1.0)]);
        let view = TimeView {
            start_ns: 0,
            end_ns: 10,
            width_px: 2,
        };
        let mut g = Grid::new(1, 2);
        g.draw(&s.envelope(&view), &view, &Scale { lo: 0.0, hi: 1.0 }, 3);
        let set: u32 = (0..2).map(|r| g.cell(0, r).dots.count_ones()).sum();
        assert!(set >= 8, "{:?}", render(&g));
    }
}
