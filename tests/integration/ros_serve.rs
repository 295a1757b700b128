//! Interop of the bagserver (`bagscope serve` / `bagscope call`) with Debian's official ROS1
//! tools on loopback, against a private `roscore` on a free port. An index over two bags
//! recorded 2 s apart (`recorded.bag`, `recorded_record_lz4.bag`) is served under `/hist`;
//! `rosbag record` records `/hist/...`; the scenarios run in order against one server:
//!
//! 1. An interval across both bags on four topics (two of them latched), as fast as possible:
//!    the recording holds exactly what `bagscope query` of the interval writes (`--out`, read
//!    by the official reader) and prints (`--format json`): count, topics relocated under
//!    `/hist`, payload bytes (md5) and order per topic; `call` reports the same count and
//!    first/last times. The latched topic stays latched (`rostopic echo`).
//! 2. Bad requests (an empty interval, one without messages, a rate below 0.01, an unknown
//!    topic, a negative rate through the official
//!    client) are refused with a message (exit 2) and the server keeps serving.
//! 3. Every topic of a relative interval (`+1.5 +6`) at rate 2: the same messages, received on
//!    the recorded timing halved, the 2.1 s between the bags skipped (`--skip-empty 1`).
//! 4. Two calls at once: both served, one after the other, nothing lost.
//! 5. The official client: `rosservice type`, and `rosservice call` with Python classes that
//!    genpy generates from `assets/srv/` (it checks our md5sum and serialization).
//! 6. A slow call, and a second one that waits behind it and gives up (`--timeout`); then
//!    SIGINT: the slow call is refused as stopped, the server exits 0 at once, the service and
//!    every topic unregistered.
//!
//! Skipped with a printed reason when `roscore`, `rosbag`, `rostopic`, `rosservice` or Python's
//! `rosbag` are missing; `.ci/run` installs them.

use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use bagscope::play::bagserver::srv::PLAY_INTERVAL_MD5;

use crate::common;
use crate::common::ros_graph::{
    Graph, RECORDED_TOPICS, Rec, build_index, check_recording, check_same_messages, have_tools,
    nothing_served_by, official_messages, official_recording, start_server, two_recorded_bags,
};
use crate::common::skip;

const NS: &str = "/hist";
const SERVICE: &str = "/hist/play_interval";
/// Inside `recorded.bag` (…617.27 to …620.26) and `recorded_record_lz4.bag` (…622.37 to
/// …625.36): the end of the first, the gap, the start of the second.
const START: &str = "1795297619.5";
const END: &str = "1795297623.5";

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// `bagscope call` in the graph.
fn call(graph: &Graph, args: &[&str]) -> Output {
    common::ros_graph::call(graph, args).0
}

/// The `key: value` lines `bagscope call` prints.
fn field(out: &Output, key: &str) -> String {
    text(&out.stdout)
        .lines()
        .find_map(|l| l.strip_prefix(&format!("{key}: ")).map(str::to_string))
        .unwrap_or_else(|| panic!("no {key} in {}", text(&out.stdout)))
}

/// What `bagscope query` yields for an interval: the messages it writes with `--out` as the
/// official reader reads them, topics relocated under NS; checked against the count of what
/// it prints with `--format json`.
fn queried(index: &Path, work: &Path, name: &str, args: &[&str]) -> Vec<Rec> {
    let out = work.join(format!("{name}.query.bag"));
    let run = |extra: &[&str]| {
        let o = common::bagscope()
            .arg("query")
            .arg(index)
            .args(args)
            .args(extra)
            .output()
            .unwrap();
        assert!(o.status.success(), "query {args:?}: {}", text(&o.stderr));
        o
    };
    run(&["--out", out.to_str().unwrap()]);
    let printed = run(&["--format", "json"]);
    let (recs, _) = official_messages(&out, None);
    let lines = text(&printed.stdout).lines().count();
    assert_eq!(lines, recs.len(), "{name}: query prints {lines} messages");
    recs.into_iter()
        .map(|r| Rec {
            topic: format!("{NS}{}", r.topic),
            ..r
        })
        .collect()
}

/// Takes out the first message of each latched topic a recorder received, checking it is the
/// one `latched` says: a recorder that subscribes after an earlier call first receives the
/// latched topics' last messages of that call (they stay latched).
fn without_latched(name: &str, mut recorded: Vec<Rec>, latched: &[Rec]) -> Vec<Rec> {
    for l in latched {
        let at = recorded
            .iter()
            .position(|r| r.topic == l.topic)
            .unwrap_or_else(|| panic!("{name}: nothing on {}", l.topic));
        let r = recorded.remove(at);
        assert_eq!(
            (&r.md5, r.size),
            (&l.md5, l.size),
            "{name}: latched {}",
            l.topic
        );
    }
    recorded
}

/// The bag times as the server schedules them with `--skip-empty`: a stretch longer than
/// `skip_ns` without messages is cut out.
fn skip_empty(recs: &[Rec], skip_ns: i128) -> Vec<Rec> {
    let mut shift = 0;
    let mut previous: Option<i128> = None;
    recs.iter()
        .map(|r| {
            if let Some(p) = previous {
                if r.time - p > skip_ns {
                    shift += r.time - p;
                }
            }
            previous = Some(r.time);
            Rec {
                time: r.time - shift,
                ..r.clone()
            }
        })
        .collect()
}

fn recorded_topics(topics: &[&str]) -> Vec<String> {
    topics.iter().map(|t| format!("{NS}{t}")).collect()
}

fn refs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

#[test]
fn serve_and_call_in_a_live_graph() {
    if let Err(why) = have_tools(&["roscore", "rosbag", "rostopic", "rosservice"]) {
        skip(&why);
        return;
    }
    let started = Instant::now();
    let graph = Graph::start();
    let work = tempfile::tempdir().unwrap();
    let work = work.path();
    let index = work.join("two.idx");
    build_index(&index, &two_recorded_bags());
    let (mut serve, node, state) = start_server(&graph, &index, NS, &["--skip-empty", "1"]);
    // Every indexed topic is advertised up front, under the namespace.
    for t in [
        "/chatter",
        "/imu",
        "/map_name",
        "/odom",
        "/tf",
        "/tf_static",
    ] {
        let out = format!("{NS}{t}");
        assert!(state.publishers_of(&out).contains(&node), "{out}");
    }

    let latched = across_both_bags(&graph, &index, work, &node);
    bad_requests(&graph);
    // A client's topic with control sequences: escaped in the server's log and in the
    // client's error, never raw on either terminal.
    let evil = call(
        &graph,
        &[NS, START, END, "-t", "/nope\u{1b}]0;pwned\u{7}\u{9b}2J"],
    );
    assert_eq!(evil.status.code(), Some(2));
    let err = text(&evil.stderr);
    assert!(err.contains("/nope\\u{1b}]0;pwned\\u{7}\\u{9b}2J"), "{err}");
    let logged = serve.wait_line("pwned", Duration::from_secs(20));
    assert!(
        logged.contains("/nope\\u{1b}]0;pwned\\u{7}\\u{9b}2J")
            && !logged.contains('\u{1b}')
            && !logged.contains('\u{9b}'),
        "{logged:?}"
    );
    every_topic_relative_at_rate_2(&graph, &index, work, &node, &latched);
    two_calls_at_once(&graph, &index, work, &node);
    official_client(&graph, &index, work);

    // SIGINT during a call: the call is stopped and refused, the server exits at once.
    let slow = graph
        .command(env!("CARGO_BIN_EXE_bagscope"))
        .args(["call", NS, START, END, "--rate", "0.05"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    serve.wait_line("at rate 0.05", Duration::from_secs(20));
    // A second call waits for the first to finish: it gives up after its --timeout.
    let waited = Instant::now();
    let queued = call(&graph, &[NS, START, END, "-t", "/odom", "--timeout", "1"]);
    assert_eq!(queued.status.code(), Some(2));
    assert!(
        text(&queued.stderr).contains("/hist/play_interval: no answer within 1 s (--timeout)"),
        "{}",
        text(&queued.stderr)
    );
    assert!(waited.elapsed() >= Duration::from_secs(1));
    let stopping = Instant::now();
    let status = serve.finish();
    assert!(status.success(), "exit status {status:?}");
    assert!(stopping.elapsed() < Duration::from_secs(10));
    let slow = slow.wait_with_output().unwrap();
    assert_eq!(slow.status.code(), Some(2));
    assert!(
        text(&slow.stderr).contains("stopped (the bagserver is shutting down) after"),
        "{}",
        text(&slow.stderr)
    );
    // Nothing of ours is left registered.
    nothing_served_by(&graph, &node, SERVICE);
    eprintln!("interop took {:.1} s", started.elapsed().as_secs_f64());
}

/// Returns the last message published on each latched topic.
fn across_both_bags(graph: &Graph, index: &Path, work: &Path, node: &str) -> Vec<Rec> {
    let topics = ["/imu", "/chatter", "/map_name", "/tf_static"];
    let recorded = recorded_topics(&topics);
    let out = work.join("across.bag");
    let rec = graph.record(&out, &refs(&recorded));
    let mut args = vec![NS, START, END, "--rate", "max"];
    args.extend(topics.iter().flat_map(|t| ["-t", *t]));
    let answer = call(graph, &args);
    assert_eq!(answer.status.code(), Some(0), "{}", text(&answer.stderr));
    graph.stop_recorder(rec, &out);

    let mut query_args = vec!["--start", START, "--end", END];
    query_args.extend(topics.iter().flat_map(|t| ["-t", *t]));
    let expected = queried(index, work, "across", &query_args);
    // Both bags contribute, and every topic asked for.
    assert!(expected.iter().any(|r| r.time < 1_795_297_621_000_000_000));
    assert!(expected.iter().any(|r| r.time > 1_795_297_621_000_000_000));
    for t in &recorded {
        assert!(expected.iter().any(|r| &r.topic == t), "{t} in the query");
    }
    let (got, latching) = official_recording(&out, node);
    check_same_messages("across both bags", &expected, &got);
    assert_eq!(field(&answer, "published"), expected.len().to_string());
    assert_eq!(field(&answer, "failed"), "0");
    let secs = |t: i128| format!("{}.{:09}", t / 1_000_000_000, t % 1_000_000_000);
    assert_eq!(field(&answer, "first"), secs(expected[0].time));
    assert_eq!(field(&answer, "last"), secs(expected.last().unwrap().time));
    assert_eq!(latching["/hist/map_name"].as_deref(), Some("1"));
    assert_eq!(latching["/hist/imu"].as_deref(), Some("0"));
    // Latched topics stay latched: a later subscriber gets the last one published.
    let echo = graph.tool(&["rostopic", "echo", "-n", "1", "/hist/map_name"]);
    assert!(echo.contains("data: \"warehouse_v2\""), "{echo}");
    ["/hist/map_name", "/hist/tf_static"]
        .iter()
        .map(|t| {
            expected
                .iter()
                .rev()
                .find(|r| r.topic == *t)
                .unwrap()
                .clone()
        })
        .collect()
}

fn bad_requests(graph: &Graph) {
    let quick = Instant::now();
    let empty = call(graph, &[NS, END, START]);
    assert_eq!(empty.status.code(), Some(2));
    let err = text(&empty.stderr);
    assert!(
        err.starts_with("bagscope: error: /hist/play_interval: the interval is empty"),
        "{err}"
    );
    let unknown = call(graph, &[NS, START, END, "-t", "/imu", "-t", "/nope"]);
    assert_eq!(unknown.status.code(), Some(2));
    assert!(
        text(&unknown.stderr).contains("the index holds no topic '/nope'"),
        "{}",
        text(&unknown.stderr)
    );
    // Refused by the client before any call.
    let mixed = call(graph, &[NS, START, "+3"]);
    assert_eq!(mixed.status.code(), Some(2));
    let wrong_ns = call(graph, &["/elsewhere", START, END]);
    assert_eq!(wrong_ns.status.code(), Some(2));
    assert!(
        text(&wrong_ns.stderr).contains("no service /elsewhere/play_interval"),
        "{}",
        text(&wrong_ns.stderr)
    );
    assert!(quick.elapsed() < Duration::from_secs(20));
    // An interval without messages is refused before it takes a turn.
    let nothing = call(graph, &[NS, "1000", "1001"]);
    assert_eq!(nothing.status.code(), Some(2), "{}", text(&nothing.stderr));
    assert!(
        text(&nothing.stderr).contains("no message in"),
        "{}",
        text(&nothing.stderr)
    );
    // So is a rate below the floor.
    let crawl = call(graph, &[NS, START, END, "--rate", "0.001"]);
    assert_eq!(crawl.status.code(), Some(2), "{}", text(&crawl.stderr));
    assert!(
        text(&crawl.stderr).contains("too slow"),
        "{}",
        text(&crawl.stderr)
    );
}

fn every_topic_relative_at_rate_2(
    graph: &Graph,
    index: &Path,
    work: &Path,
    node: &str,
    latched: &[Rec],
) {
    let recorded = recorded_topics(RECORDED_TOPICS);
    let out = work.join("relative.bag");
    let rec = graph.record(&out, &refs(&recorded));
    let answer = call(graph, &[NS, "+1.5", "+6", "--rate", "2"]);
    assert_eq!(answer.status.code(), Some(0), "{}", text(&answer.stderr));
    graph.stop_recorder(rec, &out);
    let expected = queried(index, work, "relative", &["--start", "+1.5", "--end", "+6"]);
    for t in &recorded {
        assert!(expected.iter().any(|r| &r.topic == t), "{t} in the query");
    }
    let (got, _) = official_recording(&out, node);
    let got = without_latched("every topic at rate 2", got, latched);
    // The 2.1 s between the bags is skipped (`--skip-empty 1`).
    check_recording(
        "every topic at rate 2",
        &skip_empty(&expected, 1_000_000_000),
        &got,
        2.0,
        Duration::from_millis(250),
    );
    assert_eq!(field(&answer, "published"), expected.len().to_string());
}

fn two_calls_at_once(graph: &Graph, index: &Path, work: &Path, node: &str) {
    let recorded = recorded_topics(&["/odom", "/tf"]);
    let out = work.join("concurrent.bag");
    let rec = graph.record(&out, &refs(&recorded));
    let spawn = |topic: &str| {
        graph
            .command(env!("CARGO_BIN_EXE_bagscope"))
            .args(["call", NS, START, END, "-t", topic, "--rate", "4"])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    };
    let (a, b) = (spawn("/odom"), spawn("/tf"));
    let (a, b) = (a.wait_with_output().unwrap(), b.wait_with_output().unwrap());
    assert!(a.status.success(), "{}", text(&a.stderr));
    assert!(b.status.success(), "{}", text(&b.stderr));
    graph.stop_recorder(rec, &out);
    let expected = queried(
        index,
        work,
        "concurrent",
        &["--start", START, "--end", END, "-t", "/odom", "-t", "/tf"],
    );
    let (got, _) = official_recording(&out, node);
    check_same_messages("two calls at once", &expected, &got);
    let published: usize = [&a, &b]
        .iter()
        .map(|o| field(o, "published").parse::<usize>().unwrap())
        .sum();
    assert_eq!(published, expected.len());
}

/// `rosservice` against our server, with the service classes genpy generates from
/// `assets/srv/`.
fn official_client(graph: &Graph, index: &Path, work: &Path) {
    let ty = graph.tool(&["rosservice", "type", SERVICE]);
    assert_eq!(ty.trim(), "bagscope_msgs/PlayInterval");
    let uri = graph.tool(&["rosservice", "uri", SERVICE]);
    assert!(uri.trim().starts_with("rosrpc://127.0.0.1:"), "{uri}");

    let generator = Path::new("/usr/lib/genpy/gensrv_py.py");
    if !generator.exists() {
        skip("genpy's gensrv_py.py is not installed: rosservice call");
        return;
    }
    let srv = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/srv");
    let py = work.join("py");
    let out_dir = py.join("bagscope_msgs/srv");
    std::fs::create_dir_all(&out_dir).unwrap();
    std::fs::write(py.join("bagscope_msgs/__init__.py"), "").unwrap();
    for extra in [&[][..], &["--initpy"][..]] {
        let mut c = Command::new(common::ros_python());
        c.arg(generator)
            .args(extra)
            .args(["-p", "bagscope_msgs", "-o"])
            .arg(&out_dir);
        if extra.is_empty() {
            c.arg(srv.join("bagscope_msgs/srv/PlayInterval.srv"));
        }
        let o = c.output().unwrap();
        assert!(o.status.success(), "genpy: {}", text(&o.stderr));
    }
    let md5 = Command::new(common::ros_python())
        .args([
            "-c",
            "from bagscope_msgs.srv import PlayInterval; print(PlayInterval._md5sum)",
        ])
        .env("PYTHONPATH", &py)
        .output()
        .unwrap();
    assert_eq!(text(&md5.stdout).trim(), PLAY_INTERVAL_MD5);

    let rosservice = |yaml: &str| {
        let o = graph
            .command("rosservice")
            .args(["call", SERVICE, yaml])
            .env("PYTHONPATH", &py)
            .env("ROS_PACKAGE_PATH", &srv)
            .output()
            .unwrap();
        eprintln!(
            "  rosservice call {yaml}: {:?}\n{}{}",
            o.status,
            text(&o.stdout),
            text(&o.stderr)
        );
        o
    };
    let expected = queried(
        index,
        work,
        "official",
        &["--start", START, "--end", END, "-t", "/odom"],
    );
    let good = rosservice(
        "{start: {secs: 1795297619, nsecs: 500000000}, end: {secs: 1795297623, nsecs: 500000000}, \
         relative: false, topics: ['/odom'], rate: 0.0}",
    );
    assert!(good.status.success(), "{}", text(&good.stderr));
    let answer = text(&good.stdout);
    assert!(
        answer.contains(&format!("published: {}", expected.len())),
        "{answer}"
    );
    assert!(answer.contains("failed: 0"), "{answer}");
    let bad = rosservice(
        "{start: {secs: 1, nsecs: 0}, end: {secs: 2, nsecs: 0}, relative: false, topics: [], \
         rate: -1.0}",
    );
    assert!(!bad.status.success());
    let err = format!("{}{}", text(&bad.stdout), text(&bad.stderr));
    assert!(
        err.contains("rate -1: expected a factor of at least 0.01"),
        "{err}"
    );
}
