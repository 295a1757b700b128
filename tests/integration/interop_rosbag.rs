//! Interop with Debian's official ROS1 tools: fresh bags made by `rosbag record` on a live
//! graph, `rosbag record --lz4`, `rosbag compress --bz2/--lz4`, and recordings killed mid-run,
//! read by bagscope and by the official Python reader, must agree message for message.
//!
//! Skipped (with the reason printed) when `roscore`, `rosbag` or Python's `rosbag` are absent;
//! `.ci/run` installs them.

use std::path::Path;
use std::process::Command;

use bagscope::bag::{Bag, Query};
use md5::{Digest, Md5};

use crate::common;
use crate::common::{nanos, skip};

fn have_ros_tools() -> Result<(), String> {
    common::ros_graph::have_tools(&["roscore", "rosbag", "rostopic"])?;
    let py = Command::new(common::ros_python())
        .args(["-c", "import sensor_msgs, tf2_msgs"])
        .output();
    if !py.is_ok_and(|o| o.status.success()) {
        return Err("python3 cannot import sensor_msgs/tf2_msgs".into());
    }
    Ok(())
}

fn compare(path: &Path) {
    let name = path.file_name().unwrap().to_string_lossy().to_string();
    let r = common::official::dump_raw(path);
    let bag = Bag::open(path).unwrap_or_else(|e| panic!("{name}: {e}"));
    let reindexed = r.header["reindexed"] == true;
    for rc in r.header["connections"].as_array().unwrap() {
        let c = bag
            .connections()
            .iter()
            .find(|c| i64::from(c.file_id) == rc["id"].as_i64().unwrap())
            .unwrap_or_else(|| panic!("{name}: connection {} missing", rc["id"]));
        assert_eq!(c.topic, rc["topic"].as_str().unwrap(), "{name}");
        assert_eq!(c.datatype, rc["type"].as_str().unwrap(), "{name}");
        assert_eq!(c.md5sum, rc["md5sum"].as_str().unwrap(), "{name}");
        assert_eq!(c.callerid.as_deref(), rc["callerid"].as_str(), "{name}");
        assert_eq!(c.latching.as_deref(), rc["latching"].as_str(), "{name}");
    }
    let ours: Vec<(i128, String, u32, usize, String)> = bag
        .messages(&Query::all().parallel(true))
        .map(|m| {
            let m = m.unwrap_or_else(|e| panic!("{name}: {e}"));
            let c = bag.connection(m.entry.conn).unwrap();
            let md5: String = Md5::digest(&*m.data)
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect();
            (
                i128::from(m.entry.time.as_nanos()),
                c.topic.clone(),
                c.file_id,
                m.data.len(),
                md5,
            )
        })
        .collect();
    let theirs: Vec<(i128, String, u32, usize, String)> = r
        .messages
        .iter()
        .map(|m| {
            (
                nanos(&m["time"]).unwrap(),
                m["topic"].as_str().unwrap().to_string(),
                u32::try_from(m["conn"].as_u64().unwrap()).unwrap(),
                usize::try_from(m["size"].as_u64().unwrap()).unwrap(),
                m["md5"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert!(!theirs.is_empty(), "{name}: the recording holds messages");
    if reindexed {
        // We read the killed recording in place and must keep at least what the official
        // reindex keeps (it drops the unterminated last chunk; we do not).
        assert!(!bag.is_indexed(), "{name}");
        let mut it = ours.iter();
        for t in &theirs {
            assert!(it.any(|o| o == t), "{name}: {t:?} missing or out of order");
        }
        assert!(ours.len() >= theirs.len());
    } else {
        assert_eq!(ours.len(), theirs.len(), "{name}: message count");
        for (i, (a, b)) in ours.iter().zip(&theirs).enumerate() {
            assert_eq!(a, b, "{name}: message {i}");
        }
    }
}

#[test]
fn fresh_recordings_read_like_the_official_reader() {
    if let Err(why) = have_ros_tools() {
        skip(&why);
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/make/record_live.sh");
    let out = Command::new("bash")
        .arg(script)
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "record_live.sh failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let mut seen = 0;
    for name in [
        "recorded.bag",
        "recorded_bz2.bag",
        "recorded_lz4.bag",
        "recorded_record_lz4.bag",
        "recorded_crash.bag.active",
        "recorded_crash_lz4.bag.active",
    ] {
        let p = dir.path().join(name);
        assert!(p.exists(), "{name} was not produced");
        compare(&p);
        seen += 1;
    }
    assert_eq!(seen, 6);
}
