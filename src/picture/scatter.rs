//! Laser scans and point clouds seen from above: x forward is up, y left is left, both axes
//! at the same scale. Cloud points are coloured by z (false colour over the z range), scan
//! points are green with the sensor in red. A cloud's origin, with its x and y axes, is drawn
//! in white when it is near the points. Clouds also get a summary: points, fields, x/y/z
//! bounds, how many points have a NaN coordinate, and the axes' length.

use super::colormap::{turbo, unit};
use super::raster::{Fit, Raster};
use super::raw::short;
use super::{MAX_POINTS, Picture, PictureError, bytes, field, number, text, unsigned};
use crate::msg::{MessageRef, ValueRef};

/// The size of a scatter when no fit is given.
const DEFAULT_SIDE: u32 = 512;
/// Scan points.
const SCAN: [u8; 3] = [80, 255, 80];
/// The sensor.
/// (Brighter than a scan point: a braille cell holding both takes the brightest colour.)
const ORIGIN: [u8; 3] = [255, 110, 110];
/// A cloud's origin and axes.
const AXES: [u8; 3] = [255, 255, 255];

/// Bounds and counts of a set of points.
#[derive(Debug, Clone, Copy)]
struct Bounds {
    lo: [f64; 3],
    hi: [f64; 3],
    points: u64,
    nan: u64,
}

impl Bounds {
    fn new() -> Bounds {
        Bounds {
            lo: [f64::INFINITY; 3],
            hi: [f64::NEG_INFINITY; 3],
            points: 0,
            nan: 0,
        }
    }

    fn add(&mut self, p: [f64; 3]) {
        self.points += 1;
        if p.iter().any(|v| !v.is_finite()) {
            self.nan += 1;
            return;
        }
        for ((lo, hi), v) in self.lo.iter_mut().zip(self.hi.iter_mut()).zip(p) {
            *lo = lo.min(v);
            *hi = hi.max(v);
        }
    }

    fn valid(&self) -> bool {
        self.points > self.nan
    }

    fn axis(&self, i: usize, name: &str) -> String {
        match (self.lo.get(i), self.hi.get(i)) {
            (Some(lo), Some(hi)) if self.valid() => {
                format!("{name} {} – {}", short3(*lo), short3(*hi))
            }
            _ => format!("{name} –"),
        }
    }
}

fn short3(v: f64) -> String {
    format!("{v:.3}")
}

/// Calls its argument with every point (x, y, z).
type Points<'a> = dyn Fn(&mut dyn FnMut([f64; 3])) + 'a;

/// Where points land in the raster.
struct Frame {
    raster: Raster,
    xmax: f64,
    ymax: f64,
    scale: f64,
    left: f64,
    top: f64,
}

impl Frame {
    /// A frame over `b`'s x/y bounds (and the sensor at the origin when `origin`), filling
    /// `fit` with one scale for both axes.
    fn new(b: &Bounds, fit: Fit, origin: bool) -> Frame {
        let (w, h) = if fit == Fit::FULL {
            (DEFAULT_SIDE, DEFAULT_SIDE)
        } else {
            (fit.width.min(4096), fit.height.min(4096))
        };
        let [mut xlo, mut ylo, _] = b.lo;
        let [mut xhi, mut yhi, _] = b.hi;
        if !b.valid() {
            (xlo, xhi, ylo, yhi) = (-1.0, 1.0, -1.0, 1.0);
        }
        if origin {
            (xlo, xhi, ylo, yhi) = (xlo.min(0.0), xhi.max(0.0), ylo.min(0.0), yhi.max(0.0));
        }
        // Rows follow x (up), columns follow y (left).
        let (span_rows, span_cols) = ((xhi - xlo).max(1e-9), (yhi - ylo).max(1e-9));
        let scale = (f64::from(h.saturating_sub(1).max(1)) / span_rows)
            .min(f64::from(w.saturating_sub(1).max(1)) / span_cols);
        let left = (f64::from(w) - span_cols * scale) / 2.0;
        let top = (f64::from(h) - span_rows * scale) / 2.0;
        Frame {
            raster: Raster::filled(w, h, [0; 3]),
            xmax: xhi,
            ymax: yhi,
            scale,
            left,
            top,
        }
    }

    /// The origin as a small white cross, and the x (up) and y (left) axes, `len` long, in
    /// white (false colour never is).
    fn axes(&mut self, len: f64) {
        let px = 1.0 / self.scale.max(1e-12);
        let steps = (len * self.scale).ceil().clamp(1.0, 8192.0);
        let mut i = 0.0;
        while i <= steps {
            let t = len * i / steps;
            self.plot(t, 0.0, AXES);
            self.plot(0.0, t, AXES);
            i += 1.0;
        }
        for d in [-2.0, -1.0, 1.0, 2.0] {
            self.plot(d * px, 0.0, AXES);
            self.plot(0.0, d * px, AXES);
        }
    }

    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    fn plot(&mut self, x: f64, y: f64, color: [u8; 3]) {
        if !x.is_finite() || !y.is_finite() {
            return;
        }
        let col = (self.left + (self.ymax - y) * self.scale).floor();
        let row = (self.top + (self.xmax - x) * self.scale).floor();
        if col >= 0.0 && row >= 0.0 && col < f64::from(u32::MAX) && row < f64::from(u32::MAX) {
            self.raster.set(col as u32, row as u32, color);
        }
    }
}

/// A `LaserScan` from above.
pub(crate) fn laser(msg: MessageRef<'_>, fit: Fit) -> Result<Picture, PictureError> {
    let angle_min = number(msg, "angle_min")?;
    let increment = number(msg, "angle_increment")?;
    let range_min = number(msg, "range_min")?;
    let range_max = number(msg, "range_max")?;
    let ranges = field(msg, "ranges")?;
    let ValueRef::PrimArray(ranges) = ranges else {
        return Err(PictureError::Field("ranges"));
    };
    let beams = || {
        ranges.refs().enumerate().filter_map(move |(i, r)| {
            let r = crate::msg::path::to_f64(&r)?;
            let a = angle_min + increment * i as f64;
            (r.is_finite() && r >= range_min && r <= range_max).then(|| (r * a.cos(), r * a.sin()))
        })
    };
    let mut b = Bounds::new();
    let mut hits = 0u64;
    for (x, y) in beams() {
        b.add([x, y, 0.0]);
        hits += 1;
    }
    let mut frame = Frame::new(&b, fit, true);
    for (x, y) in beams() {
        frame.plot(x, y, SCAN);
    }
    frame.plot(0.0, 0.0, ORIGIN);
    Ok(Picture {
        raster: frame.raster,
        title: format!(
            "{} beams, {hits} in range {} – {} m",
            ranges.len(),
            short(range_min),
            short(range_max)
        ),
        summary: vec![format!(
            "angles {:.1}° – {:.1}°",
            angle_min.to_degrees(),
            (angle_min + increment * ranges.len().saturating_sub(1) as f64).to_degrees()
        )],
    })
}

/// One field of a `PointCloud2` point.
#[derive(Debug, Clone, Copy)]
struct PointField {
    offset: usize,
    datatype: u8,
}

impl PointField {
    fn size(self) -> usize {
        match self.datatype {
            1 | 2 => 1,
            3 | 4 => 2,
            5..=7 => 4,
            8 => 8,
            _ => 0,
        }
    }

    fn read(self, point: &[u8], big: bool) -> f64 {
        let Some(b) = point.get(self.offset..self.offset + self.size()) else {
            return f64::NAN;
        };
        let mut a = [0u8; 8];
        if let Some(dst) = a.get_mut(..b.len()) {
            dst.copy_from_slice(b);
            if big {
                dst.reverse();
            }
        }
        let [b0, b1, b2, b3, ..] = a;
        let (w2, w4) = ([b0, b1], [b0, b1, b2, b3]);
        match self.datatype {
            1 => f64::from(i8::from_le_bytes([b0])),
            2 => f64::from(b0),
            3 => f64::from(i16::from_le_bytes(w2)),
            4 => f64::from(u16::from_le_bytes(w2)),
            5 => f64::from(i32::from_le_bytes(w4)),
            6 => f64::from(u32::from_le_bytes(w4)),
            7 => f64::from(f32::from_le_bytes(w4)),
            8 => f64::from_le_bytes(a),
            _ => f64::NAN,
        }
    }
}

/// A `PointCloud2` from above, coloured by z, with its summary.
pub(crate) fn cloud2(msg: MessageRef<'_>, fit: Fit) -> Result<Picture, PictureError> {
    let width = unsigned(msg, "width")?;
    let height = unsigned(msg, "height")?;
    let point_step = unsigned(msg, "point_step")?;
    let row_step = unsigned(msg, "row_step")?;
    let big = unsigned(msg, "is_bigendian").unwrap_or(0) != 0;
    let data = bytes(msg, "data")?;
    let ValueRef::Array(fields) = field(msg, "fields")? else {
        return Err(PictureError::Field("fields"));
    };
    let mut names = Vec::new();
    let mut xyz: [Option<PointField>; 3] = [None; 3];
    for f in fields.iter() {
        let ValueRef::Message(f) = f else { continue };
        let name = text(f, "name")?;
        let pf = PointField {
            offset: usize::try_from(unsigned(f, "offset")?).unwrap_or(usize::MAX),
            datatype: u8::try_from(unsigned(f, "datatype")?).unwrap_or(0),
        };
        if pf.size() == 0 || (pf.offset as u64).saturating_add(pf.size() as u64) > point_step {
            return Err(PictureError::Cloud(format!(
                "field {} does not fit a point of {point_step} bytes",
                crate::printable::escape_line(&name)
            )));
        }
        if let Some(slot) = ["x", "y", "z"]
            .iter()
            .position(|n| *n == name)
            .and_then(|i| xyz.get_mut(i))
        {
            *slot = Some(pf);
        }
        names.push(crate::printable::escape_line(&name).into_owned());
    }
    let [Some(fx), Some(fy), fz] = xyz else {
        return Err(PictureError::Cloud("no x and y fields".into()));
    };
    if point_step.saturating_mul(width) > row_step && height > 1 {
        return Err(PictureError::Cloud(format!(
            "row_step {row_step} is less than {width} points of {point_step} bytes"
        )));
    }
    let declared = width.saturating_mul(height);
    // The points whose bytes are there: the work is bounded by the data, not by the sizes
    // the message claims (0 × 4 294 967 295 points in 9 KB is 0 points, found at once).
    let present = Present::new(data.len(), width, height, point_step, row_step);
    let points = present.points();
    if points > MAX_POINTS {
        return Err(PictureError::Cloud(format!(
            "{points} points is more than the {MAX_POINTS} bagscope draws"
        )));
    }
    let (ps, rs) = (
        usize::try_from(point_step).unwrap_or(0),
        usize::try_from(row_step).unwrap_or(0),
    );
    let each = |f: &mut dyn FnMut([f64; 3])| {
        for (r, n) in present.rows() {
            let r = usize::try_from(r).unwrap_or(usize::MAX);
            let row = data.get(r.saturating_mul(rs)..).unwrap_or_default();
            for c in 0..usize::try_from(n).unwrap_or(0) {
                let at = c.saturating_mul(ps);
                let p = row.get(at..at.saturating_add(ps)).unwrap_or_default();
                let z = fz.map_or(0.0, |fz| fz.read(p, big));
                f([fx.read(p, big), fy.read(p, big), z]);
            }
        }
    };
    let title = if points == declared {
        format!("{points} points ({width}×{height})")
    } else {
        format!("{points} of {declared} points ({width}×{height})")
    };
    let mut picture = draw_cloud(&each, fit, &title, &names);
    // What the sizes say and the data hold disagree: say so.
    let (described, padded) = if declared == 0 {
        (0, 0)
    } else {
        let d = row_step
            .saturating_mul(height - 1)
            .saturating_add(point_step.saturating_mul(width));
        (d, d.max(row_step.saturating_mul(height)))
    };
    let len = data.len() as u64;
    if points < declared {
        picture.summary.push(format!(
            "{width}×{height} points of {point_step} bytes need {described} bytes of data; \
             it holds {len}: {points} drawn"
        ));
    } else if len > padded {
        picture.summary.push(format!(
            "data holds {len} bytes; {width}×{height} points of {point_step} bytes use {described}"
        ));
    }
    Ok(picture)
}

/// The points of a `width` × `height` cloud (rows `row_step` apart, points `point_step`
/// apart) whose bytes the first `len` bytes of data hold: full rows, then part of the next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Present {
    full_rows: u64,
    width: u64,
    /// Points of the row after the full ones.
    partial: u64,
}

impl Present {
    /// Found in constant time, whatever the sizes say (the caller has checked that
    /// `row_step` holds a row when `height` > 1).
    fn new(len: usize, width: u64, height: u64, point_step: u64, row_step: u64) -> Present {
        let none = Present {
            full_rows: 0,
            width,
            partial: 0,
        };
        let len = len as u64;
        if width == 0 || height == 0 || point_step == 0 {
            return none;
        }
        let row = width.saturating_mul(point_step);
        let full_rows = if len < row {
            0
        } else if height == 1 || row_step == 0 {
            1
        } else {
            height.min((len - row) / row_step + 1)
        };
        let next = full_rows.saturating_mul(row_step);
        let partial = if full_rows < height && next < len && !(full_rows > 0 && row_step == 0) {
            ((len - next) / point_step).min(width)
        } else {
            0
        };
        Present {
            full_rows,
            width,
            partial,
        }
    }

    fn points(self) -> u64 {
        self.full_rows
            .saturating_mul(self.width)
            .saturating_add(self.partial)
    }

    /// The rows and how many points each holds.
    fn rows(self) -> impl Iterator<Item = (u64, u64)> {
        (0..self.full_rows)
            .map(move |r| (r, self.width))
            .chain((self.partial > 0).then_some((self.full_rows, self.partial)))
    }
}

/// An old `PointCloud` from above.
pub(crate) fn cloud1(msg: MessageRef<'_>, fit: Fit) -> Result<Picture, PictureError> {
    let ValueRef::Array(points) = field(msg, "points")? else {
        return Err(PictureError::Field("points"));
    };
    let mut names = vec!["x".to_string(), "y".to_string(), "z".to_string()];
    if let Ok(ValueRef::Array(channels)) = field(msg, "channels") {
        for c in channels.iter() {
            if let ValueRef::Message(c) = c {
                if let Ok(n) = text(c, "name") {
                    names.push(crate::printable::escape_line(&n).into_owned());
                }
            }
        }
    }
    let each = |f: &mut dyn FnMut([f64; 3])| {
        for p in points.iter() {
            if let ValueRef::Message(p) = p {
                let v = |n| number(p, n).unwrap_or(f64::NAN);
                f([v("x"), v("y"), v("z")]);
            }
        }
    };
    Ok(draw_cloud(
        &each,
        fit,
        &format!("{} points", points.len()),
        &names,
    ))
}

/// Draws the points `each` yields (twice: bounds, then pixels), the origin and the axes when
/// the origin is near the cloud, and writes the summary.
fn draw_cloud(each: &Points<'_>, fit: Fit, title: &str, names: &[String]) -> Picture {
    let mut b = Bounds::new();
    each(&mut |p| b.add(p));
    let near = origin_near(&b);
    let mut frame = Frame::new(&b, fit, near);
    let (zlo, zhi) = (b.lo[2], b.hi[2]);
    each(&mut |[x, y, z]| {
        if z.is_finite() {
            frame.plot(x, y, turbo(unit(z, zlo, zhi)));
        }
    });
    let origin = if near {
        let span = (b.hi[0] - b.lo[0]).max(b.hi[1] - b.lo[1]).max(0.0);
        let len = axis_length(span);
        frame.axes(len);
        format!(
            "white: the origin, its x axis (up) and y axis (left), {} m each",
            // 1, 2 or 5 times a power of ten: exact once rounded (`0.2`, not `0.200`).
            (len * 1e9).round() / 1e9
        )
    } else if b.valid() {
        "the origin is far from the points: not drawn".to_string()
    } else {
        "no point to draw".to_string()
    };
    Picture {
        raster: frame.raster,
        title: if b.valid() {
            format!(
                "{title} · z {} – {}",
                short3(zlo.min(zhi)),
                short3(zhi.max(zlo))
            )
        } else {
            // No point with finite coordinates: no range to give.
            format!("{title} · z –")
        },
        summary: vec![
            format!("{} points, fields {}", b.points, names.join(" ")),
            format!("{}  {}  {}", b.axis(0, "x"), b.axis(1, "y"), b.axis(2, "z")),
            format!("{} with NaN coordinates", b.nan),
            origin,
        ],
    }
}

/// Whether the origin is within one cloud size of the points' x/y bounds (so that drawing it
/// does not shrink the cloud to a speck).
fn origin_near(b: &Bounds) -> bool {
    if !b.valid() {
        return false;
    }
    let span = (b.hi[0] - b.lo[0]).max(b.hi[1] - b.lo[1]).max(1e-9);
    (0..2).all(|i| {
        let (lo, hi) = (b.lo.get(i).copied(), b.hi.get(i).copied());
        lo.zip(hi)
            .is_some_and(|(lo, hi)| lo - span <= 0.0 && 0.0 <= hi + span)
    })
}

/// The length of the drawn axes: the largest of 1, 2 or 5 times a power of ten that is at
/// most a quarter of `span` (1 m for an empty span).
fn axis_length(span: f64) -> f64 {
    let quarter = span / 4.0;
    if !(quarter.is_finite() && quarter > 0.0) {
        return 1.0;
    }
    let decade = 10f64.powf(quarter.log10().floor());
    [5.0, 2.0, 1.0]
        .into_iter()
        .map(|m| m * decade)
        .find(|l| *l <= quarter)
        .unwrap_or(decade)
}
