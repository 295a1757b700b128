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

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use bagscope::bag::{Bag, Query};
use bagscope::catalog::{Catalog, Selection};
use bagscope::time::RosTime;

use crate::common;
use crate::common::ros_graph::{
    Graph, RECORDED_TOPICS, Rec, Running, check_recording, have_tools, nothing_published_by,
    official_recording, played, wait_exit,
};
use crate::common::skip;
use crate::common::tmux::{Session, have_tmux};

#[test]
fn play_into_a_live_graph() {
    if let Err(why) = have_tools(&["roscore", "rosbag", "rostopic", "rosnode"]) {
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
    let topics = [RECORDED_TOPICS, &["/clock"]].concat();
    let out = work.join("fixture.bag");
    let rec = graph.record(&out, &topics);
    let bag = bag_path.to_str().unwrap();
    let mut play = Running::start(
        graph,
        "play",
        &[bag, "--rate", "2", "--clock", "--delay", "0.3", "-k"],
    );
    let node = play.node_name();
    let done = play.wait_line("done:", Duration::from_secs(30));
    assert!(done.contains("159 message(s) published"), "{done}");
    play.wait_line("keeping", Duration::from_secs(5));

    the_official_tools_see_the_player(graph, &node, play.proc.0.id());

    // SIGINT: a clean exit, and nothing of ours is left registered.
    let status = play.finish();
    assert!(status.success(), "exit status {status:?}");
    nothing_published_by(graph, &node);
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

    the_connection_headers_are_the_bags(&out, &bag_path, &node);
    the_clock_ticks_in_bag_time(&out, &bag_path, &clock);
}

/// A latched topic reaches a subscriber that starts after playback; `rosnode info` talks to
/// the player's slave API (`pid`), `rostopic info` sees its publications.
fn the_official_tools_see_the_player(graph: &Graph, node: &str, pid: u32) {
    let echo = graph.tool(&["rostopic", "echo", "-n", "1", "/map_name"]);
    assert!(echo.contains("data: \"warehouse_v2\""), "{echo}");
    let info = graph.tool(&["rosnode", "info", node]);
    for want in [
        " * /chatter [std_msgs/String]",
        " * /clock [rosgraph_msgs/Clock]",
        &format!("Pid: {pid}"),
        "direction: outbound",
        "to: /record_",
        "transport: TCPROS",
    ] {
        assert!(info.contains(want), "{want}: {info}");
    }
    let tinfo = graph.tool(&["rostopic", "info", "/imu"]);
    assert!(tinfo.contains("Type: sensor_msgs/Imu"), "{tinfo}");
    assert!(tinfo.contains(node), "{tinfo}");
}

/// The connection headers `node` wrote into the recording `out`: type, md5sum and the full
/// definition of the original bag's (`/clock`'s own).
fn the_connection_headers_are_the_bags(out: &Path, bag_path: &Path, node: &str) {
    let ours = Bag::open(out).unwrap();
    let original = Bag::open(bag_path).unwrap();
    for c in ours
        .connections()
        .iter()
        .filter(|c| c.callerid.as_deref() == Some(node))
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
}

/// `/clock` in the recording `out`: bag times, non-decreasing, over the whole bag, many
/// ticks (100 Hz for 1.5 s).
fn the_clock_ticks_in_bag_time(out: &Path, bag_path: &Path, clock: &[Rec]) {
    assert!(clock.len() >= 60, "{} clock messages", clock.len());
    let ours = Bag::open(out).unwrap();
    let original = Bag::open(bag_path).unwrap();
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
    let mut play = Running::start(graph, "play", &args);
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
    if !have_tmux() {
        skip("tmux is not installed: the terminal scenario");
        return;
    }
    let bag_path = common::fixtures_dir().join("recorded.bag");
    let bag = Bag::open(&bag_path).unwrap();
    let times: Vec<RosTime> = bag
        .messages(&Query::all())
        .map(|m| m.unwrap().entry.time)
        .collect();
    let command = format!(
        "env ROS_MASTER_URI={} ROS_HOSTNAME=127.0.0.1 {} play {} --pause --delay 0; sleep 30",
        graph.uri,
        env!("CARGO_BIN_EXE_bagscope"),
        bag_path.display()
    );
    let s = Session::start("play", 120, 10, &command);
    let bag_time = |t: RosTime| format!("Bag Time: {:13.6}", t.as_secs_f64());
    s.wait("paused", |t| {
        t.contains("[PAUSED]") && t.contains("Duration: 0.000000 /")
    });
    for (i, t) in times.iter().take(3).enumerate() {
        s.keys(&["s"]);
        let want = bag_time(*t);
        s.wait(&format!("step {i}"), |t| {
            t.contains("[PAUSED]") && t.contains(&want)
        });
    }
    s.keys(&[" "]);
    s.wait("running", |t| {
        t.contains("[RUNNING]") || t.contains("[DONE]")
    });
    let screen = s.wait("the end", |t| t.contains("done: 159 message(s) published"));
    assert!(
        screen.contains(&bag_time(*times.last().unwrap())),
        "{screen}"
    );
}
