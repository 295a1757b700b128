//! A raster drawn with Unicode half-blocks: each cell shows two pixels, the upper one as the
//! foreground of `▀`, the lower one as its background, so pixels are about square. Colours
//! are 24-bit, or the nearest of xterm's 256; without colour (`NO_COLOR`) each cell is a
//! character of a brightness ramp.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Color;

use crate::picture::Raster;
use crate::tui::model::picture::ColorDepth;

/// Characters from dark to bright for the colourless form.
const RAMP: &[char] = &[' ', '.', ':', '-', '=', '+', '*', '#', '%', '@'];

/// Draws `raster` centred in `area` (cropped if larger).
pub fn draw(raster: &Raster, depth: ColorDepth, area: Rect, buf: &mut Buffer) {
    let cols = u16::try_from(raster.width)
        .unwrap_or(u16::MAX)
        .min(area.width);
    let rows = u16::try_from(raster.height.div_ceil(2))
        .unwrap_or(u16::MAX)
        .min(area.height);
    let left = area.x + (area.width - cols) / 2;
    for cy in 0..rows {
        for cx in 0..cols {
            let (x, y) = (u32::from(cx), u32::from(cy) * 2);
            let top = raster.get(x, y);
            let bottom = if y + 1 < raster.height {
                raster.get(x, y + 1)
            } else {
                [0; 3]
            };
            let Some(cell) = buf.cell_mut((left + cx, area.y + cy)) else {
                continue;
            };
            match depth {
                ColorDepth::Grey => {
                    let l = u32::midpoint(luma(top), luma(bottom));
                    let i = (l as usize * RAMP.len() / 256).min(RAMP.len() - 1);
                    cell.set_char(RAMP.get(i).copied().unwrap_or(' '));
                }
                ColorDepth::TrueColor | ColorDepth::Palette => {
                    cell.set_char('▀');
                    cell.set_fg(color(top, depth));
                    cell.set_bg(color(bottom, depth));
                }
            }
        }
    }
}

/// Brightness 0..=255 (Rec. 601 weights).
fn luma([r, g, b]: [u8; 3]) -> u32 {
    (299 * u32::from(r) + 587 * u32::from(g) + 114 * u32::from(b)) / 1000
}

/// The cell colour of `rgb` at `depth`.
pub(crate) fn color(rgb: [u8; 3], depth: ColorDepth) -> Color {
    let [r, g, b] = rgb;
    match depth {
        ColorDepth::TrueColor | ColorDepth::Grey => Color::Rgb(r, g, b),
        ColorDepth::Palette => Color::Indexed(palette(rgb)),
    }
}

/// The levels of xterm's 6×6×6 colour cube.
const CUBE: [u8; 6] = [0, 95, 135, 175, 215, 255];

/// The nearest colour of xterm's palette (the cube, 16..=231, or the grey ramp, 232..=255).
pub fn palette(rgb: [u8; 3]) -> u8 {
    let nearest = |v: u8| {
        CUBE.iter()
            .enumerate()
            .min_by_key(|(_, l)| l.abs_diff(v))
            .map_or(0, |(i, _)| i)
    };
    let idx = rgb.map(nearest);
    let cube = idx.map(|i| CUBE.get(i).copied().unwrap_or(0));
    let mean = (rgb.iter().map(|&v| u32::from(v)).sum::<u32>() / 3).min(238);
    let grey_i = (mean.saturating_sub(3) / 10).min(23);
    let grey = u8::try_from(8 + grey_i * 10).unwrap_or(238);
    let dist = |c: [u8; 3]| -> u32 {
        c.iter()
            .zip(rgb)
            .map(|(&a, b)| u32::from(a.abs_diff(b)).pow(2))
            .sum()
    };
    let [ri, gi, bi] = idx.map(|i| u8::try_from(i).unwrap_or(0));
    if dist([grey; 3]) < dist(cube) {
        232 + u8::try_from(grey_i).unwrap_or(0)
    } else {
        16 + 36 * ri + 6 * gi + bi
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn palette_picks_cube_corners_and_greys() {
        assert_eq!(palette([255, 0, 0]), 196);
        assert_eq!(palette([0, 0, 255]), 21);
        assert_eq!(palette([0, 0, 0]), 16);
        assert_eq!(palette([128, 128, 128]), 244);
    }

    #[test]
    fn cells_hold_two_pixels() {
        let raster = Raster {
            width: 2,
            height: 2,
            rgb: vec![255, 0, 0, 0, 255, 0, 0, 0, 255, 255, 255, 255],
        };
        let area = Rect::new(0, 0, 4, 2);
        let mut buf = Buffer::empty(area);
        draw(&raster, ColorDepth::TrueColor, area, &mut buf);
        let c = buf.cell((1, 0)).unwrap();
        assert_eq!(c.symbol(), "▀");
        assert_eq!((c.fg, c.bg), (Color::Rgb(255, 0, 0), Color::Rgb(0, 0, 255)));
        let c = buf.cell((2, 0)).unwrap();
        assert_eq!(
            (c.fg, c.bg),
            (Color::Rgb(0, 255, 0), Color::Rgb(255, 255, 255))
        );
        assert_eq!(buf.cell((0, 1)).unwrap().symbol(), " ", "one row of cells");
        let mut buf = Buffer::empty(area);
        draw(&raster, ColorDepth::Grey, area, &mut buf);
        assert_eq!(buf.cell((2, 0)).unwrap().symbol(), "#");
    }
}
