//! `nav_msgs/OccupancyGrid`: unknown (-1) grey, free (0) white, occupied (100) black, values
//! between as shades; row 0 is at the origin, so the picture is flipped to put +y up.

use super::raster::{Fit, Shrinker};
use super::raw::short;
use super::{Picture, PictureError, check_size, field, number, unsigned};
use crate::msg::{MessageRef, ValueRef};

/// Grey of an unknown cell.
const UNKNOWN: [u8; 3] = [128, 128, 128];

/// The colour of an occupancy value.
fn color(v: i8) -> [u8; 3] {
    match v {
        0..=100 => {
            let level = 255 - i32::from(v) * 255 / 100;
            [u8::try_from(level).unwrap_or(0); 3]
        }
        _ => UNKNOWN,
    }
}

/// Decodes an `OccupancyGrid` scaled to `fit`.
pub(crate) fn decode(msg: MessageRef<'_>, fit: Fit) -> Result<Picture, PictureError> {
    let width = unsigned(msg, "info.width")?;
    let height = unsigned(msg, "info.height")?;
    let resolution = number(msg, "info.resolution")?;
    let ox = number(msg, "info.origin.position.x")?;
    let oy = number(msg, "info.origin.position.y")?;
    let value = field(msg, "data")?;
    let data: &[u8] = match &value {
        ValueRef::PrimArray(a) => a.wire_bytes(),
        ValueRef::Bytes(b) => b,
        _ => return Err(PictureError::Field("data")),
    };
    check_size(width, height)?;
    let needed = width * height;
    if (data.len() as u64) < needed {
        return Err(PictureError::Short {
            what: format!("{width}×{height} cells"),
            needed,
            actual: data.len() as u64,
        });
    }
    let w = usize::try_from(width).unwrap_or(usize::MAX);
    let mut shrink = Shrinker::new(width, height, fit);
    for (y, row) in data
        .chunks_exact(w.max(1))
        .take(usize::try_from(height).unwrap_or(0))
        .enumerate()
    {
        // Flipped: the last row of the grid is the top of the picture.
        shrink.row(height - 1 - y as u64);
        for (x, &v) in row.iter().enumerate() {
            shrink.add(x, color(i8::from_le_bytes([v])));
        }
    }
    let (known, occupied) = data
        .get(..usize::try_from(needed).unwrap_or(0))
        .unwrap_or_default()
        .iter()
        .fold((0u64, 0u64), |(k, o), &v| {
            let v = i8::from_le_bytes([v]);
            (k + u64::from(v >= 0), o + u64::from(v >= 50))
        });
    Ok(Picture {
        raster: shrink.finish(),
        title: format!(
            "{width}×{height} cells · {} m/cell · origin ({}, {})",
            short(resolution),
            short(ox),
            short(oy)
        ),
        summary: vec![format!(
            "{known} known cells, {occupied} occupied (≥ 50), {} unknown",
            needed - known
        )],
    })
}
