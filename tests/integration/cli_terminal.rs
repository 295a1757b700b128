//! What the command line prints on a terminal: control sequences a bag carries (topic, type,
//! callerid, definition, md5sum, string fields, file names) never reach it raw, while pipes and
//! files keep the official tools' bytes; and a reader that goes away early (`| head`) ends
//! every command quietly.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};

use bagscope::bag::writer::{BagWriter, WriterOptions};
use bagscope::format::ConnectionHeader;
use bagscope::format::header::write_field;
use bagscope::time::RosTime;

use crate::common;
use crate::common::bagscope;

/// Retitles the window and clears the screen.
const EVIL: &str = "\u{1b}]0;pwned\u{7}\u{1b}[2J";
/// A C1 CSI, DEL and a right-to-left override.
const EVIL_MORE: &str = "\u{9b}2J\u{7f}\u{202e}";
const STRING_MD5: &str = "992ce8a1687cec8c8bd883ec73ca41d1";

fn string_payload(s: &str) -> Vec<u8> {
    let mut p = (s.len() as u32).to_le_bytes().to_vec();
    p.extend_from_slice(s.as_bytes());
    p
}

fn header(fields: &[(&str, &str)]) -> ConnectionHeader {
    let mut raw = Vec::new();
    for (k, v) in fields {
        write_field(&mut raw, k, v.as_bytes());
    }
    let get = |k: &str| fields.iter().find(|f| f.0 == k).map(|f| f.1).unwrap_or("");
    let mut h = ConnectionHeader::build(
        get("topic"),
        get("type"),
        get("md5sum"),
        get("message_definition"),
        Some(get("callerid")),
        None,
    );
    h.raw = raw;
    h
}

/// A bag whose every piece of text carries control sequences.
fn evil_bag(dir: &Path) -> PathBuf {
    let path = dir.join("evil.bag");
    let mut w = common::synth::plain_writer(&path);
    let topic = format!("/evil{EVIL}");
    let def = format!("# {EVIL}{EVIL_MORE}\nstring data\n");
    let caller = format!("/node{EVIL}");
    let a = w
        .add_connection(
            &topic,
            &header(&[
                ("topic", &topic),
                ("type", "std_msgs/String"),
                ("md5sum", STRING_MD5),
                ("message_definition", &def),
                ("callerid", &caller),
            ]),
        )
        .unwrap();
    let bad_type = format!("evil{EVIL}/T{EVIL_MORE}");
    let bad_md5 = format!("{EVIL}0123");
    let bad_def = format!("int32 x{EVIL}\nstring {EVIL_MORE}y\n");
    let b = w
        .add_connection(
            "/typed",
            &header(&[
                ("topic", "/typed"),
                ("type", &bad_type),
                ("md5sum", &bad_md5),
                ("message_definition", &bad_def),
                ("callerid", &caller),
            ]),
        )
        .unwrap();
    let text = format!("hi{EVIL}{EVIL_MORE}there");
    w.write(a, RosTime::new(100, 0), &string_payload(&text))
        .unwrap();
    // Does not decode: a length beyond the payload.
    w.write(a, RosTime::new(101, 0), &[0xe8, 3, 0, 0, 0x1b, b'['])
        .unwrap();
    w.write(b, RosTime::new(102, 0), &[1, 0, 0, 0]).unwrap();
    w.write(a, RosTime::new(103, 0), &string_payload(&text))
        .unwrap();
    w.finish().unwrap();
    path
}

/// The raw control bytes that must not reach a terminal, if any, and where.
fn raw_controls(bytes: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(bytes);
    for (i, c) in text.char_indices() {
        let bad = matches!(c, '\u{0}'..='\u{8}' | '\u{b}'..='\u{1f}' | '\u{7f}'..='\u{9f}')
            || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}');
        if bad {
            let from = text[..i].char_indices().rev().nth(30).map_or(0, |x| x.0);
            return Some(format!("{:?} after {:?}", c, &text[from..i]));
        }
    }
    None
}

fn run_escaped(args: &[&str]) -> Output {
    bagscope()
        .args(args)
        .env("BAGSCOPE_ESCAPE", "always")
        .env("TZ", "UTC")
        .output()
        .unwrap()
}

fn assert_clean(what: &str, out: &Output) {
    assert!(
        !String::from_utf8_lossy(&out.stderr).contains("panicked"),
        "{what}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    if let Some(at) = raw_controls(&out.stdout) {
        panic!("{what}: raw control on stdout: {at}");
    }
    if let Some(at) = raw_controls(&out.stderr) {
        panic!("{what}: raw control on stderr: {at}");
    }
}

#[test]
fn no_command_prints_a_bags_control_characters_to_a_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let bag = evil_bag(dir.path());
    let b = bag.to_str().unwrap();
    let d = dir.path();
    let out_bag = d.join("out.bag");
    let filtered = d.join("filtered.bag");
    let yaml = d.join("out.yaml");
    let index = d.join("evil.bsx");
    let topic = format!("/evil{EVIL}");
    let missing = d.join(format!("missing{EVIL}.bag"));
    let cases: Vec<Vec<&str>> = vec![
        vec!["info", b],
        vec!["info", "--yaml", b],
        vec!["info", "--json", b],
        vec!["info", "--freq", b],
        vec!["info", "--health", b],
        vec!["info", b, missing.to_str().unwrap()],
        vec!["verify", b],
        vec!["reindex", b, out_bag.to_str().unwrap()],
        vec![
            "filter",
            b,
            filtered.to_str().unwrap(),
            "-t",
            &topic,
            "-t",
            EVIL,
        ],
        vec!["echo", b],
        vec!["echo", "--format", "json", b],
        vec!["echo", "-t", EVIL, b],
        vec!["export", b, "-t", &topic, "--format", "csv"],
        vec!["export", b, "-t", &topic, "--format", "jsonl"],
        vec!["convert", b, yaml.to_str().unwrap()],
        vec!["index", "build", index.to_str().unwrap(), b],
        vec!["index", "info", index.to_str().unwrap()],
        vec![
            "query",
            index.to_str().unwrap(),
            "--start",
            "+0",
            "--end",
            "+10",
        ],
    ];
    for args in &cases {
        let out = run_escaped(args);
        let what = format!("bagscope {}", args.join(" ").escape_debug());
        assert_clean(&what, &out);
        assert!(
            !out.stdout.is_empty() || !out.stderr.is_empty(),
            "{what}: printed nothing"
        );
    }
    // A diagnostic is one line: a newline in a name cannot forge another.
    let out = run_escaped(&[
        "filter",
        b,
        filtered.to_str().unwrap(),
        "-t",
        "/x\nbagscope: error: forged",
    ]);
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("/x\\nbagscope: error: forged"), "{err}");
    assert!(
        !err.lines()
            .any(|l| l.starts_with("bagscope: error: forged")),
        "{err}"
    );
    // The escapes are visible, not swallowed.
    let out = run_escaped(&["info", b]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("/evil\\u{1b}]0;pwned\\u{7}\\u{1b}[2J"),
        "{text}"
    );
    let out = run_escaped(&["echo", "--format", "json", b]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("\\u009b2J\\u007f\\u202ethere"), "{text}");
}

/// Data written to a pipe or a file keeps the bytes `rostopic` would write; summaries and
/// diagnostics are escaped wherever they go.
#[test]
fn pipes_keep_data_bytes_and_escape_summaries() {
    let dir = tempfile::tempdir().unwrap();
    let bag = evil_bag(dir.path());
    let b = bag.to_str().unwrap();
    let topic = format!("/evil{EVIL}");
    let out = bagscope()
        .args(["export", b, "-t", &topic, "--format", "csv"])
        .output()
        .unwrap();
    let csv = String::from_utf8(out.stdout).unwrap();
    assert!(
        csv.contains(&format!("hi{EVIL}{EVIL_MORE}there")),
        "CSV to a pipe is raw, as rostopic echo -p: {csv:?}"
    );
    assert!(raw_controls(&out.stderr).is_none());
    let csv_file = dir.path().join("out.csv");
    let out = bagscope()
        .args(["export", b, "-t", &topic, "--format", "csv", "-o"])
        .arg(&csv_file)
        .output()
        .unwrap();
    assert!(raw_controls(&out.stderr).is_none());
    let file = std::fs::read_to_string(&csv_file).unwrap();
    assert_eq!(file, csv, "-o FILE holds the same bytes as the pipe");
    let out = bagscope().args(["info", b]).output().unwrap();
    assert_clean("info | cat", &out);
    let out = bagscope().args(["verify", b]).output().unwrap();
    assert_clean("verify | cat", &out);
}

/// A real terminal (a pty through `script`) gets escaped data without any variable set.
#[test]
fn a_pty_gets_escaped_data() {
    if std::process::Command::new("script")
        .arg("--version")
        .output()
        .is_err()
    {
        common::skip("`script` (util-linux) is not installed");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let bag = evil_bag(dir.path());
    let exe = env!("CARGO_BIN_EXE_bagscope");
    for cmd in [
        format!("{exe} echo {} 2>/dev/null", bag.display()),
        format!("{exe} echo --format json {} 2>/dev/null", bag.display()),
    ] {
        let out = std::process::Command::new("script")
            .args(["-qec", &cmd, "/dev/null"])
            .env_remove("BAGSCOPE_ESCAPE")
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("hi"), "{cmd}: {text:?}");
        assert!(
            !text.contains('\u{1b}') && !text.contains('\u{9b}') && !text.contains('\u{202e}'),
            "{cmd}: {text:?}"
        );
    }
}

/// A bag with many topics and messages: every summary passes 64 KiB.
fn big_bag(dir: &Path) -> PathBuf {
    let path = dir.join("big.bag");
    let mut w = BagWriter::create(&path, WriterOptions::default()).unwrap();
    for i in 0..1500u32 {
        let topic = format!("/robot/sensors/some_rather_long_topic_name_{i:05}");
        let h = ConnectionHeader::build(
            &topic,
            "std_msgs/String",
            STRING_MD5,
            "string data\n",
            Some("/node"),
            None,
        );
        let c = w.add_connection(&topic, &h).unwrap();
        for k in 0..2 {
            w.write(
                c,
                RosTime::new(100 + k, i),
                &string_payload("hello hello hello"),
            )
            .unwrap();
        }
    }
    w.finish().unwrap();
    path
}

/// Starts `args`, reads a few bytes of stdout, closes it, and returns the exit code and stderr.
fn read_then_close(args: &[&std::ffi::OsStr]) -> (Option<i32>, String) {
    let mut child = bagscope()
        .args(args)
        .env("TZ", "UTC")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut first = [0u8; 16];
    stdout.read_exact(&mut first).unwrap();
    drop(stdout);
    let err = common::read_stderr(&mut child);
    (child.wait().unwrap().code(), err)
}

#[test]
fn every_command_ends_quietly_on_a_closed_pipe() {
    let dir = tempfile::tempdir().unwrap();
    let bag = big_bag(dir.path());
    let d = dir.path();
    let index = d.join("big.bsx");
    let out = bagscope()
        .args(["index", "build"])
        .arg(&index)
        .arg(&bag)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let os = |s: &str| std::ffi::OsString::from(s);
    let b = bag.clone().into_os_string();
    let cases: Vec<Vec<std::ffi::OsString>> = vec![
        vec![os("info"), b.clone()],
        vec![os("info"), os("--yaml"), b.clone()],
        vec![os("info"), os("--json"), b.clone()],
        vec![os("info"), os("--freq"), b.clone()],
        vec![os("info"), os("--health"), b.clone()],
        vec![os("index"), os("info"), index.clone().into_os_string()],
        vec![
            os("convert"),
            b.clone(),
            d.join("big.yaml").into_os_string(),
        ],
        vec![os("echo"), b.clone()],
        vec![os("echo"), os("--format"), os("json"), b.clone()],
        vec![
            os("export"),
            b.clone(),
            os("-t"),
            os("/robot/sensors/some_rather_long_topic_name_00001"),
            os("--format"),
            os("jsonl"),
        ],
        vec![
            os("query"),
            index.clone().into_os_string(),
            os("--start"),
            os("+0"),
            os("--end"),
            os("+10"),
        ],
        vec![os("verify"), b.clone(), b.clone()],
    ];
    for args in &cases {
        let refs: Vec<&std::ffi::OsStr> = args.iter().map(|a| a.as_os_str()).collect();
        let what = format!("{args:?}");
        let (code, err) = read_then_close(&refs);
        assert_eq!(code, Some(0), "{what}: {err}");
        assert!(err.is_empty(), "{what}: stderr {err:?}");
    }
}

#[test]
fn usage_errors_escape_the_arguments_they_quote() {
    // A mistyped option or subcommand quotes what was typed (or what a glob expanded to).
    for args in [
        vec!["--bogus\u{1b}]0;pwned\u{7}"],
        vec!["info", "--nope\u{1b}[2J", "x.bag"],
        vec!["echo", "--format", "yaml\u{9b}31m", "x.bag"],
    ] {
        let out = run_escaped(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert_clean(&format!("{args:?}"), &out);
    }
    // A value clap quotes whole keeps the escape visible.
    let out = run_escaped(&["echo", "--format", "yaml\u{9b}31m", "x.bag"]);
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("'yaml\\u{9b}31m'"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // --help still prints clap's text on stdout, exit 0.
    let out = run_escaped(&["--help"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains("Usage"));
}
