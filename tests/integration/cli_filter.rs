//! `bagscope filter` and `bagscope reindex` from the command line: what they select, what they
//! report, their exit codes, and that they never touch the input nor leave partial output.
//! (Interop with the official tools is in `interop_writer.rs`.)

use std::path::{Path, PathBuf};
use std::process::Output;

use bagscope::bag::{Bag, Query};
use bagscope::format::Compression;
use bagscope::time::RosTime;

use crate::common::{bagscope, fixtures_dir};

fn run(args: &[&std::ffi::OsStr]) -> Output {
    bagscope().args(args).output().unwrap()
}

fn os<S: AsRef<std::ffi::OsStr> + ?Sized>(s: &S) -> &std::ffi::OsStr {
    s.as_ref()
}

/// (time, topic, payload, raw connection header) of every message, in reading order.
fn contents(bag: &Bag, query: &Query) -> Vec<(RosTime, String, Vec<u8>, Vec<u8>)> {
    bag.messages(query)
        .map(|m| {
            let m = m.unwrap();
            let c = bag.connection(m.entry.conn).unwrap();
            (
                m.entry.time,
                c.topic.clone(),
                m.data.to_vec(),
                c.header.raw.clone(),
            )
        })
        .collect()
}

fn listing(dir: &Path) -> Vec<String> {
    crate::common::listing(dir)
}

/// `bagscope filter recorded.bag DIR/f.bag ARGS...` into a fresh DIR: the output, DIR (kept
/// while it lives) and the bag written.
fn filter_recorded(args: &[&str]) -> (Output, tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("f.bag");
    let o = filter(&fixtures_dir().join("recorded.bag"), &out, args);
    (o, dir, out)
}

/// `bagscope filter INPUT OUT ARGS...`.
fn filter(input: &Path, out: &Path, args: &[&str]) -> Output {
    bagscope()
        .arg("filter")
        .arg(input)
        .arg(out)
        .args(args)
        .output()
        .unwrap()
}

/// A copy of a fixture in a fresh directory.
fn copy_fixture(name: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::copy(fixtures_dir().join(name), &path).unwrap();
    (dir, path)
}

#[test]
fn filter_keeps_the_selected_topics_and_times() {
    let input = fixtures_dir().join("recorded.bag");
    let (o, _dir, out) = filter_recorded(&[
        "-t",
        "/chatter",
        "--topic",
        "/tf_static",
        "-t",
        "/imu",
        "--start",
        "+0.5",
        "--end",
        "+2",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let src = Bag::open(&input).unwrap();
    let start = src.start_time().unwrap();
    let conns: Vec<u32> = src
        .connections()
        .iter()
        .filter(|c| ["/chatter", "/imu", "/tf_static"].contains(&c.topic.as_str()))
        .map(|c| c.id)
        .collect();
    let query = Query::all().connections(conns).time_range(
        Some(start.saturating_add_nanos(500_000_000)),
        Some(start.saturating_add_nanos(2_000_000_000)),
    );
    let want = contents(&src, &query);
    let bag = Bag::open(&out).unwrap();
    assert!(bag.is_indexed());
    let got = contents(&bag, &Query::all());
    assert!(
        want.len() > 20,
        "the selection is not trivial: {}",
        want.len()
    );
    assert_eq!(got, want);
    // Connections are numbered 0.. in order of first use; both /chatter publishers stay.
    let ids: Vec<u32> = bag.connections().iter().map(|c| c.file_id).collect();
    assert_eq!(ids, (0..bag.connections().len() as u32).collect::<Vec<_>>());
    assert_eq!(
        bag.connections()
            .iter()
            .filter(|c| c.topic == "/chatter")
            .count(),
        2
    );
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        stdout.contains(&format!("{} messages", want.len())),
        "{stdout}"
    );
}

#[test]
fn filter_bounds_are_inclusive_absolute_times() {
    let input = fixtures_dir().join("recorded.bag");
    let src = Bag::open(&input).unwrap();
    let all = contents(&src, &Query::all());
    let (lo, hi) = (all[10].0, all[40].0);
    let (o, _dir, out) = filter_recorded(&["--start", &lo.to_string(), "--end", &hi.to_string()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let want: Vec<_> = all
        .iter()
        .filter(|m| m.0 >= lo && m.0 <= hi)
        .cloned()
        .collect();
    assert!(want.len() >= 31);
    assert_eq!(contents(&Bag::open(&out).unwrap(), &Query::all()), want);
}

#[test]
fn compression_follows_the_input_unless_asked() {
    let dir = tempfile::tempdir().unwrap();
    let lz4 = fixtures_dir().join("recorded_lz4.bag");
    let cases: [(&Path, Option<&str>, Compression); 4] = [
        (&lz4, None, Compression::Lz4),
        (&lz4, Some("bz2"), Compression::Bz2),
        (&lz4, Some("none"), Compression::None),
        (
            &fixtures_dir().join("v12_indexed.bag"),
            None,
            Compression::None,
        ),
    ];
    for (i, (input, flag, want)) in cases.into_iter().enumerate() {
        let out = dir.path().join(format!("{i}.bag"));
        let mut args = vec![os("filter"), input.as_os_str(), out.as_os_str()];
        if let Some(f) = flag {
            args.extend([os("--compression"), os(f)]);
        }
        args.extend([os("--chunk-size"), os("16")]);
        let o = run(&args);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let bag = Bag::open(&out).unwrap();
        assert!(bag.chunks().len() > 1, "16 KiB chunks");
        assert!(
            bag.chunks()
                .iter()
                .all(|c| bag.head(c.index).unwrap().compression == want),
            "case {i}"
        );
        let src = Bag::open(input).unwrap();
        let strip = |v: Vec<(RosTime, String, Vec<u8>, Vec<u8>)>| {
            v.into_iter()
                .map(|(t, topic, d, _)| (t, topic, d))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            strip(contents(&bag, &Query::all())),
            strip(contents(&src, &Query::all()))
        );
    }
}

#[test]
fn bad_selections_are_reported() {
    let input = fixtures_dir().join("recorded.bag");
    let (o, dir, out) = filter_recorded(&["--start", "+3", "--end", "+1"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).starts_with("bagscope: error: "));
    assert!(!out.exists());
    let o = filter(&input, &out, &["--start", "yesterday"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(!out.exists());
    // An unknown topic is a usage error (a typo would otherwise give a quietly smaller
    // copy): exit 2, the topics there are listed, nothing is written.
    let o = filter(&input, &out, &["-t", "/nope", "-t", "/map_name"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("has no topic '/nope'"), "{err}");
    assert!(err.contains("/map_name, /odom"), "{err}");
    assert!(!out.exists());
    let o = filter(&input, &out, &["-t", "map_name"]);
    assert!(o.status.success());
    assert_eq!(Bag::open(&out).unwrap().message_count(), 1);
    assert_eq!(listing(dir.path()), vec!["f.bag"]);
}

#[test]
fn the_output_may_not_be_the_input() {
    for command in ["filter", "reindex"] {
        let (dir, input) = copy_fixture("recorded.bag");
        let before = std::fs::read(&input).unwrap();
        let mtime = std::fs::metadata(&input).unwrap().modified().unwrap();
        let mut names: Vec<PathBuf> =
            vec![input.clone(), dir.path().join(".").join("recorded.bag")];
        #[cfg(unix)]
        {
            let link = dir.path().join("link.bag");
            std::os::unix::fs::symlink(&input, &link).unwrap();
            let hard = dir.path().join("hard.bag");
            std::fs::hard_link(&input, &hard).unwrap();
            names.push(link);
            names.push(hard);
        }
        let files = listing(dir.path());
        for out in &names {
            let o = run(&[os(command), input.as_os_str(), out.as_os_str()]);
            assert_eq!(o.status.code(), Some(2), "{command} {}", out.display());
            let err = String::from_utf8_lossy(&o.stderr);
            assert!(
                err.starts_with("bagscope: error: ") && err.contains("is the input"),
                "{err}"
            );
            // Relative output given from inside the directory.
            let o = bagscope()
                .current_dir(dir.path())
                .args([os(command), input.as_os_str(), os("recorded.bag")])
                .output()
                .unwrap();
            assert_eq!(o.status.code(), Some(2));
        }
        // Also when the input is named through the link.
        #[cfg(unix)]
        {
            let link = dir.path().join("link.bag");
            let o = run(&[os(command), link.as_os_str(), input.as_os_str()]);
            assert_eq!(o.status.code(), Some(2));
        }
        assert_eq!(std::fs::read(&input).unwrap(), before, "input unchanged");
        assert_eq!(
            std::fs::metadata(&input).unwrap().modified().unwrap(),
            mtime
        );
        assert_eq!(listing(dir.path()), files, "nothing left behind");
    }
}

#[test]
fn failed_writes_leave_nothing_behind() {
    let input = fixtures_dir().join("recorded.bag");
    let dir = tempfile::tempdir().unwrap();
    // The output is an existing directory: the final rename fails.
    let blocker = dir.path().join("out.bag");
    std::fs::create_dir(&blocker).unwrap();
    std::fs::write(blocker.join("keep"), b"x").unwrap();
    let o = run(&[os("filter"), input.as_os_str(), blocker.as_os_str()]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.starts_with("bagscope: error: "), "{err}");
    assert_eq!(listing(dir.path()), vec!["out.bag"]);
    assert_eq!(listing(&blocker), vec!["keep"]);
    // The output directory does not exist.
    let missing = dir.path().join("nope/out.bag");
    let o = run(&[os("reindex"), input.as_os_str(), missing.as_os_str()]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(listing(dir.path()), vec!["out.bag"]);
}

/// The disk fills up in the middle of the copy (a file size limit, with SIGXFSZ ignored so
/// that writes fail instead of killing the process): the temporary file is removed.
#[cfg(unix)]
#[test]
fn a_write_error_midway_removes_the_temporary_file() {
    let input = fixtures_dir().join("recorded.bag");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.bag");
    // 40 blocks of 512 bytes: the 4 KiB header fits, the 90 KB of messages do not.
    let script = "trap '' XFSZ; ulimit -f 40; exec \"$0\" filter \"$1\" \"$2\" --chunk-size 8";
    let o = std::process::Command::new("sh")
        .args(["-c", script])
        .arg(env!("CARGO_BIN_EXE_bagscope"))
        .arg(&input)
        .arg(&out)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.starts_with("bagscope: error: ") && err.contains("cannot write"),
        "{err}"
    );
    assert!(listing(dir.path()).is_empty(), "{:?}", listing(dir.path()));
}

#[test]
fn reindex_reports_what_was_lost_and_exits_accordingly() {
    let dir = tempfile::tempdir().unwrap();
    // Truncated: something is lost → exit 1, and the loss is listed.
    let out = dir.path().join("t.bag");
    let o = run(&[
        os("reindex"),
        fixtures_dir().join("truncated.bag").as_os_str(),
        out.as_os_str(),
    ]);
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("lost:") && stdout.contains("bytes at byte"),
        "{stdout}"
    );
    let src = Bag::open(fixtures_dir().join("truncated.bag")).unwrap();
    let bag = Bag::open(&out).unwrap();
    assert!(bag.is_indexed());
    assert_eq!(contents(&bag, &Query::all()), contents(&src, &Query::all()));
    // Ids are kept.
    let ids = |b: &Bag| {
        b.connections()
            .iter()
            .map(|c| (c.file_id, c.topic.clone()))
            .collect::<Vec<_>>()
    };
    assert_eq!(ids(&bag), ids(&src));
    // A crashed recording whose records are all intact: nothing lost → exit 0.
    let out = dir.path().join("c.bag");
    let o = run(&[
        os("reindex"),
        fixtures_dir().join("recorded_crash.bag.active").as_os_str(),
        out.as_os_str(),
    ]);
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("lost:      nothing"), "{stdout}");
    assert_eq!(Bag::open(&out).unwrap().message_count(), 114);
    // An old bag without definitions: they come from the bundled set.
    let out = dir.path().join("v10.bag");
    let o = run(&[
        os("reindex"),
        fixtures_dir().join("v10.bag").as_os_str(),
        out.as_os_str(),
    ]);
    assert_eq!(o.status.code(), Some(0));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!err.contains("empty message definition"), "{err}");
    assert!(String::from_utf8_lossy(&o.stdout).contains("defined:   3 connection(s)"));
    let bag = Bag::open(&out).unwrap();
    assert_eq!(bag.message_count(), 21);
    let pose = bag
        .connections()
        .iter()
        .find(|c| c.topic == "/pose")
        .unwrap();
    assert!(pose.message_definition.contains("MSG: std_msgs/Header"));
    // The progress bar is not drawn when stderr is not a terminal.
    assert!(!err.contains('\r') && !err.contains('%'), "{err}");
}

/// A version 1.1 bag (no definitions stored) with one message of a custom type.
fn custom_v11_bag(path: &Path, md5: &str) {
    let mut b = b"#ROSRECORD V1.1\n".to_vec();
    let payload = [7u8, 0, 0, 0, 2, 0, 0, 0, b'h', b'i'];
    for (i, topic) in ["/thing", "/thing"].iter().enumerate() {
        b.extend_from_slice(format!("{topic}\n{md5}\nmy_pkg/Thing\n").as_bytes());
        b.extend_from_slice(&(100 + i as u32).to_le_bytes());
        b.extend_from_slice(&0u32.to_le_bytes());
        b.extend_from_slice(&(payload.len() as u32).to_le_bytes());
        b.extend_from_slice(&payload);
    }
    std::fs::write(path, b).unwrap();
}

#[test]
fn msg_path_supplies_definitions_the_bag_lacks() {
    let dir = tempfile::tempdir().unwrap();
    let text = "int32 a\nstring b  # a comment\n";
    let schema = bagscope::msg::Schema::from_definition("my_pkg/Thing", text).unwrap();
    let input = dir.path().join("old.bag");
    custom_v11_bag(&input, schema.md5sum());
    let msgs = dir.path().join("msgs/my_pkg/msg");
    std::fs::create_dir_all(&msgs).unwrap();
    std::fs::write(msgs.join("Thing.msg"), text).unwrap();
    // Without --msg-path: written with an empty definition, and said so.
    let out = dir.path().join("plain.bag");
    let o = run(&[os("reindex"), input.as_os_str(), out.as_os_str()]);
    assert_eq!(o.status.code(), Some(0));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("topic '/thing' (my_pkg/Thing") && err.contains("--msg-path"),
        "{err}"
    );
    let bag = Bag::open(&out).unwrap();
    assert_eq!(bag.connections()[0].message_definition, "");
    // With it: the full definition, for filter as for reindex.
    for command in ["reindex", "filter"] {
        let out = dir.path().join(format!("{command}.bag"));
        let o = run(&[
            os(command),
            input.as_os_str(),
            out.as_os_str(),
            os("--msg-path"),
            dir.path().join("msgs").as_os_str(),
        ]);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert!(
            o.stderr.is_empty(),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
        let bag = Bag::open(&out).unwrap();
        let c = &bag.connections()[0];
        assert_eq!(c.message_definition, schema.full_text());
        assert_eq!(c.md5sum, schema.md5sum());
        assert_eq!(bag.message_count(), 2);
    }
    // A definition with another md5sum is not used.
    std::fs::write(msgs.join("Thing.msg"), "int64 a\nstring b\n").unwrap();
    let out = dir.path().join("mismatch.bag");
    let o = run(&[
        os("reindex"),
        input.as_os_str(),
        out.as_os_str(),
        os("--msg-path"),
        dir.path().join("msgs").as_os_str(),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains(schema.md5sum()), "{err}");
    assert_eq!(
        Bag::open(&out).unwrap().connections()[0].message_definition,
        ""
    );
    // A --msg-path that does not exist is a usage error.
    let o = run(&[
        os("reindex"),
        input.as_os_str(),
        dir.path().join("x.bag").as_os_str(),
        os("--msg-path"),
        dir.path().join("nope").as_os_str(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(!dir.path().join("x.bag").exists());
}
