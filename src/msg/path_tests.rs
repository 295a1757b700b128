//! Tests of field paths on the bundled definitions of real types.

use std::sync::Arc;

use super::*;
use crate::msg::{Registry, Schema, ValueRef, decode};

fn schema(name: &str) -> Arc<Schema> {
    Schema::from_registry(name, None, &Registry::bundled()).unwrap()
}

fn resolve(ty: &str, path: &str) -> Result<ResolvedPath, PathError> {
    ParsedPath::parse(path)?.resolve(schema(ty).root())
}

#[test]
fn parses_dots_slashes_and_indexes() {
    let p = ParsedPath::parse("pose.pose.position.x").unwrap();
    let s = ParsedPath::parse("pose/pose/position/x").unwrap();
    assert_eq!(p.segments(), s.segments());
    assert_eq!(p.segments().len(), 4);
    assert_eq!(p.segments()[3].column, 20);
    let t = ParsedPath::parse("transforms[0].transform.translation.x").unwrap();
    let steps: Vec<&Step> = t.segments().iter().map(|s| &s.step).collect();
    assert_eq!(
        steps,
        [
            &Step::Field("transforms".into()),
            &Step::Index(0),
            &Step::Field("transform".into()),
            &Step::Field("translation".into()),
            &Step::Field("x".into()),
        ]
    );
    assert_eq!(t.segments()[1].column, 11);
    let w = ParsedPath::parse("/transforms[*].child_frame_id").unwrap();
    assert_eq!(w.segments()[1].step, Step::All);
    assert!(ParsedPath::parse("").unwrap().segments().is_empty());
    assert_eq!(
        ParsedPath::parse("ranges[10]").unwrap().segments()[1].step,
        Step::Index(10)
    );
}

#[test]
fn syntax_errors_name_the_column() {
    for (text, column) in [
        ("pose..x", 6),
        ("pose.", 6),
        ("ranges[", 7),
        ("ranges[-1]", 8),
        ("ranges[]", 8),
        ("1abc", 1),
        ("a b", 2),
        ("ranges[99999999999999999999999]", 8),
    ] {
        match ParsedPath::parse(text) {
            Err(PathError::Syntax { column: c, .. }) => assert_eq!(c, column, "{text}"),
            other => panic!("{text}: {other:?}"),
        }
    }
}

#[test]
fn resolves_real_types() {
    for (ty, path, leaf) in [
        ("nav_msgs/Odometry", "pose.pose.position.x", Leaf::Number),
        ("nav_msgs/Odometry", "pose/covariance[35]", Leaf::Number),
        ("nav_msgs/Odometry", "header.stamp", Leaf::Time),
        ("nav_msgs/Odometry", "child_frame_id", Leaf::String),
        ("sensor_msgs/Imu", "linear_acceleration.z", Leaf::Number),
        ("sensor_msgs/Imu", "orientation_covariance[8]", Leaf::Number),
        ("sensor_msgs/LaserScan", "ranges[10]", Leaf::Number),
        ("sensor_msgs/LaserScan", "ranges", Leaf::Array),
        ("sensor_msgs/LaserScan", "scan_time", Leaf::Number),
        (
            "sensor_msgs/NavSatFix",
            "position_covariance[0]",
            Leaf::Number,
        ),
        ("sensor_msgs/NavSatFix", "status.status", Leaf::Number),
        (
            "tf2_msgs/TFMessage",
            "transforms[0].transform.translation.x",
            Leaf::Number,
        ),
        (
            "tf2_msgs/TFMessage",
            "transforms[*].child_frame_id",
            Leaf::String,
        ),
        ("tf2_msgs/TFMessage", "transforms[3]", Leaf::Message),
        ("std_msgs/Bool", "data", Leaf::Bool),
        ("sensor_msgs/Image", "data[4]", Leaf::Number),
    ] {
        let r = resolve(ty, path).unwrap_or_else(|e| panic!("{ty} {path}: {e}"));
        assert_eq!(r.leaf(), leaf, "{ty} {path}");
        assert_eq!(r.text(), path);
        assert_eq!(r.type_name(), ty);
    }
    assert!(
        resolve("tf2_msgs/TFMessage", "transforms[*].child_frame_id")
            .unwrap()
            .has_wildcard()
    );
    assert!(Leaf::Time.is_plottable() && !Leaf::String.is_plottable());
}

#[test]
fn unknown_fields_list_what_exists() {
    let e = resolve("nav_msgs/Odometry", "pose.pose.postion.x").unwrap_err();
    assert_eq!(
        e,
        PathError::UnknownField {
            field: "postion".into(),
            datatype: "geometry_msgs/Pose".into(),
            column: 11,
            available: vec!["position".into(), "orientation".into()],
        }
    );
    assert_eq!(
        e.to_string(),
        "geometry_msgs/Pose has no field 'postion' (column 11); its fields are: position, \
         orientation"
    );
    let e = resolve("sensor_msgs/Imu", "linear_accel").unwrap_err();
    let PathError::UnknownField { available, .. } = &e else {
        panic!("{e:?}")
    };
    assert_eq!(
        available,
        &[
            "header",
            "orientation",
            "orientation_covariance",
            "angular_velocity",
            "angular_velocity_covariance",
            "linear_acceleration",
            "linear_acceleration_covariance"
        ]
    );
    // Field of an array, before indexing.
    let e = resolve("tf2_msgs/TFMessage", "transforms.child_frame_id").unwrap_err();
    assert!(
        matches!(&e, PathError::NotAMessage { column: 12, what, .. } if what == "geometry_msgs/TransformStamped[]"),
        "{e:?}"
    );
    // Field of a number.
    let e = resolve("sensor_msgs/Imu", "linear_acceleration.z.w").unwrap_err();
    assert!(
        matches!(e, PathError::NotAMessage { column: 23, .. }),
        "{e:?}"
    );
}

#[test]
fn indexing_a_non_array_is_an_error() {
    let e = resolve("sensor_msgs/Imu", "header[0]").unwrap_err();
    assert_eq!(
        e,
        PathError::NotAnArray {
            column: 7,
            what: "std_msgs/Header".into()
        }
    );
    assert!(matches!(
        resolve("sensor_msgs/LaserScan", "ranges[1][2]").unwrap_err(),
        PathError::NotAnArray { column: 10, .. }
    ));
    assert_eq!(
        resolve("sensor_msgs/Imu", "orientation_covariance[9]").unwrap_err(),
        PathError::IndexOutOfRange {
            index: 9,
            len: 9,
            column: 23,
            what: "float64[9]".into()
        }
    );
}

/// A `tf2_msgs/TFMessage` with transforms to `children`, translation x = 1.5 * (i + 1).
fn tf_payload(children: &[&str]) -> Vec<u8> {
    let mut p = Vec::new();
    p.extend(u32::try_from(children.len()).unwrap().to_le_bytes());
    for (i, child) in children.iter().enumerate() {
        p.extend(7u32.to_le_bytes()); // seq
        p.extend(10u32.to_le_bytes()); // stamp
        p.extend(500_000_000u32.to_le_bytes());
        p.extend(3u32.to_le_bytes());
        p.extend(b"map");
        p.extend(u32::try_from(child.len()).unwrap().to_le_bytes());
        p.extend(child.as_bytes());
        let x = 1.5 * (i as f64 + 1.0);
        for v in [x, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0] {
            p.extend(v.to_le_bytes());
        }
    }
    p
}

#[test]
fn evaluates_on_decoded_messages() {
    let s = schema("tf2_msgs/TFMessage");
    let payload = tf_payload(&["base", "laser", "imu"]);
    let d = decode(&s, &payload).unwrap();
    let x = |path: &str| {
        ParsedPath::parse(path)
            .unwrap()
            .resolve(s.root())
            .unwrap()
            .get_f64(d.root())
    };
    assert_eq!(x("transforms[0].transform.translation.x"), Some(1.5));
    assert_eq!(x("transforms[2].transform.translation.x"), Some(4.5));
    assert_eq!(x("transforms[1].transform.rotation.w"), Some(1.0));
    // Past the end of this message's array: no value, not an error.
    assert_eq!(x("transforms[3].transform.translation.x"), None);
    // Time as seconds.
    assert_eq!(x("transforms[0].header.stamp"), Some(10.5));
    assert_eq!(x("transforms[0].header.seq"), Some(7.0));
    // Strings are values but not numbers.
    assert_eq!(x("transforms[0].child_frame_id"), None);
    let all = ParsedPath::parse("transforms[*].child_frame_id")
        .unwrap()
        .resolve(s.root())
        .unwrap();
    let names: Vec<Vec<u8>> = all
        .collect(d.root())
        .into_iter()
        .map(|v| match v {
            ValueRef::String(s) => s.to_vec(),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(
        names,
        [b"base".to_vec(), b"laser".to_vec(), b"imu".to_vec()]
    );
    // The whole path on an empty message: nothing.
    let empty = tf_payload(&[]);
    let d = decode(&s, &empty).unwrap();
    assert!(all.collect(d.root()).is_empty());
    assert!(all.get(d.root()).is_none());
}

#[test]
fn evaluates_prim_arrays_bytes_and_bools() {
    let schema = Schema::from_definition(
        "t/T",
        "float32[] ranges\nuint8[] data\nbool ok\nduration d\nint64 big\n",
    )
    .unwrap();
    let mut p = vec![2, 0, 0, 0];
    p.extend(0.5f32.to_le_bytes());
    p.extend((-2.25f32).to_le_bytes());
    p.extend([3, 0, 0, 0, 7, 8, 9, 1]);
    p.extend((-1i32).to_le_bytes());
    p.extend(250_000_000i32.to_le_bytes());
    p.extend((-5i64).to_le_bytes());
    let d = decode(&schema, &p).unwrap();
    let x = |path: &str| {
        ParsedPath::parse(path)
            .unwrap()
            .resolve(schema.root())
            .unwrap()
            .get_f64(d.root())
    };
    assert_eq!(x("ranges[1]"), Some(-2.25));
    assert_eq!(x("ranges[2]"), None);
    assert_eq!(x("data[2]"), Some(9.0));
    assert_eq!(x("data[3]"), None);
    assert_eq!(x("ok"), Some(1.0));
    assert_eq!(x("d"), Some(-0.75));
    assert_eq!(x("big"), Some(-5.0));
    let all = ParsedPath::parse("ranges[*]")
        .unwrap()
        .resolve(schema.root())
        .unwrap();
    let v: Vec<f64> = all.collect(d.root()).iter().filter_map(to_f64).collect();
    assert_eq!(v, [0.5, -2.25]);
}

#[test]
fn splits_topics_longest_first() {
    let topics = ["/odom", "/odom/filtered", "/scan", "/tf", "tf_static"];
    assert_eq!(
        split_topic("/odom/pose/pose/position/x", &topics),
        Some(("/odom", "pose/pose/position/x"))
    );
    assert_eq!(
        split_topic("/odom/filtered/pose/pose", &topics),
        Some(("/odom/filtered", "pose/pose"))
    );
    assert_eq!(split_topic("/odom", &topics), Some(("/odom", "")));
    assert_eq!(
        split_topic("/scan/ranges[10]", &topics),
        Some(("/scan", "ranges[10]"))
    );
    assert_eq!(split_topic("scan[3]", &topics), Some(("/scan", "[3]")));
    assert_eq!(
        split_topic("/tf_static/transforms", &topics),
        Some(("tf_static", "transforms"))
    );
    assert_eq!(split_topic("/odometry/x", &topics), None);
    assert_eq!(split_topic("/imu/x", &topics), None);
}

#[test]
fn times_have_secs_and_nsecs_as_in_rostopic() {
    let s = schema("tf2_msgs/TFMessage");
    let payload = tf_payload(&["base"]);
    let d = decode(&s, &payload).unwrap();
    let path = |p: &str| ParsedPath::parse(p).unwrap().resolve(s.root()).unwrap();
    let secs = path("transforms[0].header.stamp.secs");
    assert_eq!(secs.leaf(), Leaf::Number);
    assert!(matches!(secs.get(d.root()), Some(ValueRef::U32(10))));
    let nsecs = path("transforms[0]/header/stamp/nsecs");
    assert!(matches!(
        nsecs.get(d.root()),
        Some(ValueRef::U32(500_000_000))
    ));
    // Anything else on a time lists the two.
    let e = resolve("std_msgs/Header", "stamp.sec").unwrap_err();
    assert_eq!(
        e.to_string(),
        "time has no field 'sec' (column 7); its fields are: secs, nsecs"
    );
    // Durations: signed parts.
    let e = resolve("std_msgs/Duration", "data.secs").unwrap();
    assert_eq!(e.leaf(), Leaf::Number);
    let dur = schema("std_msgs/Duration");
    let d = decode(&dur, &[0xff, 0xff, 0xff, 0xff, 2, 0, 0, 0]).unwrap();
    assert!(matches!(e.get(d.root()), Some(ValueRef::I32(-1))));
}

/// A ROS 2 `builtin_interfaces/Time` or `Duration` message is a time leaf, taken as seconds
/// (`sec + nanosec / 1e9`) by plots; another message of those fields is not.
#[test]
fn ros2_time_messages_are_times() {
    let sep = "=".repeat(80);
    let s = crate::msg::Schema::from_definition(
        "t/T",
        &format!(
            "builtin_interfaces/Time stamp\nbuiltin_interfaces/Duration span\nP other\n\
             {sep}\nMSG: builtin_interfaces/Time\nint32 sec\nuint32 nanosec\n\
             {sep}\nMSG: builtin_interfaces/Duration\nint32 sec\nuint32 nanosec\n\
             {sep}\nMSG: t/P\nint32 sec\nuint32 nanosec\n"
        ),
    )
    .unwrap();
    let mut p = Vec::new();
    for (sec, nanosec) in [
        (1_700_000_000i32, 250_000_000u32),
        (-2, 500_000_000),
        (3, 4),
    ] {
        p.extend(sec.to_le_bytes());
        p.extend(nanosec.to_le_bytes());
    }
    let d = crate::msg::decode(&s, &p).unwrap();
    let m = d.root();
    let path = |text: &str| ParsedPath::parse(text).unwrap().resolve(s.root()).unwrap();
    assert_eq!(path("stamp").leaf(), Leaf::Time);
    assert_eq!(path("span").leaf(), Leaf::Time);
    assert_eq!(path("other").leaf(), Leaf::Message);
    assert_eq!(path("stamp.sec").leaf(), Leaf::Number);
    assert_eq!(path("stamp").get_f64(m), Some(1_700_000_000.25));
    assert_eq!(path("span").get_f64(m), Some(-1.5));
    assert_eq!(path("other").get_f64(m), None);
}
