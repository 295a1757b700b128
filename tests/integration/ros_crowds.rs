//! Crowds of subscribers that connect and never read, against `bagscope serve` and
//! `bagscope play` started with a limit of 256 open files (so that a few dozen are a crowd):
//! the node keeps at most its cap per address (from 127.0.0.2, through Python sockets bound
//! there), refuses the excess with the reason in an `error` header and logs it, and goes on
//! serving — service calls answered, a new `rostopic echo` subscribed, `rosbag record` given
//! every message. And, on 512 KiB messages, forty subscribers that never read cost a
//! bagserver request one stall together (before: about a second each).

use std::io::{BufRead, BufReader, Write};
use std::net::SocketAddr;
use std::process::{ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use bagscope::catalog::{Catalog, Selection};
use bagscope::ros::xmlrpc::{self, Value};

use crate::common;
use crate::common::ros_graph::{
    Graph, Proc, build_index, check_same_messages, graph_with, official_recording, played,
    two_recorded_bags, wait_exit,
};

/// The limit on open files the node runs with.
const FILES: u32 = 256;
/// Connections beyond the per-address cap the crowd opens.
const EXCESS: usize = 40;

/// Opens N subscriber connections from 127.0.0.2 to HOST:PORT for TOPIC, each sending its
/// header and reading the answer, then never reading again; prints how many were kept and
/// refused and the first refusal; holds them until its stdin closes.
const CROWD: &str = r#"
import socket, struct, sys
host, port, topic, n = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
def field(s): return struct.pack("<I", len(s)) + s.encode()
def exact(c, k):
    b = b""
    while len(b) < k:
        got = c.recv(k - len(b))
        if not got: raise EOFError("closed")
        b += got
    return b
kept, refused, stalled, why = [], 0, 0, ""
for i in range(n):
    try:
        c = socket.socket()
        c.bind(("127.0.0.2", 0))
        c.settimeout(10)
        c.connect((host, port))
        body = field("callerid=/crowd%d" % i) + field("md5sum=*") + field("topic=" + topic)
        c.sendall(struct.pack("<I", len(body)) + body)
        h = exact(c, struct.unpack("<I", exact(c, 4))[0])
        fields, at = {}, 0
        while at < len(h):
            k = struct.unpack("<I", h[at:at + 4])[0]
            key, _, value = h[at + 4:at + 4 + k].decode().partition("=")
            fields[key] = value
            at += 4 + k
        if "error" in fields:
            refused += 1
            why = why or fields["error"]
            c.close()
        else:
            kept.append(c)
    except Exception as e:
        stalled += 1
        why = why or repr(e)
print(len(kept), refused, stalled)
print(why)
sys.stdout.flush()
sys.stdin.read()
"#;

/// The crowd: its process (holding the connections until dropped) and what it reported.
struct Crowd {
    proc: Proc,
    stdin: Option<ChildStdin>,
    kept: usize,
    refused: usize,
    stalled: usize,
    why: String,
}

impl Crowd {
    fn open(tcpros: SocketAddr, topic: &str, n: usize) -> Crowd {
        let mut child = Command::new(common::ros_python())
            .args(["-c", CROWD])
            .arg(tcpros.ip().to_string())
            .arg(tcpros.port().to_string())
            .arg(topic)
            .arg(n.to_string())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take();
        let mut out = BufReader::new(child.stdout.take().unwrap());
        let (mut counts, mut why) = (String::new(), String::new());
        out.read_line(&mut counts).unwrap();
        out.read_line(&mut why).unwrap();
        let n: Vec<usize> = counts
            .split_whitespace()
            .map(|w| w.parse().unwrap())
            .collect();
        eprintln!("  crowd on {topic}: kept, refused, stalled = {n:?}; {why}");
        Crowd {
            proc: Proc(child),
            stdin,
            kept: n[0],
            refused: n[1],
            stalled: n[2],
            why: why.trim().to_string(),
        }
    }
}

impl Drop for Crowd {
    fn drop(&mut self) {
        drop(self.stdin.take());
        let _ = wait_exit(&mut self.proc.0, Duration::from_secs(5));
    }
}

/// `bagscope ARGS` with at most [`FILES`] open files, in `graph`; stderr lines on a channel.
fn spawn_limited(graph: &Graph, args: &[&str]) -> (Proc, mpsc::Receiver<String>) {
    let mut child = graph
        .command("sh")
        .arg("-c")
        .arg(format!("ulimit -n {FILES} && exec \"$0\" \"$@\""))
        .arg(env!("CARGO_BIN_EXE_bagscope"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let err = child.stderr.take().unwrap();
    let (tx, rx) = mpsc::channel();
    let tag = args[0].to_string();
    std::thread::spawn(move || {
        for line in BufReader::new(err).lines() {
            let Ok(line) = line else { break };
            eprintln!("  {tag}: {line}");
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    (Proc(child), rx)
}

/// Waits for a line containing `what` (20 s at most); every line seen goes to `seen`.
fn wait_line(rx: &mpsc::Receiver<String>, seen: &mut Vec<String>, what: &str) -> String {
    if let Some(l) = seen.iter().find(|l| l.contains(what)) {
        return l.clone();
    }
    let t = Instant::now();
    loop {
        let left = Duration::from_secs(20).saturating_sub(t.elapsed());
        match rx.recv_timeout(left) {
            Ok(l) => {
                seen.push(l.clone());
                if l.contains(what) {
                    return l;
                }
            }
            Err(_) => panic!("no '{what}'; got {seen:?}"),
        }
    }
}

/// The per-address cap a node announced (`... at most N subscribers (M per address) ...`).
fn per_address(line: &str) -> usize {
    let at = line.find(" per address").unwrap();
    line[..at]
        .rsplit('(')
        .next()
        .unwrap()
        .trim()
        .parse()
        .unwrap()
}

/// The TCPROS address of `node`'s publication of `topic`, from its own `requestTopic`.
fn tcpros_of(graph: &Graph, node: &str, topic: &str) -> SocketAddr {
    let api = graph.master().lookup_node(node).unwrap();
    let answer = xmlrpc::call(
        &api,
        "requestTopic",
        &[
            "/tester".into(),
            topic.into(),
            Value::Array(vec![Value::Array(vec!["TCPROS".into()])]),
        ],
        Duration::from_secs(5),
    )
    .unwrap();
    let proto = answer.as_array().unwrap()[2].as_array().unwrap();
    let port = proto[2].as_int().unwrap();
    format!("{}:{port}", proto[1].as_str().unwrap())
        .parse()
        .unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn serve_keeps_serving_beyond_its_subscriber_caps() {
    let Some((graph, work)) = graph_with(&["roscore", "rosbag", "rostopic"]) else {
        return;
    };
    let index = work.path().join("two.idx");
    build_index(&index, &two_recorded_bags());
    let (mut serve, lines) = spawn_limited(
        &graph,
        &["serve", index.to_str().unwrap(), "--namespace", "/hist"],
    );
    let mut seen = Vec::new();
    let caps = wait_line(&lines, &mut seen, "the limit on open files is 256");
    let cap = per_address(&caps);
    let node = wait_line(&lines, &mut seen, " as /");
    let node = node.split(" as ").nth(1).unwrap();
    let node = node.split_whitespace().next().unwrap().to_string();
    wait_line(&lines, &mut seen, "Ctrl-C stops");

    // More subscribers from one address than it keeps: the excess is refused, saying why.
    let crowd = Crowd::open(
        tcpros_of(&graph, &node, "/hist/odom"),
        "/hist/odom",
        cap + EXCESS,
    );
    assert_eq!(
        (crowd.kept, crowd.refused, crowd.stalled),
        (cap, EXCESS, 0),
        "{}",
        crowd.why
    );
    assert!(
        crowd
            .why
            .contains("too many subscribers from 127.0.0.2 (at most"),
        "{}",
        crowd.why
    );
    let logged = wait_line(&lines, &mut seen, "refused a subscriber of /hist/odom");
    assert!(logged.contains("from 127.0.0.2"), "{logged}");

    // Meanwhile a new subscriber (from 127.0.0.1) is served and the service answers.
    let mut echo = Proc(
        graph
            .command("rostopic")
            .args(["echo", "-n", "1", "/hist/odom"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    graph.wait_until("rostopic echo", |s| {
        !s.subscribers_of("/hist/odom").is_empty()
    });
    std::thread::sleep(Duration::from_secs(2));
    let (out, _) = common::ros_graph::call(
        &graph,
        &[
            "/hist",
            "+0",
            "+8",
            "-t",
            "/odom",
            "--rate",
            "max",
            "--timeout",
            "20",
        ],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let echoed = wait_exit(&mut echo.0, Duration::from_secs(10));
    assert!(
        echoed.is_some_and(|s| s.success()),
        "rostopic echo got nothing beside the crowd"
    );
    drop(crowd);
    common::ros_graph::interrupt(&serve.0);
    let status = wait_exit(&mut serve.0, Duration::from_secs(10));
    assert!(status.is_some_and(|s| s.success()), "{status:?}");
}

#[test]
fn play_keeps_publishing_beyond_its_subscriber_caps() {
    let Some((graph, work)) = graph_with(&["roscore", "rosbag"]) else {
        return;
    };
    let bag = common::fixtures_dir().join("recorded.bag");
    let topics = ["/chatter", "/imu", "/odom", "/tf"];
    let out = work.path().join("played.bag");
    let rec = graph.record(&out, &topics);
    let mut args = vec!["play", bag.to_str().unwrap(), "--delay", "5"];
    for t in &topics {
        args.extend_from_slice(&["-t", t]);
    }
    let (mut play, lines) = spawn_limited(&graph, &args);
    let mut seen = Vec::new();
    let cap = per_address(&wait_line(
        &lines,
        &mut seen,
        "the limit on open files is 256",
    ));
    let node = wait_line(&lines, &mut seen, " as /");
    let node = node.split(" as ").nth(1).unwrap();
    let node = node.split_whitespace().next().unwrap().to_string();
    // During the delay, a crowd on /imu.
    let crowd = Crowd::open(tcpros_of(&graph, &node, "/imu"), "/imu", cap + EXCESS);
    assert_eq!(
        (crowd.kept, crowd.refused, crowd.stalled),
        (cap, EXCESS, 0),
        "{}",
        crowd.why
    );
    wait_line(
        &lines,
        &mut seen,
        "refused a subscriber of /imu from 127.0.0.2",
    );
    wait_line(&lines, &mut seen, "done:");
    let status = wait_exit(&mut play.0, Duration::from_secs(15));
    assert!(status.is_some_and(|s| s.success()), "{status:?}: {seen:?}");
    drop(crowd);
    graph.stop_recorder(rec, &out);
    let catalog = Catalog::open(std::slice::from_ref(&bag), &Default::default()).0;
    let selection = Selection {
        topics: topics.iter().map(|t| (*t).to_string()).collect(),
        ..Selection::default()
    };
    let (got, _) = official_recording(&out, &node);
    check_same_messages(
        "play beside a crowd",
        &played(&catalog, &selection, "/"),
        &got,
    );
}

/// Forty subscribers that connect and never read, on a topic of 512 KiB messages (written by
/// the official Python `rosbag`): a request at full speed is held up about one stall (1 s)
/// in all, not one each (31 s before), and the stuck ones' losses are logged; a second
/// request with forty new ones costs the same.
#[test]
fn forty_subscribers_that_never_read_cost_one_stall() {
    let Some((graph, work)) = graph_with(&["roscore", "rosbag"]) else {
        return;
    };
    let work = work.path();
    let bag = work.join("big.bag");
    let script = format!(
        "import rosbag, genpy\nfrom std_msgs.msg import String\n\
         with rosbag.Bag('{}', 'w') as b:\n    \
         for i in range(100):\n        \
         b.write('/big', String(data=('%04d' % i) * (131072)), genpy.Time(1000, 0) + genpy.Duration(0, i * 25000000))\n",
        bag.display()
    );
    let py = Command::new(common::ros_python())
        .args(["-c", &script])
        .output()
        .unwrap();
    if !py.status.success() {
        common::skip(&format!(
            "cannot write a bag with python rosbag: {}",
            text(&py.stderr)
        ));
        return;
    }
    let index = work.join("big.idx");
    build_index(&index, std::slice::from_ref(&bag));
    let (mut serve, node, _) =
        common::ros_graph::start_server(&graph, &index, "/hist", &["--queue", "20"]);
    let tcpros = tcpros_of(&graph, &node, "/hist/big");
    let (usual, took) = common::ros_graph::call(&graph, &["/hist", "+0", "+3", "--rate", "max"]);
    assert!(usual.status.success(), "{}", text(&usual.stderr));
    let usual = took;
    for round in 0..2 {
        let stuck: Vec<std::net::TcpStream> = (0..40)
            .map(|_| stuck_subscriber(tcpros, "/hist/big"))
            .collect();
        let (answer, took) =
            common::ros_graph::call(&graph, &["/hist", "+0", "+3", "--rate", "max"]);
        assert!(answer.status.success(), "{}", text(&answer.stderr));
        assert!(
            took < usual * 2 + Duration::from_secs(1) + Duration::from_secs(3),
            "round {round}: the request took {took:?} beside 40 subscribers that never read \
             ({usual:?} without)"
        );
        serve.wait_line("/stuck lost", Duration::from_secs(5));
        serve.seen.clear();
        drop(stuck);
    }
}

/// A subscriber to `topic` at `tcpros` that completes its handshake and never reads.
fn stuck_subscriber(tcpros: SocketAddr, topic: &str) -> std::net::TcpStream {
    use bagscope::ros::{Header, MAX_HEADER};
    let mut s = std::net::TcpStream::connect(tcpros).unwrap();
    let hello = Header::new()
        .with("callerid", "/stuck")
        .with("md5sum", "*")
        .with("topic", topic);
    s.write_all(&hello.encode()).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let reply = Header::read_from(&mut s, MAX_HEADER).unwrap();
    assert_eq!(reply.get("error"), None);
    s
}
