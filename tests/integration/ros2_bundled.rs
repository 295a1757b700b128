//! ROS 2 `.db3` bags without message definitions (recorded before Jazzy) decode with the
//! bundled ROS 2 Humble definitions, as rosbags decodes them with its Humble typestore:
//! `../shared/corpus-mcap/rosbag2/sqlite3/multiple_files` (std_msgs/msg/String) and
//! `tests/fixtures/ros2/bundled/imu_no_defs` (sensor_msgs/msg/Imu, written with rosbags by
//! `tests/common/interop/ros2_bundled_fixture.py`). Values are compared, not text.

use std::path::{Path, PathBuf};

use crate::common::skip;

/// `echo --format json` of `input` equals `reference`, value by value (the comparison of
/// `mcap_refs`, which reads the same dumps).
fn compare(input: &Path, reference: &Path) {
    crate::mcap_refs::compare(input, reference, &[]);
}

#[test]
fn a_db3_without_definitions_of_std_msgs_string_decodes_from_the_bundle() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus-mcap/rosbag2/sqlite3");
    if !dir.is_dir() {
        skip("../shared/corpus-mcap is not there");
        return;
    }
    compare(
        &dir.join("multiple_files"),
        &dir.join("multiple_files.ref.jsonl"),
    );
}

#[test]
fn a_db3_without_definitions_of_sensor_msgs_imu_decodes_as_rosbags_does() {
    let dir: PathBuf = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/ros2/bundled");
    compare(&dir.join("imu_no_defs"), &dir.join("imu_no_defs.ref.jsonl"));
}
