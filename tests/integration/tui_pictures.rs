//! The picture preview (`i`) in the explorer: snapshots of an `rgb8` frame, a JPEG, a map, a
//! scan, a cloud and a bad image at 80×24 and 160×48 in the colourless form (`NO_COLOR`
//! ramp), and the true-colour cells checked against the image: the average colour of each
//! half of the drawn picture equals the average of that half of the frame.

use bagscope::bag::Bag;
use bagscope::catalog::Catalog;
use bagscope::tui::action::Action;
use bagscope::tui::model::picture::ColorDepth;
use ratatui::buffer::Buffer;
use ratatui::style::Color;

use crate::common::pictures::{IMAGE_H, IMAGE_W, TOPICS, frame_pixel, write_bag};
use crate::common::tui::{Harness, select_topic};

fn harness(dir: &std::path::Path, w: u16, h: u16, depth: ColorDepth) -> Harness {
    let path = dir.join("pictures.bag");
    write_bag(&path);
    let mut h = Harness::new(Catalog::new(vec![Bag::open(&path).unwrap()]), w, h);
    h.app.views.inspector.picture.depth = depth;
    h
}

/// Selects `topic` and, for the types not shown by default, turns the preview on.
fn show(h: &mut Harness, topic: &str) {
    select_topic(h, topic);
    if !h.app.picture_on() {
        h.act(&[Action::TogglePicture]);
    }
    assert!(h.app.picture_on(), "{topic}: {}", h.screen());
}

#[test]
fn every_preview_at_both_sizes() {
    let dir = tempfile::tempdir().unwrap();
    for (w, hh) in [(80u16, 24u16), (160, 48)] {
        let mut h = harness(dir.path(), w, hh, ColorDepth::Grey);
        for (topic, _) in TOPICS {
            show(&mut h, topic);
            let screen = h.screen();
            let want = match *topic {
                "/camera/image_raw" => "64×48 rgb8",
                "/camera/compressed" => "96×64 rgb8; jpeg compressed bgr8",
                "/map" => "40×30 cells · 0.050 m/cell",
                "/scan" => "180 beams",
                "/points" => "400 points",
                _ => "cannot draw this message:",
            };
            assert!(screen.contains(want), "{topic} {w}x{hh}:\n{screen}");
            if *topic == "/camera/broken" {
                assert!(
                    screen.contains("data holds 100 bytes, 10 rows of step 30 needs"),
                    "{screen}"
                );
            } else {
                // The picture is drawn: ramp characters other than blanks below the title.
                assert!(
                    screen.contains(['@', '%', '#', '*', '+', '=']),
                    "{topic}:\n{screen}"
                );
            }
            let name = topic.trim_start_matches('/').replace('/', "_");
            insta::assert_snapshot!(format!("picture_{name}_{w}x{hh}"), screen);
        }
    }
}

/// The cells of `buf` drawn as half-blocks, with their column.
fn half_blocks(buf: &Buffer) -> Vec<(u16, [u8; 3], [u8; 3])> {
    let area = buf.area;
    let mut out = Vec::new();
    for y in 0..area.height {
        for x in 0..area.width {
            let Some(c) = buf.cell((x, y)) else { continue };
            if let ("▀", Color::Rgb(r, g, b), Color::Rgb(r2, g2, b2)) = (c.symbol(), c.fg, c.bg) {
                out.push((x, [r, g, b], [r2, g2, b2]));
            }
        }
    }
    out
}

fn mean(colours: impl Iterator<Item = [u8; 3]>) -> [f64; 3] {
    let (mut sum, mut n) = ([0f64; 3], 0f64);
    for c in colours {
        for (s, v) in sum.iter_mut().zip(c) {
            *s += f64::from(v);
        }
        n += 1.0;
    }
    sum.map(|s| s / n.max(1.0))
}

fn close(a: [f64; 3], b: [f64; 3], tol: f64) -> bool {
    a.iter().zip(b).all(|(x, y)| (x - y).abs() <= tol)
}

#[test]
fn true_colour_halves_match_the_frame() {
    let dir = tempfile::tempdir().unwrap();
    for (w, hh) in [(80u16, 24u16), (160, 48)] {
        let mut h = harness(dir.path(), w, hh, ColorDepth::TrueColor);
        show(&mut h, "/camera/image_raw");
        let cells = half_blocks(&h.buffer());
        assert!(cells.len() > 100, "{w}x{hh}: {} cells", cells.len());
        let left = cells.iter().map(|c| c.0).min().unwrap();
        let right = cells.iter().map(|c| c.0).max().unwrap();
        let mid = (left + right).div_ceil(2);
        // The picture keeps its 4:3 aspect (cells are one pixel wide, two high).
        let cols = f64::from(right - left + 1);
        let rows = cells.len() as f64 / cols;
        let aspect = cols / (rows * 2.0);
        assert!(
            (aspect - 4.0 / 3.0).abs() < 0.1,
            "{w}x{hh}: aspect {aspect}"
        );
        for (half, keep) in [("left", true), ("right", false)] {
            let drawn = mean(
                cells
                    .iter()
                    .filter(|c| (c.0 < mid) == keep)
                    .flat_map(|c| [c.1, c.2]),
            );
            let source = mean(
                (0..IMAGE_H)
                    .flat_map(|y| (0..IMAGE_W).map(move |x| (x, y)))
                    .filter(|&(x, _)| (x < IMAGE_W / 2) == keep)
                    .map(|(x, y)| frame_pixel(x, y)),
            );
            assert!(
                close(drawn, source, 6.0),
                "{w}x{hh} {half}: drawn {drawn:?}, frame {source:?}"
            );
        }
    }
}

#[test]
fn palette_colours_are_from_the_cube() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = harness(dir.path(), 80, 24, ColorDepth::Palette);
    show(&mut h, "/camera/compressed");
    let buf = h.buffer();
    let indexed: Vec<u8> = buf
        .content
        .iter()
        .filter(|c| c.symbol() == "▀")
        .filter_map(|c| match c.fg {
            Color::Indexed(i) => Some(i),
            _ => None,
        })
        .collect();
    assert!(indexed.len() > 100, "{}", indexed.len());
    // Yellow (226), green and white (231) quadrants all appear.
    assert!(indexed.contains(&231), "{indexed:?}");
    assert!(indexed.iter().any(|&i| i == 226 || i == 220), "{indexed:?}");
}

/// The `▀` cells of a `capture-pane -e` screen below row `from` drawn with 24-bit colours:
/// (column, foreground, background).
fn escaped_half_blocks(screen: &str, from: usize) -> Vec<(usize, [u8; 3], [u8; 3])> {
    let mut out = Vec::new();
    for line in screen.lines().skip(from) {
        let (mut fg, mut bg) = (None, None);
        let mut col = 0;
        let mut chars = line.chars();
        while let Some(c) = chars.next() {
            if c != '\u{1b}' {
                if let ('▀', Some(f), Some(b)) = (c, fg, bg) {
                    out.push((col, f, b));
                }
                col += 1;
                continue;
            }
            // CSI: `[`, parameters, a final letter; only SGR (`m`) changes colours.
            let _ = chars.next();
            let params: String = chars
                .by_ref()
                .take_while(|c| !c.is_ascii_alphabetic())
                .collect();
            let nums: Vec<u32> = params.split(';').map(|p| p.parse().unwrap_or(0)).collect();
            let mut i = 0;
            while let Some(&n) = nums.get(i) {
                let rgb = || -> Option<[u8; 3]> {
                    let v = nums.get(i + 2..i + 5)?;
                    Some([v[0], v[1], v[2]].map(|x| u8::try_from(x).unwrap_or(0)))
                };
                match n {
                    38 | 48 if nums.get(i + 1) == Some(&2) => {
                        if n == 38 {
                            fg = rgb();
                        } else {
                            bg = rgb();
                        }
                        i += 5;
                        continue;
                    }
                    0 => (fg, bg) = (None, None),
                    39 | 30..=37 | 90..=97 => fg = None,
                    49 | 40..=47 | 100..=107 => bg = None,
                    _ => {}
                }
                i += 1;
            }
        }
    }
    out
}

#[test]
fn tmux_shows_the_frame_in_true_colour() {
    if !crate::common::tmux::have_tmux() {
        crate::common::skip("tmux is not installed");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let bag = dir.path().join("pictures.bag");
    write_bag(&bag);
    let cmd = format!(
        "env -u NO_COLOR COLORTERM=truecolor {} {}; sleep 30",
        env!("CARGO_BIN_EXE_bagscope"),
        bag.display()
    );
    let s = crate::common::tmux::Session::start("picture", 160, 48, &cmd);
    s.wait("the topic list", |t| t.contains("/camera/image_raw"));
    s.keys(&["/", "i", "m", "a", "g", "e", "_", "r", "a", "w"]);
    s.wait("the filter", |t| {
        t.contains("Topics 1/") || t.contains("· 1/6")
    });
    s.keys(&["Enter"]);
    s.wait("the picture", |t| t.contains("64×48 rgb8"));
    let screen = s.screen_escapes();
    let title = screen
        .lines()
        .position(|l| l.contains("64×48 rgb8"))
        .unwrap();
    let cells = escaped_half_blocks(&screen, title + 1);
    // 64 columns × 24 rows of cells: the frame at its own size.
    assert_eq!(cells.len(), 64 * 24, "{screen}");
    let left = cells.iter().map(|c| c.0).min().unwrap();
    let mid = left + 32;
    for keep in [true, false] {
        let drawn = mean(
            cells
                .iter()
                .filter(|c| (c.0 < mid) == keep)
                .flat_map(|c| [c.1, c.2]),
        );
        let source = mean(
            (0..IMAGE_H)
                .flat_map(|y| (0..IMAGE_W).map(move |x| (x, y)))
                .filter(|&(x, _)| (x < IMAGE_W / 2) == keep)
                .map(|(x, y)| frame_pixel(x, y)),
        );
        assert!(
            close(drawn, source, 2.0),
            "left half {keep}: drawn {drawn:?}, frame {source:?}"
        );
    }
    // The halves differ: red on the left, blue on the right.
    let red = cells.iter().filter(|c| c.0 < mid).all(|c| c.1[0] > c.1[2]);
    let blue = cells.iter().filter(|c| c.0 >= mid).all(|c| c.1[2] > c.1[0]);
    assert!(red && blue, "{screen}");
    s.keys(&["q"]);
}
