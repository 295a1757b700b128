//! Tests of the bundled ROS 2 definitions: the table matches the files, every type compiles
//! from the bundle alone, and lookups keep their order (user, builtins, bundle).

use std::path::Path;

use super::{BUNDLED_ROS2, bundled_ros2_text};
use crate::msg::{Registry, Schema, SchemaEncoding};

#[test]
fn table_is_sorted_and_matches_the_files() {
    assert!(BUNDLED_ROS2.windows(2).all(|w| w[0].0 < w[1].0));
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/msg/bundled_ros2");
    let mut on_disk = Vec::new();
    for pkg in std::fs::read_dir(&root).unwrap() {
        let pkg = pkg.unwrap().path();
        if !pkg.is_dir() {
            continue;
        }
        let pkg_name = pkg.file_name().unwrap().to_string_lossy().into_owned();
        for file in std::fs::read_dir(pkg.join("msg")).unwrap() {
            let file = file.unwrap().path();
            let stem = file.file_stem().unwrap().to_string_lossy().into_owned();
            assert_eq!(file.extension().unwrap(), "msg");
            let text = std::fs::read_to_string(&file).unwrap();
            on_disk.push((format!("{pkg_name}/msg/{stem}"), text));
        }
    }
    on_disk.sort();
    let listed: Vec<(String, String)> = BUNDLED_ROS2
        .iter()
        .map(|(n, t)| ((*n).to_string(), (*t).to_string()))
        .collect();
    assert_eq!(on_disk, listed);
    assert_eq!(listed.len(), 146);
}

#[test]
fn every_bundled_type_compiles_from_the_bundle_alone() {
    let reg = Registry::bundled();
    for (name, _) in BUNDLED_ROS2 {
        let schema = Schema::for_ros2(name, "", SchemaEncoding::Ros2Msg, &reg)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(schema.datatype(), *name);
        // Both spellings resolve.
        let short = name.replacen("/msg/", "/", 1);
        assert!(
            Schema::for_ros2(&short, "", SchemaEncoding::Ros2Msg, &reg).is_ok(),
            "{short}"
        );
    }
}

#[test]
fn lookups_are_user_then_builtins_then_bundle() {
    let bundled = Registry::bundled();
    // The bundle serves ROS 2 lookups of a bundled registry, by either spelling.
    let string = bundled_ros2_text("std_msgs/msg/String").unwrap();
    assert_eq!(bundled.ros2_text("std_msgs/msg/String"), Some(string));
    assert_eq!(bundled.ros2_text("std_msgs/String"), Some(string));
    assert!(bundled.ros2_text("std_msgs/msg/NoSuchType").is_none());
    // An empty registry knows only the builtins.
    let empty = Registry::empty();
    assert!(empty.ros2_text("std_msgs/msg/String").is_none());
    assert_eq!(
        empty.ros2_text("builtin_interfaces/msg/Time"),
        Some("int32 sec\nuint32 nanosec\n")
    );
    // Time and Duration stay the builtins ros2_schema expects (same fields as upstream's).
    for t in [
        "builtin_interfaces/msg/Time",
        "builtin_interfaces/msg/Duration",
    ] {
        assert_eq!(bundled.ros2_text(t), Some("int32 sec\nuint32 nanosec\n"));
        let upstream: Vec<&str> = bundled_ros2_text(t)
            .unwrap()
            .lines()
            .map(|l| l.split('#').next().unwrap_or("").trim())
            .filter(|l| !l.is_empty())
            .collect();
        assert_eq!(upstream, ["int32 sec", "uint32 nanosec"], "{t}");
    }
    // A user definition (--msg-path) wins over the bundle.
    let mut user = Registry::bundled();
    user.add_definition("std_msgs/msg/String", "string data\nint32 extra\n")
        .unwrap();
    assert_eq!(
        user.ros2_text("std_msgs/msg/String"),
        Some("string data\nint32 extra\n")
    );
    // The ROS1 bundle never answers a ROS 2 lookup: ROS 2's Header has no seq.
    let header =
        Schema::for_ros2("std_msgs/msg/Header", "", SchemaEncoding::Ros2Msg, &bundled).unwrap();
    assert_eq!(header.datatype(), "std_msgs/msg/Header");
    assert!(header.root().fields().iter().all(|f| f.name() != "seq"));
}
