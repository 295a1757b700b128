//! Pictures from hand-built payloads: every encoding, scaling, and bad input giving a reason.

use std::sync::Arc;

use super::*;
use crate::msg::{Registry, Schema};

fn schema(datatype: &str) -> Arc<Schema> {
    Schema::from_registry(datatype, None, &Registry::bundled()).unwrap()
}

fn string(out: &mut Vec<u8>, s: &str) {
    out.extend(u32::try_from(s.len()).unwrap().to_le_bytes());
    out.extend(s.as_bytes());
}

fn header(out: &mut Vec<u8>) {
    out.extend([0u8; 12]);
    string(out, "cam");
}

/// An `Image` payload.
fn image(w: u32, h: u32, enc: &str, big: bool, step: u32, data: &[u8]) -> Vec<u8> {
    let mut p = Vec::new();
    header(&mut p);
    p.extend(h.to_le_bytes());
    p.extend(w.to_le_bytes());
    string(&mut p, enc);
    p.push(u8::from(big));
    p.extend(step.to_le_bytes());
    p.extend(u32::try_from(data.len()).unwrap().to_le_bytes());
    p.extend(data);
    p
}

fn picture(datatype: &str, payload: &[u8], fit: Fit) -> Result<Picture, PictureError> {
    let s = schema(datatype);
    let d = crate::msg::decode(&s, payload).unwrap();
    decode(datatype, d.root(), fit)
}

fn img(payload: &[u8], fit: Fit) -> Result<Picture, PictureError> {
    picture("sensor_msgs/Image", payload, fit)
}

#[test]
fn colour_encodings_put_channels_in_place() {
    let px = [10u8, 20, 30, 255];
    for (enc, bytes, want) in [
        ("rgb8", &px[..3], [10, 20, 30]),
        ("bgr8", &px[..3], [30, 20, 10]),
        ("8UC3", &px[..3], [30, 20, 10]),
        ("rgba8", &px[..], [10, 20, 30]),
        ("bgra8", &px[..], [30, 20, 10]),
        ("mono8", &px[..1], [10, 10, 10]),
        ("8UC1", &px[..1], [10, 10, 10]),
    ] {
        // Two pixels per row, one row of padding bytes after each (step honoured).
        let step = u32::try_from(bytes.len() * 2 + 3).unwrap();
        let mut data = Vec::new();
        for _ in 0..2 {
            data.extend(bytes);
            data.extend(bytes);
            data.extend([99, 99, 99]);
        }
        let p = img(&image(2, 2, enc, false, step, &data), Fit::FULL).unwrap();
        assert_eq!((p.raster.width, p.raster.height), (2, 2), "{enc}");
        for (x, y) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
            assert_eq!(p.raster.get(x, y), want, "{enc} at {x},{y}");
        }
        assert!(p.title.starts_with(&format!("2×2 {enc}")), "{}", p.title);
    }
}

#[test]
fn sixteen_bit_honours_byte_order_and_reports_the_range() {
    let values = [100u16, 200, 0, 300];
    for big in [false, true] {
        let data: Vec<u8> = values
            .iter()
            .flat_map(|v| {
                if big {
                    v.to_be_bytes()
                } else {
                    v.to_le_bytes()
                }
            })
            .collect();
        let p = img(&image(2, 2, "16UC1", big, 4, &data), Fit::FULL).unwrap();
        assert!(p.title.ends_with("range 100 – 300"), "{}", p.title);
        assert_eq!(p.raster.get(0, 1), [0, 0, 0], "zero is no reading");
        assert_eq!(p.raster.get(0, 0), colormap::turbo(0.0));
        assert_eq!(p.raster.get(1, 1), colormap::turbo(1.0));
        let m = img(&image(2, 2, "mono16", big, 4, &data), Fit::FULL).unwrap();
        assert_eq!(m.raster.get(0, 0), [0, 0, 0]);
        assert_eq!(m.raster.get(1, 1), [255, 255, 255]);
        assert_eq!(m.raster.get(1, 0), [128, 128, 128]);
    }
}

#[test]
fn float_depth_skips_nan_and_zero() {
    let values = [0.5f32, f32::NAN, 0.0, 2.5];
    let data: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    let p = img(&image(2, 2, "32FC1", false, 8, &data), Fit::FULL).unwrap();
    assert!(p.title.ends_with("range 0.500 – 2.500"), "{}", p.title);
    assert_eq!(p.raster.get(1, 0), [0, 0, 0]);
    assert_eq!(p.raster.get(0, 1), [0, 0, 0]);
    assert_eq!(p.raster.get(1, 1), colormap::turbo(1.0));
}

#[test]
fn bayer_patterns_demosaic_by_blocks() {
    // One 2×2 block holding R=200, G=100/110, B=50 in each pattern's places.
    for (enc, block) in [
        ("bayer_rggb8", [200, 100, 110, 50]),
        ("bayer_bggr8", [50, 100, 110, 200]),
        ("bayer_gbrg8", [100, 50, 200, 110]),
        ("bayer_grbg8", [100, 200, 50, 110]),
    ] {
        let p = img(&image(2, 2, enc, false, 2, &block), Fit::FULL).unwrap();
        for (x, y) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
            assert_eq!(p.raster.get(x, y), [200, 105, 50], "{enc}");
        }
    }
    // Odd sizes take the block before.
    let p = img(
        &image(
            3,
            3,
            "bayer_rggb8",
            false,
            3,
            &[200, 100, 7, 110, 50, 7, 7, 7, 7],
        ),
        Fit::FULL,
    )
    .unwrap();
    assert_eq!(p.raster.get(2, 2), [200, 105, 50]);
}

#[test]
fn scaling_averages_areas_and_keeps_the_aspect() {
    // 4×2 rgb8: left half black, right half white; fit into 2×2 → 2×1.
    let mut data = Vec::new();
    for _ in 0..2 {
        data.extend([0u8; 6]);
        data.extend([255u8; 6]);
    }
    let p = img(&image(4, 2, "rgb8", false, 12, &data), Fit::new(2, 2)).unwrap();
    assert_eq!((p.raster.width, p.raster.height), (2, 1));
    assert_eq!(p.raster.get(0, 0), [0, 0, 0]);
    assert_eq!(p.raster.get(1, 0), [255, 255, 255]);
    let p = img(&image(4, 2, "rgb8", false, 12, &data), Fit::new(1, 10)).unwrap();
    assert_eq!((p.raster.width, p.raster.height), (1, 1));
    assert_eq!(p.raster.get(0, 0), [128, 128, 128]);
    assert_eq!(Fit::new(160, 96).scaled(640, 480), (128, 96));
    assert_eq!(
        Fit::new(160, 96).scaled(100, 50),
        (100, 50),
        "never enlarged"
    );
}

#[test]
fn bad_images_give_one_line_reasons() {
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (
            image(2, 2, "rgb8", false, 6, &[0; 11]),
            "data holds 11 bytes, 2 rows of step 6 needs 12",
        ),
        (
            image(2, 2, "rgb8", false, 5, &[0; 12]),
            "step 5 is less than a row of 2 pixels × 3 bytes",
        ),
        (
            image(2, 2, "yuv422_weird", false, 4, &[0; 8]),
            "unknown encoding \"yuv422_weird\"",
        ),
        (image(0, 2, "mono8", false, 0, &[]), "empty picture (0×2)"),
        (
            image(100_000, 100_000, "mono8", false, 100_000, &[0; 10]),
            "100000×100000 is more than the 67108864 pixels bagscope decodes",
        ),
        (
            image(2, 2, "mono8", false, u32::MAX, &[0; 4]),
            "data holds 4 bytes",
        ),
    ];
    for (payload, want) in cases {
        let e = img(&payload, Fit::FULL).unwrap_err().to_string();
        assert!(e.starts_with(want), "{e:?} vs {want:?}");
        assert!(!e.contains('\n'));
    }
    let e = picture("std_msgs/String", &[0, 0, 0, 0], Fit::FULL).unwrap_err();
    assert_eq!(e.to_string(), "std_msgs/String is not a picture type");
}

fn compressed(format: &str, data: &[u8]) -> Vec<u8> {
    let mut p = Vec::new();
    header(&mut p);
    string(&mut p, format);
    p.extend(u32::try_from(data.len()).unwrap().to_le_bytes());
    p.extend(data);
    p
}

fn png_of(w: u32, h: u32, rgb: &[u8]) -> Vec<u8> {
    use image::ImageEncoder;
    let mut out = Vec::new();
    image::codecs::png::PngEncoder::new(&mut out)
        .write_image(rgb, w, h, image::ExtendedColorType::Rgb8)
        .unwrap();
    out
}

#[test]
#[allow(clippy::many_single_char_names)]
fn compressed_png_and_jpeg_decode_and_corrupt_bytes_give_a_reason() {
    let rgb: Vec<u8> = (0..4 * 4).flat_map(|_| [200u8, 10, 10]).collect();
    let png = png_of(4, 4, &rgb);
    let p = picture(
        "sensor_msgs/CompressedImage",
        &compressed("png", &png),
        Fit::FULL,
    )
    .unwrap();
    assert_eq!(p.raster.get(3, 3), [200, 10, 10]);
    assert_eq!(p.title, "4×4 png");
    let mut jpeg = Vec::new();
    image::codecs::jpeg::JpegEncoder::new_with_quality(&mut jpeg, 95)
        .encode(&rgb, 4, 4, image::ExtendedColorType::Rgb8)
        .unwrap();
    let p = picture(
        "sensor_msgs/CompressedImage",
        &compressed("rgb8; jpeg compressed bgr8", &jpeg),
        Fit::FULL,
    )
    .unwrap();
    let [r, g, b] = p.raster.get(1, 1);
    assert!(r > 180 && g < 40 && b < 40, "{:?}", [r, g, b]);
    let cut = jpeg.get(..jpeg.len() / 2).unwrap();
    let e = picture(
        "sensor_msgs/CompressedImage",
        &compressed("jpeg", cut),
        Fit::FULL,
    )
    .unwrap_err();
    assert!(e.to_string().starts_with("cannot decode jpeg: "), "{e}");
    let e = picture(
        "sensor_msgs/CompressedImage",
        &compressed("jpeg", b"hello"),
        Fit::FULL,
    )
    .unwrap_err();
    assert_eq!(e.to_string(), "cannot decode jpeg: neither JPEG nor PNG");
}

#[test]
fn occupancy_grid_is_flipped_with_origin_in_the_title() {
    let mut p = Vec::new();
    header(&mut p);
    p.extend([0u8; 8]); // map_load_time
    p.extend(0.05f32.to_le_bytes());
    p.extend(2u32.to_le_bytes()); // width
    p.extend(2u32.to_le_bytes()); // height
    for v in [-10.0f64, 5.0, 0.0, 0.0, 0.0, 0.0, 1.0] {
        p.extend(v.to_le_bytes());
    }
    p.extend(4u32.to_le_bytes());
    p.extend([0u8, 100, 0xff, 50]); // row 0: free, occupied; row 1: unknown, 50
    let pic = picture("nav_msgs/OccupancyGrid", &p, Fit::FULL).unwrap();
    assert_eq!(pic.title, "2×2 cells · 0.050 m/cell · origin (-10, 5)");
    assert_eq!(pic.raster.get(0, 1), [255; 3], "row 0 at the bottom");
    assert_eq!(pic.raster.get(1, 1), [0; 3]);
    assert_eq!(pic.raster.get(0, 0), [128; 3]);
    assert_eq!(pic.raster.get(1, 0), [128; 3]);
    assert_eq!(pic.summary, ["3 known cells, 2 occupied (≥ 50), 1 unknown"]);
}

#[test]
fn laser_scan_is_seen_from_above() {
    let mut p = Vec::new();
    header(&mut p);
    for v in [
        0.0f32,
        std::f32::consts::FRAC_PI_2,
        std::f32::consts::FRAC_PI_2,
        0.0,
        0.0,
        0.1,
        10.0,
    ] {
        p.extend(v.to_le_bytes());
    }
    p.extend(3u32.to_le_bytes());
    for r in [2.0f32, 2.0, f32::INFINITY] {
        p.extend(r.to_le_bytes());
    }
    p.extend(0u32.to_le_bytes());
    let pic = picture("sensor_msgs/LaserScan", &p, Fit::new(21, 21)).unwrap();
    assert_eq!(pic.title, "3 beams, 2 in range 0.100 – 10 m");
    let r = &pic.raster;
    assert_eq!((r.width, r.height), (21, 21));
    // Points at (2, 0) (ahead: up) and (0, 2) (left: left); the sensor at (0, 0).
    let find = |c: [u8; 3]| {
        (0..21)
            .flat_map(|y| (0..21).map(move |x| (x, y)))
            .filter(|&(x, y)| r.get(x, y) == c)
            .collect::<Vec<_>>()
    };
    let origin = find(scatter_colors().1);
    let points = find(scatter_colors().0);
    assert_eq!(origin.len(), 1);
    assert_eq!(points.len(), 2);
    let (ox, oy) = origin[0];
    assert!(
        points.iter().any(|&(x, y)| x == ox && y < oy),
        "{points:?} {origin:?}"
    );
    assert!(
        points.iter().any(|&(x, y)| x < ox && y == oy),
        "{points:?} {origin:?}"
    );
}

fn scatter_colors() -> ([u8; 3], [u8; 3]) {
    ([80, 255, 80], [255, 110, 110])
}

fn cloud2(points: &[[f32; 3]], point_step: u32, fields: &[(&str, u32, u8)]) -> Vec<u8> {
    let mut p = Vec::new();
    header(&mut p);
    p.extend(1u32.to_le_bytes()); // height
    p.extend(u32::try_from(points.len()).unwrap().to_le_bytes());
    p.extend(u32::try_from(fields.len()).unwrap().to_le_bytes());
    for (name, offset, dt) in fields {
        string(&mut p, name);
        p.extend(offset.to_le_bytes());
        p.push(*dt);
        p.extend(1u32.to_le_bytes());
    }
    p.push(0);
    p.extend(point_step.to_le_bytes());
    p.extend((point_step * u32::try_from(points.len()).unwrap()).to_le_bytes());
    let mut data = Vec::new();
    for pt in points {
        for v in pt {
            data.extend(v.to_le_bytes());
        }
        data.extend(vec![0u8; point_step as usize - 12]);
    }
    p.extend(u32::try_from(data.len()).unwrap().to_le_bytes());
    p.extend(data);
    p.push(1);
    p
}

#[test]
fn point_cloud2_summary_and_colours_by_z() {
    let pts = [[1.0, 0.0, -1.0], [0.0, 1.0, 3.0], [f32::NAN, 0.0, 0.0]];
    let xyz = [("x", 0, 7), ("y", 4, 7), ("z", 8, 7), ("intensity", 12, 7)];
    let pic = picture(
        "sensor_msgs/PointCloud2",
        &cloud2(&pts, 16, &xyz),
        Fit::new(40, 40),
    )
    .unwrap();
    assert_eq!(pic.title, "3 points (3×1) · z -1.000 – 3.000");
    assert_eq!(
        pic.summary,
        [
            "3 points, fields x y z intensity",
            "x 0.000 – 1.000  y 0.000 – 1.000  z -1.000 – 3.000",
            "1 with NaN coordinates",
            "white: the origin, its x axis (up) and y axis (left), 0.2 m each"
        ]
    );
    let r = &pic.raster;
    let colours: Vec<[u8; 3]> = (0..40)
        .flat_map(|y| (0..40).map(move |x| r.get(x, y)))
        .filter(|c| *c != [0; 3])
        .collect();
    assert!(
        colours.contains(&colormap::turbo(0.0)) && colours.contains(&colormap::turbo(1.0)),
        "{colours:?}"
    );
    // The origin (the bottom-right corner: x up, y left) and the axes, in white: the x axis
    // goes up from it, the y axis left.
    let white = |x: u32, y: u32| r.get(x, y) == [255; 3];
    let origin = (0..40)
        .flat_map(|y| (0..40).map(move |x| (x, y)))
        .filter(|&(x, y)| {
            white(x, y) && white(x, y.saturating_sub(3)) && white(x.saturating_sub(3), y)
        })
        .max_by_key(|&(x, y)| x + y)
        .expect("a white origin with both axes");
    assert!(origin.0 > 30 && origin.1 > 30, "{origin:?}");
    // Far from the origin: not drawn, and said so.
    let far = [[100.0, 100.0, 0.0], [101.0, 101.0, 1.0]];
    let pic = picture(
        "sensor_msgs/PointCloud2",
        &cloud2(&far, 16, &xyz),
        Fit::new(40, 40),
    )
    .unwrap();
    assert_eq!(
        pic.summary.last().unwrap(),
        "the origin is far from the points: not drawn"
    );
    let r = &pic.raster;
    assert!((0..40).all(|y| (0..40).all(|x| r.get(x, y) != [255; 3])));
    // A field past the end of a point, no x/y, too short data.
    let e = picture(
        "sensor_msgs/PointCloud2",
        &cloud2(&pts, 12, &xyz),
        Fit::FULL,
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "cloud: field intensity does not fit a point of 12 bytes"
    );
    let e = picture(
        "sensor_msgs/PointCloud2",
        &cloud2(&pts, 12, &[("z", 8, 7)]),
        Fit::FULL,
    )
    .unwrap_err();
    assert_eq!(e.to_string(), "cloud: no x and y fields");
}

#[test]
fn old_point_cloud_is_drawn_too() {
    let mut p = Vec::new();
    header(&mut p);
    p.extend(2u32.to_le_bytes());
    for v in [1.0f32, 2.0, 3.0, -1.0, -2.0, -3.0] {
        p.extend(v.to_le_bytes());
    }
    p.extend(1u32.to_le_bytes());
    string(&mut p, "rgb");
    p.extend(2u32.to_le_bytes());
    p.extend([0u8; 8]);
    let pic = picture("sensor_msgs/PointCloud", &p, Fit::new(10, 10)).unwrap();
    assert_eq!(pic.summary[0], "2 points, fields x y z rgb");
    assert_eq!(
        pic.summary[1],
        "x -1.000 – 1.000  y -2.000 – 2.000  z -3.000 – 3.000"
    );
}

#[test]
fn export_png_keeps_the_data() {
    let data: Vec<u8> = [1000u16, 2000, 3000, 65535]
        .iter()
        .flat_map(|v| v.to_be_bytes())
        .collect();
    let s = schema("sensor_msgs/Image");
    let payload = image(2, 2, "16UC1", true, 4, &data);
    let d = crate::msg::decode(&s, &payload).unwrap();
    let f = png::frame("sensor_msgs/Image", d.root()).unwrap();
    assert_eq!(f.extension, "png");
    let back = image::load_from_memory(&f.bytes).unwrap().into_luma16();
    assert_eq!(back.into_raw(), [1000, 2000, 3000, 65535]);
    let payload = image(1, 1, "bgr8", false, 3, &[1, 2, 3]);
    let d = crate::msg::decode(&s, &payload).unwrap();
    let f = png::frame("sensor_msgs/Image", d.root()).unwrap();
    let back = image::load_from_memory(&f.bytes).unwrap().into_rgb8();
    assert_eq!(back.into_raw(), [3, 2, 1]);
}

/// A `PointCloud2` of `width` × `height` points (x, y, z as f32, `point_step` 16), rows
/// `row_step` apart, with `data`.
fn cloud2_sized(width: u32, height: u32, row_step: u32, data: &[u8]) -> Vec<u8> {
    let mut p = Vec::new();
    header(&mut p);
    p.extend(height.to_le_bytes());
    p.extend(width.to_le_bytes());
    p.extend(3u32.to_le_bytes());
    for (name, offset) in [("x", 0u32), ("y", 4), ("z", 8)] {
        string(&mut p, name);
        p.extend(offset.to_le_bytes());
        p.push(7);
        p.extend(1u32.to_le_bytes());
    }
    p.push(0);
    p.extend(16u32.to_le_bytes());
    p.extend(row_step.to_le_bytes());
    p.extend(u32::try_from(data.len()).unwrap().to_le_bytes());
    p.extend(data);
    p.push(1);
    p
}

/// `n` points along x, 16 bytes each.
fn points_data(n: usize) -> Vec<u8> {
    let mut data = Vec::new();
    for i in 0..n {
        for v in [i as f32, 1.0, 2.0, 0.0] {
            data.extend(v.to_le_bytes());
        }
    }
    data
}

/// The sizes a cloud claims bound nothing: the points drawn are those whose bytes are there
/// (found without walking the claimed rows), and the difference is reported.
#[test]
fn a_cloud_whose_sizes_do_not_match_its_data_draws_what_is_there_and_says_so() {
    let data = points_data(562); // 8 992 bytes
    // 0 × 4 294 967 295: no point, 9 KB of data (12 s of walking empty rows before).
    let pic = picture(
        "sensor_msgs/PointCloud2",
        &cloud2_sized(0, u32::MAX, 16, &data),
        Fit::new(40, 40),
    )
    .unwrap();
    assert_eq!(pic.title, "0 points (0×4294967295) · z –");
    assert_eq!(
        pic.summary.last().unwrap(),
        "data holds 8992 bytes; 0×4294967295 points of 16 bytes use 0"
    );
    // 1 × 4 294 967 295 in the same bytes: the 562 there are drawn.
    let pic = picture(
        "sensor_msgs/PointCloud2",
        &cloud2_sized(1, u32::MAX, 16, &data),
        Fit::new(40, 40),
    )
    .unwrap();
    assert!(
        pic.title
            .starts_with("562 of 4294967295 points (1×4294967295)"),
        "{}",
        pic.title
    );
    assert_eq!(
        pic.summary.last().unwrap(),
        "1×4294967295 points of 16 bytes need 68719476720 bytes of data; it holds 8992: 562 drawn"
    );
    assert_eq!(pic.summary[0], "562 points, fields x y z");
    // 10 × 2 in rows of 200 bytes (padding 40), data for a row and a half.
    let mut data = points_data(10);
    data.extend(vec![0u8; 40]);
    data.extend(points_data(5));
    let pic = picture(
        "sensor_msgs/PointCloud2",
        &cloud2_sized(10, 2, 200, &data),
        Fit::new(40, 40),
    )
    .unwrap();
    assert!(
        pic.title.starts_with("15 of 20 points (10×2)"),
        "{}",
        pic.title
    );
    // Exactly the bytes the sizes describe, padding included: nothing to say.
    let mut data = points_data(10);
    data.extend(vec![0u8; 40]);
    data.extend(points_data(10));
    data.extend(vec![0u8; 40]);
    let pic = picture(
        "sensor_msgs/PointCloud2",
        &cloud2_sized(10, 2, 200, &data),
        Fit::new(40, 40),
    )
    .unwrap();
    assert!(pic.title.starts_with("20 points (10×2)"), "{}", pic.title);
    assert_eq!(pic.summary.len(), 4, "{:?}", pic.summary);
}

/// ROS 2's `std_msgs/msg/Header` (no `seq`, a `builtin_interfaces/Time` stamp) as sections of
/// a definition in ROS1 syntax: the values a CDR payload decodes to.
fn ros2_header_sections() -> String {
    let sep = "=".repeat(80);
    format!(
        "{sep}\nMSG: std_msgs/Header\nbuiltin_interfaces/Time stamp\nstring frame_id\n\
         {sep}\nMSG: builtin_interfaces/Time\nint32 sec\nuint32 nanosec\n"
    )
}

/// The payload of a ROS 2 header: stamp, then frame `cam`.
fn ros2_header(out: &mut Vec<u8>) {
    out.extend(1_700_000_000i32.to_le_bytes());
    out.extend(5u32.to_le_bytes());
    string(out, "cam");
}

fn ros2_picture(datatype: &str, definition: &str, payload: &[u8]) -> Picture {
    let s = Schema::from_definition(datatype, definition).unwrap();
    let d = crate::msg::decode(&s, payload).unwrap();
    decode(datatype, d.root(), Fit::FULL).unwrap()
}

/// ROS 2 type names and headers: an `Image`, an `OccupancyGrid` (its `map_load_time` a
/// `builtin_interfaces/Time`), a `LaserScan` are drawn as their ROS1 forms are.
#[test]
fn ros2_messages_are_drawn_like_ros1_ones() {
    let sep = "=".repeat(80);
    let image_def = format!(
        "std_msgs/Header header\nuint32 height\nuint32 width\nstring encoding\n\
         uint8 is_bigendian\nuint32 step\nuint8[] data\n{}",
        ros2_header_sections()
    );
    let data = [10u8, 20, 30, 40, 50, 60];
    let ros1 = image(2, 1, "rgb8", false, 6, &data);
    let mut p = Vec::new();
    ros2_header(&mut p);
    p.extend(ros1.get(19..).unwrap()); // after seq, stamp and "cam"
    let pic = ros2_picture("sensor_msgs/msg/Image", &image_def, &p);
    assert_eq!(pic, img(&ros1, Fit::FULL).unwrap());
    assert!(is_picture_type("sensor_msgs/msg/Image") && is_image_type("sensor_msgs/msg/Image"));
    assert!(
        is_scatter_type("sensor_msgs/msg/PointCloud2")
            && !is_image_type("nav_msgs/msg/OccupancyGrid")
    );
    assert!(is_map_type("nav_msgs/msg/OccupancyGrid"));
    // The PNG export too.
    let s = Schema::from_definition("sensor_msgs/msg/Image", &image_def).unwrap();
    let d = crate::msg::decode(&s, &p).unwrap();
    let f = png::frame("sensor_msgs/msg/Image", d.root()).unwrap();
    assert_eq!(f.extension, "png");

    let grid_def = format!(
        "std_msgs/Header header\nMapMetaData info\nint8[] data\n\
         {sep}\nMSG: nav_msgs/MapMetaData\nbuiltin_interfaces/Time map_load_time\n\
         float32 resolution\nuint32 width\nuint32 height\ngeometry_msgs/Pose origin\n\
         {sep}\nMSG: geometry_msgs/Pose\nPoint position\nQuaternion orientation\n\
         {sep}\nMSG: geometry_msgs/Point\nfloat64 x\nfloat64 y\nfloat64 z\n\
         {sep}\nMSG: geometry_msgs/Quaternion\nfloat64 x\nfloat64 y\nfloat64 z\nfloat64 w\n{}",
        ros2_header_sections()
    );
    let mut p = Vec::new();
    ros2_header(&mut p);
    p.extend(1i32.to_le_bytes()); // map_load_time
    p.extend(2u32.to_le_bytes());
    p.extend(0.05f32.to_le_bytes());
    p.extend(2u32.to_le_bytes()); // width
    p.extend(2u32.to_le_bytes()); // height
    for v in [-10.0f64, 5.0, 0.0, 0.0, 0.0, 0.0, 1.0] {
        p.extend(v.to_le_bytes());
    }
    p.extend(4u32.to_le_bytes());
    p.extend([0u8, 100, 0xff, 50]);
    let pic = ros2_picture("nav_msgs/msg/OccupancyGrid", &grid_def, &p);
    assert_eq!(pic.title, "2×2 cells · 0.050 m/cell · origin (-10, 5)");
    assert_eq!(pic.summary, ["3 known cells, 2 occupied (≥ 50), 1 unknown"]);

    let scan_def = format!(
        "std_msgs/Header header\nfloat32 angle_min\nfloat32 angle_max\nfloat32 angle_increment\n\
         float32 time_increment\nfloat32 scan_time\nfloat32 range_min\nfloat32 range_max\n\
         float32[] ranges\nfloat32[] intensities\n{}",
        ros2_header_sections()
    );
    let mut p = Vec::new();
    ros2_header(&mut p);
    for v in [
        0.0f32,
        std::f32::consts::FRAC_PI_2,
        std::f32::consts::FRAC_PI_2,
        0.0,
        0.0,
        0.1,
        10.0,
    ] {
        p.extend(v.to_le_bytes());
    }
    p.extend(2u32.to_le_bytes());
    for r in [2.0f32, 2.0] {
        p.extend(r.to_le_bytes());
    }
    p.extend(0u32.to_le_bytes());
    let pic = ros2_picture("sensor_msgs/msg/LaserScan", &scan_def, &p);
    assert!(!pic.summary.is_empty());
    assert!(!is_picture_type("std_msgs/msg/String"));
}
