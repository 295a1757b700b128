//! XY mode, without a terminal: two fields of one topic drawn against each other (a
//! trajectory), over the timeline's visible range.
//!
//! Points pair by message: a value of the x series and one of the y series with the same
//! time make a point (runs of equal times pair in order), so two columns extracted apart
//! from the same messages give back the message's (x, y). [`equal_aspect`] fits the points
//! into a pixel area with one unit the same length on both axes (a braille dot is as high
//! as it is wide on a terminal whose cells are twice as high as wide); [`xy_frame`] gives
//! the scale, the ticks inside the area, the pixels to light (consecutive points joined,
//! except across a gap) and the point at the cursor.

use super::{PlotSeries, nice_step, tick_label};

/// The smallest rectangle holding some points.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bounds {
    /// Smallest x.
    pub x_min: f64,
    /// Largest x.
    pub x_max: f64,
    /// Smallest y.
    pub y_min: f64,
    /// Largest y.
    pub y_max: f64,
}

impl Bounds {
    fn of(x: f64, y: f64) -> Bounds {
        Bounds {
            x_min: x,
            x_max: x,
            y_min: y,
            y_max: y,
        }
    }

    fn add(&mut self, x: f64, y: f64) {
        self.x_min = self.x_min.min(x);
        self.x_max = self.x_max.max(x);
        self.y_min = self.y_min.min(y);
        self.y_max = self.y_max.max(y);
    }
}

/// Calls `f(time, x, y)` for each point of `x` and `y` paired by time with
/// `start <= time <= end`, in time order; points with a value that is not finite are skipped.
#[allow(clippy::many_single_char_names)]
pub fn for_each_pair(
    x: &PlotSeries,
    y: &PlotSeries,
    start_ns: i64,
    end_ns: i64,
    mut f: impl FnMut(i64, f64, f64),
) {
    if x.times() == y.times() {
        // Two fields of the same messages (the usual case): the points pair one to one.
        let r = x.range_of(start_ns, end_ns);
        let (vx, vy) = (
            x.values().get(r.clone()).unwrap_or_default(),
            y.values().get(r.clone()).unwrap_or_default(),
        );
        for ((t, a), b) in x.times().iter(r).zip(vx).zip(vy) {
            if a.is_finite() && b.is_finite() {
                f(t, *a, *b);
            }
        }
        return;
    }
    let (mut xs, mut ys) = (
        points_in(x, start_ns, end_ns),
        points_in(y, start_ns, end_ns),
    );
    while let (Some(&(tx, vx)), Some(&(ty, vy))) = (xs.peek(), ys.peek()) {
        match tx.cmp(&ty) {
            std::cmp::Ordering::Less => {
                xs.next();
            }
            std::cmp::Ordering::Greater => {
                ys.next();
            }
            std::cmp::Ordering::Equal => {
                if vx.is_finite() && vy.is_finite() {
                    f(tx, vx, vy);
                }
                xs.next();
                ys.next();
            }
        }
    }
}

/// The points of `s` with `start <= time <= end`, in order.
fn points_in(
    s: &PlotSeries,
    start_ns: i64,
    end_ns: i64,
) -> std::iter::Peekable<impl Iterator<Item = (i64, f64)> + '_> {
    let r = s.range_of(start_ns, end_ns);
    let values = s.values().get(r.clone()).unwrap_or_default();
    s.times().iter(r).zip(values.iter().copied()).peekable()
}

/// Where the points sit in a pixel area: x grows to the right, y upwards.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct XyScale {
    /// The x value at pixel column 0.
    pub x_lo: f64,
    /// The y value at the bottom pixel row.
    pub y_lo: f64,
    /// Units per pixel across.
    pub per_px_x: f64,
    /// Units per pixel down (`per_px_x` × the pixel's height over its width).
    pub per_px_y: f64,
    /// Pixel columns.
    pub width_px: usize,
    /// Pixel rows.
    pub height_px: usize,
}

impl XyScale {
    /// The x value at the right edge.
    pub fn x_hi(&self) -> f64 {
        self.x_lo + self.per_px_x * self.width_px.saturating_sub(1) as f64
    }

    /// The y value at the top edge.
    pub fn y_hi(&self) -> f64 {
        self.y_lo + self.per_px_y * self.height_px.saturating_sub(1) as f64
    }

    /// The pixel of (x, y), (0, 0) at the top left; `None` outside the area.
    pub fn pixel(&self, x: f64, y: f64) -> Option<(usize, usize)> {
        let (px, py) = self.pixel_f(x, y)?;
        let (w, h) = (self.width_px as f64, self.height_px as f64);
        if !(0.0..w).contains(&px) || !(0.0..h).contains(&py) {
            return None;
        }
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        Some((px as usize, py as usize))
    }

    /// The pixel of (x, y) as rounded floats (may lie outside the area).
    fn pixel_f(&self, x: f64, y: f64) -> Option<(f64, f64)> {
        if self.width_px == 0 || self.height_px == 0 {
            return None;
        }
        let px = round((x - self.x_lo) / self.per_px_x);
        let py = (self.height_px - 1) as f64 - round((y - self.y_lo) / self.per_px_y);
        (px.is_finite() && py.is_finite()).then_some((px, py))
    }
}

/// `v.round()` (half away from zero) without the libm call `f64::round` makes on targets
/// without SSE4.1 (up to the sign of a zero): exact for |v| < 2^52 (`v - trunc(v)` is then
/// exact), `v.round()` beyond.
fn round(v: f64) -> f64 {
    const EXACT: f64 = 4_503_599_627_370_496.0; // 2^52
    if v.is_nan() || v.abs() >= EXACT {
        return v.round();
    }
    #[allow(clippy::cast_possible_truncation)]
    let t = v as i64 as f64;
    let frac = v - t;
    if frac >= 0.5 {
        t + 1.0
    } else if frac <= -0.5 {
        t - 1.0
    } else {
        t
    }
}

/// Fits `b` into `width_px` × `height_px` pixels with equal aspect: one unit is as long
/// across as up, given pixels `pixel_aspect` times as high as wide (1 for braille dots on
/// the usual 1:2 terminal cells). The tighter axis fills its pixels, the other is centred.
pub fn equal_aspect(b: Bounds, width_px: usize, height_px: usize, pixel_aspect: f64) -> XyScale {
    let aspect = if pixel_aspect.is_finite() && pixel_aspect > 0.0 {
        pixel_aspect
    } else {
        1.0
    };
    let across = width_px.saturating_sub(1).max(1) as f64;
    let up = height_px.saturating_sub(1).max(1) as f64;
    let (dx, dy) = (b.x_max - b.x_min, b.y_max - b.y_min);
    // Units per pixel across: enough for both spans (the y span in pixels is `dy / aspect`).
    let mut s = (dx / across).max(dy / (up * aspect));
    if !(s.is_finite() && s > 0.0) {
        // One point (or all points alike): one unit across the area.
        s = 1.0 / across;
    }
    let (cx, cy) = (
        f64::midpoint(b.x_min, b.x_max),
        f64::midpoint(b.y_min, b.y_max),
    );
    XyScale {
        x_lo: cx - s * across / 2.0,
        y_lo: cy - s * aspect * up / 2.0,
        per_px_x: s,
        per_px_y: s * aspect,
        width_px,
        height_px,
    }
}

/// The multiples of `step` inside `lo..=hi` with their labels.
fn ticks_within(lo: f64, hi: f64, step: f64) -> Vec<(f64, String)> {
    let mut out = Vec::new();
    if !(step.is_finite() && step > 0.0 && lo.is_finite() && hi.is_finite()) {
        return out;
    }
    let mut k = (lo / step).ceil();
    while k * step <= hi && out.len() < 64 {
        out.push((k * step, tick_label(k * step, step)));
        k += 1.0;
    }
    out
}

/// One tick step for both axes (so a grid square is as long as high): the nice step that
/// gives at most `max_x` ticks across and `max_y` up.
fn common_step(s: &XyScale, (max_x, max_y): (usize, usize)) -> f64 {
    let across = (s.x_hi() - s.x_lo) / max_x.max(2) as f64;
    let up = (s.y_hi() - s.y_lo) / max_y.max(2) as f64;
    nice_step(across.max(up))
}

/// What one frame of XY mode shows.
#[derive(Debug, Clone, PartialEq)]
pub struct XyFrame {
    /// The scale (`None` without points in view).
    pub scale: Option<XyScale>,
    /// Lit pixels, row by row (`width_px` × `height_px`).
    pub lit: Vec<bool>,
    /// Ticks across (value, label) inside the area.
    pub x_ticks: Vec<(f64, String)>,
    /// Ticks up (value, label) inside the area.
    pub y_ticks: Vec<(f64, String)>,
    /// The last point at or before the cursor: its time, x and y.
    pub at_cursor: Option<(i64, f64, f64)>,
    /// Points in view.
    pub points: usize,
}

impl XyFrame {
    /// True when pixel (x, y) is lit.
    pub fn is_lit(&self, x: usize, y: usize) -> bool {
        let Some(s) = self.scale else { return false };
        x < s.width_px && self.lit.get(y * s.width_px + x).copied().unwrap_or(false)
    }
}

/// Most pixels a joining line sets (a longer jump is drawn as its ends).
const MAX_LINE_PX: usize = 4096;

/// The paired points in view: how many, their bounds and the one at the cursor (one pass
/// over the points, the first half of [`xy_frame`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct XyPoints {
    /// The smallest rectangle holding them (`None` without points).
    pub bounds: Option<Bounds>,
    /// How many.
    pub points: usize,
    /// The last at or before the cursor: its time, x and y.
    pub at_cursor: Option<(i64, f64, f64)>,
}

/// The points of `x` against `y` over `start..=end` (see [`XyPoints`]).
pub fn xy_points(
    x: &PlotSeries,
    y: &PlotSeries,
    (start_ns, end_ns): (i64, i64),
    cursor_ns: Option<i64>,
) -> XyPoints {
    let mut bounds: Option<Bounds> = None;
    let mut points = 0usize;
    let mut at_cursor = None;
    for_each_pair(x, y, start_ns, end_ns, |t, vx, vy| {
        points += 1;
        match bounds.as_mut() {
            Some(b) => b.add(vx, vy),
            None => bounds = Some(Bounds::of(vx, vy)),
        }
        if cursor_ns.is_some_and(|c| t <= c) {
            at_cursor = Some((t, vx, vy));
        }
    });
    XyPoints {
        bounds,
        points,
        at_cursor,
    }
}

/// The y ticks an area of `width_px` × `height_px` would show for `p` (cheap: no pixels).
pub fn y_ticks(
    p: &XyPoints,
    (width_px, height_px): (usize, usize),
    pixel_aspect: f64,
    max_ticks: (usize, usize),
) -> Vec<(f64, String)> {
    let Some(b) = p.bounds.filter(|_| width_px > 0 && height_px > 0) else {
        return Vec::new();
    };
    let scale = equal_aspect(b, width_px, height_px, pixel_aspect);
    ticks_within(scale.y_lo, scale.y_hi(), common_step(&scale, max_ticks))
}

/// One frame: `x` against `y` over `start..=end` in `width_px` × `height_px` pixels of
/// aspect `pixel_aspect`, consecutive points joined unless further apart in time than
/// either series' gap threshold; ticks the same step apart on both axes, at most
/// `max_x_ticks` across and `max_y_ticks` up.
pub fn xy_frame(
    x: &PlotSeries,
    y: &PlotSeries,
    range: (i64, i64),
    cursor_ns: Option<i64>,
    size_px: (usize, usize),
    pixel_aspect: f64,
    max_ticks: (usize, usize),
) -> XyFrame {
    let p = xy_points(x, y, range, cursor_ns);
    xy_frame_of(x, y, range, &p, size_px, pixel_aspect, max_ticks)
}

/// [`xy_frame`] given the points' [`xy_points`] (the second pass: the pixels).
#[allow(clippy::too_many_arguments, clippy::many_single_char_names)]
pub fn xy_frame_of(
    x: &PlotSeries,
    y: &PlotSeries,
    (start_ns, end_ns): (i64, i64),
    p: &XyPoints,
    (width_px, height_px): (usize, usize),
    pixel_aspect: f64,
    (max_x_ticks, max_y_ticks): (usize, usize),
) -> XyFrame {
    let (points, at_cursor) = (p.points, p.at_cursor);
    let Some(b) = p.bounds.filter(|_| width_px > 0 && height_px > 0) else {
        return XyFrame {
            scale: None,
            lit: Vec::new(),
            x_ticks: Vec::new(),
            y_ticks: Vec::new(),
            at_cursor,
            points,
        };
    };
    let scale = equal_aspect(b, width_px, height_px, pixel_aspect);
    let mut lit = vec![false; width_px.saturating_mul(height_px)];
    let gap = x.gap_threshold(0).min(y.gap_threshold(0));
    let mut light = |px: i64, py: i64| {
        if let (Ok(x), Ok(y)) = (usize::try_from(px), usize::try_from(py)) {
            if x < width_px && y < height_px {
                if let Some(p) = lit.get_mut(y * width_px + x) {
                    *p = true;
                }
            }
        }
    };
    // Pixel coordinates as integers, clamped far outside the area (where nothing is lit).
    #[allow(clippy::cast_possible_truncation)]
    let int = |v: f64| v.clamp(-1e6, 1e6) as i64;
    let mut prev: Option<(i64, i64, i64)> = None;
    for_each_pair(x, y, start_ns, end_ns, |t, vx, vy| {
        let Some((px, py)) = scale.pixel_f(vx, vy) else {
            return;
        };
        let (px, py) = (int(px), int(py));
        match prev {
            Some((pt, ax, ay)) if t.saturating_sub(pt) <= gap => {
                // The k-th of n steps from (ax, ay) to (px, py), rounded half up, in integers.
                let (dx, dy) = (px - ax, py - ay);
                #[allow(clippy::cast_possible_wrap)]
                let n = dx.abs().max(dy.abs()).min(MAX_LINE_PX as i64);
                // The last step is (px, py) itself, lit below: adjacent pixels need no step.
                for k in 1..n {
                    let along = |a: i64, d: i64| (2 * (a * n + d * k) + n).div_euclid(2 * n);
                    light(along(ax, dx), along(ay, dy));
                }
            }
            _ => {}
        }
        light(px, py);
        prev = Some((t, px, py));
    });
    let step = common_step(&scale, (max_x_ticks, max_y_ticks));
    XyFrame {
        scale: Some(scale),
        lit,
        x_ticks: ticks_within(scale.x_lo, scale.x_hi(), step),
        y_ticks: ticks_within(scale.y_lo, scale.y_hi(), step),
        at_cursor,
        points,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::series::Column;

    fn col(points: &[(i64, f64)]) -> Column {
        Column {
            times: points.iter().map(|p| p.0).collect(),
            values: points.iter().map(|p| p.1).collect(),
        }
    }

    fn pairs(x: &Column, y: &Column, a: i64, b: i64) -> Vec<(i64, f64, f64)> {
        let (x, y) = (PlotSeries::new(x.clone()), PlotSeries::new(y.clone()));
        let mut out = Vec::new();
        for_each_pair(&x, &y, a, b, |t, vx, vy| out.push((t, vx, vy)));
        out
    }

    #[test]
    fn points_pair_by_message_time() {
        // y lacks time 20 and has an extra 25; time 30 comes twice in both (two messages
        // stamped alike pair in order); a NaN drops its point only.
        let x = col(&[
            (10, 1.0),
            (20, 2.0),
            (30, 3.0),
            (30, 3.5),
            (40, f64::NAN),
            (50, 5.0),
        ]);
        let y = col(&[
            (10, -1.0),
            (25, 9.0),
            (30, -3.0),
            (30, -3.5),
            (40, 4.0),
            (50, -5.0),
        ]);
        assert_eq!(
            pairs(&x, &y, i64::MIN, i64::MAX),
            vec![
                (10, 1.0, -1.0),
                (30, 3.0, -3.0),
                (30, 3.5, -3.5),
                (50, 5.0, -5.0)
            ]
        );
        // Only the visible range.
        assert_eq!(
            pairs(&x, &y, 11, 49),
            vec![(30, 3.0, -3.0), (30, 3.5, -3.5)]
        );
        assert!(pairs(&x, &col(&[]), i64::MIN, i64::MAX).is_empty());
        // The same times on both sides (two fields of the same messages) pair one to one.
        let y2 = col(&[
            (10, -1.0),
            (20, f64::NAN),
            (30, -3.0),
            (30, -3.5),
            (40, 4.0),
            (50, -5.0),
        ]);
        assert_eq!(
            pairs(&x, &y2, 15, 50),
            vec![(30, 3.0, -3.0), (30, 3.5, -3.5), (50, 5.0, -5.0)]
        );
    }

    #[test]
    #[allow(clippy::float_cmp)]
    fn round_is_f64_round() {
        for v in [
            0.0,
            -0.0,
            0.5,
            -0.5,
            1.5,
            2.5,
            -2.5,
            0.499_999_999_999_999_94,
            -0.499_999_999_999_999_94,
            1e15 + 0.5,
            -1e15 - 0.5,
            4.6e15,
            1e300,
            -1e300,
            7.25,
            -7.75,
            123.456,
        ] {
            assert_eq!(round(v), v.round(), "{v}");
        }
        assert!(round(f64::NAN).is_nan());
        assert_eq!(round(f64::INFINITY), f64::INFINITY);
        let mut seed = 3u64;
        for _ in 0..100_000 {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            let v = ((seed >> 11) as f64 / (1u64 << 53) as f64 - 0.5) * 2e4;
            assert_eq!(round(v), v.round(), "{v}");
        }
    }

    #[test]
    fn equal_aspect_keeps_one_unit_alike_on_both_axes() {
        // 10 wide, 2 high into 101 × 51 square pixels: x is the tight axis (0.1 per pixel),
        // y gets the same 0.1 per pixel and is centred.
        let b = Bounds {
            x_min: 0.0,
            x_max: 10.0,
            y_min: 4.0,
            y_max: 6.0,
        };
        let s = equal_aspect(b, 101, 51, 1.0);
        assert!((s.per_px_x - 0.1).abs() < 1e-12);
        assert!((s.per_px_y - 0.1).abs() < 1e-12);
        assert!((s.x_lo - 0.0).abs() < 1e-9 && (s.x_hi() - 10.0).abs() < 1e-9);
        assert!((s.y_lo - 2.5).abs() < 1e-9 && (s.y_hi() - 7.5).abs() < 1e-9);
        assert_eq!(s.pixel(0.0, 5.0), Some((0, 25)));
        assert_eq!(s.pixel(10.0, 7.5), Some((100, 0)));
        assert_eq!(s.pixel(10.0, 8.0), None);
        // A tall shape: y is the tight axis; x centred at the same units per pixel.
        let tall = Bounds {
            x_min: -1.0,
            x_max: 1.0,
            y_min: 0.0,
            y_max: 50.0,
        };
        let s = equal_aspect(tall, 101, 51, 1.0);
        assert!((s.per_px_y - 1.0).abs() < 1e-12 && (s.per_px_x - 1.0).abs() < 1e-12);
        assert!((s.x_lo + 50.0).abs() < 1e-9);
        // Pixels twice as high as wide: a unit up is half the pixels of a unit across.
        let s = equal_aspect(b, 101, 51, 2.0);
        assert!((s.per_px_y - 2.0 * s.per_px_x).abs() < 1e-12);
        // A square in data is a square on screen: as many pixels across as up (aspect 1).
        let sq = Bounds {
            x_min: 0.0,
            x_max: 3.0,
            y_min: 0.0,
            y_max: 3.0,
        };
        let s = equal_aspect(sq, 200, 40, 1.0);
        let (l, _) = s.pixel(0.0, 0.0).unwrap();
        let (r, _) = s.pixel(3.0, 0.0).unwrap();
        let (_, top) = s.pixel(0.0, 3.0).unwrap();
        let (_, bottom) = s.pixel(0.0, 0.0).unwrap();
        assert_eq!(r - l, bottom - top);
        // One point: a finite scale around it.
        let one = equal_aspect(Bounds::of(2.0, 3.0), 10, 10, 1.0);
        assert!(one.per_px_x > 0.0 && one.pixel(2.0, 3.0).is_some());
    }

    #[test]
    fn frame_lights_the_path_and_finds_the_cursor_point() {
        // A square path, one point every 10 ns.
        let pts: Vec<(f64, f64)> = vec![(0.0, 0.0), (4.0, 0.0), (4.0, 4.0), (0.0, 4.0)];
        let x = PlotSeries::new(col(&pts
            .iter()
            .enumerate()
            .map(|(i, p)| (i64::try_from(i).unwrap() * 10, p.0))
            .collect::<Vec<_>>()));
        let y = PlotSeries::new(col(&pts
            .iter()
            .enumerate()
            .map(|(i, p)| (i64::try_from(i).unwrap() * 10, p.1))
            .collect::<Vec<_>>()));
        let f = xy_frame(&x, &y, (0, 30), Some(25), (9, 9), 1.0, (5, 5));
        assert_eq!(f.points, 4);
        assert_eq!(f.at_cursor, Some((20, 4.0, 4.0)));
        let s = f.scale.unwrap();
        assert!((s.per_px_x - 0.5).abs() < 1e-12);
        // The bottom edge is joined, the left edge (last point back to the first) is not.
        assert!((0..9).all(|px| f.is_lit(px, 8)));
        assert!((0..9).all(|py| f.is_lit(8, py)));
        assert!(!f.is_lit(0, 4));
        assert!(
            f.x_ticks
                .iter()
                .any(|(v, l)| (*v - 2.0).abs() < 1e-12 && l == "2")
        );
        assert!(f.y_ticks.iter().all(|(v, _)| (0.0..=4.0).contains(v)));
        // Nothing in view.
        let none = xy_frame(&x, &y, (100, 200), None, (9, 9), 1.0, (5, 5));
        assert_eq!((none.points, none.scale), (0, None));
    }
}
