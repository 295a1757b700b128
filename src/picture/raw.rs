//! `sensor_msgs/Image`: the raw encodings, `step` and `is_bigendian` honoured, scaled while
//! decoding. mono16 is stretched over its range, 16UC1 and 32FC1 depth get false colours
//! over theirs (zeros and non-finite values are "no reading", drawn black), the Bayer
//! patterns are demosaiced by 2×2 blocks (each pixel takes its block's R, mean G and B).

use super::colormap::{turbo, unit};
use super::raster::{Fit, Shrinker};
use super::{Picture, PictureError, bytes, check_size, text, unsigned};
use crate::msg::MessageRef;

/// How the bytes of one pixel become a colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Layout {
    /// One byte of grey (`mono8`, `8UC1`).
    Grey8,
    /// Two bytes of grey (`mono16`): stretched over the image's range.
    Grey16,
    /// Two bytes of depth (`16UC1`): false colour over the range.
    Depth16,
    /// A float of depth (`32FC1`): false colour over the range.
    Depth32,
    /// Three or four bytes in this order of (R, G, B) positions, and the pixel size.
    Color {
        r: usize,
        g: usize,
        b: usize,
        size: usize,
    },
    /// A Bayer mosaic: the positions of R and B in each 2×2 block (0 = top left, 1 = top
    /// right, 2 = bottom left, 3 = bottom right).
    Bayer { r: usize, b: usize },
}

impl Layout {
    /// The layout of `encoding` (`None`: unknown).
    pub(crate) fn of(encoding: &str) -> Option<Layout> {
        Some(match encoding {
            "mono8" | "8UC1" | "8SC1" => Layout::Grey8,
            "mono16" => Layout::Grey16,
            "16UC1" => Layout::Depth16,
            "32FC1" => Layout::Depth32,
            "rgb8" => Layout::Color {
                r: 0,
                g: 1,
                b: 2,
                size: 3,
            },
            // OpenCV's 3-channel images are BGR (as cv_bridge shows them).
            "bgr8" | "8UC3" => Layout::Color {
                r: 2,
                g: 1,
                b: 0,
                size: 3,
            },
            "rgba8" => Layout::Color {
                r: 0,
                g: 1,
                b: 2,
                size: 4,
            },
            "bgra8" | "8UC4" => Layout::Color {
                r: 2,
                g: 1,
                b: 0,
                size: 4,
            },
            "bayer_rggb8" => Layout::Bayer { r: 0, b: 3 },
            "bayer_bggr8" => Layout::Bayer { r: 3, b: 0 },
            "bayer_gbrg8" => Layout::Bayer { r: 2, b: 1 },
            "bayer_grbg8" => Layout::Bayer { r: 1, b: 2 },
            _ => return None,
        })
    }

    /// Bytes per pixel.
    pub(crate) fn size(self) -> usize {
        match self {
            Layout::Grey8 | Layout::Bayer { .. } => 1,
            Layout::Grey16 | Layout::Depth16 => 2,
            Layout::Depth32 => 4,
            Layout::Color { size, .. } => size,
        }
    }
}

/// The checked geometry of an image message: its rows, each `row_bytes` long.
pub(crate) struct Rows<'d> {
    pub(crate) width: u64,
    pub(crate) height: u64,
    pub(crate) encoding: String,
    pub(crate) layout: Layout,
    pub(crate) big_endian: bool,
    data: &'d [u8],
    step: usize,
    row_bytes: usize,
}

impl<'d> Rows<'d> {
    /// Reads and checks the fields of an `Image` message.
    pub(crate) fn of(msg: MessageRef<'d>) -> Result<Rows<'d>, PictureError> {
        let width = unsigned(msg, "width")?;
        let height = unsigned(msg, "height")?;
        let encoding = text(msg, "encoding")?;
        let big_endian = unsigned(msg, "is_bigendian")? != 0;
        let step = unsigned(msg, "step")?;
        let data = bytes(msg, "data")?;
        let layout =
            Layout::of(&encoding).ok_or_else(|| PictureError::Encoding(encoding.clone()))?;
        check_size(width, height)?;
        let size = layout.size() as u64;
        let row_bytes = width * size; // bounded by MAX_PIXELS × 4
        if step < row_bytes {
            return Err(PictureError::Step {
                step,
                width,
                bytes: size,
            });
        }
        let needed = step.saturating_mul(height);
        if (data.len() as u64) < needed {
            return Err(PictureError::Short {
                what: format!("{height} rows of step {step}"),
                needed,
                actual: data.len() as u64,
            });
        }
        Ok(Rows {
            width,
            height,
            encoding,
            layout,
            big_endian,
            data,
            step: usize::try_from(step).unwrap_or(usize::MAX),
            row_bytes: usize::try_from(row_bytes).unwrap_or(usize::MAX),
        })
    }

    /// Row `y` (its pixels only, without the padding to `step`).
    pub(crate) fn row(&self, y: u64) -> &'d [u8] {
        let at = usize::try_from(y)
            .unwrap_or(usize::MAX)
            .saturating_mul(self.step);
        self.data
            .get(at..at.saturating_add(self.row_bytes))
            .unwrap_or_default()
    }

    /// Every row.
    pub(crate) fn rows(&self) -> impl Iterator<Item = (u64, &'d [u8])> + '_ {
        (0..self.height).map(|y| (y, self.row(y)))
    }

    /// The 16-bit value in `b`.
    pub(crate) fn u16(&self, b: &[u8]) -> u16 {
        let v = [
            b.first().copied().unwrap_or(0),
            b.get(1).copied().unwrap_or(0),
        ];
        if self.big_endian {
            u16::from_be_bytes(v)
        } else {
            u16::from_le_bytes(v)
        }
    }

    /// The 32-bit float in `b`.
    pub(crate) fn f32(&self, b: &[u8]) -> f32 {
        let v: [u8; 4] = b.get(..4).and_then(|s| s.try_into().ok()).unwrap_or([0; 4]);
        if self.big_endian {
            f32::from_be_bytes(v)
        } else {
            f32::from_le_bytes(v)
        }
    }

    /// The valid (finite, non-zero) range of a one-channel 16-bit or float image.
    pub(crate) fn range(&self) -> Option<(f64, f64)> {
        let mut lo = f64::INFINITY;
        let mut hi = f64::NEG_INFINITY;
        let size = self.layout.size();
        for (_, row) in self.rows() {
            for px in row.chunks_exact(size) {
                let v = self.scalar(px);
                if v.is_finite() && v != 0.0 {
                    lo = lo.min(v);
                    hi = hi.max(v);
                }
            }
        }
        (lo <= hi).then_some((lo, hi))
    }

    /// A one-channel pixel as a number.
    fn scalar(&self, px: &[u8]) -> f64 {
        match self.layout {
            Layout::Depth32 => f64::from(self.f32(px)),
            Layout::Grey16 | Layout::Depth16 => f64::from(self.u16(px)),
            _ => f64::from(px.first().copied().unwrap_or(0)),
        }
    }
}

/// Decodes an `Image` message scaled to `fit`.
pub(crate) fn decode(msg: MessageRef<'_>, fit: Fit) -> Result<Picture, PictureError> {
    let rows = Rows::of(msg)?;
    let mut shrink = Shrinker::new(rows.width, rows.height, fit);
    let mut title = format!(
        "{}×{} {}",
        rows.width,
        rows.height,
        crate::printable::escape_line(&rows.encoding)
    );
    match rows.layout {
        Layout::Grey8 => {
            for (y, row) in rows.rows() {
                shrink.row(y);
                for (x, &v) in row.iter().enumerate() {
                    shrink.add(x, [v, v, v]);
                }
            }
        }
        Layout::Color { r, g, b, size } => {
            for (y, row) in rows.rows() {
                shrink.row(y);
                for (x, px) in row.chunks_exact(size).enumerate() {
                    let c = |i: usize| px.get(i).copied().unwrap_or(0);
                    shrink.add(x, [c(r), c(g), c(b)]);
                }
            }
        }
        Layout::Grey16 | Layout::Depth16 | Layout::Depth32 => {
            let range = rows.range();
            let (lo, hi) = range.unwrap_or((0.0, 0.0));
            title = match range {
                Some(_) => format!("{title} · range {} – {}", short(lo), short(hi)),
                None => format!("{title} · no valid values"),
            };
            let grey = rows.layout == Layout::Grey16;
            let size = rows.layout.size();
            for (y, row) in rows.rows() {
                shrink.row(y);
                for (x, px) in row.chunks_exact(size).enumerate() {
                    let v = rows.scalar(px);
                    let color = if grey {
                        let g = grey_level(unit(v, lo, hi));
                        [g, g, g]
                    } else if v.is_finite() && v != 0.0 {
                        turbo(unit(v, lo, hi))
                    } else {
                        [0; 3]
                    };
                    shrink.add(x, color);
                }
            }
        }
        Layout::Bayer { r, b } => demosaic(&rows, r, b, &mut |y, x, c| {
            shrink.row(y);
            shrink.add(x, c);
        }),
    }
    Ok(Picture {
        raster: shrink.finish(),
        title,
        summary: Vec::new(),
    })
}

#[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
fn grey_level(t: f64) -> u8 {
    (t.clamp(0.0, 1.0) * 255.0).round() as u8
}

/// A number for a title: integers as they are, others with 3 decimals.
pub(crate) fn short(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{v:.0}")
    } else {
        format!("{v:.3}")
    }
}

/// Demosaics a Bayer image by 2×2 blocks: `put(y, x, rgb)` for every pixel. A last odd row
/// or column takes the colours of the block before it; a mosaic one pixel wide or high is
/// shown grey.
pub(crate) fn demosaic(
    rows: &Rows<'_>,
    r: usize,
    b: usize,
    put: &mut dyn FnMut(u64, usize, [u8; 3]),
) {
    let w = usize::try_from(rows.width).unwrap_or(0);
    if w < 2 || rows.height < 2 {
        for (y, row) in rows.rows() {
            for (x, &v) in row.iter().enumerate() {
                put(y, x, [v, v, v]);
            }
        }
        return;
    }
    let mut colors = Vec::with_capacity(w / 2);
    for by in 0..rows.height / 2 {
        let (top, bottom) = (rows.row(by * 2), rows.row(by * 2 + 1));
        colors.clear();
        for (t, u) in top.chunks_exact(2).zip(bottom.chunks_exact(2)) {
            let cell = [t.first(), t.get(1), u.first(), u.get(1)]
                .map(|v| u16::from(v.copied().unwrap_or(0)));
            let pick = |i: usize| cell.get(i).copied().unwrap_or(0);
            let greens: u16 = (0..4).filter(|&i| i != r && i != b).map(pick).sum();
            let byte = |v: u16| u8::try_from(v).unwrap_or(u8::MAX);
            colors.push([byte(pick(r)), byte(greens.div_ceil(2)), byte(pick(b))]);
        }
        let last = colors.last().copied().unwrap_or([0; 3]);
        let rows_here = if by + 1 == rows.height / 2 {
            rows.height - by * 2
        } else {
            2
        };
        for yy in by * 2..by * 2 + rows_here {
            for xx in 0..w {
                put(yy, xx, colors.get(xx / 2).copied().unwrap_or(last));
            }
        }
    }
}
