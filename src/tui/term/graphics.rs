//! How pictures reach the terminal: Unicode half-blocks (any terminal, over any SSH), or the
//! terminal's own graphics protocol — kitty, sixel or iTerm2 — found by asking the terminal
//! at startup (`ratatui-image`'s query: the protocols it answers to and its cell size in
//! pixels). `BAGSCOPE_GRAPHICS` overrides the query: `auto` (the default), `halfblocks`,
//! `kitty`, `sixel`, `iterm2`. With `NO_COLOR` set, `auto` keeps the half-block ramp.
//!
//! The query is written before the first frame and answered on the input thread
//! (`tui::term::input`, which tells the answers from keys typed meanwhile:
//! `tui::term::term_replies`), so neither the first frame nor a key waits for the terminal's
//! round trip. Until the answers come, pictures are half-blocks.
//!
//! `auto` does not query inside tmux or screen: a multiplexer passes the query on to the
//! outer terminal only when configured to (tmux's `allow-passthrough`), so it often goes
//! unanswered. There, half-blocks (or `BAGSCOPE_GRAPHICS=kitty|sixel|…`, which ratatui-image
//! wraps in tmux's passthrough).
//!
//! A protocol image is encoded on the worker (it is the slow part: sixel quantises, kitty
//! base64-encodes); the UI thread only places the encoded image in the buffer.
//!
//! The cell size comes from the terminal, which is untrusted: it is clamped to
//! [`MIN_CELL`]..=[`MAX_CELL`] pixels. The picture is sent with no more pixels than it is
//! shown with, at most twice its own size and [`MAX_SIDE`] a side; kitty and iTerm2 are told
//! how many cells to fill and scale it up themselves, sixel (which cannot) shows it at the
//! pixels sent. So a 64×48 frame costs the same whatever cell size the terminal claims.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use image::imageops::FilterType;
use image::{DynamicImage, RgbImage};
use ratatui::layout::{Rect, Size};
use ratatui_image::picker::{Capability, Picker, ProtocolType};
use ratatui_image::protocol::Protocol;
use ratatui_image::protocol::iterm2::Iterm2;
use ratatui_image::protocol::kitty::Kitty;
use ratatui_image::protocol::sixel::Sixel;
use ratatui_image::{FontSize, Image};

use crate::picture::{Fit, Raster};
use crate::tui::term::term_replies::Replies;

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

/// The smallest cell size believed, in pixels (width, height).
pub const MIN_CELL: (u16, u16) = (2, 4);
/// The largest cell size believed, in pixels (width, height): a 4K screen at 2× with a large
/// font has cells of about 24×48.
pub const MAX_CELL: (u16, u16) = (64, 128);
/// The most pixels a side of a picture sent to the terminal (and of the size it is drawn at).
pub const MAX_SIDE: u32 = 4096;

/// A cell size from the terminal, clamped to [`MIN_CELL`]..=[`MAX_CELL`].
pub fn clamp_cell(width: u16, height: u16) -> FontSize {
    FontSize::new(
        width.clamp(MIN_CELL.0, MAX_CELL.0),
        height.clamp(MIN_CELL.1, MAX_CELL.1),
    )
}

/// The terminal's graphics protocol and cell size; `None` draws half-blocks.
#[derive(Clone, Debug)]
pub struct Graphics {
    picker: Picker,
    /// The cell size in pixels, clamped ([`clamp_cell`]).
    cell: FontSize,
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
            .filter(|&(w, h)| w > 0 && h > 0)
            .map(|(w, h)| clamp_cell(w, h))
            .or_else(cell_size)?;
        #[allow(deprecated)]
        let mut picker = Picker::from_fontsize(cell);
        picker.set_protocol_type(protocol);
        Graphics::with(picker)
    }

    /// Graphics through `picker` (`None` when it can only do half-blocks), its cell size
    /// clamped.
    pub fn with(picker: Picker) -> Option<Graphics> {
        let f = picker.font_size();
        let cell = clamp_cell(f.width, f.height);
        (picker.protocol_type() != ProtocolType::Halfblocks).then_some(Graphics { picker, cell })
    }

    /// The cell size in pixels (clamped).
    pub fn cell(&self) -> (u16, u16) {
        (self.cell.width, self.cell.height)
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

    /// The pixels of a pane of `cols` × `rows` cells (at most [`MAX_SIDE`] a side): the size
    /// a picture is decoded to fit.
    pub fn fit(&self, cols: u16, rows: u16) -> Fit {
        let (pw, ph) = self.pane_pixels(cols, rows);
        Fit::new(pw.min(MAX_SIDE), ph.min(MAX_SIDE))
    }

    fn pane_pixels(&self, cols: u16, rows: u16) -> (u32, u32) {
        (
            u32::from(cols) * u32::from(self.cell.width),
            u32::from(rows) * u32::from(self.cell.height),
        )
    }

    /// How `raster` is drawn in a pane of `cols` × `rows` cells: the cells it covers and the
    /// pixels sent (see the module).
    pub fn placement(&self, raster: &Raster, cols: u16, rows: u16) -> Placement {
        let (src_w, src_h) = (raster.width.max(1), raster.height.max(1));
        let (pane_w, pane_h) = self.pane_pixels(cols.max(1), rows.max(1));
        // As large as the pane allows, aspect ratio kept (enlarged too).
        let shown = scale_into(src_w, src_h, pane_w, pane_h);
        // Sent: no more than shown, twice the source, MAX_SIDE.
        let sent = scale_into(
            src_w,
            src_h,
            shown.0.min(src_w.saturating_mul(2)).min(MAX_SIDE),
            shown.1.min(src_h.saturating_mul(2)).min(MAX_SIDE),
        );
        // Sixel cannot be scaled by the terminal: it covers the pixels sent.
        let covered = if self.picker.protocol_type() == ProtocolType::Sixel {
            sent
        } else {
            shown
        };
        let cells = |px: u32, cell: u16, most: u16| {
            u16::try_from(px.div_ceil(u32::from(cell.max(1))))
                .unwrap_or(u16::MAX)
                .clamp(1, most.max(1))
        };
        Placement {
            cells: Size::new(
                cells(covered.0, self.cell.width, cols),
                cells(covered.1, self.cell.height, rows),
            ),
            pixels: sent,
        }
    }

    /// Encodes `raster` for the terminal, scaled to `cols` × `rows` cells (aspect ratio
    /// kept), sending at most [`Placement::pixels`].
    pub fn encode(&self, raster: &Raster, cols: u16, rows: u16) -> Result<Graphic, String> {
        let image = RgbImage::from_raw(raster.width, raster.height, raster.rgb.clone())
            .ok_or_else(|| "the picture's pixels do not match its size".to_string())?;
        let layout = self.placement(raster, cols, rows);
        let (w, h) = layout.pixels;
        let image = if (w, h) == (raster.width, raster.height) {
            image
        } else {
            // Enlarged: nearest (its pixels stay crisp, unlike half-blocks, where one pixel is
            // already half a cell); reduced: averaged.
            let filter = if w >= raster.width {
                FilterType::Nearest
            } else {
                FilterType::Triangle
            };
            image::imageops::resize(&image, w, h, filter)
        };
        let image = DynamicImage::ImageRgb8(image);
        let size = layout.cells;
        let tmux = self.picker.tmux_detected();
        let err = |e: ratatui_image::errors::Errors| format!("{} graphics: {e}", self.name());
        let protocol = match self.picker.protocol_type() {
            ProtocolType::Kitty => {
                let compress = self
                    .picker
                    .capabilities()
                    .contains(&Capability::KittyCompression);
                Protocol::Kitty(Kitty::new(image, size, kitty_id(), tmux, compress).map_err(err)?)
            }
            ProtocolType::Sixel => Protocol::Sixel(Sixel::new(image, size, tmux).map_err(err)?),
            ProtocolType::Iterm2 => {
                let mut p = Iterm2::new(image, size, tmux).map_err(err)?;
                // Shown over the cells, scaled by the terminal.
                p.data = p.data.replacen(
                    &format!("width={w}px;height={h}px"),
                    &format!("width={};height={}", size.width, size.height),
                    1,
                );
                Protocol::ITerm2(p)
            }
            ProtocolType::Halfblocks => return Err("half-blocks are not a protocol".into()),
        };
        Ok(Graphic {
            protocol: Arc::new(protocol),
            kitty: self.picker.protocol_type() == ProtocolType::Kitty,
        })
    }
}

/// How a picture is drawn with a protocol.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Placement {
    /// The cells it covers.
    pub cells: Size,
    /// The pixels sent to the terminal (width, height).
    pub pixels: (u32, u32),
}

/// `w` × `h` scaled to fit `most_w` × `most_h`, aspect ratio kept, at least 1×1.
fn scale_into(w: u32, h: u32, most_w: u32, most_h: u32) -> (u32, u32) {
    let (w, h) = (u64::from(w.max(1)), u64::from(h.max(1)));
    let (mw, mh) = (u64::from(most_w.max(1)), u64::from(most_h.max(1)));
    let to = |v: u64| u32::try_from(v).unwrap_or(u32::MAX).max(1);
    // Compare mw/w with mh/h without floats.
    if mw * h <= mh * w {
        (to(mw), to((h * mw / w).min(mh)))
    } else {
        (to((w * mh / h).min(mw)), to(mh))
    }
}

/// A fresh kitty image id (never 0), distinct within the process and unlikely to match
/// another program's.
fn kitty_id() -> u32 {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let seed = std::process::id().wrapping_mul(2_654_435_761);
    loop {
        let id = seed.wrapping_add(NEXT.fetch_add(1, Ordering::Relaxed));
        if id != 0 {
            return id;
        }
    }
}

/// The cell size in pixels, from the terminal's window size in pixels.
fn cell_size() -> Option<FontSize> {
    let w = crossterm::terminal::window_size().ok()?;
    let cw = w.width.checked_div(w.columns)?;
    let ch = w.height.checked_div(w.rows)?;
    (cw > 0 && ch > 0).then(|| clamp_cell(cw, ch))
}

/// A picture encoded for the terminal's protocol (cheap to clone).
#[derive(Clone)]
pub struct Graphic {
    protocol: Arc<Protocol>,
    /// Kitty's: its transmission is told the cells to fill when placed.
    kitty: bool,
}

impl std::fmt::Debug for Graphic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let s = self.protocol.size();
        write!(f, "Graphic({}×{} cells)", s.width, s.height)
    }
}

impl PartialEq for Graphic {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.protocol, &other.protocol)
    }
}

impl Graphic {
    /// Cells it covers.
    pub fn size(&self) -> Size {
        self.protocol.size()
    }

    /// Places it centred in `area`.
    pub fn draw(&self, area: Rect, buf: &mut ratatui::buffer::Buffer) {
        let s = self.protocol.size();
        let (w, h) = (s.width.min(area.width), s.height.min(area.height));
        let at = Rect::new(area.x + (area.width - w) / 2, area.y, w, h);
        ratatui::widgets::Widget::render(Image::new(&self.protocol), at, buf);
        if self.kitty {
            kitty_fill_cells(at, s, buf);
        }
    }
}

/// Kitty's virtual placement (`U=1`), as ratatui-image writes it, is sized from the image's
/// pixels; the picture is sent with fewer pixels than the cells it covers, so the placement
/// is told its columns and rows (`c`, `r`) and kitty scales the image to fill them. The
/// transmission is in the first cell drawn, once.
fn kitty_fill_cells(at: Rect, size: Size, buf: &mut ratatui::buffer::Buffer) {
    const PLACEMENT: &str = "a=T,U=1,";
    let Some(cell) = buf.cell_mut((at.x, at.y)) else {
        return;
    };
    if !cell.symbol().contains(PLACEMENT) {
        return;
    }
    let patched = cell.symbol().replacen(
        PLACEMENT,
        &format!("{PLACEMENT}c={},r={},", size.width, size.height),
        1,
    );
    cell.set_symbol(&patched);
}

#[cfg(test)]
#[path = "graphics_tests.rs"]
mod tests;
