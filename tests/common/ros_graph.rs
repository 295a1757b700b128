//! A private ROS graph for interop tests: `roscore` on a free port, the official tools run
//! against it (`rosbag record`, `rostopic`, ...), `bagscope` subcommands with their stderr
//! followed, recordings read back with the official Python reader, and a fake master for
//! tests that need no ROS installation.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use std::sync::{Arc, Mutex};

use bagscope::catalog::{Catalog, Selection};
use bagscope::ros::MasterClient;
use bagscope::ros::xmlrpc::{self, Fault, Handler, Value};

use super::nanos;

/// How long a recorder is left to write what it received before it is stopped.
pub const RECORDER_GRACE: Duration = Duration::from_millis(1000);

/// `Ok` when every tool is on PATH and Python can import `rosbag`; otherwise why not.
pub fn have_tools(tools: &[&str]) -> Result<(), String> {
    for tool in tools {
        let ok = Command::new("sh")
            .args(["-c", &format!("command -v {tool}")])
            .output()
            .is_ok_and(|o| o.status.success());
        if !ok {
            return Err(format!(
                "`{tool}` is not installed (apt-get install ros-core python3-rosbag)"
            ));
        }
    }
    let py = Command::new(super::ros_python())
        .args(["-c", "import rosbag"])
        .output();
    if !py.is_ok_and(|o| o.status.success()) {
        return Err("python3 cannot import rosbag".into());
    }
    Ok(())
}

/// Sends SIGINT.
pub fn interrupt(child: &Child) {
    let _ = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status();
}

/// Waits for the child to exit, at most `timeout`.
pub fn wait_exit(child: &mut Child, timeout: Duration) -> Option<ExitStatus> {
    let start = Instant::now();
    loop {
        if let Ok(Some(s)) = child.try_wait() {
            return Some(s);
        }
        if start.elapsed() > timeout {
            return None;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A child stopped with SIGINT (then SIGKILL) when dropped.
pub struct Proc(pub Child);

impl Drop for Proc {
    fn drop(&mut self) {
        if let Ok(None) = self.0.try_wait() {
            interrupt(&self.0);
            if wait_exit(&mut self.0, Duration::from_secs(5)).is_none() {
                let _ = self.0.kill();
                let _ = self.0.wait();
            }
        }
    }
}

/// The private graph: roscore on a free port and the environment to reach it.
pub struct Graph {
    // Dropped first: roscore stops before its directory goes.
    _core: Proc,
    /// The master's URI.
    pub uri: String,
    dir: tempfile::TempDir,
}

impl Graph {
    /// Starts roscore and waits until it answers (and rosout subscribes).
    pub fn start() -> Graph {
        let dir = tempfile::tempdir().unwrap();
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let uri = format!("http://127.0.0.1:{port}/");
        let log = std::fs::File::create(dir.path().join("roscore.log")).unwrap();
        let mut cmd = Command::new("roscore");
        cmd.args(["-p", &port.to_string()])
            .stdout(log.try_clone().unwrap())
            .stderr(log);
        let g = Graph {
            _core: Proc(Self::env_in(dir.path(), &uri, &mut cmd).spawn().unwrap()),
            dir,
            uri,
        };
        let master = g.master();
        let start = Instant::now();
        while master.get_uri().is_err() {
            assert!(
                start.elapsed() < Duration::from_secs(30),
                "roscore did not come up: {}",
                std::fs::read_to_string(g.dir.path().join("roscore.log")).unwrap_or_default()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        // rosout subscribes to /rosout; wait for it so it is a known subscriber.
        g.wait_until("rosout", |s| {
            s.subscribers_of("/rosout").iter().any(|n| n == "/rosout")
        });
        g
    }

    /// The environment of a process in this graph.
    pub fn env_in<'a>(dir: &Path, uri: &str, cmd: &'a mut Command) -> &'a mut Command {
        cmd.env("ROS_MASTER_URI", uri)
            .env("ROS_HOSTNAME", "127.0.0.1")
            .env_remove("ROS_IP")
            .env_remove("ROS_NAMESPACE")
            .env("ROS_HOME", dir.join("home"))
            .env("ROS_LOG_DIR", dir.join("log"))
            .env("PYTHONUNBUFFERED", "1")
    }

    /// A command run in this graph.
    pub fn command(&self, program: impl AsRef<std::ffi::OsStr>) -> Command {
        let mut c = Command::new(program);
        Self::env_in(self.dir.path(), &self.uri, &mut c);
        c
    }

    /// A master client.
    pub fn master(&self) -> MasterClient {
        MasterClient::new(&self.uri, "/bagscope_test", Duration::from_secs(5))
    }

    /// Waits until the master's system state satisfies `pred` (20 s at most).
    pub fn wait_until(
        &self,
        what: &str,
        pred: impl Fn(&bagscope::ros::SystemState) -> bool,
    ) -> bagscope::ros::SystemState {
        let start = Instant::now();
        loop {
            if let Ok(s) = self.master().system_state() {
                if pred(&s) {
                    return s;
                }
            }
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "timed out waiting for {what}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Starts `rosbag record -O OUT TOPICS...` and waits until it subscribes to all.
    pub fn record(&self, out: &Path, topics: &[&str]) -> Proc {
        let log = std::fs::File::create(out.with_extension("log")).unwrap();
        let child = self
            .command("rosbag")
            .arg("record")
            .arg("-O")
            .arg(out)
            .args(topics)
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .unwrap();
        self.wait_until("the recorder's subscriptions", |s| {
            topics.iter().all(|t| {
                s.subscribers_of(t)
                    .iter()
                    .any(|n| n.starts_with("/record_"))
            })
        });
        Proc(child)
    }

    /// Stops a recorder (after [`RECORDER_GRACE`]) and waits for its bag to be closed.
    pub fn stop_recorder(&self, mut rec: Proc, out: &Path) {
        // What was sent may still be in the recorder's sockets and queue, which it drops on
        // SIGINT: on a loaded machine a call that returned at once lost its last messages.
        std::thread::sleep(RECORDER_GRACE);
        interrupt(&rec.0);
        let status = wait_exit(&mut rec.0, Duration::from_secs(15));
        assert!(status.is_some(), "rosbag record did not stop");
        // The `rosbag` wrapper passes SIGINT on to the recorder and exits at once; the
        // recorder closes the bag (renaming OUT.active to OUT) a moment later.
        let active = PathBuf::from(format!("{}.active", out.display()));
        let start = Instant::now();
        while (!out.exists() || active.exists()) && start.elapsed() < Duration::from_secs(15) {
            std::thread::sleep(Duration::from_millis(50));
        }
        assert!(
            out.exists(),
            "no {} (recorder log: {})",
            out.display(),
            std::fs::read_to_string(out.with_extension("log")).unwrap_or_default()
        );
    }

    /// Runs an official tool to completion; its stdout (panics when it fails).
    pub fn tool(&self, args: &[&str]) -> String {
        let out = self.command(args[0]).args(&args[1..]).output().unwrap();
        assert!(
            out.status.success(),
            "{args:?} failed: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }
}

/// A `bagscope` subcommand in the graph, its stderr read line by line on a thread.
pub struct Running {
    /// The process.
    pub proc: Proc,
    lines: mpsc::Receiver<String>,
    /// The stderr lines seen so far.
    pub seen: Vec<String>,
    what: String,
}

impl Running {
    /// Starts `bagscope SUBCOMMAND ARGS...`.
    pub fn start(graph: &Graph, subcommand: &str, args: &[&str]) -> Running {
        let mut cmd = graph.command(env!("CARGO_BIN_EXE_bagscope"));
        let mut child = cmd
            .arg(subcommand)
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let err = child.stderr.take().unwrap();
        let (tx, lines) = mpsc::channel();
        let tag = subcommand.to_string();
        std::thread::spawn(move || {
            for line in BufReader::new(err).lines() {
                let Ok(line) = line else { break };
                eprintln!("  {tag}: {line}");
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Running {
            proc: Proc(child),
            lines,
            seen: Vec::new(),
            what: format!("bagscope {subcommand}"),
        }
    }

    /// Waits for a stderr line containing `what`; returns it.
    pub fn wait_line(&mut self, what: &str, timeout: Duration) -> String {
        if let Some(l) = self.seen.iter().find(|l| l.contains(what)) {
            return l.clone();
        }
        let start = Instant::now();
        loop {
            let left = timeout.saturating_sub(start.elapsed());
            match self.lines.recv_timeout(left) {
                Ok(l) => {
                    self.seen.push(l.clone());
                    if l.contains(what) {
                        return l;
                    }
                }
                Err(_) => panic!("no '{what}' from {}; got {:?}", self.what, self.seen),
            }
        }
    }

    /// The node name from the first line (`... as NODE (master ...)`).
    pub fn node_name(&mut self) -> String {
        let l = self.wait_line(" as /", Duration::from_secs(20));
        let after = l.split(" as ").nth(1).unwrap();
        after.split_whitespace().next().unwrap().to_string()
    }

    /// Stops it with SIGINT; its exit status.
    pub fn finish(mut self) -> ExitStatus {
        interrupt(&self.proc.0);
        let s = wait_exit(&mut self.proc.0, Duration::from_secs(15));
        let s = s.unwrap_or_else(|| panic!("{} did not stop on SIGINT", self.what));
        while let Ok(l) = self.lines.recv_timeout(Duration::from_secs(2)) {
            self.seen.push(l);
        }
        s
    }
}

/// One recorded message: topic, payload md5, size, receive time (ns).
#[derive(Clone, Debug)]
pub struct Rec {
    /// Topic.
    pub topic: String,
    /// md5 of the payload.
    pub md5: String,
    /// Payload size.
    pub size: u64,
    /// Receive (or bag) time, nanoseconds.
    pub time: i128,
}

/// The official reader's view of a recording: messages published by `node`, and the
/// connections (topic → (latching, callerid)).
pub fn official_recording(bag: &Path, node: &str) -> (Vec<Rec>, BTreeMap<String, Option<String>>) {
    official_messages(bag, Some(node))
}

/// The official reader's view of a bag: its messages (those of connections whose callerid
/// is `node`, when given) in (time, connection) order, and each topic's `latching` field.
pub fn official_messages(
    bag: &Path,
    node: Option<&str>,
) -> (Vec<Rec>, BTreeMap<String, Option<String>>) {
    let r = super::official::dump_raw(bag);
    let mut ours = BTreeMap::new();
    let mut latching = BTreeMap::new();
    for c in r.header["connections"].as_array().unwrap() {
        if node.is_none_or(|n| c["callerid"].as_str() == Some(n)) {
            ours.insert(c["id"].as_u64().unwrap(), ());
            latching.insert(
                c["topic"].as_str().unwrap().to_string(),
                c["latching"].as_str().map(str::to_string),
            );
        }
    }
    let recs = r
        .messages
        .iter()
        .filter(|m| ours.contains_key(&m["conn"].as_u64().unwrap()))
        .map(|m| Rec {
            topic: m["topic"].as_str().unwrap().to_string(),
            md5: m["md5"].as_str().unwrap().to_string(),
            size: m["size"].as_u64().unwrap(),
            time: nanos(&m["time"]).unwrap(),
        })
        .collect();
    (recs, latching)
}

/// The recording holds exactly the played messages: as many, and per topic the same
/// payloads in the same order.
pub fn check_same_messages(name: &str, played: &[Rec], recorded: &[Rec]) {
    assert_eq!(
        recorded.len(),
        played.len(),
        "{name}: {} recorded, {} played",
        recorded.len(),
        played.len()
    );
    let by_topic = |v: &[Rec]| {
        let mut m: BTreeMap<String, Vec<(String, u64)>> = BTreeMap::new();
        for r in v {
            m.entry(r.topic.clone())
                .or_default()
                .push((r.md5.clone(), r.size));
        }
        m
    };
    assert_eq!(
        by_topic(recorded),
        by_topic(played),
        "{name}: per-topic payloads"
    );
}

/// Lower-case hex md5.
pub fn md5_hex(data: &[u8]) -> String {
    use md5::{Digest, Md5};
    Md5::digest(data)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The recording holds exactly the played messages: per topic the same payloads in the same
/// order, and receive times following the bag times at `rate` (within `tolerance`).
pub fn check_recording(
    name: &str,
    played: &[Rec],
    recorded: &[Rec],
    rate: f64,
    tolerance: Duration,
) {
    check_same_messages(name, played, recorded);
    // Match each recorded message with its played one (n-th on its topic) and compare the
    // receive-time offsets with the scaled bag-time offsets.
    let mut next: BTreeMap<&str, usize> = BTreeMap::new();
    let mut per_topic: BTreeMap<&str, Vec<&Rec>> = BTreeMap::new();
    for p in played {
        per_topic.entry(&p.topic).or_default().push(p);
    }
    let (p0, r0) = (
        played[0].time,
        recorded.iter().map(|r| r.time).min().unwrap(),
    );
    let mut offsets = Vec::new();
    for r in recorded {
        let i = next.entry(&r.topic).or_insert(0);
        let p = per_topic[r.topic.as_str()][*i];
        *i += 1;
        let want = (p.time - p0) as f64 / rate;
        offsets.push((r.time - r0) as f64 - want);
    }
    // The first recorded message may itself be late: compare against the median offset.
    offsets.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let median = offsets[offsets.len() / 2];
    let worst = offsets
        .iter()
        .map(|o| (o - median).abs())
        .fold(0.0f64, f64::max);
    eprintln!(
        "{name}: {} messages; receive times within {:.1} ms of the schedule",
        recorded.len(),
        worst / 1e6
    );
    assert!(
        worst < tolerance.as_nanos() as f64,
        "{name}: a message was received {:.1} ms off its scaled bag time",
        worst / 1e6
    );
}

/// What bagscope plays: (output topic, payload md5, size, bag time ns), in playback order.
pub fn played(catalog: &Catalog, selection: &Selection, namespace: &str) -> Vec<Rec> {
    catalog
        .messages(selection)
        .map(|m| {
            let m = m.unwrap();
            let c = catalog
                .bag(m.bag)
                .unwrap()
                .connection(m.message.entry.conn)
                .unwrap();
            Rec {
                topic: bagscope::ros::names::relocate(namespace, &c.topic),
                md5: md5_hex(&m.message.data),
                size: m.message.data.len() as u64,
                time: i128::from(m.message.entry.time.as_nanos()),
            }
        })
        .collect()
}

/// Calls received: method and string arguments.
type Calls = Arc<Mutex<Vec<(String, Vec<String>)>>>;

/// A master that accepts every registration, knows no subscribers and records the calls:
/// publishing without a ROS installation.
pub struct FakeMaster {
    calls: Calls,
    server: xmlrpc::Server,
    /// Its URI.
    pub uri: String,
}

struct Recorder {
    calls: Calls,
}

impl Handler for Recorder {
    fn handle(&self, method: &str, params: &[Value]) -> Result<Value, Fault> {
        let args = params
            .iter()
            .map(|p| p.as_str().unwrap_or_default().to_string())
            .collect();
        self.calls.lock().unwrap().push((method.to_string(), args));
        let value = match method {
            "getUri" => Value::from("http://fake:1/"),
            "registerPublisher" => Value::Array(Vec::new()),
            _ => Value::Int(1),
        };
        Ok(Value::Array(vec![Value::Int(1), Value::from(""), value]))
    }
}

impl FakeMaster {
    /// Serves on a free loopback port.
    pub fn start() -> FakeMaster {
        let calls = Arc::new(Mutex::new(Vec::new()));
        let server = xmlrpc::Server::start(
            std::net::SocketAddr::from(([127, 0, 0, 1], 0)),
            Arc::new(Recorder {
                calls: Arc::clone(&calls),
            }),
        )
        .unwrap();
        let uri = format!("http://{}/", server.local_addr());
        FakeMaster { calls, server, uri }
    }

    /// The first argument (the topic) of every call of `method` so far, sorted.
    pub fn topics(&self, method: &str) -> Vec<String> {
        let mut v: Vec<String> = self
            .calls
            .lock()
            .unwrap()
            .iter()
            .filter(|(m, _)| m == method)
            .filter_map(|(_, args)| args.get(1).cloned())
            .collect();
        v.sort();
        v
    }
}

impl Drop for FakeMaster {
    fn drop(&mut self) {
        self.server.stop();
    }
}

/// A node configuration for `master_uri` on loopback, without reading the environment.
pub fn node_config(master_uri: &str, name: &str) -> bagscope::ros::NodeConfig {
    let vars = [
        ("ROS_MASTER_URI", master_uri),
        ("ROS_HOSTNAME", "127.0.0.1"),
    ];
    bagscope::ros::NodeConfig::from_vars(name, |k| {
        vars.iter()
            .find(|(n, _)| *n == k)
            .map(|(_, v)| (*v).to_string())
    })
    .unwrap()
}

/// A master URI on a loopback port nobody listens on (bound, then released).
pub fn closed_port_uri() -> String {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let uri = format!("http://127.0.0.1:{}/", l.local_addr().unwrap().port());
    drop(l);
    uri
}

/// Runs `bagscope ARGS` against a ROS master that is not there (a closed port), with no
/// standard input.
pub fn without_master(args: &[&str]) -> std::process::Output {
    super::bagscope()
        .args(args)
        .env("ROS_MASTER_URI", closed_port_uri())
        .env("ROS_HOSTNAME", "127.0.0.1")
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap()
}

/// The two fixture bags recorded 2 s apart (`recorded.bag`, `recorded_record_lz4.bag`) that
/// the bagserver tests serve.
pub fn two_recorded_bags() -> Vec<PathBuf> {
    ["recorded.bag", "recorded_record_lz4.bag"]
        .iter()
        .map(|n| super::fixtures_dir().join(n))
        .collect()
}

/// `bagscope index build INDEX BAGS...`, which must succeed.
pub fn build_index(index: &Path, bags: &[PathBuf]) {
    let built = super::bagscope()
        .args(["index", "build"])
        .arg(index)
        .args(bags)
        .output()
        .unwrap();
    assert!(
        built.status.success(),
        "{}",
        String::from_utf8_lossy(&built.stderr)
    );
}

/// Starts `bagscope serve INDEX --namespace NS EXTRA...` in `graph` and waits until the
/// master lists its service `NS/play_interval`: the server, its node name and the master's
/// state then.
pub fn start_server(
    graph: &Graph,
    index: &Path,
    ns: &str,
    extra: &[&str],
) -> (Running, String, bagscope::ros::SystemState) {
    let mut args = vec![index.to_str().unwrap(), "--namespace", ns];
    args.extend_from_slice(extra);
    let mut serve = Running::start(graph, "serve", &args);
    let node = serve.node_name();
    let service = format!("{ns}/play_interval");
    serve.wait_line(&format!("service {service}"), Duration::from_secs(20));
    let state = graph.wait_until("the service", |s| s.providers_of(&service).contains(&node));
    (serve, node, state)
}

pub use super::RECORDED_TOPICS;

/// Asserts that the master lists no topic published by `node` any more.
pub fn nothing_published_by(graph: &Graph, node: &str) {
    let state = graph.master().system_state().unwrap();
    for (topic, nodes) in &state.publishers {
        assert!(
            !nodes.iter().any(|n| n == node),
            "{topic} still published by {node}"
        );
    }
}

/// A private graph and a work directory, when the `tools` are installed; `None` (the test
/// skipped, saying why) when one is missing.
pub fn graph_with(tools: &[&str]) -> Option<(Graph, tempfile::TempDir)> {
    if let Err(why) = have_tools(tools) {
        super::skip(&why);
        return None;
    }
    Some((Graph::start(), tempfile::tempdir().unwrap()))
}

/// Asserts that the master lists neither the service `service` nor a topic published by
/// `node` any more.
pub fn nothing_served_by(graph: &Graph, node: &str, service: &str) {
    let state = graph.master().system_state().unwrap();
    assert!(
        state.providers_of(service).is_empty(),
        "service left behind"
    );
    nothing_published_by(graph, node);
}

/// `bagscope call ARGS...` in `graph`; what it printed is logged with the time it took.
pub fn call(graph: &Graph, args: &[&str]) -> (std::process::Output, Duration) {
    let t = Instant::now();
    let out = graph
        .command(env!("CARGO_BIN_EXE_bagscope"))
        .arg("call")
        .args(args)
        .output()
        .unwrap();
    let took = t.elapsed();
    eprintln!(
        "  call {args:?}: {:?} in {took:?}\n{}{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out, took)
}
