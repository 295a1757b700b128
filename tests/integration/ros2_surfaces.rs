//! ROS 2 messages everywhere a bag's types are recognised, on a rosbag2 bag (MCAP storage,
//! CDR) written by rosbags (`tests/fixtures/ros2/surfaces`, made by
//! `tests/common/interop/make_ros2_surfaces.py`): `echo` prints what `ros2 topic echo
//! --full-length` prints (the reference made by the same script), `log` reads
//! `rcl_interfaces/msg/Log` with its levels, logger names and filters, `--where` compares a
//! `builtin_interfaces/Time` as seconds, and images, scans and clouds are drawn.

use std::path::PathBuf;

use bagscope::bag::{Bag, Query};
use bagscope::catalog::compile;
use bagscope::msg::Registry;
use bagscope::picture::{self, Fit};

use crate::common::{fixtures_dir, run_bagscope};

fn bag() -> PathBuf {
    fixtures_dir().join("ros2/surfaces")
}

#[test]
fn echo_prints_what_ros2_topic_echo_prints() {
    let reference: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(fixtures_dir().join("ros2/surfaces.echo.json")).unwrap(),
    )
    .unwrap();
    let reference = reference.as_object().unwrap();
    assert_eq!(reference.len(), 6);
    let bag = bag();
    for (topic, expected) in reference {
        let (out, err, code) = run_bagscope(&["echo", bag.to_str().unwrap(), topic]);
        assert_eq!((code, err.as_str()), (0, ""), "{topic}");
        assert_eq!(out, expected.as_str().unwrap(), "{topic}");
    }
    // A field path: its value as YAML, then `---`.
    let (out, _, _) = run_bagscope(&["echo", bag.to_str().unwrap(), "/scan/header/stamp"]);
    assert_eq!(out, "sec: 1700000001\nnanosec: 5\n---\n");
    let (out, _, _) = run_bagscope(&["echo", bag.to_str().unwrap(), "/scan/ranges"]);
    assert_eq!(out, "- 2.0\n- 1.5\n- .inf\n---\n");
}

#[test]
fn where_compares_a_ros2_stamp_as_seconds() {
    let bag = bag();
    let bag = bag.to_str().unwrap();
    let count = |cond: &str| {
        let (out, err, code) = run_bagscope(&["echo", bag, "/tf", "--where", cond]);
        assert_eq!(code, 0, "{cond}: {err}");
        out.matches("\n---\n").count() + usize::from(out.starts_with("---\n"))
    };
    assert_eq!(count("transforms[0].header.stamp > 1700000001.5"), 1);
    assert_eq!(count("transforms[0].header.stamp > 1700000002.5"), 0);
    assert_eq!(count("transforms[0].header.stamp.nanosec == 5"), 1);
}

#[test]
fn log_reads_rcl_interfaces_log() {
    let bag = bag();
    let bag = bag.to_str().unwrap();
    let (out, err, code) = run_bagscope(&["log", bag]);
    assert_eq!((code, err.as_str()), (0, ""));
    assert_eq!(
        out,
        "[DEBUG] [1700000000.000000005] [talker]: starting\n\
         [ INFO] [1700000001.000000005] [talker]: Publishing: 'Hello World: 1'\n\
         [ WARN] [1700000002.000000005] [ns.driver]: current high: 2.9 A\n\
         [ERROR] [1700000003.000000005] [ns.driver]: stalled\\nretrying\n\
         [FATAL] [1700000004.000000005] [rclcpp]: gave up\n"
    );
    let (out, _, _) = run_bagscope(&["log", bag, "--node", "/ns/driver", "--level", "error"]);
    assert_eq!(
        out,
        "[ERROR] [1700000003.000000005] [ns.driver]: stalled\\nretrying\n"
    );
    let (out, _, _) = run_bagscope(&[
        "log",
        bag,
        "--where",
        "level >= WARN and name == \"rclcpp\"",
    ]);
    assert_eq!(out, "[FATAL] [1700000004.000000005] [rclcpp]: gave up\n");
    let (out, _, _) = run_bagscope(&["log", bag, "--format", "json", "--level", "fatal"]);
    assert_eq!(
        out,
        "{\"topic\":\"/rosout\",\"time\":{\"sec\":104,\"nsec\":0},\
         \"stamp\":{\"sec\":1700000004,\"nsec\":5},\"level\":\"FATAL\",\"level_number\":50,\
         \"node\":\"rclcpp\",\"msg\":\"gave up\",\"file\":\"talker.cpp\",\
         \"function\":\"on_timer\",\"line\":42}\n"
    );
}

#[test]
fn ros2_pictures_are_drawn() {
    let opened = Bag::open(bag().join("surfaces.mcap")).unwrap();
    let bag = &opened;
    let registry = Registry::bundled();
    let mut drawn = Vec::new();
    for m in bag.messages(&Query::all()) {
        let m = m.unwrap();
        let conn = bag.connection(m.entry.conn).unwrap();
        if !picture::is_picture_type(&conn.datatype) {
            continue;
        }
        let schema = compile(conn, &registry).schema.unwrap();
        let decoded = bagscope::msg::decode(&schema, &m.data).unwrap();
        let pic = picture::decode(&conn.datatype, decoded.root(), Fit::FULL)
            .unwrap_or_else(|e| panic!("{}: {e}", conn.datatype));
        drawn.push((conn.datatype.clone(), pic.raster.width, pic.raster.height));
    }
    assert_eq!(drawn.len(), 2, "{drawn:?}");
    assert_eq!(drawn[0], ("sensor_msgs/msg/Image".to_string(), 3, 2));
    assert_eq!(drawn[1].0, "sensor_msgs/msg/LaserScan");
    // `export --format images` writes the frame as a PNG.
    let dir = tempfile::tempdir().unwrap();
    let (_, err, code) = run_bagscope(&[
        "export",
        self::bag().to_str().unwrap(),
        "-t",
        "/camera/image_raw",
        "--format",
        "images",
        "-o",
        dir.path().to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let png = std::fs::read(dir.path().join("100.000000000.png")).unwrap();
    assert!(png.starts_with(b"\x89PNG"));
}
