//! A small bag of pictures written with bagscope's own writer: a camera frame (`rgb8`, a red
//! left half and a blue right half, darker towards the bottom), a JPEG `CompressedImage`, an
//! occupancy grid, a laser scan, a `PointCloud2` and an `Image` whose data is too short.
//! Definitions and md5sums come from the bundled `.msg` files.

use std::path::Path;

use bagscope::format::ConnectionHeader;
use bagscope::msg::{Registry, Schema};
use bagscope::time::RosTime;

use super::synth::plain_writer;

/// Width and height of the `rgb8` frame.
pub const IMAGE_W: u32 = 64;
/// Height of the `rgb8` frame.
pub const IMAGE_H: u32 = 48;

/// The topics of [`write_bag`], with their types.
pub const TOPICS: &[(&str, &str)] = &[
    ("/camera/image_raw", "sensor_msgs/Image"),
    ("/camera/compressed", "sensor_msgs/CompressedImage"),
    ("/map", "nav_msgs/OccupancyGrid"),
    ("/scan", "sensor_msgs/LaserScan"),
    ("/points", "sensor_msgs/PointCloud2"),
    ("/camera/broken", "sensor_msgs/Image"),
];

/// The `rgb8` frame's pixel at (`x`, `y`): red on the left half, blue on the right, darker
/// towards the bottom.
pub fn frame_pixel(x: u32, y: u32) -> [u8; 3] {
    let base: [u32; 3] = if x < IMAGE_W / 2 {
        [230, 40, 30]
    } else {
        [30, 70, 230]
    };
    let shade = 255 - y * 160 / IMAGE_H;
    base.map(|c| u8::try_from(c * shade / 255).unwrap())
}

fn header(topic: &str, datatype: &str) -> ConnectionHeader {
    let s = Schema::from_registry(datatype, None, &Registry::bundled()).unwrap();
    ConnectionHeader::build(
        topic,
        datatype,
        s.md5sum(),
        &s.full_text(),
        Some("/camera_node"),
        Some("0"),
    )
}

fn string(out: &mut Vec<u8>, s: &str) {
    out.extend(u32::try_from(s.len()).unwrap().to_le_bytes());
    out.extend(s.as_bytes());
}

fn std_header(out: &mut Vec<u8>, frame: &str) {
    out.extend([0u8; 12]);
    string(out, frame);
}

fn image(w: u32, h: u32, enc: &str, step: u32, data: &[u8]) -> Vec<u8> {
    let mut p = Vec::new();
    std_header(&mut p, "camera");
    p.extend(h.to_le_bytes());
    p.extend(w.to_le_bytes());
    string(&mut p, enc);
    p.push(0);
    p.extend(step.to_le_bytes());
    p.extend(u32::try_from(data.len()).unwrap().to_le_bytes());
    p.extend(data);
    p
}

/// The `rgb8` frame as a `sensor_msgs/Image` payload (rows padded to a step of `3w + 4`).
pub fn rgb8_frame(w: u32, h: u32, pixel: impl Fn(u32, u32) -> [u8; 3]) -> Vec<u8> {
    let step = w * 3 + 4;
    let mut data = Vec::new();
    for y in 0..h {
        for x in 0..w {
            data.extend(pixel(x, y));
        }
        data.extend([0u8; 4]);
    }
    image(w, h, "rgb8", step, &data)
}

/// A `CompressedImage` of a JPEG: four quadrants (yellow, green / magenta, white).
fn jpeg_frame() -> Vec<u8> {
    let (w, h) = (96u32, 64u32);
    let rgb: Vec<u8> = (0..h)
        .flat_map(|y| {
            (0..w).flat_map(move |x| match (x < w / 2, y < h / 2) {
                (true, true) => [240u8, 220, 20],
                (false, true) => [20, 200, 60],
                (true, false) => [220, 30, 200],
                (false, false) => [250, 250, 250],
            })
        })
        .collect();
    let mut jpeg = Vec::new();
    image::codecs::jpeg::JpegEncoder::new_with_quality(&mut jpeg, 90)
        .encode(&rgb, w, h, image::ExtendedColorType::Rgb8)
        .unwrap();
    let mut p = Vec::new();
    std_header(&mut p, "camera");
    string(&mut p, "rgb8; jpeg compressed bgr8");
    p.extend(u32::try_from(jpeg.len()).unwrap().to_le_bytes());
    p.extend(jpeg);
    p
}

/// A 40×30 map: a walled room (occupied), free inside, unknown outside, a pillar.
fn grid() -> Vec<u8> {
    let (w, h) = (40u32, 30u32);
    let mut p = Vec::new();
    std_header(&mut p, "map");
    p.extend([0u8; 8]);
    p.extend(0.05f32.to_le_bytes());
    p.extend(w.to_le_bytes());
    p.extend(h.to_le_bytes());
    for v in [-1.0f64, -0.75, 0.0, 0.0, 0.0, 0.0, 1.0] {
        p.extend(v.to_le_bytes());
    }
    p.extend((w * h).to_le_bytes());
    for y in 0..h {
        for x in 0..w {
            let inside = (4..36).contains(&x) && (3..27).contains(&y);
            let wall = inside && (x == 4 || x == 35 || y == 3 || y == 26);
            let pillar = (18..22).contains(&x) && (12..16).contains(&y);
            p.push(match (inside, wall || pillar) {
                (_, true) => 100u8,
                (true, false) => 0,
                (false, false) => 0xff,
            });
        }
    }
    p
}

/// 180 beams over a half circle, ranges tracing a 4 m × 3 m room; a few out of range.
fn scan() -> Vec<u8> {
    let n = 180u32;
    let (min, max) = (-std::f32::consts::FRAC_PI_2, std::f32::consts::FRAC_PI_2);
    let inc = (max - min) / (n - 1) as f32;
    let mut p = Vec::new();
    std_header(&mut p, "laser");
    for v in [min, max, inc, 0.0, 0.1, 0.1, 10.0] {
        p.extend(v.to_le_bytes());
    }
    p.extend(n.to_le_bytes());
    for i in 0..n {
        let a = min + inc * i as f32;
        let (c, s) = (a.cos().abs().max(1e-6), a.sin().abs().max(1e-6));
        let r = if i % 45 == 7 {
            f32::INFINITY
        } else {
            (4.0 / c).min(1.5 / s)
        };
        p.extend(r.to_le_bytes());
    }
    p.extend(0u32.to_le_bytes());
    p
}

/// A cloud of 400 points on a tilted plane (x, y, z, intensity as float32), one NaN.
fn cloud() -> Vec<u8> {
    let fields = [("x", 0u32), ("y", 4), ("z", 8), ("intensity", 12)];
    let n = 400u32;
    let mut p = Vec::new();
    std_header(&mut p, "lidar");
    p.extend(1u32.to_le_bytes());
    p.extend(n.to_le_bytes());
    p.extend(u32::try_from(fields.len()).unwrap().to_le_bytes());
    for (name, offset) in fields {
        string(&mut p, name);
        p.extend(offset.to_le_bytes());
        p.push(7);
        p.extend(1u32.to_le_bytes());
    }
    p.push(0);
    p.extend(16u32.to_le_bytes());
    p.extend((16 * n).to_le_bytes());
    let mut data = Vec::new();
    for i in 0..n {
        let (x, y) = ((i % 20) as f32 * 0.2, (i / 20) as f32 * 0.2 - 2.0);
        let z = if i == 210 {
            f32::NAN
        } else {
            0.5 * x - 0.25 * y
        };
        for v in [x, y, z, 1.0] {
            data.extend(v.to_le_bytes());
        }
    }
    p.extend(u32::try_from(data.len()).unwrap().to_le_bytes());
    p.extend(data);
    p.push(1);
    p
}

/// Writes the bag of pictures to `path` (one message a topic, a second apart from t = 100).
pub fn write_bag(path: &Path) {
    let mut w = plain_writer(path);
    let bad = {
        let step = 10 * 3;
        image(10, 10, "rgb8", step, &[7u8; 100])
    };
    let payloads = [
        rgb8_frame(IMAGE_W, IMAGE_H, frame_pixel),
        jpeg_frame(),
        grid(),
        scan(),
        cloud(),
        bad,
    ];
    for (i, ((topic, datatype), payload)) in TOPICS.iter().zip(payloads).enumerate() {
        let c = w.add_connection(topic, &header(topic, datatype)).unwrap();
        let t = RosTime::new(100 + u32::try_from(i).unwrap(), 0);
        w.write(c, t, &payload).unwrap();
    }
    w.finish().unwrap();
}
