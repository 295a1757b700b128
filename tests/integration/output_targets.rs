//! Where outputs go when the target is not a plain file: a FIFO or character device is written
//! straight into and stays what it was (never renamed over), a FIFO without a reader fails
//! after a bounded wait instead of blocking, a full device fails the command; inside an
//! export directory no planted link is followed. Devices are made in a scratch directory
//! (`mknod` of 1,3 and 1,7, the numbers of `/dev/null` and `/dev/full`: root only), never
//! the system's.

use std::io::Read;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use crate::common::{bagscope, fixtures_dir, rockin_fixtures, skip};

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// `dir/null` and `dir/full` as character devices 1,3 and 1,7, or `None` (skipped) when
/// this is not root.
fn devices(dir: &Path) -> Option<(PathBuf, PathBuf)> {
    let null = dir.join("null");
    let full = dir.join("full");
    for (p, minor) in [(&null, "3"), (&full, "7")] {
        let made = Command::new("mknod")
            .arg(p)
            .args(["c", "1", minor])
            .status();
        if !made.is_ok_and(|s| s.success()) {
            skip("mknod failed (not root?): the device cases are not checked");
            return None;
        }
    }
    Some((null, full))
}

fn mkfifo(path: &Path) -> bool {
    let ok = Command::new("mkfifo")
        .arg(path)
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        skip("mkfifo failed: the FIFO cases are not checked");
    }
    ok
}

/// Asserts `p` is still the character device `minor` of major 1.
fn still_device(p: &Path, minor: u64) {
    let m = std::fs::symlink_metadata(p).unwrap();
    assert!(m.file_type().is_char_device(), "{p:?} was replaced: {m:?}");
    assert_eq!(m.rdev(), (1 << 8) | minor, "{p:?}");
}

/// Every command that writes a file, writing to `out` (a fresh name for each in `scratch`
/// when the command also needs other files).
fn writers(out: &Path, scratch: &Path) -> Vec<Vec<String>> {
    let bag = fixtures_dir().join("recorded.bag");
    let b = s(&bag).to_string();
    let o = s(out).to_string();
    let index = scratch.join("ix.bsx");
    let yaml = rockin_fixtures()
        .into_iter()
        .find(|p| p.extension().is_some_and(|e| e == "yaml"))
        .unwrap();
    let args = |v: &[&str]| v.iter().map(ToString::to_string).collect::<Vec<_>>();
    vec![
        args(&["export", "-t", "/odom", "--format", "csv", "-o", &o, &b]),
        args(&["export", "-t", "/odom", "--format", "jsonl", "-o", &o, &b]),
        args(&["export", "--format", "mcap", "-o", &o, &b]),
        args(&["filter", &b, &o, "-t", "/odom"]),
        args(&["reindex", &b, &o]),
        args(&["convert", &b, &format!("{o}.yaml")]),
        args(&["convert", s(&yaml), &format!("{o}.bag")]),
        args(&["index", "build", &o, &b]),
        args(&[
            "query",
            s(&index),
            "--start",
            "0",
            "--end",
            "4000000000",
            "--out",
            &o,
        ]),
    ]
}

fn run(args: &[String]) -> (i32, String) {
    let out = bagscope().args(args).stdin(Stdio::null()).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn devices_are_written_into_and_never_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let Some((null, full)) = devices(dir.path()) else {
        return;
    };
    let bag = fixtures_dir().join("recorded.bag");
    let (code, err) = run(&[
        "index".into(),
        "build".into(),
        s(&dir.path().join("ix.bsx")).into(),
        s(&bag).into(),
    ]);
    assert_eq!(code, 0, "{err}");
    // (convert picks its direction by the extension: links named so lead to the devices.)
    for ext in ["yaml", "bag"] {
        std::os::unix::fs::symlink(&null, dir.path().join(format!("null.{ext}"))).unwrap();
        std::os::unix::fs::symlink(&full, dir.path().join(format!("full.{ext}"))).unwrap();
    }
    for args in writers(&null, dir.path()) {
        let (code, err) = run(&args);
        assert_eq!(code, 0, "{args:?}: {err}");
        still_device(&null, 3);
    }
    for args in writers(&full, dir.path()) {
        let (code, err) = run(&args);
        assert_eq!(code, 2, "{args:?} must fail on a full device: {err}");
        assert!(err.contains("No space left on device"), "{args:?}: {err}");
        still_device(&full, 7);
    }
    // Nothing else was left in the scratch directory (no temporary files).
    let mut names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "full",
            "full.bag",
            "full.yaml",
            "ix.bsx",
            "null",
            "null.bag",
            "null.yaml"
        ]
    );
}

/// Runs `args` (whose output is the FIFO `fifo`) while a thread reads the FIFO; returns the
/// bytes read and the exit code. Fails (without waiting for ever) when the FIFO was replaced
/// or nothing reached it.
fn through_fifo(args: &[String], fifo: &Path) -> (Vec<u8>, i32, String) {
    let path = fifo.to_path_buf();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let read = std::fs::File::open(&path).and_then(|mut f| f.read_to_end(&mut bytes));
        let _ = tx.send(read.map(|_| bytes));
    });
    let (code, err) = run(args);
    assert!(
        std::fs::symlink_metadata(fifo)
            .unwrap()
            .file_type()
            .is_fifo(),
        "{args:?} replaced the FIFO: {err}"
    );
    // A command that failed before opening the FIFO leaves the reader waiting: release it.
    if code != 0 {
        let _ = std::fs::OpenOptions::new().write(true).open(fifo);
    }
    let bytes = rx
        .recv_timeout(Duration::from_secs(60))
        .unwrap_or_else(|_| panic!("{args:?}: nothing came through the FIFO: {err}"))
        .unwrap();
    (bytes, code, err)
}

#[test]
fn a_fifo_gets_what_a_file_would_get() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe");
    if !mkfifo(&fifo) {
        return;
    }
    let bag = fixtures_dir().join("recorded.bag");
    let b = s(&bag).to_string();
    let file = dir.path().join("file");
    let cases = |o: &Path| -> Vec<Vec<String>> {
        let o = s(o);
        [
            &["export", "-t", "/imu", "--format", "csv", "-o", o, &b][..],
            &["export", "--format", "mcap", "-o", o, &b],
            &["filter", &b, o, "-t", "/odom"],
            &["index", "build", o, &b],
        ]
        .iter()
        .map(|v| v.iter().map(ToString::to_string).collect())
        .collect()
    };
    for (to_file, to_fifo) in cases(&file).iter().zip(cases(&fifo)) {
        let (code, err) = run(to_file);
        assert_eq!(code, 0, "{err}");
        let (bytes, code, err) = through_fifo(&to_fifo, &fifo);
        assert_eq!(code, 0, "{to_fifo:?}: {err}");
        let want = std::fs::read(&file).unwrap();
        assert!(
            bytes == want,
            "{to_fifo:?}: {} bytes through the FIFO, {} in a file",
            bytes.len(),
            want.len()
        );
        assert!(
            std::fs::symlink_metadata(&fifo)
                .unwrap()
                .file_type()
                .is_fifo()
        );
        std::fs::remove_file(&file).unwrap();
    }
}

#[test]
fn a_fifo_without_reader_fails_after_a_bounded_wait() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe.bsx");
    if !mkfifo(&fifo) {
        return;
    }
    let bag = fixtures_dir().join("recorded.bag");
    for args in [
        vec![
            "export",
            "-t",
            "/odom",
            "--format",
            "csv",
            "-o",
            s(&fifo),
            s(&bag),
        ],
        vec!["index", "build", s(&fifo), s(&bag)],
    ] {
        let mut child = bagscope()
            .args(&args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Far longer than the wait: a command that blocks in open() is killed and fails here.
        let mut waited = Duration::ZERO;
        let status = loop {
            if let Some(st) = child.try_wait().unwrap() {
                break st;
            }
            if waited > Duration::from_secs(60) {
                let _ = child.kill();
                let _ = child.wait();
                panic!("{args:?}: still blocked after a minute");
            }
            std::thread::sleep(Duration::from_millis(50));
            waited += Duration::from_millis(50);
        };
        let err = crate::common::read_stderr(&mut child);
        assert_eq!(status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains(&format!(
                "{}: is a FIFO that no process reads (waited 5 s for a reader)",
                fifo.display()
            )),
            "{args:?}: {err}"
        );
        assert!(
            std::fs::symlink_metadata(&fifo)
                .unwrap()
                .file_type()
                .is_fifo()
        );
    }
}

#[test]
fn dev_stdout_into_a_pipe_streams() {
    let bag = fixtures_dir().join("recorded.bag");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("f.bag");
    for (to_stdout, to_file) in [
        (
            vec![
                "export",
                "-t",
                "/odom",
                "--format",
                "jsonl",
                "-o",
                "/dev/stdout",
                s(&bag),
            ],
            vec![
                "export",
                "-t",
                "/odom",
                "--format",
                "jsonl",
                "-o",
                s(&file),
                s(&bag),
            ],
        ),
        (
            vec!["filter", s(&bag), "/dev/stdout", "-t", "/imu"],
            vec!["filter", s(&bag), s(&file), "-t", "/imu"],
        ),
    ] {
        let out = bagscope().args(&to_stdout).output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let (code, err) = run(&to_file.iter().map(ToString::to_string).collect::<Vec<_>>());
        assert_eq!(code, 0, "{err}");
        let want = std::fs::read(&file).unwrap();
        // (`filter` also prints its summary on stdout, after the bag.)
        assert!(
            out.stdout.starts_with(&want) && !want.is_empty(),
            "{to_stdout:?}: {} bytes on stdout, {} in a file",
            out.stdout.len(),
            want.len()
        );
    }
}

#[test]
fn a_directory_or_block_device_as_output_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let bag = fixtures_dir().join("recorded.bag");
    let (code, err) = run(&["filter".into(), s(&bag).into(), s(dir.path()).into()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("is a directory"), "{err}");
    let blk = dir.path().join("disk");
    if Command::new("mknod")
        .arg(&blk)
        .args(["b", "7", "200"])
        .status()
        .is_ok_and(|s| s.success())
    {
        let (code, err) = run(&["filter".into(), s(&bag).into(), s(&blk).into()]);
        assert_eq!(code, 2, "{err}");
        assert!(err.contains("is a block device"), "{err}");
        assert!(
            std::fs::symlink_metadata(&blk)
                .unwrap()
                .file_type()
                .is_block_device()
        );
    }
}

// ---- Links planted inside an export directory -------------------------------------------

#[test]
fn links_planted_in_a_parquet_directory_are_not_followed() {
    let dir = tempfile::tempdir().unwrap();
    let outside = dir.path().join("outside");
    std::fs::create_dir(&outside).unwrap();
    let victim = outside.join("victim");
    std::fs::write(&victim, b"keep me").unwrap();
    let bag = fixtures_dir().join("recorded.bag");
    // A link at a file's name: replaced by the file, its target untouched.
    let out = dir.path().join("pq");
    std::fs::create_dir(&out).unwrap();
    std::os::unix::fs::symlink(&victim, out.join("odom.parquet")).unwrap();
    let (code, err) = run(&[
        "export".into(),
        "--format".into(),
        "parquet".into(),
        "-t".into(),
        "/odom".into(),
        "-o".into(),
        s(&out).into(),
        s(&bag).into(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(std::fs::read(&victim).unwrap(), b"keep me");
    let m = std::fs::symlink_metadata(out.join("odom.parquet")).unwrap();
    assert!(m.file_type().is_file(), "{m:?}");
    // A link where a partition directory goes: refused, nothing written through it.
    std::os::unix::fs::symlink(&outside, out.join("robot=r1")).unwrap();
    let (code, err) = run(&[
        "export".into(),
        "--format".into(),
        "parquet".into(),
        "--partition-by".into(),
        "robot=r1".into(),
        "-o".into(),
        s(&out).into(),
        s(&bag).into(),
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(&format!(
            "{}: is a symbolic link inside the output directory",
            out.join("robot=r1").display()
        )),
        "{err}"
    );
    let mut left: Vec<_> = std::fs::read_dir(&outside)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    left.sort();
    assert_eq!(left, ["victim"]);
    // A FIFO at a file's name: refused at once (never opened, never replaced).
    let out2 = dir.path().join("pq2");
    std::fs::create_dir(&out2).unwrap();
    if mkfifo(&out2.join("imu.parquet")) {
        let (code, err) = run(&[
            "export".into(),
            "--format".into(),
            "parquet".into(),
            "-t".into(),
            "/imu".into(),
            "-o".into(),
            s(&out2).into(),
            s(&bag).into(),
        ]);
        assert_eq!(code, 2, "{err}");
        assert!(
            err.contains("is a FIFO inside the output directory"),
            "{err}"
        );
        assert!(
            std::fs::symlink_metadata(out2.join("imu.parquet"))
                .unwrap()
                .file_type()
                .is_fifo()
        );
    }
}

#[test]
fn links_planted_among_frames_are_not_followed() {
    let dir = tempfile::tempdir().unwrap();
    let bag = dir.path().join("pictures.bag");
    crate::common::pictures::write_bag(&bag);
    let victim = dir.path().join("victim");
    std::fs::write(&victim, b"keep me").unwrap();
    let out = dir.path().join("frames");
    std::fs::create_dir(&out).unwrap();
    // The compressed frame is received at t = 101.
    let name = out.join("101.000000000.jpg");
    std::os::unix::fs::symlink(&victim, &name).unwrap();
    let (code, err) = run(&[
        "export".into(),
        s(&bag).into(),
        "-t".into(),
        "/camera/compressed".into(),
        "--format".into(),
        "images".into(),
        "-o".into(),
        s(&out).into(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(std::fs::read(&victim).unwrap(), b"keep me");
    assert!(
        std::fs::symlink_metadata(&name)
            .unwrap()
            .file_type()
            .is_file()
    );
    assert!(std::fs::read(&name).unwrap().starts_with(&[0xff, 0xd8]));
}

// ---- Many files, long names ------------------------------------------------------------

#[test]
fn parquet_of_more_topics_than_descriptors() {
    let dir = tempfile::tempdir().unwrap();
    let bag = dir.path().join("many.bag");
    let topics = 1200;
    crate::common::many_topics::write(&bag, topics, 2);
    let out = dir.path().join("pq");
    // 256 descriptors for 1 200 files (and the bag, the standard streams…).
    let st = Command::new("sh")
        .arg("-c")
        .arg("ulimit -n 256 && exec \"$0\" export --format parquet -o \"$1\" \"$2\"")
        .arg(env!("CARGO_BIN_EXE_bagscope"))
        .arg(&out)
        .arg(&bag)
        .env("BAGSCOPE_CACHE_DIR", "")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&st.stderr);
    assert_eq!(
        st.status.code(),
        Some(0),
        "{}",
        err.lines().last().unwrap_or("")
    );
    let files: Vec<_> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(files.len(), topics, "{files:?}");
    assert_eq!(err.matches("wrote 2 rows to").count(), topics);
}

#[test]
fn parquet_of_topics_with_very_long_names() {
    use bagscope::bag::writer::{BagWriter, WriterOptions};
    use bagscope::format::ConnectionHeader;
    use bagscope::time::RosTime;
    let dir = tempfile::tempdir().unwrap();
    let bag = dir.path().join("long.bag");
    let mut w = BagWriter::create(&bag, WriterOptions::default()).unwrap();
    let long = format!("/{}", "segment/".repeat(40));
    let topics = [format!("{long}a"), format!("{long}b")];
    for (i, topic) in topics.iter().enumerate() {
        let header = ConnectionHeader::build(
            topic,
            "std_msgs/String",
            "992ce8a1687cec8c8bd883ec73ca41d1",
            "string data\n",
            None,
            None,
        );
        let c = w.add_connection(topic, &header).unwrap();
        w.write(
            c,
            RosTime::new(100, u32::try_from(i).unwrap()),
            &[1, 0, 0, 0, b'x'],
        )
        .unwrap();
    }
    w.finish().unwrap();
    let out = dir.path().join("pq");
    let (code, err) = run(&[
        "export".into(),
        "--format".into(),
        "parquet".into(),
        "-o".into(),
        s(&out).into(),
        s(&bag).into(),
    ]);
    assert_eq!(code, 0, "{err}");
    let mut names: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names.len(), 2, "{names:?}");
    for n in &names {
        assert!(
            n.len() <= 200 && n.starts_with("segment.segment.") && n.contains('~'),
            "{n}"
        );
    }
}
