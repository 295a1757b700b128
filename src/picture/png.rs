//! Frames as files, for `export --format images`: an `Image` becomes a PNG that keeps its
//! data (mono8/8UC1 → 8-bit grey, mono16/16UC1 → 16-bit grey, rgb8/bgr8/8UC3 → RGB,
//! rgba8/bgra8/8UC4 → RGBA, Bayer → demosaiced RGB, 32FC1 → false-colour RGB); a
//! `CompressedImage`'s bytes are kept as they are, with the extension of their format.

use std::borrow::Cow;
use std::io::Cursor;

use image::{ExtendedColorType, ImageEncoder};

use super::colormap::{turbo, unit};
use super::raw::{Layout, Rows, demosaic};
use super::{PictureError, bytes, text};
use crate::msg::{MessageRef, ros1_name};

/// A frame ready to write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame<'d> {
    /// The file's bytes.
    pub bytes: Cow<'d, [u8]>,
    /// Its extension (`png`, `jpg`).
    pub extension: &'static str,
}

/// The file for a message of `datatype` (`Image` or `CompressedImage`, ROS1 or ROS 2
/// spelling).
pub fn frame<'d>(datatype: &str, msg: MessageRef<'d>) -> Result<Frame<'d>, PictureError> {
    match &*ros1_name(datatype) {
        "sensor_msgs/Image" => Ok(Frame {
            bytes: Cow::Owned(encode(msg)?),
            extension: "png",
        }),
        "sensor_msgs/CompressedImage" => {
            let format = text(msg, "format")?;
            let data = bytes(msg, "data")?;
            let extension = match image::guess_format(data) {
                Ok(image::ImageFormat::Png) => "png",
                Ok(image::ImageFormat::Jpeg) => "jpg",
                _ if format.contains("compressedDepth") => "depth",
                _ => "bin",
            };
            Ok(Frame {
                bytes: Cow::Borrowed(data),
                extension,
            })
        }
        other => Err(PictureError::NotAPicture(other.to_string())),
    }
}

/// An `Image` message as PNG bytes at its full size.
pub fn encode(msg: MessageRef<'_>) -> Result<Vec<u8>, PictureError> {
    let rows = Rows::of(msg)?;
    let n = usize::try_from(rows.width * rows.height).unwrap_or(0);
    let (pixels, color) = match rows.layout {
        Layout::Grey8 => {
            let mut out = Vec::with_capacity(n);
            for (_, row) in rows.rows() {
                out.extend_from_slice(row);
            }
            (out, ExtendedColorType::L8)
        }
        Layout::Grey16 | Layout::Depth16 => {
            // PNG stores 16-bit samples big-endian; the encoder takes native order.
            let mut out = Vec::with_capacity(n * 2);
            for (_, row) in rows.rows() {
                for px in row.chunks_exact(2) {
                    out.extend_from_slice(&rows.u16(px).to_ne_bytes());
                }
            }
            (out, ExtendedColorType::L16)
        }
        Layout::Depth32 => {
            let (lo, hi) = rows.range().unwrap_or((0.0, 0.0));
            let mut out = Vec::with_capacity(n * 3);
            for (_, row) in rows.rows() {
                for px in row.chunks_exact(4) {
                    let v = f64::from(rows.f32(px));
                    let c = if v.is_finite() && v != 0.0 {
                        turbo(unit(v, lo, hi))
                    } else {
                        [0; 3]
                    };
                    out.extend_from_slice(&c);
                }
            }
            (out, ExtendedColorType::Rgb8)
        }
        Layout::Color { r, g, b, size } => {
            let mut out = Vec::with_capacity(n * size);
            for (_, row) in rows.rows() {
                for px in row.chunks_exact(size) {
                    let c = |i: usize| px.get(i).copied().unwrap_or(0);
                    out.extend_from_slice(&[c(r), c(g), c(b)]);
                    if size == 4 {
                        out.push(c(3));
                    }
                }
            }
            let color = if size == 4 {
                ExtendedColorType::Rgba8
            } else {
                ExtendedColorType::Rgb8
            };
            (out, color)
        }
        Layout::Bayer { r, b } => {
            let mut out = vec![0u8; n * 3];
            let w = usize::try_from(rows.width).unwrap_or(0);
            demosaic(&rows, r, b, &mut |y, x, c| {
                let i = (usize::try_from(y).unwrap_or(0) * w + x) * 3;
                if let Some(p) = out.get_mut(i..i + 3) {
                    p.copy_from_slice(&c);
                }
            });
            (out, ExtendedColorType::Rgb8)
        }
    };
    let mut png = Vec::new();
    image::codecs::png::PngEncoder::new(Cursor::new(&mut png))
        .write_image(
            &pixels,
            u32::try_from(rows.width).unwrap_or(0),
            u32::try_from(rows.height).unwrap_or(0),
            color,
        )
        .map_err(|e| PictureError::Compressed {
            format: "png".into(),
            reason: e.to_string(),
        })?;
    Ok(png)
}
