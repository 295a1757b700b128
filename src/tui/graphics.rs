//! How pictures reach the terminal: Unicode half-blocks (any terminal, over any SSH), or the
//! terminal's own graphics protocol — kitty, sixel or iTerm2 — found by asking the terminal
//! at startup (`ratatui-image`'s query: the protocols it answers to and its cell size in
//! pixels). `BAGSCOPE_GRAPHICS` overrides the query: `auto` (the default), `halfblocks`,
//! `kitty`, `sixel`, `iterm2`. With `NO_COLOR` set, `auto` keeps the half-block ramp.
//!
//! The query is written before the first frame and answered on the input thread
//! (`tui::input`, which tells the answers from keys typed meanwhile: `tui::term_replies`), so
//! neither the first frame nor a key waits for the terminal's round trip. Until the answers
//! come, pictures are half-blocks.
//!
//! `auto` does not query inside tmux or screen: a multiplexer passes the query on to the
//! outer terminal only when configured to (tmux's `allow-passthrough`), so it often goes
//! unanswered. There, half-blocks (or `BAGSCOPE_GRAPHICS=kitty|sixel|…`, which ratatui-image
//! wraps in tmux's passthrough).
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
use crate::tui::term_replies::Replies;

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

/// How the graphics protocol is settled when the explorer starts.
#[derive(Debug)]
pub enum Startup {
    /// Known without asking (`None`: half-blocks).
    Known(Option<Graphics>),
    /// The query was written: the terminal's answers are read on the input thread, and
    /// settled with these hints (the ones the query was made with).
    Asked(Hints),
}

impl Choice {
    /// Settles the choice, or writes the graphics query to the terminal (which must be in
    /// raw mode, and its input not yet read) for [`Choice::Auto`] on a terminal.
    pub fn start(self) -> std::io::Result<Startup> {
        use std::io::{IsTerminal, Write};
        let on_terminal = std::io::stdin().is_terminal() && std::io::stdout().is_terminal();
        match self {
            // Nothing would read the answers.
            Choice::Auto if !on_terminal => return Ok(Startup::Known(None)),
            Choice::Auto if cfg!(unix) => {}
            _ => return Ok(Startup::Known(Graphics::detect(self))),
        }
        let mut out = std::io::stdout();
        let hints = Hints::from_env();
        out.write_all(query(&hints).as_bytes())?;
        out.flush()?;
        Ok(Startup::Asked(hints))
    }
}

/// What the environment tells of the terminal, beyond its answers.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Hints {
    /// A terminal whose kitty and sixel support is not to be trusted (WezTerm, Konsole):
    /// neither is asked for.
    pub no_kitty_or_sixel: bool,
    /// `TERM_PROGRAM` or `LC_TERMINAL` names a terminal that shows iTerm2's images.
    pub iterm2: bool,
}

impl Hints {
    /// From `WEZTERM_EXECUTABLE`, `KONSOLE_VERSION`, `TERM_PROGRAM` and `LC_TERMINAL`.
    pub fn from_env() -> Hints {
        let var = |n: &str| std::env::var(n).unwrap_or_default();
        Hints::from_vars(
            !var("WEZTERM_EXECUTABLE").is_empty() || !var("KONSOLE_VERSION").is_empty(),
            &var("TERM_PROGRAM"),
            &var("LC_TERMINAL"),
        )
    }

    /// From whether the terminal is WezTerm or Konsole, and the values of `TERM_PROGRAM`
    /// and `LC_TERMINAL`.
    pub fn from_vars(wezterm_or_konsole: bool, term_program: &str, lc_terminal: &str) -> Hints {
        const ITERM2_LIKE: [&str; 9] = [
            "iTerm", "WezTerm", "mintty", "vscode", "Tabby", "Hyper", "rio", "Bobcat", "Warp",
        ];
        Hints {
            no_kitty_or_sixel: wezterm_or_konsole,
            iterm2: ITERM2_LIKE.iter().any(|t| term_program.contains(t))
                || lc_terminal.contains("iTerm"),
        }
    }
}

/// The query written to the terminal (ratatui-image's: kitty's graphics, the device
/// attributes for sixel, the cell size, then the status report that every terminal
/// answers last).
pub fn query(hints: &Hints) -> String {
    let mut options = ratatui_image::picker::cap_parser::QueryStdioOptions::default();
    if hints.no_kitty_or_sixel {
        options.blacklist_protocols = vec![ProtocolType::Kitty, ProtocolType::Sixel];
    }
    ratatui_image::picker::cap_parser::Parser::query(false, options)
}

/// The terminal's graphics protocol and cell size; `None` draws half-blocks.
#[derive(Clone, Debug)]
pub struct Graphics {
    picker: Picker,
}

impl Graphics {
    /// Settles `choice` on this thread: for [`Choice::Auto`], queries the terminal with
    /// ratatui-image's own reader (which must be in raw mode, before anything else reads its
    /// input; only where [`Choice::start`] cannot ask itself); half-blocks (`None`) when it
    /// has no protocol or does not answer.
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

    /// From the terminal's answers to [`query`] (`None`: half-blocks). Kitty first, then
    /// sixel, then iTerm2 when the environment names a terminal that has it; the cell size
    /// from the answer, else from the window size in pixels, else half-blocks.
    pub fn from_replies(replies: &Replies, hints: &Hints) -> Option<Graphics> {
        let protocol = if replies.kitty {
            ProtocolType::Kitty
        } else if replies.sixel {
            ProtocolType::Sixel
        } else if hints.iterm2 {
            ProtocolType::Iterm2
        } else {
            return None;
        };
        let cell = replies
            .cell
            .map(|(w, h)| FontSize::new(w, h))
            .or_else(cell_size)?;
        #[allow(deprecated)]
        let mut picker = Picker::from_fontsize(cell);
        picker.set_protocol_type(protocol);
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

    #[test]
    fn the_answers_pick_the_protocol_and_cell_size() {
        let plain = Hints::default();
        let replies = |kitty, sixel, cell| Replies {
            kitty,
            sixel,
            cell,
            status: true,
        };
        let got = |r: &Replies, h: &Hints| {
            Graphics::from_replies(r, h)
                .map(|g| (g.name(), g.picker.font_size()))
                .map(|(n, f)| (n, f.width, f.height))
        };
        let cell = Some((9, 18));
        assert_eq!(
            got(&replies(true, true, cell), &plain),
            Some(("kitty", 9, 18)),
            "kitty before sixel"
        );
        assert_eq!(
            got(&replies(false, true, cell), &plain),
            Some(("sixel", 9, 18))
        );
        assert_eq!(got(&replies(false, false, cell), &plain), None);
        let iterm = Hints::from_vars(false, "iTerm.app", "");
        assert_eq!(
            got(&replies(false, false, cell), &iterm),
            Some(("iTerm2", 9, 18)),
            "iTerm2 is not answered: the environment names it"
        );
        assert_eq!(
            got(&replies(true, false, cell), &iterm),
            Some(("kitty", 9, 18)),
            "an answer outweighs the environment"
        );
        // No cell size answered and no window size in pixels (tests have no terminal):
        // half-blocks, which need none.
        if cell_size().is_none() {
            assert_eq!(got(&replies(true, false, None), &plain), None);
        }
    }

    #[test]
    fn wezterm_and_konsole_are_not_asked_for_kitty_or_sixel() {
        let plain = query(&Hints::default());
        assert!(plain.contains("\x1b_Gi=31,") && plain.contains("\x1b[c"));
        assert!(
            plain.ends_with("\x1b[5n"),
            "the status report last: {plain:?}"
        );
        let wezterm = Hints::from_vars(true, "WezTerm", "");
        assert!(wezterm.iterm2 && wezterm.no_kitty_or_sixel);
        let asked = query(&wezterm);
        assert!(!asked.contains("\x1b_G") && !asked.contains("\x1b[c"));
        assert!(asked.contains("\x1b[16t") && asked.ends_with("\x1b[5n"));
        assert_eq!(
            Hints::from_vars(false, "xterm", "iTerm2"),
            Hints {
                no_kitty_or_sixel: false,
                iterm2: true
            }
        );
        assert_eq!(Hints::from_vars(false, "", ""), Hints::default());
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
