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
    h.app.picture.depth = depth;
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
