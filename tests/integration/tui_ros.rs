//! Interop of the explorer's `p` (publish the marked interval) with Debian's official ROS1
//! tools on loopback, against a private `roscore` on a free port (the scenarios run in order):
//!
//! 1. The app (driven through its actions, as the keys would) marks an interval of
//!    `recorded.bag` and publishes it at rate 2 while `rosbag record` records: the recording
//!    holds exactly the catalog's messages of the interval (topic, payload md5, order per
//!    topic, latching, timing scaled by the rate); afterwards nothing of ours is registered.
//! 2. The same with a topic filter and a namespace: only the topics the list shows, relocated.
//! 3. The real binary in a terminal (tmux): `[`, `]`, `p`; then `q` while publishing, and
//!    SIGTERM while publishing, both leave the master clean and exit 0.
//!
//! Skipped with a printed reason when `roscore`, `rosbag`, `rostopic`, `rosnode` or Python's
//! `rosbag` are missing (and the terminal scenario when tmux is).

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use bagscope::bag::OpenOptions;
use bagscope::catalog::{Catalog, Selection};
use bagscope::tui::action::Action;
use bagscope::tui::jobs::publish::Settings;

use crate::common;
use crate::common::ros_graph::{
    Graph, RECORDED_TOPICS, Rec, check_recording, have_tools, node_config, nothing_published_by,
    official_recording, played,
};
use crate::common::skip;
use crate::common::tmux::{Session, have_tmux};
use crate::common::tui::{Harness, select_topic};

const NODE: &str = "/bagscope_tui_test";

fn fixture() -> std::path::PathBuf {
    common::fixtures_dir().join("recorded.bag")
}

#[test]
fn publish_the_marked_interval_into_a_live_graph() {
    if let Err(why) = have_tools(&["roscore", "rosbag"]) {
        skip(&why);
        return;
    }
    let started = Instant::now();
    let graph = Graph::start();
    let work = tempfile::tempdir().unwrap();
    every_topic_of_the_interval(&graph, work.path());
    filtered_topics_under_a_namespace(&graph, work.path());
    the_binary_unregisters_on_quit_and_sigterm(&graph);
    eprintln!("interop took {:.1} s", started.elapsed().as_secs_f64());
}

fn harness(graph: &Graph, namespace: &str, rate: f64) -> Harness {
    let catalog = Catalog::open(&[fixture()], &OpenOptions::default()).0;
    let mut h = Harness::new(catalog, 120, 40);
    h.scan();
    h.app.settings.publish = Settings {
        namespace: namespace.into(),
        rate,
        config: Some(node_config(&graph.uri, NODE)),
    };
    h
}

/// Publishes the marked interval (`p`, then `y` to the question) and waits until the run is
/// over.
fn publish(h: &mut Harness) -> String {
    h.act(&[Action::TogglePublish]);
    assert!(!h.app.is_publishing(), "p only asks");
    assert!(h.app.overlays.publish_plan.is_some());
    h.act(&[Action::Confirm]);
    assert!(h.app.is_publishing());
    h.wait_until("the end of publishing", Duration::from_secs(30), |a| {
        !a.is_publishing()
    });
    let bar = h.status_bar();
    eprintln!("status: {}", bar.trim());
    bar
}

/// Publishes the marked interval (`publish`) and returns what was to be published: the
/// messages of `topics` (every topic when empty) between the marks, under `namespace`; the
/// status bar must say that many were published, and nothing of ours stays registered.
fn publish_marked(h: &mut Harness, graph: &Graph, topics: &[&str], namespace: &str) -> Vec<Rec> {
    let bar = publish(h);
    let (a, b) = (
        h.app.views.timeline.marks.0.unwrap(),
        h.app.views.timeline.marks.1.unwrap(),
    );
    let selection = Selection {
        topics: topics.iter().map(|t| (*t).to_string()).collect(),
        start: Some(a),
        end: Some(b),
        ..Selection::default()
    };
    let expected = played(&h.app.catalog, &selection, namespace);
    assert!(
        bar.contains(&format!(
            "ROS ✓ done: {} messages published",
            expected.len()
        )),
        "{bar}"
    );
    nothing_published_by(graph, NODE);
    expected
}

fn every_topic_of_the_interval(graph: &Graph, work: &Path) {
    let out = work.join("all.bag");
    let rec = graph.record(&out, RECORDED_TOPICS);
    let mut h = harness(graph, "/", 2.0);
    h.mark("+0", "+2.5");
    let expected = publish_marked(&mut h, graph, &[], "/");
    assert!(
        expected.len() > 100 && expected.len() < 159,
        "the interval holds {}",
        expected.len()
    );
    graph.stop_recorder(rec, &out);
    let (recorded, latching) = official_recording(&out, NODE);
    check_recording(
        "interval of recorded.bag",
        &expected,
        &recorded,
        2.0,
        Duration::from_millis(250),
    );
    assert_eq!(latching["/map_name"].as_deref(), Some("1"));
    assert_eq!(latching["/chatter"].as_deref(), Some("0"));
}

fn filtered_topics_under_a_namespace(graph: &Graph, work: &Path) {
    let out = work.join("filtered.bag");
    // Everything under /tui, so that topics published by mistake are recorded too.
    let all: Vec<String> = RECORDED_TOPICS.iter().map(|t| format!("/tui{t}")).collect();
    let refs: Vec<&str> = all.iter().map(String::as_str).collect();
    let rec = graph.record(&out, &refs);
    let mut h = harness(graph, "/tui", 4.0);
    h.mark("+0.5", "+2.9");
    // "odo" shows /odom only.
    select_topic(&mut h, "odo");
    assert_eq!(h.app.views.topics.list.visible().len(), 1);
    let expected = publish_marked(&mut h, graph, &["/odom"], "/tui");
    assert!(expected.len() > 15, "{}", expected.len());
    assert!(expected.iter().all(|r| r.topic == "/tui/odom"));
    graph.stop_recorder(rec, &out);
    let (recorded, _) = official_recording(&out, NODE);
    check_recording(
        "/odom under /tui",
        &expected,
        &recorded,
        4.0,
        Duration::from_millis(250),
    );
}

/// Publishers whose node name starts with `/bagscope_explore_`.
fn explorer_publications(graph: &Graph) -> Vec<(String, String)> {
    let state = graph.master().system_state().unwrap();
    state
        .publishers
        .iter()
        .flat_map(|(topic, nodes)| {
            nodes
                .iter()
                .filter(|n| n.starts_with("/bagscope_explore_"))
                .map(move |n| (topic.clone(), n.clone()))
        })
        .collect()
}

fn the_binary_unregisters_on_quit_and_sigterm(graph: &Graph) {
    if !have_tmux() {
        skip("tmux is not installed: the terminal scenario");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    for how in ["quit", "sigterm"] {
        let pid_file = dir.path().join(format!("{how}.pid"));
        // The inner shell writes its pid and becomes bagscope; the outer one reports the
        // exit status and keeps the pane for us to read.
        let command = format!(
            "sh -c 'echo $$ > {pid}; exec env ROS_MASTER_URI={uri} ROS_HOSTNAME=127.0.0.1 {bin} \
             --ros-rate 0.05 --ros-namespace /slow {bag}'; echo EXITED:$?; sleep 30",
            pid = pid_file.display(),
            uri = graph.uri,
            bin = env!("CARGO_BIN_EXE_bagscope"),
            bag = fixture().display(),
        );
        let s = Session::start(how, 100, 30, &command);
        s.wait("the explorer", |t| {
            t.contains("Topics") && t.contains("/chatter")
        });
        for keys in [
            &[":", "+", "0", "Enter", "["][..],
            &[":", "+", "2", "Enter", "]"],
        ] {
            s.keys(keys);
            std::thread::sleep(Duration::from_millis(200));
        }
        s.keys(&["p"]);
        let screen = s.wait("the question", |t| {
            t.contains("Publish into the ROS graph?")
        });
        assert!(screen.contains("namespace /slow"), "{screen}");
        assert!(screen.contains(&graph.uri), "{screen}");
        // Nothing is registered while the question is shown.
        std::thread::sleep(Duration::from_millis(500));
        assert!(
            explorer_publications(graph).is_empty(),
            "{:?}",
            explorer_publications(graph)
        );
        s.keys(&["y"]);
        let screen = s.wait("publishing", |t| t.contains("ROS ▶"));
        assert!(screen.contains("/slow"), "{screen}");
        let start = Instant::now();
        while explorer_publications(graph).len() < 8 {
            assert!(
                start.elapsed() < Duration::from_secs(10),
                "{:?}",
                explorer_publications(graph)
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        assert!(
            explorer_publications(graph)
                .iter()
                .all(|(t, _)| t.starts_with("/slow/")),
            "{:?}",
            explorer_publications(graph)
        );
        let left = Instant::now();
        if how == "quit" {
            s.keys(&["q"]);
        } else {
            let pid = std::fs::read_to_string(&pid_file).unwrap();
            assert!(
                Command::new("kill")
                    .args(["-TERM", pid.trim()])
                    .status()
                    .unwrap()
                    .success()
            );
        }
        let screen = s.wait("the exit", |t| t.contains("EXITED:"));
        // `q` leaves with 0; a signal with 128 + its number (SIGTERM: 143).
        let code = if how == "quit" { 0 } else { 143 };
        assert!(
            screen.contains(&format!("EXITED:{code}")),
            "{how}: {screen}"
        );
        let took = left.elapsed();
        eprintln!(
            "{how}: exited {:.2} s after the request",
            took.as_secs_f64()
        );
        assert!(took < Duration::from_secs(6), "{how} took {took:?}");
        assert_eq!(
            explorer_publications(graph),
            Vec::<(String, String)>::new(),
            "{how}: still registered"
        );
        // The terminal is given back.
        assert!(!screen.contains("Topics"), "{how}: {screen}");
    }
}
