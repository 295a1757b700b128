//! `bagscope serve` under slow and hostile peers, against a private `roscore` on loopback.
//! A normal client keeps calling the service (every call recorded by `rosbag record` and
//! compared with `bagscope query`) while, one after the other:
//!
//! 1. 64 XML-RPC connections send one byte a second to the node's API (and a `rostopic
//!    echo` subscribes meanwhile);
//! 2. 256 TCPROS connections send one byte a second of a handshake;
//! 3. 8 service clients declare 64 MiB requests and send 8 MiB of each (VmRSS bounded);
//! 4. a request at rate 1e-9 (refused), a slow request whose client is killed (cancelled),
//!    a full line (busy), a `--preempt` call (stops the one being published);
//! 5. a subscriber that connects and never reads.
//!
//! Every normal call is served within twice its usual time (plus 1 s of slack for a loaded
//! CI machine), and every message arrives. Then SIGTERM unregisters everything. The same
//! attacks on `bagscope play`; and a subscriber that never reads beside `rosbag record` on
//! 512 KiB messages (the replay is not stretched, the recorder gets everything). Counts and
//! times are small and bounded: each test takes 10 to 25 s.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::process::{Output, Stdio};
use std::time::{Duration, Instant};

use bagscope::ros::{Header, MAX_HEADER, uri};

use crate::common;
use crate::common::ros_graph::{
    Graph, Rec, Running, build_index, check_same_messages, graph_with, have_tools,
    nothing_served_by, official_messages, official_recording, start_server, two_recorded_bags,
    wait_exit,
};
use crate::common::skip;

const NS: &str = "/hist";
const SERVICE: &str = "/hist/play_interval";
const START: &str = "1795297619.5";
const END: &str = "1795297623.5";
/// The normal client's call: two topics, at four times the recorded speed.
const NORMAL: &[&str] = &[NS, START, END, "-t", "/odom", "-t", "/tf", "--rate", "4"];

/// A TCPROS subscriber to `topic` at `tcpros` that completes its handshake and then never
/// reads.
fn stuck_subscriber(tcpros: SocketAddr, topic: &str) -> TcpStream {
    let mut stuck = TcpStream::connect(tcpros).unwrap();
    let hello = Header::new()
        .with("callerid", "/stuck")
        .with("md5sum", "*")
        .with("topic", topic);
    stuck.write_all(&hello.encode()).unwrap();
    stuck
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    let reply = Header::read_from(&mut stuck, MAX_HEADER).unwrap();
    assert_eq!(reply.get("error"), None);
    stuck
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn call(graph: &Graph, args: &[&str]) -> (Output, Duration) {
    common::ros_graph::call(graph, args)
}

fn addr_of(u: &str, scheme: &str) -> SocketAddr {
    let (host, port) = uri::host_port(u, scheme).unwrap();
    format!("{host}:{port}").parse().unwrap()
}

fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap()
}

/// `n` connections to `addr` that each send `first`, then one byte every second for
/// `seconds` (errors ignored: the server may close them). Returns when done.
fn trickle(addr: SocketAddr, n: usize, first: &[u8], seconds: u64) -> std::thread::JoinHandle<()> {
    let first = first.to_vec();
    std::thread::spawn(move || {
        let mut conns: Vec<TcpStream> = (0..n)
            .filter_map(|_| TcpStream::connect_timeout(&addr, Duration::from_secs(2)).ok())
            .collect();
        for c in &mut conns {
            let _ = c.set_write_timeout(Some(Duration::from_millis(200)));
            let _ = c.write_all(&first);
        }
        for _ in 0..seconds {
            std::thread::sleep(Duration::from_secs(1));
            for c in &mut conns {
                let _ = c.write_all(b"x");
            }
        }
    })
}

/// The normal client: one call, served within `bound`.
fn normal_call(graph: &Graph, bound: Duration, phase: &str) {
    let (out, took) = call(graph, NORMAL);
    assert!(out.status.success(), "{phase}: {}", text(&out.stderr));
    assert!(
        took <= bound,
        "{phase}: the normal call took {took:?} (at most {bound:?})"
    );
}

fn expected(index: &Path, work: &Path) -> Vec<Rec> {
    let out = work.join("expected.bag");
    let o = common::bagscope()
        .arg("query")
        .arg(index)
        .args(["--start", START, "--end", END, "-t", "/odom", "-t", "/tf"])
        .args(["--out", out.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o.stderr));
    let (recs, _) = official_messages(&out, None);
    recs.into_iter()
        .map(|r| Rec {
            topic: format!("{NS}{}", r.topic),
            ..r
        })
        .collect()
}

/// Attack 1: 64 XML-RPC clients send one byte a second to the node's API (`api`) while a
/// `rostopic echo` subscribes through it; a normal call is served within `bound`.
fn slow_api_and_a_new_subscriber(graph: &Graph, api: SocketAddr, bound: Duration) {
    let attack = trickle(api, 64, b"P", 4);
    std::thread::sleep(Duration::from_millis(300));
    let mut echo = graph
        .command("rostopic")
        .args(["echo", "-n", "1", "/hist/odom"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    graph.wait_until("rostopic echo", |s| {
        s.subscribers_of("/hist/odom").len() >= 2
    });
    // Give it time to connect through our (attacked) API.
    std::thread::sleep(Duration::from_secs(2));
    normal_call(graph, bound, "slow XML-RPC clients");
    let echoed = wait_exit(&mut echo, Duration::from_secs(10));
    assert!(
        echoed.is_some_and(|s| s.success()),
        "rostopic echo got no message while our API was under attack"
    );
    attack.join().unwrap();
}

/// Attack 3: 8 service clients at `tcpros` declare 64 MiB requests and send 8 MiB of each;
/// the server (`pid`) holds what it can budget, not what is declared (VmRSS grows by less
/// than 100 MiB from `rss_before`). Returns the clients, still connected.
fn greedy_clients(tcpros: SocketAddr, pid: u32, rss_before: u64) -> Vec<TcpStream> {
    let mut greedy = Vec::new();
    for i in 0..8 {
        let mut s = TcpStream::connect(tcpros).unwrap();
        let hello = Header::new()
            .with("callerid", &format!("/greedy{i}"))
            .with("md5sum", "*")
            .with("service", SERVICE);
        s.write_all(&hello.encode()).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        Header::read_from(&mut s, MAX_HEADER).unwrap();
        s.set_write_timeout(Some(Duration::from_secs(2))).unwrap();
        let _ = s.write_all(&(64u32 << 20).to_le_bytes());
        let _ = s.write_all(&vec![0u8; 8 << 20]);
        greedy.push(s);
    }
    let rss = rss_kib(pid);
    eprintln!("VmRSS {rss_before} kB before, {rss} kB with 8 greedy clients");
    assert!(
        rss < rss_before + 100 * 1024,
        "VmRSS grew from {rss_before} to {rss} kB"
    );
    greedy
}

#[test]
fn serve_holds_under_slow_and_hostile_peers() {
    let Some((graph, work)) = graph_with(&["roscore", "rosbag", "rostopic"]) else {
        return;
    };
    let work = work.path();
    let index = work.join("two.idx");
    let bags = two_recorded_bags();
    build_index(&index, &bags);
    let (mut serve, node, _) = start_server(&graph, &index, NS, &["--skip-empty", "1"]);
    let master = graph.master();
    let api = addr_of(&master.lookup_node(&node).unwrap(), "http");
    let tcpros = addr_of(&master.lookup_service(SERVICE).unwrap(), "rosrpc");
    let pid = serve.proc.0.id();

    let out = work.join("normal.bag");
    let rec = graph.record(&out, &["/hist/odom", "/hist/tf"]);
    // The usual time of the normal call (the best of two).
    let (first, a) = call(&graph, NORMAL);
    assert!(first.status.success(), "{}", text(&first.stderr));
    let (second, b) = call(&graph, NORMAL);
    assert!(second.status.success(), "{}", text(&second.stderr));
    let bound = a.min(b) * 2 + Duration::from_secs(1);
    let mut normal_calls = 2;
    let rss_before = rss_kib(pid);

    // 1. Slow XML-RPC clients; a new subscriber meanwhile.
    slow_api_and_a_new_subscriber(&graph, api, bound);
    normal_calls += 1;

    // 2. Unfinished TCPROS handshakes.
    let attack = trickle(tcpros, 256, b"\x40", 3);
    std::thread::sleep(Duration::from_millis(500));
    normal_call(&graph, bound, "unfinished handshakes");
    normal_calls += 1;
    attack.join().unwrap();

    // 3. Huge declared requests: the server holds what it can budget, not what is declared.
    let greedy = greedy_clients(tcpros, pid, rss_before);
    normal_call(&graph, bound, "huge requests");
    normal_calls += 1;
    drop(greedy);

    // 4. A tiny rate is refused at once.
    let (tiny, took) = call(&graph, &[NS, START, END, "--rate", "1e-9"]);
    assert_eq!(tiny.status.code(), Some(2));
    assert!(
        text(&tiny.stderr).contains("too slow"),
        "{}",
        text(&tiny.stderr)
    );
    assert!(took < Duration::from_secs(5));
    // A slow request whose client is killed is cancelled: the next call does not wait.
    let spawn_call = |args: &[&str]| {
        graph
            .command(env!("CARGO_BIN_EXE_bagscope"))
            .arg("call")
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    serve.seen.clear();
    let mut slow = spawn_call(&[NS, START, END, "-t", "/imu", "--rate", "0.01"]);
    serve.wait_line("at rate 0.01", Duration::from_secs(10));
    slow.kill().unwrap();
    let _ = slow.wait();
    serve.wait_line("stopped: its client disconnected", Duration::from_secs(5));
    normal_call(&graph, bound, "after a cancelled request");
    normal_calls += 1;
    // A full line: the next one is told the server is busy; --preempt stops the long one.
    serve.seen.clear();
    let long = spawn_call(&[NS, START, END, "-t", "/imu", "--rate", "0.01"]);
    serve.wait_line("at rate 0.01", Duration::from_secs(10));
    let waiting: Vec<_> = (0..4)
        .map(|_| {
            let c = spawn_call(&[NS, START, END, "-t", "/imu", "--rate", "max"]);
            std::thread::sleep(Duration::from_millis(300));
            c
        })
        .collect();
    // Every one of them in line before the probe.
    std::thread::sleep(Duration::from_secs(2));
    let t = Instant::now();
    loop {
        // With --timeout: a probe that got in line (the others not there yet) gives up
        // and is taken out of line.
        let (busy, _) = call(
            &graph,
            &[
                NS,
                START,
                END,
                "-t",
                "/imu",
                "--rate",
                "max",
                "--timeout",
                "2",
            ],
        );
        if busy.status.code() == Some(2) && text(&busy.stderr).contains("busy") {
            break;
        }
        assert!(
            t.elapsed() < Duration::from_secs(20),
            "never busy: {}",
            text(&busy.stderr)
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    let (pre, _) = call(
        &graph,
        &[NS, START, END, "-t", "/imu", "--rate", "max", "--preempt"],
    );
    assert!(pre.status.success(), "{}", text(&pre.stderr));
    let long = long.wait_with_output().unwrap();
    assert_eq!(long.status.code(), Some(2));
    assert!(
        text(&long.stderr).contains("preempted by a later request"),
        "{}",
        text(&long.stderr)
    );
    for w in waiting {
        let o = w.wait_with_output().unwrap();
        assert!(o.status.success(), "{}", text(&o.stderr));
    }

    // 5. A subscriber that never reads.
    let mut stuck = stuck_subscriber(tcpros, "/hist/odom");
    normal_call(&graph, bound, "a subscriber that never reads");
    normal_calls += 1;
    let mut one = [0u8; 1];
    let _ = stuck.read(&mut one);

    // Every normal call reached the recorder whole.
    graph.stop_recorder(rec, &out);
    let (got, _) = official_recording(&out, &node);
    let once = expected(&index, work);
    assert!(!once.is_empty());
    let all: Vec<Rec> = (0..normal_calls).flat_map(|_| once.clone()).collect();
    check_same_messages("normal calls under attack", &all, &got);

    // SIGTERM: everything unregistered.
    let _ = std::process::Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status();
    let status = wait_exit(&mut serve.proc.0, Duration::from_secs(10));
    assert!(status.is_some_and(|s| s.success()), "{status:?}");
    nothing_served_by(&graph, &node, SERVICE);
}

/// `bagscope play` of a 3 s bag at rate 1 while 64 slow XML-RPC connections, 256
/// unfinished handshakes, 8 greedy 4 MiB headers and a subscriber that never reads attack
/// it: the replay is not stretched past twice its length (+1 s), `rosbag record` (subscribed
/// before) gets every message, a `rostopic echo` subscribes meanwhile, VmRSS stays bounded.
#[test]
fn play_holds_under_slow_and_hostile_peers() {
    use bagscope::catalog::{Catalog, Selection};
    use common::ros_graph::played;
    let Some((graph, work)) = graph_with(&["roscore", "rosbag", "rostopic"]) else {
        return;
    };
    let work = work.path();
    let bag = common::fixtures_dir().join("recorded.bag");
    let topics = ["/chatter", "/imu", "/odom", "/tf"];
    let out = work.join("played.bag");
    let rec = graph.record(&out, &topics);
    let mut play = Running::start(
        &graph,
        "play",
        &[
            bag.to_str().unwrap(),
            "-t",
            "/chatter",
            "-t",
            "/imu",
            "-t",
            "/odom",
            "-t",
            "/tf",
            "--delay",
            "2",
        ],
    );
    let node = play.node_name();
    let started = Instant::now();
    let master = graph.master();
    let api = addr_of(&master.lookup_node(&node).unwrap(), "http");
    let pid = play.proc.0.id();
    let rss_before = rss_kib(pid);
    // The TCPROS port, from our own requestTopic (before the attack: a request being read
    // while a burst of connections arrives from its address may lose its slot).
    let answer = bagscope::ros::xmlrpc::call(
        &format!("http://{api}/"),
        "requestTopic",
        &[
            "/tester".into(),
            "/odom".into(),
            bagscope::ros::xmlrpc::Value::Array(vec![bagscope::ros::xmlrpc::Value::Array(vec![
                "TCPROS".into(),
            ])]),
        ],
        Duration::from_secs(5),
    )
    .unwrap();
    let port = answer.as_array().unwrap()[2].as_array().unwrap()[2]
        .as_int()
        .unwrap();
    let tcpros: SocketAddr = format!("127.0.0.1:{port}").parse().unwrap();
    let xml = trickle(api, 64, b"P", 4);
    let handshakes = trickle(tcpros, 256, b"\x40", 3);
    let mut greedy = Vec::new();
    for _ in 0..8 {
        let mut s = TcpStream::connect(tcpros).unwrap();
        s.set_write_timeout(Some(Duration::from_secs(1))).unwrap();
        let _ = s.write_all(&((4u32 << 20) - 1).to_le_bytes());
        let _ = s.write_all(&vec![0u8; 2 << 20]);
        greedy.push(s);
    }
    let mut stuck = TcpStream::connect(tcpros).unwrap();
    let hello = Header::new()
        .with("callerid", "/stuck")
        .with("md5sum", "*")
        .with("topic", "/imu");
    stuck.write_all(&hello.encode()).unwrap();
    let mut echo = graph
        .command("rostopic")
        .args(["echo", "-n", "1", "/tf"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let rss = rss_kib(pid);
    eprintln!("VmRSS {rss_before} kB before, {rss} kB under attack");
    assert!(
        rss < rss_before + 100 * 1024,
        "VmRSS grew from {rss_before} to {rss} kB"
    );
    let done = play.wait_line("done:", Duration::from_secs(30));
    let took = started.elapsed();
    // 2 s of delay, then 3 s of bag.
    assert!(
        took < Duration::from_secs(5) * 2 + Duration::from_secs(1),
        "the replay took {took:?}"
    );
    let echoed = wait_exit(&mut echo, Duration::from_secs(10));
    assert!(
        echoed.is_some_and(|s| s.success()),
        "rostopic echo got no message while our API was under attack"
    );
    let status = play.finish();
    assert!(status.success(), "{status:?}: {done}");
    xml.join().unwrap();
    handshakes.join().unwrap();
    drop((greedy, stuck));
    graph.stop_recorder(rec, &out);
    let catalog = Catalog::open(std::slice::from_ref(&bag), &Default::default()).0;
    let selection = Selection {
        topics: topics.iter().map(|t| (*t).to_string()).collect(),
        ..Selection::default()
    };
    let expected = played(&catalog, &selection, "/");
    let (got, _) = official_recording(&out, &node);
    check_same_messages("play under attack", &expected, &got);
}

/// A subscriber that connects and never reads, on a topic of 512 KiB messages at 40 Hz
/// (written by the official Python `rosbag`): the bagserver marks it slow after at most 1 s
/// and drops its oldest messages (logged), instead of stretching the 2.5 s replay; the
/// normal recorder gets every message.
#[test]
fn serve_is_not_held_up_by_a_subscriber_that_never_reads() {
    if let Err(why) = have_tools(&["roscore", "rosbag"]) {
        skip(&why);
        return;
    }
    let work = tempfile::tempdir().unwrap();
    let work = work.path();
    let bag = work.join("big.bag");
    let script = format!(
        "import rosbag, genpy\nfrom std_msgs.msg import String\n\
         with rosbag.Bag('{}', 'w') as b:\n    \
         for i in range(100):\n        \
         b.write('/big', String(data=('%04d' % i) * (131072)), genpy.Time(1000, 0) + genpy.Duration(0, i * 25000000))\n",
        bag.display()
    );
    let py = std::process::Command::new(common::ros_python())
        .args(["-c", &script])
        .output()
        .unwrap();
    if !py.status.success() {
        skip(&format!(
            "cannot write a bag with python rosbag: {}",
            text(&py.stderr)
        ));
        return;
    }
    let graph = Graph::start();
    let index = work.join("big.idx");
    build_index(&index, std::slice::from_ref(&bag));
    let (mut serve, node, _) = start_server(&graph, &index, NS, &["--queue", "20"]);
    let tcpros = addr_of(&graph.master().lookup_service(SERVICE).unwrap(), "rosrpc");
    let out = work.join("big-recorded.bag");
    let rec = graph.record(&out, &["/hist/big"]);
    // The recorder connected to us before the stuck one (which the server's wait for known
    // subscribers would otherwise count in its place).
    let api = graph.master().lookup_node(&node).unwrap();
    let t = Instant::now();
    loop {
        let info = bagscope::ros::xmlrpc::call(
            &api,
            "getBusInfo",
            &["/tester".into()],
            Duration::from_secs(5),
        )
        .unwrap();
        if format!("{info:?}").contains("/record_") {
            break;
        }
        assert!(
            t.elapsed() < Duration::from_secs(20),
            "the recorder never connected"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let stuck = stuck_subscriber(tcpros, "/hist/big");

    let (answer, took) = call(&graph, &[NS, "+0", "+3"]);
    assert!(answer.status.success(), "{}", text(&answer.stderr));
    // 2.5 s of messages; at most 1 s waiting for the stuck subscriber, once.
    assert!(
        took < Duration::from_secs(6),
        "the replay took {took:?} with a subscriber that never reads"
    );
    serve.wait_line("/stuck lost", Duration::from_secs(5));
    graph.stop_recorder(rec, &out);
    let (got, _) = official_recording(&out, &node);
    let q = work.join("big.query.bag");
    let o = common::bagscope()
        .arg("query")
        .arg(&index)
        .args(["--start", "+0", "--end", "+3", "--out", q.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o.stderr));
    let (want, _) = official_messages(&q, None);
    assert_eq!(want.len(), 100);
    let want: Vec<Rec> = want
        .into_iter()
        .map(|r| Rec {
            topic: format!("{NS}{}", r.topic),
            ..r
        })
        .collect();
    check_same_messages("beside a subscriber that never reads", &want, &got);
    drop(stuck);
}
