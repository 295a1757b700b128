//! Running Debian's official ROS1 tools from tests: the Python `rosbag` library (through the
//! scripts in `tests/common/interop/`) and the `rosbag` command.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use super::ros_python;

fn script(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/common/interop")
        .join(name)
}

/// `Ok` when Python can import the official `rosbag` (with `roslz4` for lz4 chunks).
pub fn have_python_rosbag() -> Result<(), String> {
    let ok = Command::new(ros_python())
        .args(["-c", "import rosbag, roslz4, genpy"])
        .output()
        .is_ok_and(|o| o.status.success());
    if ok {
        Ok(())
    } else {
        Err(format!(
            "{} cannot import rosbag/roslz4/genpy (apt-get install python3-rosbag python3-roslz4)",
            ros_python()
        ))
    }
}

/// `Ok` when the `rosbag` command and the Python library are installed.
pub fn have_rosbag_cli() -> Result<(), String> {
    let ok = Command::new("sh")
        .args(["-c", "command -v rosbag"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        return Err("`rosbag` is not installed (apt-get install python3-rosbag)".into());
    }
    have_python_rosbag()
}

/// Dumps `bags` with the official reader (`dump_full.py`): one JSON object per bag.
/// `flags`: `--reindex-copy` (read unindexed bags through a reindexed copy), `--decode`
/// (deserialize and serialize every message again: a sixth row element, that md5).
pub fn dump_full(bags: &[PathBuf], flags: &[&str]) -> Vec<Value> {
    let mut cmd = Command::new(ros_python());
    cmd.arg(script("dump_full.py")).args(flags);
    let out = cmd.args(bags).output().unwrap();
    assert!(
        out.status.success(),
        "dump_full.py failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let dumps: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(dumps.len(), bags.len());
    dumps
}

/// Dumps one bag with the official reader (`dump_raw.py`: connections, and every message's
/// time, connection, size and payload md5).
pub fn dump_raw(bag: &Path) -> super::Reference {
    let out = Command::new(ros_python())
        .arg(script("dump_raw.py"))
        .arg(bag)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "dump_raw.py failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let tmp = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(tmp.path(), &out.stdout).unwrap();
    super::Reference::load(tmp.path())
}

/// Writes `out` with the official Python writer from `spec` (see `write_official.py`).
pub fn write_official(spec: &Value, out: &Path) {
    let spec_path = out.with_extension("spec.json");
    std::fs::write(&spec_path, spec.to_string()).unwrap();
    let o = Command::new(ros_python())
        .arg(script("write_official.py"))
        .arg(&spec_path)
        .arg(out)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "write_official.py failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// Runs `rosbag ARGS...`; returns (success, stdout, stderr).
pub fn rosbag(args: &[&std::ffi::OsStr]) -> (bool, String, String) {
    let o = Command::new("rosbag").args(args).output().unwrap();
    (
        o.status.success(),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// One message row of a dump: (time ns, topic, size, md5, connection id).
pub type Row = (i128, String, u64, String, u64);

/// The message rows of a dump.
pub fn rows(dump: &Value) -> Vec<Row> {
    dump["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                i128::from(m[0].as_i64().unwrap()),
                m[1].as_str().unwrap().to_string(),
                m[2].as_u64().unwrap(),
                m[3].as_str().unwrap().to_string(),
                m[4].as_u64().unwrap(),
            )
        })
        .collect()
}

/// Connection id → (topic, header fields as `[name, hex]` pairs in file order).
pub fn connection_headers(dump: &Value) -> std::collections::HashMap<u64, (String, Value)> {
    dump["connections"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["id"].as_u64().unwrap(),
                (
                    c["topic"].as_str().unwrap().to_string(),
                    c["header"].clone(),
                ),
            )
        })
        .collect()
}
