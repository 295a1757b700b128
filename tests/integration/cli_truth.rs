//! Never lie, never lose data (issue 11 §2–§3), from the command line and the explorer:
//!
//! * a bag cut off exactly between two records is reported as truncated (a loss) by every
//!   command and the explorer, with the time from which the recording is missing;
//! * what the reader cannot read is reported by every command that reads messages, with the
//!   counts `verify` gives, and exit 1 (a chunk that does not decompress; messages the index
//!   lists that the chunk does not hold); `convert` copies what it can;
//! * `verify` fails every message `echo` cannot decode;
//! * a selection that selects nothing (unknown topic, empty or inverted range, range outside
//!   the bag) is a usage error;
//! * `index build *.bag` never replaces a bag;
//! * every output is written beside its target with the umask's mode, through symbolic links,
//!   and leaves no temporary file behind at a file-size limit or on Ctrl-C/SIGTERM.

use std::path::{Path, PathBuf};
use std::process::Output;

use bagscope::bag::writer::{BagWriter, WriterOptions};
use bagscope::bag::{Bag, Query};
use bagscope::catalog::Catalog;
use bagscope::format::{Compression, ConnectionHeader, Op, read_head};
use bagscope::time::RosTime;

use crate::common;
use crate::common::synth::{self, string_msg};
use crate::common::{bagscope, fixtures_dir, skip};

fn run(args: &[&str]) -> Output {
    bagscope().args(args).output().unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Files in `dir` whose name ends in `.partial`.
fn partials(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".partial"))
        .collect()
}

/// `(offset, op, end)` of every top-level record of a 2.0 bag after the version line.
fn records(buf: &[u8]) -> Vec<(usize, Op, usize, usize)> {
    let mut out = Vec::new();
    let mut pos = 13;
    while pos < buf.len() {
        let head = read_head(buf, pos, 0).unwrap();
        let op = head.op().unwrap().unwrap();
        let end = head.end() as usize;
        out.push((pos, op, head.data_offset as usize, end));
        pos = end;
    }
    out
}

fn string_header(topic: &str) -> ConnectionHeader {
    synth::string_header(topic, "/talker")
}

/// A bag of `n` std_msgs/String messages on /chatter (and every third on /other), a few
/// messages per chunk.
fn string_bag(path: &Path, compression: Compression, n: u32) {
    let mut w = BagWriter::create(
        path,
        WriterOptions {
            compression,
            chunk_size: 300,
        },
    )
    .unwrap();
    let chatter = w
        .add_connection("/chatter", &string_header("/chatter"))
        .unwrap();
    let other = w
        .add_connection("/other", &string_header("/other"))
        .unwrap();
    for i in 0..n {
        let conn = if i % 3 == 2 { other } else { chatter };
        let body = format!("message number {i} {}", "abc".repeat(20));
        w.write(conn, RosTime::new(1_000 + i, 0), &string_msg(&body))
            .unwrap();
    }
    w.finish().unwrap();
}

// ---------------------------------------------------------------------------------------
// §2: a bag cut between records

/// recorded.bag cut just after the index data of its second chunk (a record boundary: every
/// record before the cut is whole), and the receive time of the last message left.
fn cut_between_records(dir: &Path) -> (PathBuf, RosTime) {
    let bytes = std::fs::read(fixtures_dir().join("recorded.bag")).unwrap();
    let recs = records(&bytes);
    let chunks: Vec<usize> = recs
        .iter()
        .enumerate()
        .filter(|(_, r)| r.1 == Op::Chunk)
        .map(|(i, _)| i)
        .collect();
    let mut i = chunks[1] + 1;
    while recs[i].1 == Op::IndexData {
        i += 1;
    }
    let cut = recs[i].0;
    let path = dir.join("cut.bag");
    std::fs::write(&path, &bytes[..cut]).unwrap();
    let bag = Bag::open(&path).unwrap();
    let last = bag
        .messages(&Query::all())
        .map(|m| m.unwrap().entry.time)
        .max()
        .unwrap();
    (path, last)
}

#[test]
fn a_bag_cut_between_records_is_truncated_everywhere() {
    let dir = tempfile::tempdir().unwrap();
    let (cut, last) = cut_between_records(dir.path());
    let len = std::fs::metadata(&cut).unwrap().len();
    // The bag layer: a loss at the end of the file, naming the last message read.
    let bag = Bag::open(&cut).unwrap();
    let r = bag.recovery().unwrap();
    assert!(!r.is_lossless());
    let loss = r.losses.iter().find(|l| l.offset == len).unwrap();
    assert!(
        loss.reason.contains("the end of the recording is missing")
            && loss.reason.contains(&last.to_string()),
        "{loss}"
    );
    let missing = format!("every message after {last}");
    // The official tools: `rosbag info` refuses it; `rosbag reindex` (on a copy) gets the same
    // messages, the last of them at the time our loss names.
    match common::official::have_rosbag_cli() {
        Err(why) => skip(&why),
        Ok(()) => {
            let (ok, out, err) = common::official::rosbag(&["info".as_ref(), cut.as_os_str()]);
            assert!(
                !ok || format!("{out}{err}").contains("unindexed"),
                "{out}{err}"
            );
            let dump = common::official::dump_full(std::slice::from_ref(&cut), &["--reindex-copy"]);
            let rows = common::official::rows(&dump[0]);
            assert_eq!(rows.len() as u64, bag.message_count());
            let theirs = rows.iter().map(|r| r.0).max().unwrap();
            assert_eq!(theirs, i128::from(last.as_nanos()));
        }
    }
    // info: exit 1 and a lost: row.
    let o = run(&["info", s(&cut)]);
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o.stdout).contains("lost:") && text(&o.stdout).contains(&missing));
    // verify: a problem, exit 1.
    let o = run(&["verify", s(&cut)]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stdout));
    assert!(!text(&o.stdout).contains("no problems"));
    assert!(text(&o.stdout).contains(&missing));
    // reindex: not "lost: nothing", exit 1, and the copy holds every message read.
    let out = dir.path().join("re.bag");
    let o = run(&["reindex", s(&cut), s(&out)]);
    assert_eq!(o.status.code(), Some(1));
    let stdout = text(&o.stdout);
    assert!(!stdout.contains("lost:      nothing"), "{stdout}");
    assert!(stdout.contains(&missing), "{stdout}");
    assert_eq!(
        Bag::open(&out).unwrap().message_count(),
        bag.message_count()
    );
    // Commands that read messages warn and exit 1.
    for args in [
        vec!["echo", s(&cut)],
        vec!["export", s(&cut), "-t", "/chatter", "--format", "jsonl"],
        vec!["filter", s(&cut), s(&dir.path().join("f.bag"))],
        vec!["convert", s(&cut), s(&dir.path().join("c.yaml"))],
        vec!["index", "build", s(&dir.path().join("ix")), s(&cut)],
    ] {
        let o = run(&args);
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        let err = text(&o.stderr);
        assert!(
            err.contains("warning") && err.contains(&missing),
            "{args:?}: {err}"
        );
    }
    // The explorer's status bar says the bag is damaged.
    let h = common::tui::Harness::new(Catalog::new(vec![bag]), 80, 24);
    let status = h.status_bar();
    assert!(status.contains("damaged: 1 part lost"), "{status}");
}

// ---------------------------------------------------------------------------------------
// §2: what cannot be read is reported with verify's counts

/// Every message-reading command on `bag`: `(name, output)`.
fn read_everything(bag: &Path, dir: &Path) -> Vec<(&'static str, Output, Option<PathBuf>)> {
    let f = dir.join("filtered.bag");
    let r = dir.join("reindexed.bag");
    let y = dir.join("converted.yaml");
    let x = dir.join("exported.jsonl");
    let i = dir.join("index.bsx");
    let b = s(bag);
    vec![
        ("echo", run(&["echo", b]), None),
        (
            "export",
            run(&[
                "export",
                b,
                "-t",
                "/chatter",
                "-t",
                "/other",
                "--format",
                "jsonl",
                "-o",
                s(&x),
            ]),
            Some(x.clone()),
        ),
        ("filter", run(&["filter", b, s(&f)]), Some(f.clone())),
        ("reindex", run(&["reindex", b, s(&r)]), Some(r.clone())),
        ("convert", run(&["convert", b, s(&y)]), Some(y.clone())),
        ("index build", run(&["index", "build", s(&i), b]), None),
    ]
}

#[test]
fn a_chunk_that_does_not_decompress_costs_all_its_messages_everywhere() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("lz4.bag");
    string_bag(&path, Compression::Lz4, 12);
    // Break the LZ4 frame of the chunk with the most messages.
    let (pos, n, total) = {
        let bag = Bag::open(&path).unwrap();
        let c = bag
            .chunks()
            .iter()
            .max_by_key(|c| c.message_count())
            .unwrap();
        (
            bag.head(c.index).unwrap().data_offset as usize,
            c.message_count(),
            bag.message_count(),
        )
    };
    assert!(n >= 2, "{n}");
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[pos..pos + 4].copy_from_slice(&[0, 0, 0, 0]);
    std::fs::write(&path, &bytes).unwrap();
    let o = run(&["verify", s(&path)]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        text(&o.stdout).contains(&format!("{n} message(s) unreadable")),
        "{}",
        text(&o.stdout)
    );
    // index build reads index data only: it has nothing to say about the chunk's bytes; a
    // query through the index meets them.
    let index = dir.path().join("index.bsx");
    for (name, o, out) in read_everything(&path, dir.path()) {
        if name == "index build" {
            assert_eq!(o.status.code(), Some(0), "{name}");
            for extra in [vec![], vec!["--out", s(&dir.path().join("q.bag"))]] {
                let mut args = vec!["query", s(&index), "--start", "+0", "--end", "+100"];
                args.extend(extra);
                let o = run(&args);
                let err = text(&o.stderr);
                assert_eq!(o.status.code(), Some(1), "{err}");
                assert!(
                    err.contains(&format!("{n} message(s) could not be read")),
                    "{err}"
                );
            }
            continue;
        }
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{name}: {err}");
        assert!(
            err.contains(&format!("{n} message(s) of this chunk could not be read"))
                && err.contains(&format!("{n} message(s) could not be read")),
            "{name}: {err}"
        );
        // What could be read was written (convert too).
        match (name, out) {
            ("filter" | "reindex", Some(p)) => {
                assert_eq!(Bag::open(&p).unwrap().message_count(), total - n, "{name}")
            }
            ("convert", Some(p)) => {
                let yaml = std::fs::read_to_string(&p).unwrap();
                assert_eq!(yaml.matches("topic:").count() as u64, total - n, "{yaml}");
            }
            _ => {}
        }
    }
}

#[test]
fn messages_the_index_lists_but_the_chunk_lacks_are_reported_everywhere() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("plain.bag");
    string_bag(&path, Compression::None, 12);
    // The first chunk info claims one more /chatter message than the chunk holds.
    let mut bytes = std::fs::read(&path).unwrap();
    let info = records(&bytes)
        .into_iter()
        .find(|r| r.1 == Op::ChunkInfo)
        .unwrap();
    let at = info.2 + 4;
    let n = u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
    bytes[at..at + 4].copy_from_slice(&(n + 1).to_le_bytes());
    std::fs::write(&path, &bytes).unwrap();
    let what = "1 message(s) the index lists in this chunk were not found in it";
    let o = run(&["verify", s(&path)]);
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o.stdout).contains(what), "{}", text(&o.stdout));
    for (name, o, _) in read_everything(&path, dir.path()) {
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{name}: {err}");
        assert!(
            err.contains(what) && err.contains("1 message(s) could not be read"),
            "{name}: {err}"
        );
        if name == "reindex" {
            let out = text(&o.stdout);
            assert!(!out.contains("same messages"), "{out}");
            assert!(out.contains("lost:      1 message(s)"), "{out}");
        }
    }
}

#[test]
fn verify_fails_every_message_echo_cannot_decode() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("empties.bag");
    let sep = "=".repeat(80);
    let def = format!("E[65536] a\n{sep}\nMSG: t/E\nF[65536] f\n{sep}\nMSG: t/F\n");
    let header = ConnectionHeader::build(
        "/empties",
        "t/T",
        "00000000000000000000000000000000",
        &def,
        None,
        None,
    );
    let mut w = BagWriter::create(&path, WriterOptions::default()).unwrap();
    let c = w.add_connection("/empties", &header).unwrap();
    // Valid on the wire (no bytes at all), but 2^32 values.
    w.write(c, RosTime::new(1, 0), &[]).unwrap();
    w.finish().unwrap();
    let echo = run(&["echo", s(&path)]);
    assert_eq!(echo.status.code(), Some(1));
    let o = run(&["verify", s(&path)]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stdout));
    assert!(
        text(&o.stdout).contains("values in a 0-byte message"),
        "{}",
        text(&o.stdout)
    );
}

// ---------------------------------------------------------------------------------------
// §2: selections that select nothing

#[test]
fn selections_that_select_nothing_are_usage_errors() {
    let input = fixtures_dir().join("recorded.bag");
    let b = s(&input);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.bag");
    let index = dir.path().join("ix");
    assert!(run(&["index", "build", s(&index), b]).status.success());
    let topics = "/camera/image_raw, /chatter, /imu, /map_name, /odom, /rosout, /tf, /tf_static";
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            vec!["filter", b, s(&out), "-t", "/nope"],
            "has no topic '/nope'",
        ),
        (vec!["echo", b, "-t", "/nope"], "no bag holds topic '/nope'"),
        (
            vec!["export", b, "-t", "/nope", "--format", "jsonl"],
            "no bag holds topic '/nope'",
        ),
        (
            vec![
                "query",
                s(&index),
                "--start",
                "+0",
                "--end",
                "+1",
                "-t",
                "/nope",
            ],
            "the index holds no topic '/nope'",
        ),
        (
            vec!["echo", b, "--start", "+10", "--end", "+5"],
            "the time range is empty",
        ),
        (
            vec!["filter", b, s(&out), "--start", "+10", "--end", "+5"],
            "the time range is empty",
        ),
        (
            vec!["echo", b, "--start", "+100"],
            "lies outside the messages",
        ),
        (
            vec!["export", b, "-t", "/imu", "--format", "csv", "--end", "100"],
            "lies outside the messages",
        ),
        (
            vec!["filter", b, s(&out), "--start", "+100"],
            "lies outside the messages",
        ),
        (
            vec!["query", s(&index), "--start", "+100", "--end", "+200"],
            "lies outside the messages",
        ),
    ];
    for (args, what) in cases {
        let o = run(&args);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(what), "{args:?}: {err}");
        if what.contains("topic") {
            assert!(err.contains(topics), "{args:?}: {err}");
        }
        assert!(o.stdout.is_empty(), "{args:?}");
        assert!(!out.exists(), "{args:?}");
    }
    // A range that overlaps the messages in part is fine.
    let o = run(&["echo", b, "--start", "+2.9", "--end", "+100", "-t", "imu"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(!o.stdout.is_empty());
}

// ---------------------------------------------------------------------------------------
// §3: index build never replaces a bag

#[test]
fn index_build_refuses_to_replace_a_bag_or_another_file() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.bag");
    let b = dir.path().join("b.bag");
    std::fs::copy(fixtures_dir().join("recorded.bag"), &a).unwrap();
    std::fs::copy(fixtures_dir().join("recorded_lz4.bag"), &b).unwrap();
    let before = std::fs::read(&a).unwrap();
    // `bagscope index build *.bag`
    let o = run(&["index", "build", s(&a), s(&b)]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("refusing"), "{}", text(&o.stderr));
    assert_eq!(std::fs::read(&a).unwrap(), before);
    // A bag under another name, or any other file, is not replaced either.
    let renamed = dir.path().join("a.data");
    std::fs::copy(&a, &renamed).unwrap();
    let notes = dir.path().join("notes.txt");
    std::fs::write(&notes, "keep me\n").unwrap();
    for target in [&renamed, &notes] {
        let before = std::fs::read(target).unwrap();
        let o = run(&["index", "build", s(target), s(&b)]);
        assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
        assert_eq!(&std::fs::read(target).unwrap(), &before);
    }
    // An input given as the index (through a link too).
    let link = dir.path().join("link");
    std::os::unix::fs::symlink(&b, &link).unwrap();
    assert_eq!(
        run(&["index", "build", s(&link), s(&b)]).status.code(),
        Some(2)
    );
    // An index is rebuilt in place.
    let ix = dir.path().join("runs.bsx");
    assert_eq!(
        run(&["index", "build", s(&ix), s(&a)]).status.code(),
        Some(0)
    );
    assert_eq!(
        run(&["index", "build", s(&ix), s(&a), s(&b)]).status.code(),
        Some(0)
    );
    assert!(partials(dir.path()).is_empty());
}

// ---------------------------------------------------------------------------------------
// §3: every output like filter's

/// `bagscope ARGS` under `umask 027`.
fn run_with_umask(args: &[&str]) -> Output {
    std::process::Command::new("bash")
        .arg("-c")
        .arg("umask 027; exec \"$0\" \"$@\"")
        .arg(env!("CARGO_BIN_EXE_bagscope"))
        .args(args)
        .output()
        .unwrap()
}

#[cfg(unix)]
#[test]
fn every_output_gets_the_umask_mode_and_is_written_through_links() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let input = fixtures_dir().join("recorded.bag");
    let b = s(&input);
    let yaml_in = d.join("in.yaml");
    assert!(run(&["convert", b, s(&yaml_in)]).status.success());
    let index = d.join("in.bsx");
    assert!(run(&["index", "build", s(&index), b]).status.success());
    // Each writer, writing to `out` (a placeholder).
    let writers: Vec<(&str, Vec<&str>)> = vec![
        ("filter.bag", vec!["filter", b, "OUT", "-t", "/chatter"]),
        ("reindex.bag", vec!["reindex", b, "OUT"]),
        ("convert.yaml", vec!["convert", b, "OUT"]),
        ("convert.bag", vec!["convert", s(&yaml_in), "OUT"]),
        (
            "export.csv",
            vec!["export", b, "-t", "/imu", "--format", "csv", "-o", "OUT"],
        ),
        ("index.bsx", vec!["index", "build", "OUT", b]),
        (
            "query.bag",
            vec![
                "query",
                s(&index),
                "--start",
                "+0",
                "--end",
                "+1",
                "--out",
                "OUT",
            ],
        ),
    ];
    let real = d.join("real");
    std::fs::create_dir(&real).unwrap();
    for (name, args) in &writers {
        // A plain target: mode 0666 less the umask, not tempfile's 0600.
        let out = d.join(name);
        let a: Vec<&str> = args
            .iter()
            .map(|x| if *x == "OUT" { s(&out) } else { x })
            .collect();
        let o = run_with_umask(&a);
        assert_eq!(o.status.code(), Some(0), "{name}: {}", text(&o.stderr));
        let mode = std::fs::metadata(&out).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o640, "{name}");
        // A symbolic link (to a file that does not exist yet, in another directory): the
        // file it names is written, the link stays.
        let link = d.join(format!("link-{name}"));
        let target = real.join(name);
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let a: Vec<&str> = args
            .iter()
            .map(|x| if *x == "OUT" { s(&link) } else { x })
            .collect();
        let o = run_with_umask(&a);
        assert_eq!(o.status.code(), Some(0), "{name}: {}", text(&o.stderr));
        assert!(
            std::fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink(),
            "{name}"
        );
        assert_eq!(
            std::fs::read(&target).unwrap(),
            std::fs::read(&out).unwrap(),
            "{name}"
        );
        // Once more through the link, onto the existing file.
        let o = run_with_umask(&a);
        assert_eq!(o.status.code(), Some(0), "{name}: {}", text(&o.stderr));
        assert!(
            std::fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
    }
    assert!(partials(d).is_empty() && partials(&real).is_empty());
}

/// A bag of `n` std_msgs/String messages of `size` pseudo-random letters on /blob.
fn big_bag(path: &Path, n: u32, size: usize) {
    let mut w = BagWriter::create(
        path,
        WriterOptions {
            compression: Compression::None,
            ..WriterOptions::default()
        },
    )
    .unwrap();
    let c = w.add_connection("/blob", &string_header("/blob")).unwrap();
    let mut rng = common::synth::Lcg::new(7);
    let mut body = vec![0u8; size];
    for i in 0..n {
        for b in body.iter_mut() {
            *b = b'a' + (rng.next() % 26) as u8;
        }
        let mut p = (size as u32).to_le_bytes().to_vec();
        p.extend_from_slice(&body);
        w.write(c, RosTime::new(100 + i, 0), &p).unwrap();
    }
    w.finish().unwrap();
}

#[cfg(unix)]
#[test]
fn a_file_size_limit_leaves_nothing_behind() {
    if std::process::Command::new("prlimit")
        .arg("--version")
        .output()
        .is_err()
    {
        skip("prlimit (util-linux) is not installed");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let big = dir.path().join("big.bag");
    big_bag(&big, 8, 1 << 20);
    let out_dir = dir.path().join("out");
    std::fs::create_dir(&out_dir).unwrap();
    // The limit set by prlimit, as a parent process would (no `trap '' XFSZ` anywhere).
    let out = out_dir.join("small.bag");
    let o = std::process::Command::new("prlimit")
        .arg("--fsize=2000000")
        .arg(env!("CARGO_BIN_EXE_bagscope"))
        .args(["filter", s(&big), s(&out), "--compression", "none"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{:?}", o.status);
    assert!(
        text(&o.stderr).contains("File too large"),
        "{}",
        text(&o.stderr)
    );
    // And by the shell's ulimit (in KiB blocks), for a text output.
    let csv = out_dir.join("blob.jsonl");
    let o = std::process::Command::new("bash")
        .arg("-c")
        .arg("ulimit -f 2000; exec \"$0\" \"$@\"")
        .arg(env!("CARGO_BIN_EXE_bagscope"))
        .args([
            "export",
            s(&big),
            "-t",
            "/blob",
            "--format",
            "jsonl",
            "-o",
            s(&csv),
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{:?}", o.status);
    let left: Vec<_> = std::fs::read_dir(&out_dir).unwrap().flatten().collect();
    assert!(left.is_empty(), "{left:?}");
}

/// Starts `bagscope ARGS`, waits until its temporary file appears in `dir` (and a little
/// more), sends `signal` and returns how it ended.
#[cfg(unix)]
fn stop_mid_write(args: &[&str], dir: &Path, signal: &str) -> std::process::ExitStatus {
    let mut child = bagscope()
        .args(args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    while partials(dir).is_empty() {
        assert!(
            started.elapsed() < std::time::Duration::from_secs(30),
            "no temporary file appeared"
        );
        assert!(child.try_wait().unwrap().is_none(), "ended before writing");
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    std::thread::sleep(std::time::Duration::from_millis(200));
    assert!(
        child.try_wait().unwrap().is_none(),
        "output too small to stop midway"
    );
    let killed = std::process::Command::new("kill")
        .args([&format!("-{signal}"), &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    child.wait().unwrap()
}

#[cfg(unix)]
#[test]
fn ctrl_c_or_sigterm_mid_write_leaves_nothing_behind() {
    let dir = tempfile::tempdir().unwrap();
    let big = dir.path().join("big.bag");
    big_bag(&big, 24, 1 << 20);
    let out_dir = dir.path().join("out");
    std::fs::create_dir(&out_dir).unwrap();
    let out = out_dir.join("copy.bag");
    // bz2 makes the write long enough to be stopped in the middle.
    let status = stop_mid_write(
        &["filter", s(&big), s(&out), "--compression", "bz2"],
        &out_dir,
        "INT",
    );
    // Ended by the signal, as without a handler (a shell shows 130).
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(status.signal(), Some(2), "{status:?}");
    let status = stop_mid_write(
        &["reindex", s(&big), s(&out), "--compression", "bz2"],
        &out_dir,
        "TERM",
    );
    assert_eq!(status.signal(), Some(15), "{status:?}");
    let left: Vec<_> = std::fs::read_dir(&out_dir).unwrap().flatten().collect();
    assert!(left.is_empty(), "{left:?}");
}
