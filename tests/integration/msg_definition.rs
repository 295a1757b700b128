//! `d`'s text (`msg::render::definition::show`) equals what `rosmsg show` prints, for the
//! installed `std_msgs` and `geometry_msgs` types (nested types expanded and indented).

use std::process::Command;

use bagscope::msg::render::definition::show;
use bagscope::msg::{Registry, Schema};

use crate::common;

#[test]
fn definitions_equal_rosmsg_show() {
    if Command::new("rosmsg").arg("-h").output().is_err() {
        common::skip("rosmsg is not installed");
        return;
    }
    let registry = Registry::bundled();
    let mut compared = 0;
    for name in [
        "std_msgs/Header",
        "std_msgs/ColorRGBA",
        "std_msgs/MultiArrayLayout",
        "std_msgs/Float64MultiArray",
        "geometry_msgs/PoseWithCovarianceStamped",
        "geometry_msgs/PolygonStamped",
        "geometry_msgs/TransformStamped",
        "geometry_msgs/TwistWithCovarianceStamped",
        "geometry_msgs/PoseArray",
        "geometry_msgs/InertiaStamped",
    ] {
        let out = Command::new("rosmsg")
            .args(["show", name])
            .output()
            .unwrap();
        let official = String::from_utf8_lossy(&out.stdout).to_string();
        if !out.status.success() || official.trim().is_empty() {
            common::skip(&format!("rosmsg show {name} failed"));
            continue;
        }
        let schema = Schema::from_registry(name, None, &registry).unwrap();
        // rosmsg prints one empty line after the definition.
        assert_eq!(format!("{}\n", show(schema.root())), official, "{name}");
        compared += 1;
    }
    assert!(
        compared > 0 || std::env::var_os("CI").is_none(),
        "nothing compared"
    );
}
