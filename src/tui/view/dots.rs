//! A scatter (a laser scan or a point cloud from above) drawn with braille dots: each cell
//! holds 2×4 pixels, a dot for each pixel that is not background (black), in the colour of the
//! brightest of its points — four times the pixels of half-blocks, and the points stay points
//! without colour (`NO_COLOR`: the dots alone).

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

use super::halfblock::color;
use crate::picture::Raster;
use crate::tui::model::picture::ColorDepth;

/// Braille dot bits for (x in 0..2, y in 0..4), y down.
const DOTS: [[u8; 4]; 2] = [[0x01, 0x02, 0x04, 0x40], [0x08, 0x10, 0x20, 0x80]];

/// Pixels across and down in one cell.
pub const CELL: (u32, u32) = (2, 4);

/// Draws `raster` (black background) centred in `area` (cropped if larger).
pub fn draw(raster: &Raster, depth: ColorDepth, area: Rect, buf: &mut Buffer) {
    let cols = u16::try_from(raster.width.div_ceil(CELL.0))
        .unwrap_or(u16::MAX)
        .min(area.width);
    let rows = u16::try_from(raster.height.div_ceil(CELL.1))
        .unwrap_or(u16::MAX)
        .min(area.height);
    let left = area.x + (area.width - cols) / 2;
    for cy in 0..rows {
        for cx in 0..cols {
            let (mut bits, mut brightest, mut best) = (0u8, 0u32, [0u8; 3]);
            for (dx, column) in (0u32..).zip(DOTS) {
                for (dy, bit) in (0u32..).zip(column) {
                    let (x, y) = (u32::from(cx) * CELL.0 + dx, u32::from(cy) * CELL.1 + dy);
                    if x >= raster.width || y >= raster.height {
                        continue;
                    }
                    let p = raster.get(x, y);
                    let sum = p.iter().map(|&v| u32::from(v)).sum::<u32>();
                    if sum > 0 {
                        bits |= bit;
                        if sum > brightest {
                            (brightest, best) = (sum, p);
                        }
                    }
                }
            }
            if bits == 0 {
                continue;
            }
            let Some(cell) = buf.cell_mut((left + cx, area.y + cy)) else {
                continue;
            };
            cell.set_char(char::from_u32(0x2800 + u32::from(bits)).unwrap_or(' '));
            if depth != ColorDepth::Grey {
                cell.set_fg(color(best, depth));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use ratatui::style::Color;

    use super::*;

    #[test]
    fn each_point_is_a_dot_in_its_colour() {
        // 4×4 pixels: two cells across, one down.
        let mut raster = Raster::filled(4, 4, [0; 3]);
        raster.set(0, 0, [80, 255, 80]);
        raster.set(1, 3, [255, 110, 110]);
        raster.set(3, 1, [10, 10, 10]);
        let area = Rect::new(0, 0, 2, 2);
        let mut buf = Buffer::empty(area);
        draw(&raster, ColorDepth::TrueColor, area, &mut buf);
        let c = &buf[(0, 0)];
        assert_eq!(c.symbol(), "\u{2881}", "dots (0,0) and (1,3)");
        assert_eq!(
            c.fg,
            Color::Rgb(255, 110, 110),
            "the brightest point's colour"
        );
        assert_eq!(
            buf[(1, 0)].symbol(),
            "\u{2810}",
            "dot (1,1) of the second cell"
        );
        assert_eq!(buf[(0, 1)].symbol(), " ", "one row of cells");
        let mut buf = Buffer::empty(area);
        draw(&raster, ColorDepth::Grey, area, &mut buf);
        assert_eq!(buf[(0, 0)].symbol(), "\u{2881}");
        assert_eq!(buf[(0, 0)].fg, Color::Reset, "no colour with NO_COLOR");
    }

    #[test]
    fn centred_and_cropped() {
        let raster = Raster::filled(2, 4, [255, 255, 255]);
        let area = Rect::new(0, 0, 5, 1);
        let mut buf = Buffer::empty(area);
        draw(&raster, ColorDepth::Palette, area, &mut buf);
        assert_eq!(buf[(2, 0)].symbol(), "⣿");
        let big = Raster::filled(40, 40, [255, 255, 255]);
        let mut buf = Buffer::empty(area);
        draw(&big, ColorDepth::Palette, area, &mut buf);
        assert!(
            (0..5).all(|x| buf[(x, 0)].symbol() == "⣿"),
            "cropped to the area"
        );
    }
}
