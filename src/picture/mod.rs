//! MESSAGES → PICTURES. Pure functions from a decoded message to an RGB raster (camera images,
//! compressed images, occupancy grids, laser scans, point clouds), downscaled while decoding to
//! fit a target size, and a one-line reason when the message cannot be shown. No UI here: the
//! explorer draws the raster as half-blocks (`tui/halfblock.rs`) or through the terminal's
//! graphics protocol (`tui/term/graphics.rs`), and `export --format images` writes it as PNG
//! ([`png`]).
//!
//! Every size comes from the message and is untrusted: a picture larger than [`MAX_PIXELS`]
//! source pixels is refused before anything is allocated, and every row is read with checked
//! slices, so a bad message gives a [`PictureError`], never a panic.

mod colormap;
mod compressed;
mod grid;
mod raster;
mod raw;
mod scatter;

pub mod png;

use crate::msg::{MessageRef, ValueRef, ros1_name};

pub use raster::{Fit, Raster};

/// The most source pixels a picture may have (8192 × 8192 = 67 Mpx; an 8K frame has 33 Mpx):
/// larger ones are refused before anything is allocated.
pub const MAX_PIXELS: u64 = 8192 * 8192;

/// The most points a cloud or scan may have to be drawn.
pub const MAX_POINTS: u64 = 16 * 1024 * 1024;

/// A picture ready to draw: the raster and what to show above it.
#[derive(Debug, Clone, PartialEq)]
pub struct Picture {
    /// The pixels (already scaled to the requested fit).
    pub raster: Raster,
    /// One line: size, encoding, range, origin, resolution…
    pub title: String,
    /// More lines (a point cloud's fields and bounds).
    pub summary: Vec<String>,
}

/// Why a message cannot be shown as a picture (one line each).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PictureError {
    /// Not a type bagscope draws.
    #[error("{0} is not a picture type")]
    NotAPicture(String),
    /// A field is missing or of an unexpected type (a definition that differs from the
    /// official one).
    #[error("field {0} is missing or not of the expected type")]
    Field(&'static str),
    /// An encoding bagscope does not know.
    #[error("unknown encoding {0:?}")]
    Encoding(String),
    /// Width or height zero.
    #[error("empty picture ({width}×{height})")]
    Empty {
        /// Width.
        width: u64,
        /// Height.
        height: u64,
    },
    /// More pixels than [`MAX_PIXELS`].
    #[error("{width}×{height} is more than the {limit} pixels bagscope decodes")]
    TooLarge {
        /// Width.
        width: u64,
        /// Height.
        height: u64,
        /// The limit.
        limit: u64,
    },
    /// The data is shorter than the sizes say.
    #[error("data holds {actual} bytes, {what} needs {needed}")]
    Short {
        /// What the sizes describe (`480 rows of step 1920`).
        what: String,
        /// Bytes needed.
        needed: u64,
        /// Bytes there.
        actual: u64,
    },
    /// A `step` smaller than a row of pixels.
    #[error("step {step} is less than a row of {width} pixels × {bytes} bytes")]
    Step {
        /// The step.
        step: u64,
        /// Width in pixels.
        width: u64,
        /// Bytes per pixel.
        bytes: u64,
    },
    /// The compressed bytes could not be decoded.
    #[error("cannot decode {format}: {reason}")]
    Compressed {
        /// The format named by the message.
        format: String,
        /// What the decoder said.
        reason: String,
    },
    /// A cloud without x and y fields, or with fields that do not fit a point.
    #[error("cloud: {0}")]
    Cloud(String),
}

/// The message types bagscope draws (ROS1 names; their ROS 2 spellings, `sensor_msgs/msg/Image`,
/// are drawn alike).
pub const PICTURE_TYPES: &[&str] = &[
    "sensor_msgs/Image",
    "sensor_msgs/CompressedImage",
    "nav_msgs/OccupancyGrid",
    "sensor_msgs/LaserScan",
    "sensor_msgs/PointCloud2",
    "sensor_msgs/PointCloud",
];

/// True for the types [`decode`] draws (either spelling).
pub fn is_picture_type(datatype: &str) -> bool {
    PICTURE_TYPES.contains(&&*ros1_name(datatype))
}

/// True for the types drawn as a scatter of points (laser scans, point clouds).
pub fn is_scatter_type(datatype: &str) -> bool {
    matches!(
        &*ros1_name(datatype),
        "sensor_msgs/LaserScan" | "sensor_msgs/PointCloud2" | "sensor_msgs/PointCloud"
    )
}

/// True for camera images (the preview is on by default for these).
pub fn is_image_type(datatype: &str) -> bool {
    matches!(
        &*ros1_name(datatype),
        "sensor_msgs/Image" | "sensor_msgs/CompressedImage"
    )
}

/// True for occupancy grids (maps).
pub fn is_map_type(datatype: &str) -> bool {
    ros1_name(datatype) == "nav_msgs/OccupancyGrid"
}

/// Draws a message of `datatype` (either spelling) as a picture scaled to `fit` (pixels;
/// aspect ratio kept, never enlarged; `Fit::FULL` keeps the source size).
///
/// ROS 2 messages have the same fields as ROS1's apart from their header (no `seq`, a
/// `builtin_interfaces/Time` stamp), which no picture reads.
pub fn decode(datatype: &str, msg: MessageRef<'_>, fit: Fit) -> Result<Picture, PictureError> {
    match &*ros1_name(datatype) {
        "sensor_msgs/Image" => raw::decode(msg, fit),
        "sensor_msgs/CompressedImage" => compressed::decode(msg, fit),
        "nav_msgs/OccupancyGrid" => grid::decode(msg, fit),
        "sensor_msgs/LaserScan" => scatter::laser(msg, fit),
        "sensor_msgs/PointCloud2" => scatter::cloud2(msg, fit),
        "sensor_msgs/PointCloud" => scatter::cloud1(msg, fit),
        _ => Err(PictureError::NotAPicture(datatype.to_string())),
    }
}

/// Refuses empty and too large pictures before anything is allocated.
fn check_size(width: u64, height: u64) -> Result<(), PictureError> {
    if width == 0 || height == 0 {
        return Err(PictureError::Empty { width, height });
    }
    if width.saturating_mul(height) > MAX_PIXELS {
        return Err(PictureError::TooLarge {
            width,
            height,
            limit: MAX_PIXELS,
        });
    }
    Ok(())
}

/// Field `path` (`info.width`) of `msg`.
fn field<'d>(msg: MessageRef<'d>, path: &'static str) -> Result<ValueRef<'d>, PictureError> {
    let mut parts = path.split('.');
    let mut value = ValueRef::Message(msg);
    for part in parts.by_ref() {
        let ValueRef::Message(m) = value else {
            return Err(PictureError::Field(path));
        };
        value = m.get(part).ok_or(PictureError::Field(path))?;
    }
    Ok(value)
}

/// Numeric field `path` as `f64`.
fn number(msg: MessageRef<'_>, path: &'static str) -> Result<f64, PictureError> {
    crate::msg::path::to_f64(&field(msg, path)?).ok_or(PictureError::Field(path))
}

/// Unsigned integer field `path`.
fn unsigned(msg: MessageRef<'_>, path: &'static str) -> Result<u64, PictureError> {
    match field(msg, path)? {
        ValueRef::U8(v) => Ok(u64::from(v)),
        ValueRef::U16(v) => Ok(u64::from(v)),
        ValueRef::U32(v) => Ok(u64::from(v)),
        ValueRef::U64(v) => Ok(v),
        _ => Err(PictureError::Field(path)),
    }
}

/// String field `path` (lossy UTF-8).
fn text(msg: MessageRef<'_>, path: &'static str) -> Result<String, PictureError> {
    match field(msg, path)? {
        ValueRef::String(s) => Ok(String::from_utf8_lossy(s).into_owned()),
        _ => Err(PictureError::Field(path)),
    }
}

/// Byte-array field `path` (`uint8[]`, or `int8[]` as its wire bytes).
fn bytes<'d>(msg: MessageRef<'d>, path: &'static str) -> Result<&'d [u8], PictureError> {
    match field(msg, path)? {
        ValueRef::Bytes(b) => Ok(b),
        _ => Err(PictureError::Field(path)),
    }
}

#[cfg(test)]
mod tests;
