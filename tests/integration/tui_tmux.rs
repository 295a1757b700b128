//! End to end: the real binary in a real terminal (tmux): topics appear, `/` filters, the
//! selected message is decoded in the inspector, `q` and SIGTERM give the shell back.

use std::process::Command;

use crate::common;
use crate::common::tmux::{Session, have_tmux};

/// Whether tmux and `bag` are there (else the test is skipped, saying why).
fn tmux_and(bag: &std::path::Path) -> bool {
    if !have_tmux() {
        common::skip("tmux is not installed");
        return false;
    }
    if !bag.exists() {
        common::skip(&format!("{} is not present", bag.display()));
        return false;
    }
    true
}

/// Sends `kill -SIG PID` to the explorer.
fn kill(sig: &str, pid: &str) {
    assert!(
        Command::new("kill")
            .args([&format!("-{sig}"), pid])
            .status()
            .unwrap()
            .success()
    );
}

/// Waits until the shell of `s` is back (`DONE`) and the explorer's exit code was `code`.
fn exited_with(s: &Session, code: i32) -> String {
    let screen = s.wait("the shell", |t| t.contains("DONE"));
    assert!(screen.contains(&format!("EXITED:{code}")), "{screen}");
    screen
}

#[test]
fn browse_filter_inspect_and_quit() {
    let bag = common::fixtures_dir().join("recorded.bag");
    if !tmux_and(&bag) {
        return;
    }
    let cmd = format!(
        "{} {}; echo EXITED:$?; sleep 30",
        env!("CARGO_BIN_EXE_bagscope"),
        bag.display()
    );
    let s = Session::start("browse", 120, 40, &cmd);
    // The whole list, not only its first rows: a loaded machine can capture a frame half drawn.
    s.wait("the topic list", |t| {
        t.contains("Topics") && t.contains("/chatter") && t.contains("/imu") && t.contains("/odom")
    });
    // Fuzzy filter.
    s.keys(&["/", "i", "m", "a", "g"]);
    let screen = s.wait("the filter to apply", |t| t.contains("Topics 1/"));
    assert!(screen.contains("/camera/image_raw"), "{screen}");
    assert!(!screen.contains("/chatter "), "{screen}");
    s.keys(&["Enter"]);
    // The first message of the topic is shown as a picture (on by default for camera images)…
    let screen = s.wait("the picture", |t| {
        t.contains("sensor_msgs/Image") && t.contains("8×6 rgb8") && t.contains("▀▀▀▀")
    });
    assert!(!screen.contains("encoding:"), "{screen}");
    // …and `i` shows its fields instead.
    s.keys(&["i"]);
    let screen = s.wait("the decoded image", |t| {
        t.contains("sensor_msgs/Image") && t.contains("encoding:")
    });
    assert!(
        screen.contains("height:") && screen.contains("width:"),
        "{screen}"
    );
    // Moving in the message list decodes the next one.
    s.keys(&["3", "j"]);
    s.wait("the second image", |t| {
        t.contains("seq: 2") || t.contains("seq: 1")
    });
    s.keys(&["q"]);
    let screen = s.wait("the shell", |t| t.contains("EXITED:0"));
    assert!(
        !screen.contains("Topics"),
        "the alternate screen is gone:\n{screen}"
    );
}

#[test]
fn sigterm_restores_the_terminal() {
    if !have_tmux() {
        common::skip("tmux is not installed");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let pidfile = dir.path().join("pid");
    let cmd = format!(
        "sh -c 'echo $$ > {}; exec {}'; echo EXITED:$?; stty -a | tr ' ' '\\n' | grep -x -e icanon -e -icanon -e echo -e -echo | tr '\\n' ' '; echo DONE; sleep 30",
        pidfile.display(),
        env!("CARGO_BIN_EXE_bagscope")
    );
    let s = Session::start("term", 120, 40, &cmd);
    s.wait("the demo bag", |t| {
        t.contains("Topics") && t.contains("demo")
    });
    let pid = std::fs::read_to_string(&pidfile)
        .unwrap()
        .trim()
        .to_string();
    assert!(!pid.is_empty(), "no process found");
    assert!(
        Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .unwrap()
            .success()
    );
    let screen = s.wait("the shell", |t| t.contains("DONE"));
    assert!(!screen.contains("Topics"), "{screen}");
    assert!(screen.contains("EXITED:143"), "128 + SIGTERM:\n{screen}");
    assert!(
        screen.contains("icanon echo") && !screen.contains("-icanon"),
        "canonical mode and echo are back:\n{screen}"
    );
}

/// Runs the explorer in tmux on `args` (with `env` set), writing its pid; returns the
/// session and the pid once `ready` holds on the screen.
fn start_explorer(
    name: &str,
    env: &str,
    args: &str,
    ready: &str,
) -> (Session, String, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let pidfile = dir.path().join("pid");
    let cmd = format!(
        "sh -c 'echo $$ > {}; {env} exec {} {args}'; echo EXITED:$?; echo DONE; sleep 30",
        pidfile.display(),
        env!("CARGO_BIN_EXE_bagscope")
    );
    let s = Session::start(name, 100, 30, &cmd);
    s.wait(ready, |t| t.contains(ready));
    let pid = std::fs::read_to_string(&pidfile)
        .unwrap()
        .trim()
        .to_string();
    assert!(!pid.is_empty(), "no process found");
    (s, pid, dir)
}

#[test]
fn signals_end_with_128_plus_their_number() {
    if !have_tmux() {
        common::skip("tmux is not installed");
        return;
    }
    for (sig, code) in [("HUP", 129), ("INT", 130), ("TERM", 143)] {
        let (s, pid, _dir) = start_explorer(&format!("sig{sig}"), "", "", "Topics");
        kill(sig, &pid);
        let screen = exited_with(&s, code);
        assert!(
            !screen.contains("Topics"),
            "the terminal is restored:\n{screen}"
        );
    }
}

#[test]
fn q_and_signals_work_while_the_bags_are_opened() {
    let bag = common::fixtures_dir().join("recorded.bag");
    if !tmux_and(&bag) {
        return;
    }
    let slow = "BAGSCOPE_TEST_SLOW_OPEN_MS=60000";
    let args = bag.display().to_string();
    // The first frame is at once and says what is happening.
    let (s, _pid, _dir) = start_explorer("openq", slow, &args, "opening");
    let screen = s.screen();
    assert!(
        screen.contains("recorded.bag") && screen.contains("q or Ctrl-C quits"),
        "{screen}"
    );
    s.keys(&["q"]);
    exited_with(&s, 0);
    let (s, pid, _dir) = start_explorer("openterm", slow, &args, "opening");
    kill("TERM", &pid);
    exited_with(&s, 143);
}

#[test]
fn opening_a_bag_without_index_shows_how_far_the_scan_is() {
    let Some(corpus) = common::corpus_dir() else {
        common::skip("../shared/corpus is not present");
        return;
    };
    let bag = corpus.join("gen-truncated_bz2.bag");
    if !tmux_and(&bag) {
        return;
    }
    // Each progress report of the recovery scan waits a minute: the first one stays shown.
    let slow = "BAGSCOPE_TEST_SLOW_PROGRESS_MS=60000";
    let args = bag.display().to_string();
    let (s, _pid, _dir) = start_explorer("openscan", slow, &args, "scanning");
    let screen = s.screen();
    assert!(
        screen.contains("gen-truncated_bz2.bag") && screen.contains("% of "),
        "{screen}"
    );
    s.keys(&["q"]);
    exited_with(&s, 0);
}

/// Min and max of `/topic` `field` (a Python attribute path) over the whole bag, as the
/// official reader gives them.
fn python_min_max(bag: &std::path::Path, topic: &str, field: &str) -> Option<(f64, f64)> {
    if let Err(why) = common::official::have_python_rosbag() {
        common::skip(&why);
        return None;
    }
    let script = format!(
        "import rosbag\nv=[float(m.{field}) for _,m,_ in rosbag.Bag({:?}).read_messages(topics=[{topic:?}])]\nprint(repr(min(v)), repr(max(v)))",
        bag.display().to_string()
    );
    let out = Command::new(common::ros_python())
        .args(["-c", &script])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let mut it = text.split_whitespace().map(|s| s.parse::<f64>().unwrap());
    Some((it.next().unwrap(), it.next().unwrap()))
}

#[test]
fn plot_flag_legend_min_max_match_the_official_reader() {
    let bag = common::fixtures_dir().join("recorded.bag");
    if !tmux_and(&bag) {
        return;
    }
    let Some((lo, hi)) = python_min_max(&bag, "/imu", "linear_acceleration.z") else {
        return;
    };
    let cmd = format!(
        "{} {} --plot /imu/linear_acceleration/z; echo EXITED:$?; echo DONE; sleep 30",
        env!("CARGO_BIN_EXE_bagscope"),
        bag.display()
    );
    let s = Session::start("plot", 160, 48, &cmd);
    let screen = s.wait("the complete plot legend", |t| {
        t.contains("Plot · 1 series") && !t.contains("% · Plot") && t.contains(" max ")
    });
    let legend = screen
        .lines()
        .find(|l| l.contains("● linear_acceleration/z  now"))
        .unwrap_or_else(|| panic!("{screen}"));
    let num = |line: &str, key: &str| -> f64 {
        let rest = &line[line.find(key).unwrap() + key.len()..];
        rest.split_whitespace().next().unwrap().parse().unwrap()
    };
    // The legend: six significant digits of the official values.
    let six = |v: f64| format!("{v:.5e}").parse::<f64>().unwrap();
    assert_eq!(num(legend, " min "), six(lo), "{legend}");
    assert_eq!(num(legend, " max "), six(hi), "{legend}");
    // The focused plot pane's `]` / `[`: the exact values, in the status bar.
    s.keys(&["5", "]"]);
    let screen = s.wait("the maximum", |t| t.contains("linear_acceleration/z: max "));
    let bar = screen.lines().find(|l| l.contains(": max ")).unwrap();
    assert_eq!(num(bar, ": max ").to_bits(), hi.to_bits(), "{bar}");
    s.keys(&["["]);
    let screen = s.wait("the minimum", |t| t.contains("linear_acceleration/z: min "));
    let bar = screen.lines().find(|l| l.contains(": min ")).unwrap();
    assert_eq!(num(bar, ": min ").to_bits(), lo.to_bits(), "{bar}");
    s.keys(&["q"]);
    exited_with(&s, 0);
}

/// A bag without index and index data records (every chunk decompressed by the scan), in a
/// temporary directory.
fn crashed_bag() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("crash.bag");
    std::fs::write(&path, common::unindexed::crashed(dir.path(), 6000)).unwrap();
    (dir, path)
}

#[test]
fn a_bag_being_scanned_is_explored_before_the_end_and_q_stops_the_scan() {
    if !have_tmux() {
        common::skip("tmux is not installed");
        return;
    }
    let (_bag_dir, bag) = crashed_bag();
    // Each of the scan's 256 progress reports waits 200 ms: the scan would take ~50 s.
    let slow = "BAGSCOPE_TEST_SLOW_PROGRESS_MS=200";
    let (s, _pid, _dir) = start_explorer(
        "giantscan",
        slow,
        &bag.display().to_string(),
        "counts partial",
    );
    let screen = s.wait("the topics found so far", |t| {
        t.contains("/imu") && t.contains("/odom") && t.contains("/scan") && t.contains("scanning")
    });
    assert!(screen.contains("Topics"), "{screen}");
    let t = std::time::Instant::now();
    s.keys(&["q"]);
    exited_with(&s, 0);
    assert!(
        t.elapsed() < std::time::Duration::from_secs(10),
        "q took {:?}",
        t.elapsed()
    );
}

#[test]
fn a_finished_scan_replaces_the_partial_bag() {
    if !have_tmux() {
        common::skip("tmux is not installed");
        return;
    }
    let (_bag_dir, bag) = crashed_bag();
    let slow = "BAGSCOPE_TEST_SLOW_PROGRESS_MS=10";
    let (s, _pid, _dir) = start_explorer("giantdone", slow, &bag.display().to_string(), "scanning");
    let screen = s.wait("the end of the scan", |t| t.contains("scan finished"));
    assert!(!screen.contains("counts partial"), "{screen}");
    assert!(screen.contains("2000"), "the final counts: {screen}");
    s.keys(&["q"]);
    exited_with(&s, 0);
}
