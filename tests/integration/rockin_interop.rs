//! RoCKIn YAML → bag checked with tools independent of bagscope: every fixture (the
//! specification's example, the shared corpus' synthetic file, and one file per benchmark
//! topic set of the specification) converts, Debian's `rosbag info` and `rosbag check` accept
//! the bag, and the official Python reader decodes every message to the values PyYAML reads
//! from the YAML (`tests/common/interop/rockin_check.py`). The YAML that `bagscope convert` writes
//! back from the bag is checked the same way against the bag, so our YAML output is read by
//! PyYAML as well; and every fixture rewritten by PyYAML's emitter in four styles converts to the
//! same values.
//!
//! Skipped (with the reason printed) when `rosbag` or Python's `rosbag`/`yaml` are absent.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::common::official::{have_rosbag_cli, rosbag};
use crate::common::{fixtures_dir, ros_python, skip};

fn fixtures() -> Vec<PathBuf> {
    crate::common::rockin_fixtures()
}

fn convert(input: &Path, output: &Path, extra: &[&str]) {
    crate::common::convert(input, output, extra);
}

/// Python modules for the RoCKIn types Debian does not package (audio_common_msgs), generated
/// by genpy from our bundled definition, so that `rosbag check` can load every type.
fn generated_modules(dir: &Path) -> PathBuf {
    let out = dir.join("pymsgs");
    let pkg = out.join("audio_common_msgs");
    std::fs::create_dir_all(pkg.join("msg")).unwrap();
    std::fs::write(pkg.join("__init__.py"), "").unwrap();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/msgs/audio_common_msgs");
    let genmsg = |args: &[&OsStr]| {
        let o = Command::new(ros_python())
            .arg("/usr/lib/genpy/genmsg_py.py")
            .args(args)
            .output()
            .unwrap();
        assert!(
            o.status.success(),
            "genmsg_py: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    };
    let include = format!("-Iaudio_common_msgs:{}", src.display());
    genmsg(&[
        OsStr::new("-p"),
        OsStr::new("audio_common_msgs"),
        OsStr::new("-o"),
        pkg.join("msg").as_os_str(),
        OsStr::new(&include),
        src.join("AudioData.msg").as_os_str(),
    ]);
    genmsg(&[
        OsStr::new("--initpy"),
        OsStr::new("-p"),
        OsStr::new("audio_common_msgs"),
        OsStr::new("-o"),
        pkg.join("msg").as_os_str(),
    ]);
    out
}

fn check(yaml: &Path, bag: &Path) -> Value {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/common/interop/rockin_check.py");
    let o = Command::new(ros_python())
        .arg(script)
        .arg(yaml)
        .arg(bag)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "rockin_check.py {}: {}",
        yaml.display(),
        String::from_utf8_lossy(&o.stderr)
    );
    serde_json::from_slice(&o.stdout).unwrap()
}

fn yaml_items(yaml: &Path) -> u64 {
    let text = std::fs::read_to_string(yaml).unwrap();
    text.lines().filter(|l| l.starts_with("- ")).count() as u64
}

#[test]
fn fixtures_convert_and_read_like_the_yaml_with_the_official_tools() {
    if let Err(why) = have_rosbag_cli() {
        skip(&why);
        return;
    }
    let ok = Command::new(ros_python())
        .args(["-c", "import yaml, genpy"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok || !Path::new("/usr/lib/genpy/genmsg_py.py").exists() {
        skip(
            "python3 cannot import yaml/genpy, or genmsg_py.py is missing (apt-get install python3-yaml python3-genpy)",
        );
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let pythonpath = generated_modules(dir.path());
    let files = fixtures();
    assert!(files.len() >= 14, "{files:?}");
    for (i, yaml) in files.iter().enumerate() {
        let name = yaml.file_stem().unwrap().to_string_lossy().to_string();
        let compression = ["none", "lz4", "bz2"][i % 3];
        let bag = dir.path().join(format!("{name}.bag"));
        convert(yaml, &bag, &["--compression", compression]);
        let expected = yaml_items(yaml);
        let r = check(yaml, &bag);
        assert!(r["ok"] == true, "{name}: {r}");
        assert_eq!(r["messages"].as_u64(), Some(expected), "{name}: {r}");

        let (ok, out, err) = rosbag(&[OsStr::new("info"), bag.as_os_str()]);
        assert!(
            ok && !err.contains("Traceback"),
            "rosbag info {name}: {out}{err}"
        );
        let messages = out
            .lines()
            .find_map(|l| l.strip_prefix("messages:"))
            .map(|v| v.trim().to_string());
        assert_eq!(
            messages,
            Some(expected.to_string()),
            "rosbag info {name}: {out}"
        );
        let o = Command::new("rosbag")
            .arg("check")
            .arg(&bag)
            .env("PYTHONPATH", &pythonpath)
            .output()
            .unwrap();
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(
            o.status.success() && out.contains("does not need any migrations"),
            "rosbag check {name}: {out}{}",
            String::from_utf8_lossy(&o.stderr)
        );

        // Back to YAML: PyYAML reads what we write as the same values.
        let back = dir.path().join(format!("{name}.back.yaml"));
        convert(&bag, &back, &[]);
        let r = check(&back, &bag);
        assert!(r["ok"] == true, "{name} (written back): {r}");
        assert_eq!(r["messages"].as_u64(), Some(expected));
    }
}

/// The fixtures as PyYAML's emitter writes them (sorted keys, `!!binary` blocks, flow style,
/// long scalars folded across lines) convert to the same values: files written by other tools.
#[test]
fn fixtures_rewritten_by_pyyaml_convert_alike() {
    if have_rosbag_cli().is_err() {
        skip("rosbag is not installed");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let script =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/common/interop/rockin_redump.py");
    for yaml in fixtures() {
        let name = yaml.file_stem().unwrap().to_string_lossy().to_string();
        for style in ["block", "flow", "unsorted", "json"] {
            let redone = dir.path().join(format!("{name}.{style}.yaml"));
            let o = Command::new(ros_python())
                .arg(&script)
                .arg(&yaml)
                .arg(&redone)
                .arg(style)
                .output()
                .unwrap();
            assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
            let bag = dir.path().join(format!("{name}.{style}.bag"));
            convert(&redone, &bag, &[]);
            let r = check(&redone, &bag);
            assert!(r["ok"] == true, "{name} ({style}): {r}");
            assert_eq!(
                r["messages"].as_u64(),
                Some(yaml_items(&yaml)),
                "{name} ({style})"
            );
        }
    }
}

#[test]
fn every_field_kind_reads_like_the_yaml() {
    if have_rosbag_cli().is_err() {
        skip("rosbag is not installed");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let ext = fixtures_dir().join("rockin/extension");
    let yaml = ext.join("all-field-kinds.yaml");
    let bag = dir.path().join("all.bag");
    let msgs = ext.join("msgs");
    let msg_path = ["--msg-path", msgs.to_str().unwrap()];
    convert(&yaml, &bag, &msg_path);
    let r = check(&yaml, &bag);
    assert!(r["ok"] == true, "{r}");
    assert_eq!(r["messages"].as_u64(), Some(2));
    let back = dir.path().join("all.yaml");
    convert(&bag, &back, &[]);
    let r = check(&back, &bag);
    assert!(r["ok"] == true, "written back: {r}");
}

#[test]
fn the_checker_notices_a_wrong_value() {
    if have_rosbag_cli().is_err() {
        skip("rosbag is not installed");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let yaml = fixtures_dir().join("rockin/spec-example.yaml");
    let bag = dir.path().join("a.bag");
    convert(&yaml, &bag, &[]);
    let text = std::fs::read_to_string(&yaml)
        .unwrap()
        .replace("x: 5.5", "x: 5.25");
    let changed = dir.path().join("changed.yaml");
    std::fs::write(&changed, text).unwrap();
    let r = check(&changed, &bag);
    assert!(r["ok"] == false, "{r}");
    assert!(
        r["errors"][0].as_str().unwrap().contains("message.x"),
        "{r}"
    );
}
