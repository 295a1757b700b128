//! How pictures reach the terminal: Unicode half-blocks (any terminal, over any SSH), or the
//! terminal's own graphics protocol — kitty, sixel or iTerm2 — found by asking the terminal
//! at startup (`ratatui-image`'s query: the protocols it answers to and its cell size in
//! pixels). `BAGSCOPE_GRAPHICS` overrides the query: `auto` (the default), `halfblocks`,
//! `kitty`, `sixel`, `iterm2`. With `NO_COLOR` set, `auto` keeps the half-block ramp.
//!
//! `auto` does not query inside tmux or screen: a multiplexer passes the query on to the
//! outer terminal only when configured to (tmux's `allow-passthrough`), so it often goes
//! unanswered, and an unanswered query costs a timeout at startup and leaves a reader on the
//! input that eats the next key. There, half-blocks (or `BAGSCOPE_GRAPHICS=kitty|sixel|…`,
//! which ratatui-image wraps in tmux's passthrough).
//!
//! A protocol image is encoded on the worker (it is the slow part: sixel quantises, kitty
//! base64-encodes), at the pane's size in the terminal's pixels; the UI thread only places
//! the encoded image in the buffer.

use std::sync::Arc;

use image::imageops::FilterType;
use image::{DynamicImage, RgbImage};
use ratatui::layout::{Rect, Size};
use ratatui_image::picker::{Picker, ProtocolType};
use ratatui_image::protocol::Protocol;
use ratatui_image::{FontSize, Image, Resize};

use crate::picture::{Fit, Raster};

/// What `BAGSCOPE_GRAPHICS` asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Choice {
    /// Ask the terminal (half-blocks when it has no protocol, or with `NO_COLOR`).
    Auto,
    /// Always half-blocks.
    HalfBlocks,
    /// This protocol, without asking.
    Protocol(ProtocolType),
}

impl Choice {
    /// From `BAGSCOPE_GRAPHICS`, `NO_COLOR`, `TMUX` and `TERM` (an unknown value is read as
    /// `auto`).
    pub fn from_env() -> Choice {
        let var = |n: &str| std::env::var(n).unwrap_or_default();
        let term = var("TERM");
        let multiplexer =
            !var("TMUX").is_empty() || term.starts_with("screen") || term.starts_with("tmux");
        Choice::from_vars(&var("BAGSCOPE_GRAPHICS"), &var("NO_COLOR"), multiplexer)
    }

    /// From the values of `BAGSCOPE_GRAPHICS` and `NO_COLOR`, and whether a terminal
    /// multiplexer (tmux, screen) is in between.
    pub fn from_vars(graphics: &str, no_color: &str, multiplexer: bool) -> Choice {
        match graphics.trim().to_ascii_lowercase().as_str() {
            "halfblocks" | "half-blocks" | "blocks" | "none" | "off" => Choice::HalfBlocks,
            "kitty" => Choice::Protocol(ProtocolType::Kitty),
            "sixel" => Choice::Protocol(ProtocolType::Sixel),
            "iterm2" | "iterm" => Choice::Protocol(ProtocolType::Iterm2),
            _ if !no_color.is_empty() || multiplexer => Choice::HalfBlocks,
            _ => Choice::Auto,
        }
    }
}

/// The terminal's graphics protocol and cell size; `None` draws half-blocks.
#[derive(Clone, Debug)]
pub struct Graphics {
    picker: Picker,
}

impl Graphics {
    /// Settles `choice`: for [`Choice::Auto`], queries the terminal (which must be in raw
    /// mode, before anything else reads its input); half-blocks (`None`) when it has no
    /// protocol or does not answer.
    pub fn detect(choice: Choice) -> Option<Graphics> {
        let picker = match choice {
            Choice::HalfBlocks => return None,
            Choice::Auto => Picker::from_query_stdio().ok()?,
            Choice::Protocol(p) => {
                // Not asked: the cell size from the window size in pixels (the ioctl), else
                // 10×20 — an unanswered query would eat a key.
                #[allow(deprecated)]
                let mut picker =
                    Picker::from_fontsize(cell_size().unwrap_or(FontSize::new(10, 20)));
                picker.set_protocol_type(p);
                picker
            }
        };
        Graphics::with(picker)
    }

    /// Graphics through `picker` (`None` when it can only do half-blocks).
    pub fn with(picker: Picker) -> Option<Graphics> {
        (picker.protocol_type() != ProtocolType::Halfblocks).then_some(Graphics { picker })
    }

    /// The protocol's name, for the picture's title.
    pub fn name(&self) -> &'static str {
        match self.picker.protocol_type() {
            ProtocolType::Kitty => "kitty",
            ProtocolType::Sixel => "sixel",
            ProtocolType::Iterm2 => "iTerm2",
            ProtocolType::Halfblocks => "half-blocks",
        }
    }

    /// The pixels of a pane of `cols` × `rows` cells.
    pub fn fit(&self, cols: u16, rows: u16) -> Fit {
        let f = self.picker.font_size();
        Fit::new(
            u32::from(cols) * u32::from(f.width.max(1)),
            u32::from(rows) * u32::from(f.height.max(1)),
        )
    }

    /// Encodes `raster` for the terminal, scaled to `cols` × `rows` cells (aspect ratio
    /// kept).
    pub fn encode(&self, raster: &Raster, cols: u16, rows: u16) -> Result<Graphic, String> {
        let image = RgbImage::from_raw(raster.width, raster.height, raster.rgb.clone())
            .ok_or_else(|| "the picture's pixels do not match its size".to_string())?;
        let protocol = self
            .picker
            .new_protocol(
                DynamicImage::ImageRgb8(image),
                Size::new(cols, rows),
                // A frame smaller than the pane is enlarged (nearest: its pixels stay
                // crisp), unlike half-blocks, where one pixel is already half a cell.
                Resize::Scale(Some(FilterType::Nearest)),
            )
            .map_err(|e| format!("{} graphics: {e}", self.name()))?;
        Ok(Graphic(Arc::new(protocol)))
    }
}

/// The cell size in pixels, from the terminal's window size in pixels.
fn cell_size() -> Option<FontSize> {
    let w = crossterm::terminal::window_size().ok()?;
    let cw = w.width.checked_div(w.columns)?;
    let ch = w.height.checked_div(w.rows)?;
    (cw > 0 && ch > 0).then(|| FontSize::new(cw, ch))
}

/// A picture encoded for the terminal's protocol (cheap to clone).
#[derive(Clone)]
pub struct Graphic(Arc<Protocol>);

impl std::fmt::Debug for Graphic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let s = self.0.size();
        write!(f, "Graphic({}×{} cells)", s.width, s.height)
    }
}

impl PartialEq for Graphic {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Graphic {
    /// Cells it covers.
    pub fn size(&self) -> Size {
        self.0.size()
    }

    /// Places it centred in `area`.
    pub fn draw(&self, area: Rect, buf: &mut ratatui::buffer::Buffer) {
        let s = self.0.size();
        let (w, h) = (s.width.min(area.width), s.height.min(area.height));
        let at = Rect::new(area.x + (area.width - w) / 2, area.y, w, h);
        ratatui::widgets::Widget::render(Image::new(&self.0), at, buf);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_environment_picks_the_way() {
        assert_eq!(Choice::from_vars("", "", false), Choice::Auto);
        assert_eq!(Choice::from_vars("", "1", false), Choice::HalfBlocks);
        assert_eq!(
            Choice::from_vars("auto", "", true),
            Choice::HalfBlocks,
            "no query through tmux"
        );
        assert_eq!(
            Choice::from_vars("halfblocks", "", false),
            Choice::HalfBlocks
        );
        assert_eq!(
            Choice::from_vars("Kitty", "1", true),
            Choice::Protocol(ProtocolType::Kitty),
            "asked for by name, even with NO_COLOR, in tmux"
        );
        assert_eq!(
            Choice::from_vars("sixel", "", false),
            Choice::Protocol(ProtocolType::Sixel)
        );
        assert_eq!(
            Choice::from_vars("iterm2", "", false),
            Choice::Protocol(ProtocolType::Iterm2)
        );
        assert_eq!(Choice::from_vars("bogus", "", false), Choice::Auto);
    }

    fn graphics(p: ProtocolType) -> Graphics {
        #[allow(deprecated)]
        let mut picker = Picker::from_fontsize(FontSize::new(8, 16));
        picker.set_protocol_type(p);
        Graphics::with(picker).unwrap()
    }

    #[test]
    fn fits_the_pane_in_the_terminals_pixels() {
        assert_eq!(
            graphics(ProtocolType::Kitty).fit(40, 10),
            Fit::new(320, 160)
        );
        #[allow(deprecated)]
        let half = Picker::from_fontsize(FontSize::new(8, 16));
        assert!(
            Graphics::with(half).is_none(),
            "half-blocks: not a protocol"
        );
    }

    /// Each protocol's escape sequence lands in the buffer, in the centred cells.
    #[test]
    fn encodes_and_places_each_protocol() {
        let raster = Raster::filled(160, 80, [200, 10, 10]);
        for (p, marker) in [
            (ProtocolType::Kitty, "\x1b_G"),
            (ProtocolType::Sixel, "\x1bP"),
            (ProtocolType::Iterm2, "\x1b]1337;File="),
        ] {
            let g = graphics(p);
            let graphic = g.encode(&raster, 60, 10).unwrap();
            assert_eq!(
                graphic.size(),
                Size::new(40, 10),
                "{p:?}: 160×80 px (20×5 cells at 8×16) enlarged into 60×10 cells: the height is the limit"
            );
            let area = Rect::new(0, 0, 60, 10);
            let mut buf = ratatui::buffer::Buffer::empty(area);
            graphic.draw(area, &mut buf);
            let all: String = buf
                .content()
                .iter()
                .map(ratatui::buffer::Cell::symbol)
                .collect();
            assert!(all.contains(marker), "{p:?}: {marker:?} not in the buffer");
            // Centred: nothing drawn in the first 10 columns.
            assert!(
                (0..10).all(|x| buf[(x, 0)].symbol() == " "),
                "{p:?}: not centred"
            );
        }
    }

    #[test]
    fn a_raster_of_the_wrong_length_is_an_error_not_a_panic() {
        let mut raster = Raster::filled(10, 10, [0, 0, 0]);
        raster.rgb.truncate(5);
        assert!(
            graphics(ProtocolType::Kitty)
                .encode(&raster, 10, 10)
                .is_err()
        );
    }
}
