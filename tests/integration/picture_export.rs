//! `export --format images` against the official reader: a bag of frames in every common
//! encoding written by Python's `rosbag`, exported by bagscope, and compared pixel for pixel
//! (numpy + PIL) with the frames as the official reader gives them.

use std::path::Path;
use std::process::Command;

use crate::common::{bagscope, official::have_python_rosbag, ros_python, skip};

fn script() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/common/interop/picture_bag.py")
}

fn have_numpy_pil() -> Result<(), String> {
    have_python_rosbag()?;
    let ok = Command::new(ros_python())
        .args(["-c", "import numpy, PIL, sensor_msgs.msg"])
        .output()
        .is_ok_and(|o| o.status.success());
    if ok {
        Ok(())
    } else {
        Err("python3 cannot import numpy/PIL (apt-get install python3-numpy python3-pil)".into())
    }
}

#[test]
fn exported_frames_equal_the_official_decoding() {
    if let Err(why) = have_numpy_pil() {
        skip(&why);
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let bag = dir.path().join("pictures.bag");
    let out = dir.path().join("frames");
    let st = Command::new(ros_python())
        .arg(script())
        .arg("write")
        .arg(&bag)
        .status()
        .unwrap();
    assert!(st.success());
    for topic in ["/camera/image_raw", "/camera/compressed"] {
        let o = bagscope()
            .arg("export")
            .arg(&bag)
            .args(["-t", topic, "--format", "images", "-o"])
            .arg(&out)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(0), "{err}");
        assert!(err.contains("wrote"), "{err}");
    }
    let mut names: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names.len(), 8, "{names:?}");
    assert_eq!(names[0], "1700000000.000000000.png");
    assert_eq!(names[7], "1700000001.000000005.jpg");
    let o = Command::new(ros_python())
        .arg(script())
        .arg("compare")
        .arg(&bag)
        .arg(&out)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(text.contains("checked 8 frames"), "{text}");

    // --start/--end apply; a topic of another type is refused.
    let out2 = dir.path().join("some");
    let o = bagscope()
        .arg("export")
        .arg(&bag)
        .args([
            "-t",
            "/camera/image_raw",
            "--format",
            "images",
            "--start",
            "1700000000.000002",
            "--end",
            "1700000000.000003",
            "-o",
        ])
        .arg(&out2)
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(std::fs::read_dir(&out2).unwrap().count(), 2);
}

#[test]
fn images_need_an_output_directory() {
    let (_, err, code) = crate::common::run_bagscope(&[
        "export",
        "nonexistent.bag",
        "-t",
        "/x",
        "--format",
        "images",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("-o DIR"), "{err}");
}

#[test]
fn where_keeps_only_the_frames_it_holds_for() {
    let dir = tempfile::tempdir().unwrap();
    let bag = dir.path().join("pictures.bag");
    crate::common::pictures::write_bag(&bag);
    let export = |out: &str, extra: &[&str]| {
        let mut args = vec![
            "export",
            bag.to_str().unwrap(),
            "-t",
            "/camera/image_raw",
            "-t",
            "/camera/broken",
            "--format",
            "images",
            "-o",
            out,
        ];
        args.extend(extra);
        crate::common::run_bagscope(&args)
    };
    let count = |d: &str| std::fs::read_dir(dir.path().join(d)).map_or(0, |r| r.count());
    // Without --where the broken frame is reported and skipped.
    let all = dir.path().join("all");
    let (_, err, code) = export(all.to_str().unwrap(), &[]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("1 frames could not be converted"), "{err}");
    assert_eq!(count("all"), 1);
    // The 10×10 broken frame is not kept, so not converted.
    let wide = dir.path().join("wide");
    let (_, err, code) = export(wide.to_str().unwrap(), &["--where", "width > 32"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("wrote 1 frames"), "{err}");
    assert!(!err.contains("could not be converted"), "{err}");
    let names: Vec<_> = std::fs::read_dir(&wide)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["100.000000000.png"]);
    let none = dir.path().join("none");
    let (_, err, code) = export(none.to_str().unwrap(), &["--where", "width > 1000"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("wrote 0 frames"), "{err}");
    // An expression that does not fit the type is refused before anything is written.
    let bad = dir.path().join("bad");
    let (_, err, code) = export(bad.to_str().unwrap(), &["--where", "nosuch > 1"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--where: topic '/camera/"), "{err}");
    assert_eq!(count("bad"), 0);
}
