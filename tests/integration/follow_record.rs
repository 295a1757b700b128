//! `echo --follow` and `info --follow` on a recording made by Debian's `rosbag record` (the
//! C++ recorder) while `rostopic pub` sends at a known rate: messages arrive while the
//! recording runs, and when the recorder stops the counts equal `rosbag info` on the
//! finished bag.

use std::io::{BufRead, BufReader};
use std::process::Stdio;
use std::sync::mpsc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use crate::common::bagscope;
use crate::common::ros_graph::{Proc, graph_with, wait_exit};

/// Payload bytes per message: larger than the recorder's stdio buffer (4 KiB), so that each
/// message reaches the file when it is written rather than when 4 KiB have gathered.
const PAYLOAD: usize = 6000;

/// The receive time in a JSON line of `echo --format json`, as seconds.
fn json_time(line: &str) -> Option<f64> {
    let at = line.find("\"time\":{\"sec\":")? + 14;
    let rest = line.get(at..)?;
    let sec: f64 = rest.get(..rest.find(',')?)?.parse().ok()?;
    let at = rest.find("\"nsec\":")? + 7;
    let rest = rest.get(at..)?;
    let nsec: f64 = rest.get(..rest.find('}')?)?.parse().ok()?;
    Some(sec + nsec * 1e-9)
}

fn now() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

#[test]
fn echo_and_info_follow_a_rosbag_record_recording() {
    let Some((graph, work)) = graph_with(&["roscore", "rosbag", "rostopic"]) else {
        return;
    };
    let out = work.path().join("live.bag");
    let active = work.path().join("live.bag.active");
    let rec = graph.record(&out, &["/chatter"]);
    let start = Instant::now();
    while !active.exists() {
        assert!(start.elapsed() < Duration::from_secs(20), "no .active file");
        std::thread::sleep(Duration::from_millis(20));
    }
    // Followers started on the live file before anything is published.
    let mut echo = Proc(
        bagscope()
            .args(["echo", "--follow", "--format", "json", "-t", "/chatter"])
            .arg(&active)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let info = Proc(
        bagscope()
            .args(["info", "--follow"])
            .arg(&active)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let (tx, rx) = mpsc::channel::<(f64, String)>();
    let stdout = echo.0.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if tx.send((now(), line)).is_err() {
                break;
            }
        }
    });
    let text = "x".repeat(PAYLOAD);
    let publisher = Proc(
        graph
            .command("rostopic")
            .args(["pub", "-r", "20", "/chatter", "std_msgs/String"])
            .arg(format!("data: '{text}'"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    // Messages arrive while the recording runs.
    let mut latencies = Vec::new();
    let mut lines = 0usize;
    let until = Instant::now() + Duration::from_secs(4);
    while Instant::now() < until {
        if let Ok((seen, line)) = rx.recv_timeout(Duration::from_millis(100)) {
            lines += 1;
            if let Some(t) = json_time(&line) {
                latencies.push(seen - t);
            }
        }
    }
    assert!(lines >= 20, "only {lines} messages seen while recording");
    drop(publisher);
    graph.stop_recorder(rec, &out);
    // The followers end by themselves once the recorder has closed the bag.
    let status = wait_exit(&mut echo.0, Duration::from_secs(10)).expect("echo --follow ended");
    assert!(status.success(), "echo --follow: {status:?}");
    while let Ok((_, _)) = rx.recv_timeout(Duration::from_millis(200)) {
        lines += 1;
    }
    let yaml = graph
        .command("rosbag")
        .args(["info", "-y", "-k", "messages"])
        .arg(&out)
        .output()
        .unwrap();
    let count: usize = String::from_utf8_lossy(&yaml.stdout)
        .trim()
        .parse()
        .unwrap();
    assert_eq!(lines, count, "every recorded message echoed once");
    let mut info = info;
    let status = wait_exit(&mut info.0, Duration::from_secs(10)).expect("info --follow ended");
    assert!(status.success(), "info --follow: {status:?}");
    let mut summary = String::new();
    std::io::Read::read_to_string(info.0.stdout.as_mut().unwrap(), &mut summary).unwrap();
    let last = summary.rsplit("---\n").next().unwrap_or_default();
    let (finished, _, _) = crate::common::run_bagscope(&["info", &out.display().to_string()]);
    assert_eq!(
        last.trim_end(),
        finished.trim_end(),
        "the last summary is the finished bag's"
    );
    latencies.sort_by(f64::total_cmp);
    let median = latencies.get(latencies.len() / 2).copied().unwrap_or(0.0);
    let worst = latencies.last().copied().unwrap_or(0.0);
    eprintln!(
        "follow latency (receive time → printed) over {} messages: median {:.0} ms, max {:.0} ms",
        latencies.len(),
        median * 1e3,
        worst * 1e3
    );
}
