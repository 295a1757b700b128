//! Interop of `bagscope play` with Debian's official ROS1 tools on loopback, against a
//! private `roscore` on a free port (one per test process; the scenarios run in order):
//!
//! 1. `recorded.bag` played at rate 2 with `--clock --keep-alive` while `rosbag record`
//!    records it: the recording holds exactly the played messages (topic, payload, order per
//!    topic, latching, definitions, timing scaled by the rate), /clock runs over the bag's
//!    times; after the end, `rostopic echo` of the latched `/map_name` still receives it;
//!    `rosnode info` and `rostopic info` describe our node; SIGINT unregisters everything.
//! 2. A corpus bag (when `../shared/corpus` exists): an interval of some topics played under
//!    `--namespace /replay`, recorded under the namespace, equal to the selection.
//! 3. On a terminal (tmux): `--pause`, `s` steps one message at a time, space resumes.
//!
//! Skipped with a printed reason when `roscore`, `rosbag`, `rostopic`, `rosnode` or Python's
//! `rosbag` are missing; `.ci/run` installs them.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::pedantic
)]

mod common;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use bagscope::bag::{Bag, Query};
use bagscope::catalog::{Catalog, Selection};
use bagscope::ros::MasterClient;
use bagscope::time::RosTime;
use common::{Reference, nanos, skip};

fn have_tools() -> Result<(), String> {
    for tool in ["roscore", "rosbag", "rostopic", "rosnode"] {
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
    let py = Command::new(common::ros_python())
        .args(["-c", "import rosbag"])
        .output();
    if !py.is_ok_and(|o| o.status.success()) {
        return Err("python3 cannot import rosbag".into());
    }
    Ok(())
}

fn interrupt(child: &Child) {
    let _ = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status();
}

fn wait_exit(child: &mut Child, timeout: Duration) -> Option<ExitStatus> {
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
struct Proc(Child);

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
struct Graph {
    // Dropped first: roscore stops before its directory goes.
    _core: Proc,
    uri: String,
    dir: tempfile::TempDir,
}

impl Graph {
    fn start() -> Graph {
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

    fn env_in<'a>(dir: &Path, uri: &str, cmd: &'a mut Command) -> &'a mut Command {
        cmd.env("ROS_MASTER_URI", uri)
            .env("ROS_HOSTNAME", "127.0.0.1")
            .env_remove("ROS_IP")
            .env_remove("ROS_NAMESPACE")
            .env("ROS_HOME", dir.join("home"))
            .env("ROS_LOG_DIR", dir.join("log"))
            .env("PYTHONUNBUFFERED", "1")
    }

    fn command(&self, program: impl AsRef<std::ffi::OsStr>) -> Command {
        let mut c = Command::new(program);
        Self::env_in(self.dir.path(), &self.uri, &mut c);
        c
    }

    fn master(&self) -> MasterClient {
        MasterClient::new(&self.uri, "/bagscope_test", Duration::from_secs(5))
    }

    fn wait_until(
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
    fn record(&self, out: &Path, topics: &[&str]) -> Proc {
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

    /// Stops a recorder and waits for its bag to be closed.
    fn stop_recorder(&self, mut rec: Proc, out: &Path) {
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

    fn tool(&self, args: &[&str]) -> String {
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

/// `bagscope play` with stderr read line by line on a thread.
struct Play {
    proc: Proc,
    lines: mpsc::Receiver<String>,
    seen: Vec<String>,
}

impl Play {
    fn start(graph: &Graph, args: &[&str]) -> Play {
        let mut cmd = graph.command(env!("CARGO_BIN_EXE_bagscope"));
        let mut child = cmd
            .arg("play")
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let err = child.stderr.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(err).lines() {
                let Ok(line) = line else { break };
                eprintln!("  play: {line}");
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Play {
            proc: Proc(child),
            lines,
            seen: Vec::new(),
        }
    }

    /// Waits for a stderr line containing `what`; returns it.
    fn wait_line(&mut self, what: &str, timeout: Duration) -> String {
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
                Err(_) => panic!("no '{what}' from bagscope play; got {:?}", self.seen),
            }
        }
    }

    /// The node name from the first line (`... as NODE (master ...)`).
    fn node_name(&mut self) -> String {
        let l = self.wait_line(" as /", Duration::from_secs(20));
        let after = l.split(" as ").nth(1).unwrap();
        after.split_whitespace().next().unwrap().to_string()
    }

    fn finish(mut self) -> ExitStatus {
        interrupt(&self.proc.0);
        let s = wait_exit(&mut self.proc.0, Duration::from_secs(15));
        let s = s.expect("bagscope play did not stop on SIGINT");
        while let Ok(l) = self.lines.recv_timeout(Duration::from_secs(2)) {
            self.seen.push(l);
        }
        s
    }
}

/// One recorded message: topic, payload md5, size, receive time (ns).
#[derive(Clone, Debug)]
struct Rec {
    topic: String,
    md5: String,
    size: u64,
    time: i128,
}

/// The official reader's view of a recording: messages published by `node`, and the
/// connections (topic → (latching, callerid)).
fn official_recording(bag: &Path, node: &str) -> (Vec<Rec>, BTreeMap<String, Option<String>>) {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/interop/dump_raw.py");
    let out = Command::new(common::ros_python())
        .arg(script)
        .arg(bag)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let tmp = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(tmp.path(), &out.stdout).unwrap();
    let r = Reference::load(tmp.path());
    let mut ours = BTreeMap::new();
    let mut latching = BTreeMap::new();
    for c in r.header["connections"].as_array().unwrap() {
        if c["callerid"].as_str() == Some(node) {
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

fn md5_hex(data: &[u8]) -> String {
    use md5::{Digest, Md5};
    Md5::digest(data)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// What bagscope plays: (output topic, payload md5, size, bag time ns), in playback order.
fn played(catalog: &Catalog, selection: &Selection, namespace: &str) -> Vec<Rec> {
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

/// The recording holds exactly the played messages: per topic the same payloads in the same
/// order, and receive times following the bag times at `rate` (within `tolerance`).
fn check_recording(name: &str, played: &[Rec], recorded: &[Rec], rate: f64, tolerance: Duration) {
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

#[test]
fn play_into_a_live_graph() {
    if let Err(why) = have_tools() {
        skip(&why);
        return;
    }
    let started = Instant::now();
    let graph = Graph::start();
    let work = tempfile::tempdir().unwrap();
    fixture_with_clock_and_latching(&graph, work.path());
    corpus_under_namespace(&graph, work.path());
    interactive(&graph);
    eprintln!("interop took {:.1} s", started.elapsed().as_secs_f64());
}

fn fixture_with_clock_and_latching(graph: &Graph, work: &Path) {
    let bag_path = common::fixtures_dir().join("recorded.bag");
    let topics = [
        "/chatter",
        "/map_name",
        "/tf_static",
        "/imu",
        "/odom",
        "/tf",
        "/camera/image_raw",
        "/rosout",
        "/clock",
    ];
    let out = work.join("fixture.bag");
    let rec = graph.record(&out, &topics);
    let bag = bag_path.to_str().unwrap();
    let mut play = Play::start(
        graph,
        &[bag, "--rate", "2", "--clock", "--delay", "0.3", "-k"],
    );
    let node = play.node_name();
    let done = play.wait_line("done:", Duration::from_secs(30));
    assert!(done.contains("159 message(s) published"), "{done}");
    play.wait_line("keeping", Duration::from_secs(5));

    // A latched topic reaches a subscriber that starts after playback.
    let echo = graph.tool(&["rostopic", "echo", "-n", "1", "/map_name"]);
    assert!(echo.contains("data: \"warehouse_v2\""), "{echo}");
    // rosnode info talks to our slave API; rostopic info sees our publications.
    let info = graph.tool(&["rosnode", "info", &node]);
    assert!(info.contains(" * /chatter [std_msgs/String]"), "{info}");
    assert!(info.contains(" * /clock [rosgraph_msgs/Clock]"), "{info}");
    assert!(
        info.contains(&format!("Pid: {}", play.proc.0.id())),
        "{info}"
    );
    assert!(info.contains("direction: outbound"), "{info}");
    assert!(info.contains("to: /record_"), "{info}");
    assert!(info.contains("transport: TCPROS"), "{info}");
    let tinfo = graph.tool(&["rostopic", "info", "/imu"]);
    assert!(tinfo.contains("Type: sensor_msgs/Imu"), "{tinfo}");
    assert!(tinfo.contains(&node), "{tinfo}");

    // SIGINT: a clean exit, and nothing of ours is left registered.
    let status = play.finish();
    assert!(status.success(), "exit status {status:?}");
    let state = graph.master().system_state().unwrap();
    for (topic, nodes) in &state.publishers {
        assert!(!nodes.contains(&node), "{topic} still published by {node}");
    }
    graph.stop_recorder(rec, &out);

    let catalog = Catalog::open(std::slice::from_ref(&bag_path), &Default::default()).0;
    let played = played(&catalog, &Selection::default(), "/");
    let (recorded, latching) = official_recording(&out, &node);
    let (clock, recorded): (Vec<Rec>, Vec<Rec>) =
        recorded.into_iter().partition(|r| r.topic == "/clock");
    check_recording(
        "recorded.bag",
        &played,
        &recorded,
        2.0,
        Duration::from_millis(250),
    );
    assert_eq!(latching["/map_name"].as_deref(), Some("1"));
    assert_eq!(latching["/tf_static"].as_deref(), Some("1"));
    assert_eq!(latching["/chatter"].as_deref(), Some("0"));

    // Connection headers as recorded: type, md5sum and the full definition of the bag's.
    let ours = Bag::open(&out).unwrap();
    let original = Bag::open(&bag_path).unwrap();
    for c in ours
        .connections()
        .iter()
        .filter(|c| c.callerid.as_deref() == Some(node.as_str()))
    {
        if c.topic == "/clock" {
            assert_eq!(c.datatype, "rosgraph_msgs/Clock");
            assert_eq!(c.md5sum, "a9c97c1d230cfc112e270351a944ee47");
            continue;
        }
        let o = original
            .connections()
            .iter()
            .find(|o| o.topic == c.topic)
            .unwrap();
        assert_eq!(
            (&c.datatype, &c.md5sum),
            (&o.datatype, &o.md5sum),
            "{}",
            c.topic
        );
        assert_eq!(c.message_definition, o.message_definition, "{}", c.topic);
    }

    // /clock: bag times, non-decreasing, over the whole bag, many ticks (100 Hz for 1.5 s).
    assert!(clock.len() >= 60, "{} clock messages", clock.len());
    let clock_conn: Vec<u32> = ours
        .connections()
        .iter()
        .filter(|c| c.topic == "/clock")
        .map(|c| c.id)
        .collect();
    let times: Vec<RosTime> = ours
        .messages(&Query::all().connections(clock_conn))
        .map(|m| {
            let d = m.unwrap().data;
            RosTime::new(
                u32::from_le_bytes(d[..4].try_into().unwrap()),
                u32::from_le_bytes(d[4..8].try_into().unwrap()),
            )
        })
        .collect();
    let (first, last) = (original.start_time().unwrap(), original.end_time().unwrap());
    assert!(times.windows(2).all(|w| w[0] <= w[1]), "/clock went back");
    assert!(times.iter().all(|t| *t >= first && *t <= last));
    assert_eq!(*times.first().unwrap(), first);
    assert_eq!(*times.last().unwrap(), last);
}

fn corpus_under_namespace(graph: &Graph, work: &Path) {
    let Some(dir) = common::corpus_dir() else {
        skip("no shared corpus: the corpus scenario");
        return;
    };
    let bag_path: PathBuf = dir.join("gen-mixed_lz4.bag");
    if !bag_path.exists() {
        skip("gen-mixed_lz4.bag not in the corpus");
        return;
    }
    let topics = [
        "/imu",
        "/odom_pose",
        "/points",
        "/empty",
        "/tf_static",
        "/late",
    ];
    let recorded_topics: Vec<String> = topics.iter().map(|t| format!("/replay{t}")).collect();
    let recorded_refs: Vec<&str> = recorded_topics.iter().map(String::as_str).collect();
    let out = work.join("corpus.bag");
    let rec = graph.record(&out, &recorded_refs);
    let bag = bag_path.to_str().unwrap();
    let mut args = vec![
        bag,
        "--start",
        "+1",
        "--end",
        "+4",
        "--namespace",
        "/replay",
        "-r",
        "2",
    ];
    args.extend(topics.iter().flat_map(|t| ["-t", *t]));
    let mut play = Play::start(graph, &args);
    let node = play.node_name();
    play.wait_line("done:", Duration::from_secs(30));
    let status =
        wait_exit(&mut play.proc.0, Duration::from_secs(15)).expect("play exits at the end");
    assert!(status.success(), "{status:?}");
    graph.stop_recorder(rec, &out);

    let catalog = Catalog::open(std::slice::from_ref(&bag_path), &Default::default()).0;
    let origin = catalog.start_time().unwrap();
    let selection = Selection {
        topics: topics.iter().map(|t| t.to_string()).collect(),
        start: Some(origin.saturating_add_nanos(1_000_000_000)),
        end: Some(origin.saturating_add_nanos(4_000_000_000)),
        parallel: false,
    };
    let played = played(&catalog, &selection, "/replay");
    assert!(played.len() > 100, "the selection holds {}", played.len());
    let (recorded, _) = official_recording(&out, &node);
    check_recording(
        "gen-mixed_lz4.bag",
        &played,
        &recorded,
        2.0,
        Duration::from_millis(250),
    );
}

fn interactive(graph: &Graph) {
    let have_tmux = Command::new("sh")
        .args(["-c", "command -v tmux"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !have_tmux {
        skip("tmux is not installed: the terminal scenario");
        return;
    }
    let bag_path = common::fixtures_dir().join("recorded.bag");
    let bag = Bag::open(&bag_path).unwrap();
    let times: Vec<RosTime> = bag
        .messages(&Query::all())
        .map(|m| m.unwrap().entry.time)
        .collect();
    let session = format!("bagscope-play-{}", std::process::id());
    let command = format!(
        "env ROS_MASTER_URI={} ROS_HOSTNAME=127.0.0.1 {} play {} --pause --delay 0; sleep 30",
        graph.uri,
        env!("CARGO_BIN_EXE_bagscope"),
        bag_path.display()
    );
    let tmux = |args: &[&str]| Command::new("tmux").args(args).output().unwrap();
    assert!(
        tmux(&[
            "new-session",
            "-d",
            "-s",
            &session,
            "-x",
            "120",
            "-y",
            "10",
            &command
        ])
        .status
        .success()
    );
    struct Kill(String);
    impl Drop for Kill {
        fn drop(&mut self) {
            let _ = Command::new("tmux")
                .args(["kill-session", "-t", &self.0])
                .status();
        }
    }
    let _kill = Kill(session.clone());
    let screen = || {
        String::from_utf8_lossy(&tmux(&["capture-pane", "-p", "-t", &session]).stdout).into_owned()
    };
    let wait = |what: &str, pred: &dyn Fn(&str) -> bool| {
        let start = Instant::now();
        loop {
            let s = screen();
            if pred(&s) {
                return s;
            }
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "waiting for {what}:\n{s}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    };
    let bag_time = |t: RosTime| format!("Bag Time: {:13.6}", t.as_secs_f64());
    wait("paused", &|s| {
        s.contains("[PAUSED]") && s.contains("Duration: 0.000000 /")
    });
    for (i, t) in times.iter().take(3).enumerate() {
        tmux(&["send-keys", "-t", &session, "s"]);
        let want = bag_time(*t);
        wait(&format!("step {i}"), &|s| {
            s.contains("[PAUSED]") && s.contains(&want)
        });
    }
    tmux(&["send-keys", "-t", &session, " "]);
    wait("running", &|s| {
        s.contains("[RUNNING]") || s.contains("[DONE]")
    });
    let s = wait("the end", &|s| s.contains("done: 159 message(s) published"));
    assert!(s.contains(&bag_time(*times.last().unwrap())), "{s}");
}
