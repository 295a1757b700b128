//! The picture preview's worker time: a message decoded, drawn as a picture scaled to a
//! 160×48 terminal (160 × 96 pixels: half-blocks hold two pixels a cell) and put into a
//! ratatui buffer as true-colour half-blocks — for a 640×480 `rgb8` `Image` (target < 10 ms)
//! and a 1920×1080 JPEG `CompressedImage` (target < 40 ms).
//!
//! `cargo bench --bench picture` (release build). Payloads are made in process. For each case:
//! the median and minimum wall time of one frame, and the user CPU time per frame over the
//! whole loop (`utime` of `/proc/self/stat`, so other processes' load does not count).
//! Environment: `BENCH_MS` (time per case, default 2000).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::cast_precision_loss,
    clippy::cast_possible_truncation,
    clippy::indexing_slicing
)]

use std::hint::black_box;
use std::time::{Duration, Instant};

use bagscope::msg::{Registry, Schema, decode};
use bagscope::picture::{self, Fit};
use bagscope::tui::model::picture::ColorDepth;
use bagscope::tui::view::halfblock;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

fn string(out: &mut Vec<u8>, s: &str) {
    out.extend(u32::try_from(s.len()).unwrap().to_le_bytes());
    out.extend(s.as_bytes());
}

fn header(out: &mut Vec<u8>) {
    out.extend([0u8; 12]);
    string(out, "camera");
}

/// A smooth colourful frame with some detail (the JPEG is not trivially small).
fn pixels(w: u32, h: u32) -> Vec<u8> {
    let mut v = Vec::with_capacity((w * h * 3) as usize);
    for y in 0..h {
        for x in 0..w {
            let n = (x ^ y).wrapping_mul(2_654_435_761) >> 29;
            v.extend([
                (x * 255 / w) as u8,
                (y * 255 / h) as u8,
                ((x + y) % 256) as u8 ^ n as u8,
            ]);
        }
    }
    v
}

fn rgb8_image(w: u32, h: u32) -> Vec<u8> {
    let mut p = Vec::new();
    header(&mut p);
    p.extend(h.to_le_bytes());
    p.extend(w.to_le_bytes());
    string(&mut p, "rgb8");
    p.push(0);
    p.extend((w * 3).to_le_bytes());
    let data = pixels(w, h);
    p.extend(u32::try_from(data.len()).unwrap().to_le_bytes());
    p.extend(data);
    p
}

fn jpeg_image(w: u32, h: u32) -> Vec<u8> {
    let mut jpeg = Vec::new();
    image::codecs::jpeg::JpegEncoder::new_with_quality(&mut jpeg, 90)
        .encode(&pixels(w, h), w, h, image::ExtendedColorType::Rgb8)
        .unwrap();
    let mut p = Vec::new();
    header(&mut p);
    string(&mut p, "jpeg");
    p.extend(u32::try_from(jpeg.len()).unwrap().to_le_bytes());
    p.extend(jpeg);
    p
}

/// User CPU time of this process so far (`/proc/self/stat`, clock ticks of 10 ms).
fn user_cpu() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let rest = stat.rsplit_once(')')?.1;
    let utime: u64 = rest.split_whitespace().nth(11)?.parse().ok()?;
    Some(Duration::from_millis(utime * 10))
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn run(name: &str, datatype: &str, payload: &[u8], target_ms: f64, budget: Duration) {
    let schema = Schema::from_registry(datatype, None, &Registry::bundled()).unwrap();
    let area = Rect::new(0, 0, 160, 48);
    let fit = Fit::new(160, 96);
    let frame = |buf: &mut Buffer| {
        let msg = decode(&schema, payload).unwrap();
        let pic = picture::decode(datatype, msg.root(), fit).unwrap();
        halfblock::draw(&pic.raster, ColorDepth::TrueColor, area, buf);
        pic.raster.width
    };
    let mut buf = Buffer::empty(area);
    let drawn = frame(&mut buf);
    let mut times = Vec::new();
    let cpu0 = user_cpu();
    let start = Instant::now();
    while start.elapsed() < budget || times.len() < 5 {
        let t = Instant::now();
        black_box(frame(&mut buf));
        times.push(t.elapsed());
    }
    let cpu = user_cpu().zip(cpu0).map(|(b, a)| b.saturating_sub(a));
    times.sort();
    let median = times[times.len() / 2];
    let cpu_per = cpu.map_or_else(
        || "?".to_string(),
        |c| format!("{:.2}", ms(c) / times.len() as f64),
    );
    println!(
        "{name}: {} frames, {:.2} ms median wall, {:.2} ms min, {cpu_per} ms user CPU per frame \
         (target {target_ms} ms; drawn {drawn} px wide; payload {} KB)",
        times.len(),
        ms(median),
        ms(times[0]),
        payload.len() / 1000
    );
}

fn main() {
    let budget = Duration::from_millis(
        std::env::var("BENCH_MS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(2000),
    );
    run(
        "640x480 rgb8 Image",
        "sensor_msgs/Image",
        &rgb8_image(640, 480),
        10.0,
        budget,
    );
    run(
        "1920x1080 JPEG CompressedImage",
        "sensor_msgs/CompressedImage",
        &jpeg_image(1920, 1080),
        40.0,
        budget,
    );
}
