//! `bagscope log`: the log messages of fixture and corpus bags against the official Python
//! reader (every line's stamp, level, node and text; counts per level and node), and exact
//! outputs on made bags: rosconsole's line layout, escaping (ESC, newline, U+202E), `--level`,
//! `--node`, `--where`, JSON, several bags merged in time order, `--follow` on a recording
//! that grows, colour on a terminal only, a damaged bag (exit 1).

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use bagscope::bag::writer::BagWriter;
use bagscope::format::ConnectionHeader;
use bagscope::time::RosTime;

use crate::common;
use crate::common::ros_graph::{Proc, wait_exit};
use crate::common::{run_bagscope, skip};

/// One log message to write: receive time (s), stamp, level, node, text.
struct Entry<'a> {
    at: u32,
    stamp: (u32, u32),
    level: u8,
    node: &'a str,
    msg: &'a str,
}

fn string(out: &mut Vec<u8>, s: &str) {
    out.extend(u32::try_from(s.len()).unwrap().to_le_bytes());
    out.extend(s.as_bytes());
}

/// A `rosgraph_msgs/Log` payload.
fn log_msg(seq: u32, e: &Entry<'_>) -> Vec<u8> {
    let mut p = Vec::new();
    p.extend(seq.to_le_bytes());
    p.extend(e.stamp.0.to_le_bytes());
    p.extend(e.stamp.1.to_le_bytes());
    string(&mut p, "");
    p.push(e.level);
    string(&mut p, e.node);
    string(&mut p, e.msg);
    string(&mut p, "node.cpp");
    string(&mut p, "run");
    p.extend(42u32.to_le_bytes());
    p.extend(1u32.to_le_bytes());
    string(&mut p, "/out");
    p
}

fn log_header(topic: &str) -> ConnectionHeader {
    // No definition: the bundled one is used.
    ConnectionHeader::build(
        topic,
        "rosgraph_msgs/Log",
        "acffd30cd6b6de30f120938c17c593fb",
        "",
        Some("/n"),
        None,
    )
}

/// Writes `entries` on `/rosout` (and a `std_msgs/String` topic `/chatter` beside it).
fn write_entries(w: &mut BagWriter, entries: &[Entry<'_>]) {
    let log = w.add_connection("/rosout", &log_header("/rosout")).unwrap();
    let chatter = w
        .add_connection(
            "/chatter",
            &common::synth::string_header("/chatter", "/talker"),
        )
        .unwrap();
    for (i, e) in entries.iter().enumerate() {
        let t = RosTime::new(e.at, 500);
        w.write(log, t, &log_msg(i as u32, e)).unwrap();
        w.write(chatter, t, &common::synth::string_msg("hi"))
            .unwrap();
    }
}

fn log_bag(path: &Path, entries: &[Entry<'_>]) -> PathBuf {
    let mut w = common::synth::plain_writer(path);
    write_entries(&mut w, entries);
    w.finish().unwrap();
    path.to_path_buf()
}

const EVIL: &str = "a\u{1b}[2J\nb\u{202e}c";

fn entries() -> Vec<Entry<'static>> {
    vec![
        Entry {
            at: 100,
            stamp: (99, 5),
            level: 1,
            node: "/driver",
            msg: "current 2.9 A",
        },
        Entry {
            at: 101,
            stamp: (100, 123_456_789),
            level: 2,
            node: "/planner",
            msg: "planning",
        },
        Entry {
            at: 102,
            stamp: (101, 0),
            level: 4,
            node: "/planner",
            msg: EVIL,
        },
        Entry {
            at: 103,
            stamp: (102, 0),
            level: 8,
            node: "/driver",
            msg: "stalled",
        },
        Entry {
            at: 104,
            stamp: (103, 0),
            level: 16,
            node: "/planner",
            msg: "gave up",
        },
    ]
}

#[test]
fn log_prints_rosconsole_lines_escaped_one_per_message() {
    let dir = tempfile::tempdir().unwrap();
    let bag = log_bag(&dir.path().join("a.bag"), &entries());
    let bag = bag.to_str().unwrap();
    let (out, err, code) = run_bagscope(&["log", bag]);
    assert_eq!((code, err.as_str()), (0, ""));
    assert_eq!(
        out,
        "[DEBUG] [99.000000005] [/driver]: current 2.9 A\n\
         [ INFO] [100.123456789] [/planner]: planning\n\
         [ WARN] [101.000000000] [/planner]: a\\u{1b}[2J\\nb\\u{202e}c\n\
         [ERROR] [102.000000000] [/driver]: stalled\n\
         [FATAL] [103.000000000] [/planner]: gave up\n"
    );
    assert_eq!(out.lines().count(), 5, "one line per message");
    // -v: where it was logged and the node's topics; --level any case.
    let (out, _, code) = run_bagscope(&["log", bag, "-v", "--level", "ErRoR"]);
    assert_eq!(code, 0);
    assert_eq!(
        out,
        "[ERROR] [102.000000000] [/driver] [node.cpp:42 (run)] [/out]: stalled\n\
         [FATAL] [103.000000000] [/planner] [node.cpp:42 (run)] [/out]: gave up\n"
    );
    // Nodes by exact name (a missing leading / tolerated), repeatable.
    let (out, _, _) = run_bagscope(&["log", bag, "--node", "planner", "--level", "warn"]);
    assert_eq!(out.lines().count(), 2, "{out}");
    let (out, _, _) = run_bagscope(&["log", bag, "--node", "/driver", "--node", "/planner"]);
    assert_eq!(out.lines().count(), 5, "{out}");
    let (out, err, code) = run_bagscope(&["log", bag, "--node", "/plan"]);
    assert_eq!((out.as_str(), code), ("", 0));
    assert!(
        err.contains("--node /plan: no log message from this node")
            && err.contains("/driver, /planner"),
        "{err}"
    );
    // --where on the message's fields.
    let (out, _, code) = run_bagscope(&[
        "log",
        bag,
        "--where",
        r#"name == "/driver" and level >= WARN"#,
    ]);
    assert_eq!(code, 0);
    assert_eq!(out, "[ERROR] [102.000000000] [/driver]: stalled\n");
    let (_, err, code) = run_bagscope(&["log", bag, "--where", "nosuchfield > 1"]);
    assert_eq!(code, 2, "{err}");
    // --start/--end are receive times.
    let (out, _, _) = run_bagscope(&["log", bag, "--start", "+1", "--end", "102.5"]);
    assert_eq!(out.lines().count(), 2, "{out}");
    // Not a level.
    let (_, err, code) = run_bagscope(&["log", bag, "--level", "loud"]);
    assert_eq!(code, 2);
    assert!(err.contains("debug, info, warn, error or fatal"), "{err}");
}

#[test]
fn log_json_has_every_field() {
    let dir = tempfile::tempdir().unwrap();
    let bag = log_bag(&dir.path().join("a.bag"), &entries());
    let (out, _, code) = run_bagscope(&[
        "log",
        bag.to_str().unwrap(),
        "--format",
        "json",
        "--level",
        "warn",
        "--node",
        "/planner",
    ]);
    assert_eq!(code, 0);
    let lines: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(
        lines[0],
        serde_json::json!({
            "topic": "/rosout", "time": {"sec": 102, "nsec": 500}, "stamp": {"sec": 101, "nsec": 0},
            "seq": 2, "frame_id": "", "level": "WARN", "level_number": 4, "node": "/planner",
            "msg": EVIL, "file": "node.cpp", "function": "run", "line": 42, "topics": ["/out"]
        })
    );
    assert!(out.contains(r#""msg":"a\u001b[2J\nb\u202ec""#), "{out}");
    assert_eq!(lines[1]["level"], "FATAL");
}

#[test]
fn log_merges_bags_in_time_order_and_checks_topics() {
    let dir = tempfile::tempdir().unwrap();
    let all = entries();
    let (odd, even): (Vec<_>, Vec<_>) = all.into_iter().partition(|e| e.at % 2 == 1);
    let a = log_bag(&dir.path().join("a.bag"), &odd);
    let b = log_bag(&dir.path().join("b.bag"), &even);
    let (out, _, code) = run_bagscope(&["log", a.to_str().unwrap(), b.to_str().unwrap()]);
    assert_eq!(code, 0);
    let texts: Vec<&str> = out.lines().filter_map(|l| l.split("]: ").nth(1)).collect();
    assert_eq!(
        texts,
        [
            "current 2.9 A",
            "planning",
            "a\\u{1b}[2J\\nb\\u{202e}c",
            "stalled",
            "gave up"
        ]
    );
    // A topic that is not a log topic is refused; a bag without one says so.
    let (_, err, code) = run_bagscope(&["log", a.to_str().unwrap(), "-t", "/chatter"]);
    assert_eq!(code, 2);
    assert!(err.contains("not a log topic"), "{err}");
    let plain = dir.path().join("plain.bag");
    let mut w = common::synth::plain_writer(&plain);
    let c = w
        .add_connection("/x", &common::synth::string_header("/x", "/n"))
        .unwrap();
    w.write(c, RosTime::new(1, 0), &common::synth::string_msg("x"))
        .unwrap();
    w.finish().unwrap();
    let (out, err, code) = run_bagscope(&["log", plain.to_str().unwrap()]);
    assert_eq!((out.as_str(), code), ("", 0));
    assert!(err.contains("no log topic"), "{err}");
}

/// The official reader's lines of a bag's log topics (as `log` chooses them): sorted
/// (stamp ns, level, node, text), or why it cannot say.
fn official_lines(bag: &Path) -> Result<Vec<(i128, String, String, String)>, String> {
    common::official::have_python_rosbag()?;
    let script = r#"
import rosbag, sys, json
b = rosbag.Bag(sys.argv[1])
info = b.get_type_and_topic_info()[1]
topics = sorted(t for t, v in info.items() if v.msg_type in ('rosgraph_msgs/Log', 'roslib/Log'))
if '/rosout' in topics:
    topics = [t for t in topics if t != '/rosout_agg']
def level(n):
    return 'DEBUG' if n <= 1 else 'INFO' if n <= 3 else 'WARN' if n <= 7 else 'ERROR' if n <= 15 else 'FATAL'
if b.version == 102:
    # Debian's rosbag 1.15 calls the 1.2 reader with one argument too many.
    messages = b._reader.read_messages(topics, None, None, None, False)
else:
    messages = b.read_messages(topics=topics)
for topic, m, t in messages:
    text = lambda s: s if isinstance(s, str) else s.decode('utf-8', 'replace')
    print(json.dumps([m.header.stamp.secs * 10**9 + m.header.stamp.nsecs, level(m.level), text(m.name), text(m.msg)]))
"#;
    let out = Command::new(common::ros_python())
        .args(["-c", script])
        .arg(bag)
        .output()
        .map_err(|e| e.to_string())?;
    if !out.status.success() {
        return Err(format!(
            "the official reader failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let mut lines: Vec<(i128, String, String, String)> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    lines.sort();
    Ok(lines)
}

/// Our lines of `bag` (`--format json`), sorted like [`official_lines`].
fn our_lines(bag: &Path) -> Vec<(i128, String, String, String)> {
    let (out, err, code) = run_bagscope(&["log", bag.to_str().unwrap(), "--format", "json"]);
    assert_eq!(code, 0, "{}: {err}", bag.display());
    let mut lines: Vec<_> = out
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            (
                common::nanos(&v["stamp"]).unwrap(),
                v["level"].as_str().unwrap().to_string(),
                v["node"].as_str().unwrap().to_string(),
                v["msg"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    lines.sort();
    lines
}

#[test]
fn log_lines_equal_the_official_readers() {
    let mut bags: Vec<PathBuf> = [
        "recorded.bag",
        "recorded_bz2.bag",
        "recorded_lz4.bag",
        "recorded_record_lz4.bag",
        "v12_indexed.bag",
    ]
    .iter()
    .map(|n| common::fixtures_dir().join(n))
    .collect();
    bags.push(Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/demo.bag"));
    for name in [
        "ccny-rosrecord-v1.2-gpsd-2010-05-v1.bag",
        "ccny-rosrecord-v1.2-gpsd-2010-06-v3.bag",
        "rosbagjs-example.bag",
        "rosbagjs-example-bz2.bag",
        "rosbagjs-example-lz4.bag",
        "matlabrosbag-empty_msgs.bag",
    ] {
        if let Some(b) = common::corpus_bag(name) {
            bags.push(b);
        }
    }
    let mut compared = 0;
    for bag in &bags {
        let theirs = match official_lines(bag) {
            Ok(l) => l,
            Err(why) => {
                skip(&format!("{}: {why}", bag.display()));
                continue;
            }
        };
        let ours = our_lines(bag);
        assert_eq!(ours, theirs, "{}", bag.display());
        // The text lines: one per message, counted per level and node as the official
        // messages are.
        let mut counts: BTreeMap<(String, String), usize> = BTreeMap::new();
        for (_, level, node, _) in &theirs {
            *counts.entry((level.clone(), node.clone())).or_default() += 1;
        }
        for ((level, node), n) in &counts {
            let (out, _, _) = run_bagscope(&[
                "log",
                bag.to_str().unwrap(),
                "--node",
                node,
                "--level",
                level,
            ]);
            let exact = out
                .lines()
                .filter(|l| l[1..6].trim() == level.as_str())
                .count();
            assert_eq!(exact, *n, "{} {level} {node}", bag.display());
        }
        compared += 1;
    }
    if compared == 0 {
        skip("no bag compared with the official reader");
    }
}

#[test]
fn log_follows_a_growing_recording() {
    let dir = tempfile::tempdir().unwrap();
    let full = dir.path().join("full.bag");
    let mut w = BagWriter::create(
        &full,
        bagscope::bag::writer::WriterOptions {
            compression: bagscope::format::Compression::None,
            chunk_size: 256,
        },
    )
    .unwrap();
    write_entries(&mut w, &entries());
    w.finish().unwrap();
    let bytes = std::fs::read(&full).unwrap();
    let name = b"index_pos=";
    let at = bytes.windows(name.len()).position(|w| w == name).unwrap() + name.len();
    let mut recording = bytes.clone();
    recording[at..at + 8].fill(0);
    // The first chunk only: what a recorder has written so far.
    let bag = bagscope::bag::Bag::open(&full).unwrap();
    assert!(bag.chunks().len() >= 3, "several chunks");
    // Up to the chunk that holds the INFO line (received at 101 s).
    let k = bag
        .chunks()
        .iter()
        .position(|c| c.end >= RosTime::new(101, 0))
        .unwrap();
    assert!(k + 1 < bag.chunks().len(), "more chunks after it");
    let h = bag.head(k as u32).unwrap();
    let cut = (h.data_offset + h.compressed_size) as usize;
    let live = dir.path().join("rec.bag.active");
    std::fs::write(&live, &recording[..cut]).unwrap();
    let mut child = Proc(
        common::bagscope()
            .args(["log", "--follow", "--level", "info"])
            .arg(&live)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let mut out = BufReader::new(child.0.stdout.take().unwrap());
    let mut first = String::new();
    out.read_line(&mut first).unwrap();
    assert_eq!(first, "[ INFO] [100.123456789] [/planner]: planning\n");
    // The rest of the recording, then the header of the finished bag.
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&live)
        .unwrap();
    f.write_all(&recording[cut..]).unwrap();
    drop(f);
    std::thread::sleep(Duration::from_millis(200));
    let f = std::fs::OpenOptions::new().write(true).open(&live).unwrap();
    std::os::unix::fs::FileExt::write_all_at(&f, &bytes[at..at + 8], at as u64).unwrap();
    drop(f);
    let status = wait_exit(&mut child.0, Duration::from_secs(30)).expect("log --follow ended");
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut out, &mut rest).unwrap();
    assert!(status.success(), "{status:?}");
    assert_eq!(
        rest,
        "[ WARN] [101.000000000] [/planner]: a\\u{1b}[2J\\nb\\u{202e}c\n\
         [ERROR] [102.000000000] [/driver]: stalled\n\
         [FATAL] [103.000000000] [/planner]: gave up\n"
    );
}

/// On a terminal (a pty through `script`) the lines are coloured by level, as rosconsole's;
/// `NO_COLOR` and pipes get none.
#[test]
fn log_colours_by_level_on_a_terminal_only() {
    if Command::new("script").arg("--version").output().is_err() {
        skip("`script` (util-linux) is not installed");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let bag = log_bag(&dir.path().join("a.bag"), &entries());
    let cmd = format!(
        "{} log {} 2>/dev/null",
        env!("CARGO_BIN_EXE_bagscope"),
        bag.display()
    );
    let on_pty = |no_color: Option<&str>| {
        let mut c = Command::new("script");
        c.args(["-qec", &cmd, "/dev/null"]).stdin(Stdio::null());
        match no_color {
            Some(v) => c.env("NO_COLOR", v),
            None => c.env_remove("NO_COLOR"),
        };
        String::from_utf8_lossy(&c.output().unwrap().stdout).into_owned()
    };
    let coloured = on_pty(None);
    assert!(
        coloured.contains(
            "\u{1b}[33m[ WARN] [101.000000000] [/planner]: a\\u{1b}[2J\\nb\\u{202e}c\u{1b}[0m"
        ),
        "{coloured:?}"
    );
    assert!(coloured.contains("\u{1b}[31m[ERROR]"), "{coloured:?}");
    assert!(
        coloured.contains("\r\n[ INFO] [100.123456789]"),
        "INFO plain: {coloured:?}"
    );
    let plain = on_pty(Some("1"));
    assert!(!plain.contains('\u{1b}'), "NO_COLOR: {plain:?}");
    assert!(plain.contains("[ WARN]"), "{plain:?}");
    let (piped, _, _) = run_bagscope(&["log", bag.to_str().unwrap()]);
    assert!(!piped.contains('\u{1b}'), "{piped:?}");
}

/// A damaged bag: the lines that can be read, the damage on stderr, exit 1 (as `echo`).
#[test]
fn log_of_a_damaged_bag_prints_what_it_can_and_exits_1() {
    let bag = common::fixtures_dir().join("truncated.bag");
    let (out, err, code) = run_bagscope(&["log", bag.to_str().unwrap()]);
    let (echoed, _, echo_code) = run_bagscope(&[
        "echo",
        bag.to_str().unwrap(),
        "-t",
        "/rosout",
        "--format",
        "json",
    ]);
    assert_eq!((code, echo_code), (1, 1), "{err}");
    assert!(err.contains("lost"), "{err}");
    assert_eq!(out.lines().count(), echoed.lines().count(), "{out}");
    assert!(out.lines().count() > 0);
}

/// `--where` with `diff()` compares each log line with the previous one of its topic, in
/// receive order (one worker): the lines kept are those whose `header.seq` is one more than
/// the previous line's, computed here from the JSON form.
#[test]
fn where_with_diff_compares_each_line_with_the_previous_one() {
    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/demo.bag");
    let demo = demo.to_str().unwrap();
    let (all, _, code) = run_bagscope(&["log", demo]);
    assert_eq!(code, 0, "{all}");
    let (json, _, code) = run_bagscope(&["log", demo, "--format", "json"]);
    assert_eq!(code, 0, "{json}");
    let seqs: Vec<i64> = json
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["seq"]
                .as_i64()
                .unwrap()
        })
        .collect();
    let lines: Vec<&str> = all.lines().collect();
    assert_eq!(lines.len(), seqs.len());
    let want: Vec<&str> = (1..lines.len())
        .filter(|&i| seqs[i] - seqs[i - 1] == 1)
        .map(|i| lines[i])
        .collect();
    assert!(!want.is_empty() && want.len() < lines.len() - 1, "{seqs:?}");
    let (kept, err, code) = run_bagscope(&["log", demo, "--where", "diff(header.seq) == 1"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(kept.lines().collect::<Vec<_>>(), want);
}

/// A ROS 2 `rcl_interfaces/msg/Log` payload of the definition in [`ros2_log_bag`]: `(sec,
/// nanosec)` stamp, level (10 … 50), logger name, text.
fn ros2_log_msg(stamp: (i32, u32), level: u8, name: &str, msg: &str) -> Vec<u8> {
    let mut p = Vec::new();
    p.extend(stamp.0.to_le_bytes());
    p.extend(stamp.1.to_le_bytes());
    p.push(level);
    string(&mut p, name);
    string(&mut p, msg);
    string(&mut p, "talker.cpp");
    string(&mut p, "on_timer");
    p.extend(7u32.to_le_bytes());
    p
}

/// A bag whose `/rosout` holds ROS 2 log messages (`rcl_interfaces/msg/Log`, its definition
/// in ROS1 syntax with ROS 2's fields: the values a CDR payload decodes to).
fn ros2_log_bag(path: &Path) -> PathBuf {
    let definition = format!(
        "byte DEBUG=10\nbyte INFO=20\nbyte WARN=30\nbyte ERROR=40\nbyte FATAL=50\n\
         builtin_interfaces/Time stamp\nuint8 level\nstring name\nstring msg\nstring file\n\
         string function\nuint32 line\n{}\nMSG: builtin_interfaces/Time\nint32 sec\nuint32 nanosec\n",
        "=".repeat(80)
    );
    let mut w = common::synth::plain_writer(path);
    let header = ConnectionHeader::build(
        "/rosout",
        "rcl_interfaces/msg/Log",
        "*",
        &definition,
        None,
        None,
    );
    let log = w.add_connection("/rosout", &header).unwrap();
    let lines = [
        (10, "talker", "starting"),
        (20, "talker", "Publishing: 'Hello World: 1'"),
        (30, "ns.driver", "current high"),
        (40, "ns.driver", "stalled"),
        (50, "rclcpp", "gave up"),
    ];
    for (i, (level, name, msg)) in lines.into_iter().enumerate() {
        let i = u32::try_from(i).unwrap();
        let stamp = (1_700_000_000 + i32::try_from(i).unwrap(), 5);
        w.write(
            log,
            RosTime::new(100 + i, 0),
            &ros2_log_msg(stamp, level, name, msg),
        )
        .unwrap();
    }
    w.finish().unwrap();
    path.to_path_buf()
}

#[test]
fn log_reads_ros2_log_messages() {
    let dir = tempfile::tempdir().unwrap();
    let bag = ros2_log_bag(&dir.path().join("ros2.bag"));
    let bag = bag.to_str().unwrap();
    let (out, err, code) = run_bagscope(&["log", bag]);
    assert_eq!((code, err.as_str()), (0, ""));
    assert_eq!(
        out,
        "[DEBUG] [1700000000.000000005] [talker]: starting\n\
         [ INFO] [1700000001.000000005] [talker]: Publishing: 'Hello World: 1'\n\
         [ WARN] [1700000002.000000005] [ns.driver]: current high\n\
         [ERROR] [1700000003.000000005] [ns.driver]: stalled\n\
         [FATAL] [1700000004.000000005] [rclcpp]: gave up\n"
    );
    let (out, _, _) = run_bagscope(&["log", bag, "--level", "warn", "-v"]);
    assert_eq!(
        out,
        "[ WARN] [1700000002.000000005] [ns.driver] [talker.cpp:7 (on_timer)]: current high\n\
         [ERROR] [1700000003.000000005] [ns.driver] [talker.cpp:7 (on_timer)]: stalled\n\
         [FATAL] [1700000004.000000005] [rclcpp] [talker.cpp:7 (on_timer)]: gave up\n"
    );
    // A node by its logger name or its node name.
    for node in ["ns.driver", "/ns/driver", "ns/driver"] {
        let (out, err, _) = run_bagscope(&["log", bag, "--node", node, "--level", "error"]);
        assert_eq!(
            out, "[ERROR] [1700000003.000000005] [ns.driver]: stalled\n",
            "{node}: {err}"
        );
    }
    let (out, _, _) = run_bagscope(&["log", bag, "--node", "/talker"]);
    assert_eq!(out.lines().count(), 2, "{out}");
    let (out, _, _) = run_bagscope(&[
        "log",
        bag,
        "--where",
        "level >= WARN and name == \"rclcpp\"",
    ]);
    assert_eq!(out, "[FATAL] [1700000004.000000005] [rclcpp]: gave up\n");
    let (out, _, code) = run_bagscope(&["log", bag, "--format", "json", "--level", "fatal"]);
    assert_eq!(code, 0);
    let line: serde_json::Value = serde_json::from_str(out.trim_end()).unwrap();
    assert_eq!(
        line,
        serde_json::json!({
            "topic": "/rosout", "time": {"sec": 104, "nsec": 0},
            "stamp": {"sec": 1_700_000_004, "nsec": 5}, "level": "FATAL", "level_number": 50,
            "node": "rclcpp", "msg": "gave up", "file": "talker.cpp", "function": "on_timer",
            "line": 7
        })
    );
    // `info --health` counts the lines per node and level.
    let (out, _, _) = run_bagscope(&["info", "--health", bag]);
    assert!(out.contains("ns.driver") && out.contains("rclcpp"), "{out}");
}
