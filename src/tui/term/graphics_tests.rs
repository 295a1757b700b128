//! Tests of the graphics protocols: the choice, the answers, the sizes sent.

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

fn with_cell(p: ProtocolType, w: u16, h: u16) -> Graphics {
    #[allow(deprecated)]
    let mut picker = Picker::from_fontsize(FontSize::new(w, h));
    picker.set_protocol_type(p);
    Graphics::with(picker).unwrap()
}

/// Everything the graphic puts in a buffer of `cols` × `rows`.
fn drawn(g: &Graphic, cols: u16, rows: u16) -> String {
    let area = Rect::new(0, 0, cols, rows);
    let mut buf = ratatui::buffer::Buffer::empty(area);
    g.draw(area, &mut buf);
    buf.content()
        .iter()
        .map(ratatui::buffer::Cell::symbol)
        .collect()
}

#[test]
fn a_lying_cell_size_is_clamped() {
    let replies = Replies {
        kitty: true,
        sixel: false,
        cell: Some((u16::MAX, u16::MAX)),
        status: true,
    };
    let g = Graphics::from_replies(&replies, &Hints::default()).unwrap();
    assert_eq!(g.cell(), MAX_CELL);
    let fit = g.fit(u16::MAX, u16::MAX);
    assert_eq!((fit.width, fit.height), (MAX_SIDE, MAX_SIDE));
    let tiny = Replies {
        cell: Some((1, 1)),
        ..replies
    };
    let g = Graphics::from_replies(&tiny, &Hints::default()).unwrap();
    assert_eq!(g.cell(), MIN_CELL);
    // A picker made elsewhere (ratatui-image's own query, the window size) too.
    assert_eq!(with_cell(ProtocolType::Sixel, 9000, 3).cell(), (64, 4));
}

/// A 64×48 frame in a 64×48-cell pane of 40×80-pixel cells: the pane is 2560×3840 pixels,
/// but no more than twice the frame is sent (128×96); kitty and iTerm2 are told to fill the
/// cells, sixel covers what it sends.
#[test]
fn a_small_frame_is_sent_small_and_the_terminal_scales_it() {
    let raster = Raster::filled(64, 48, [10, 200, 10]);
    for p in [
        ProtocolType::Kitty,
        ProtocolType::Iterm2,
        ProtocolType::Sixel,
    ] {
        let g = with_cell(p, 40, 80);
        let placed = g.placement(&raster, 64, 48);
        assert_eq!(placed.pixels, (128, 96), "{p:?}");
        let graphic = g.encode(&raster, 64, 48).unwrap();
        let all = drawn(&graphic, 64, 48);
        // 128×96 RGBA in base64 is 66 KB; the pane's pixels would be 52 MB.
        assert!(all.len() < 200_000, "{p:?}: {} bytes", all.len());
        match p {
            ProtocolType::Kitty => {
                // 2560×1920 shown: 64×24 cells.
                assert_eq!(graphic.size(), Size::new(64, 24));
                assert!(all.contains("s=128,v=96,"), "{p:?}");
                assert!(all.contains("a=T,U=1,c=64,r=24,"), "{p:?}");
            }
            ProtocolType::Iterm2 => {
                assert_eq!(graphic.size(), Size::new(64, 24));
                assert!(all.contains("width=64;height=24"), "{p:?}");
                assert!(!all.contains("px;"), "{p:?}");
            }
            _ => assert_eq!(graphic.size(), Size::new(4, 2), "sixel: 128×96 pixels"),
        }
    }
}

/// Whatever the cells and the pane, at most MAX_SIDE a side is sent, and a large frame in
/// a small pane is reduced to the pane's pixels.
#[test]
fn the_pixels_sent_are_bounded() {
    let big = Raster::filled(3000, 2000, [0, 0, 0]);
    let g = with_cell(ProtocolType::Kitty, u16::MAX, u16::MAX);
    let placed = g.placement(&big, u16::MAX, u16::MAX);
    assert!(placed.pixels.0 <= MAX_SIDE && placed.pixels.1 <= MAX_SIDE);
    assert_eq!(placed.pixels, (4096, 2730), "at most MAX_SIDE, aspect kept");
    let g = with_cell(ProtocolType::Sixel, 8, 16);
    let placed = g.placement(&big, 30, 10);
    assert_eq!(placed.pixels, (240, 160));
    assert_eq!(placed.cells, Size::new(30, 10));
    // Degenerate sizes do not divide by zero.
    let one = Raster::filled(1, 1, [0, 0, 0]);
    let placed = g.placement(&one, 0, 0);
    assert_eq!(placed.cells, Size::new(1, 1));
}
