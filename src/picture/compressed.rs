//! `sensor_msgs/CompressedImage`: JPEG and PNG decoded by the `image` crate under a memory
//! limit, then scaled; `compressedDepth` PNGs (image_transport's depth plugin: a 12-byte
//! header, then a 16-bit PNG) get false colours over their range.

use std::io::Cursor;

use image::{DynamicImage, ImageReader, Limits};

use super::colormap::{turbo, unit};
use super::raster::{Fit, Shrinker};
use super::raw::short;
use super::{MAX_PIXELS, Picture, PictureError, bytes, check_size, text};
use crate::msg::MessageRef;

/// Bytes of image_transport's `compressedDepth` header before the PNG.
const DEPTH_HEADER: usize = 12;

/// Decodes the bytes of a `CompressedImage` (any size; the limit is [`MAX_PIXELS`]).
pub(crate) fn image(format: &str, data: &[u8]) -> Result<DynamicImage, PictureError> {
    let failed = |reason: String| PictureError::Compressed {
        format: format.to_string(),
        reason,
    };
    let mut reader = ImageReader::new(Cursor::new(data))
        .with_guessed_format()
        .map_err(|e| failed(e.to_string()))?;
    if reader.format().is_none() {
        return Err(failed("neither JPEG nor PNG".into()));
    }
    let mut limits = Limits::default();
    limits.max_image_width = Some(u32::try_from(MAX_PIXELS).unwrap_or(u32::MAX));
    limits.max_image_height = Some(u32::try_from(MAX_PIXELS).unwrap_or(u32::MAX));
    limits.max_alloc = Some(MAX_PIXELS * 4);
    reader.limits(limits);
    let img = reader
        .decode()
        .map_err(|e| failed(first_line(&e.to_string())))?;
    check_size(u64::from(img.width()), u64::from(img.height()))?;
    Ok(img)
}

fn first_line(s: &str) -> String {
    s.lines().next().unwrap_or_default().to_string()
}

/// Decodes a `CompressedImage` message scaled to `fit`.
pub(crate) fn decode(msg: MessageRef<'_>, fit: Fit) -> Result<Picture, PictureError> {
    let format = text(msg, "format")?;
    let data = bytes(msg, "data")?;
    let depth = format.contains("compressedDepth");
    let payload = if depth {
        data.get(DEPTH_HEADER..).unwrap_or_default()
    } else {
        data
    };
    let img = image(&format, payload)?;
    let (w, h) = (u64::from(img.width()), u64::from(img.height()));
    let mut shrink = Shrinker::new(w, h, fit);
    let mut title = format!("{w}×{h} {}", crate::printable::escape_line(&format));
    match &img {
        DynamicImage::ImageRgb8(rgb) => {
            for (y, row) in rgb.rows().enumerate() {
                shrink.row(y as u64);
                for (x, p) in row.enumerate() {
                    shrink.add(x, p.0);
                }
            }
        }
        DynamicImage::ImageLuma8(grey) => {
            for (y, row) in grey.rows().enumerate() {
                shrink.row(y as u64);
                for (x, p) in row.enumerate() {
                    shrink.add(x, [p.0[0]; 3]);
                }
            }
        }
        DynamicImage::ImageLuma16(grey) => {
            let valid = || grey.pixels().map(|p| p.0[0]).filter(|&v| v != 0);
            let lo = f64::from(valid().min().unwrap_or(0));
            let hi = f64::from(valid().max().unwrap_or(0));
            title = format!("{title} · range {} – {}", short(lo), short(hi));
            for (y, row) in grey.rows().enumerate() {
                shrink.row(y as u64);
                for (x, p) in row.enumerate() {
                    let v = p.0[0];
                    let c = if v == 0 {
                        [0; 3]
                    } else if depth {
                        turbo(unit(f64::from(v), lo, hi))
                    } else {
                        let g = u8::try_from(v >> 8).unwrap_or(u8::MAX);
                        [g; 3]
                    };
                    shrink.add(x, c);
                }
            }
        }
        other => {
            let rgb = other.to_rgb8();
            for (y, row) in rgb.rows().enumerate() {
                shrink.row(y as u64);
                for (x, p) in row.enumerate() {
                    shrink.add(x, p.0);
                }
            }
        }
    }
    Ok(Picture {
        raster: shrink.finish(),
        title,
        summary: Vec::new(),
    })
}
