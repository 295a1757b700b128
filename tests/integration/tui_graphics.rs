//! Pictures through a terminal graphics protocol, end to end.
//!
//! - The real binary on a pseudo-terminal (`script`) with `BAGSCOPE_GRAPHICS=kitty` /
//!   `sixel` / `iterm2` naming the protocol (nothing answers the query there), the camera
//!   topic selected: the protocol's escape sequence carrying the frame reaches the terminal,
//!   and the terminal is restored on the way out.
//! - `auto`'s query in `tests/common/pty_terminal.py`, a pseudo-terminal that answers it when
//!   the test says (late, or never), and in a real terminal: xterm as a VT340 under Xvfb.
//!
//! (In tmux, the other end-to-end tests, `auto` keeps half-blocks.)

use std::path::Path;
use std::process::Command;

use crate::common::ros_graph::Proc;

fn have_script() -> bool {
    Command::new("script")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// The bytes the explorer wrote to its terminal with `BAGSCOPE_GRAPHICS=protocol`, after
/// selecting `/camera/image_raw` and quitting.
fn session(protocol: &str) -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    let typescript = dir.path().join("typescript");
    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/demo.bag");
    let command = format!(
        "stty cols 120 rows 40; {} {}",
        env!("CARGO_BIN_EXE_bagscope"),
        demo.display()
    );
    let keys = "sleep 3; printf '/image_raw\\r'; sleep 4; printf q; sleep 1";
    let status = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "({keys}) | script -qfc \"$CMD\" \"$OUT\" > /dev/null 2>&1"
        ))
        .env("CMD", &command)
        .env("OUT", &typescript)
        .env("BAGSCOPE_GRAPHICS", protocol)
        .env("TERM", "xterm-256color")
        .env_remove("TMUX")
        .env_remove("NO_COLOR")
        .status()
        .unwrap();
    assert!(status.success(), "{protocol}: {status}");
    std::fs::read(&typescript).unwrap()
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

#[test]
fn a_named_protocol_carries_the_frame_and_the_terminal_is_restored() {
    if !have_script() {
        eprintln!("skipped: `script` (util-linux / bsdutils) is not installed");
        return;
    }
    for (protocol, start) in [
        ("kitty", &b"\x1b_Gq=2,"[..]),
        ("sixel", &b"\x1bP"[..]),
        ("iterm2", &b"\x1b]1337;File="[..]),
    ] {
        let out = session(protocol);
        assert!(
            contains(&out, start),
            "{protocol}: no image sent ({} bytes written)",
            out.len()
        );
        if protocol == "kitty" {
            // Transmitted and placed by Unicode placeholders (U=1), as ratatui-image does.
            assert!(contains(&out, b"a=T"), "kitty: no transmission");
        }
        // The frame was not drawn in half-blocks as well.
        assert!(
            !contains(&out, "▀".as_bytes()),
            "{protocol}: half-blocks drawn"
        );
        assert!(
            contains(&out, b"\x1b[?1049l"),
            "{protocol}: the alternate screen was not left"
        );
    }
}

fn have_python3() -> bool {
    Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Runs the explorer on the demo bag in `tests/common/pty_terminal.py`'s terminal, playing
/// `steps` (see the script) with `BAGSCOPE_QUERY_WAIT=wait`: the script's verdict and the
/// bytes the explorer wrote.
fn terminal(steps: &serde_json::Value, wait: &str) -> (serde_json::Value, Vec<u8>) {
    let dir = tempfile::tempdir().unwrap();
    let written = dir.path().join("written");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = Command::new("python3")
        .arg(root.join("tests/common/pty_terminal.py"))
        .arg(env!("CARGO_BIN_EXE_bagscope"))
        .arg(root.join("assets/demo.bag"))
        .arg(&written)
        .arg(steps.to_string())
        .env("BAGSCOPE_QUERY_WAIT", wait)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let verdict = serde_json::from_slice(&out.stdout).unwrap();
    (verdict, std::fs::read(&written).unwrap())
}

fn position(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// The graphics query is answered on the input thread: the first frame is drawn before the
/// terminal answers, keys typed before the answers reach the explorer (the topic filter),
/// the picture shown meanwhile in half-blocks is drawn again in kitty's protocol once the
/// answers come, and one `q` quits.
#[test]
fn the_first_frame_and_keys_do_not_wait_for_the_terminals_answers() {
    if !have_python3() {
        crate::common::skip("python3 is not installed");
        return;
    }
    let steps = serde_json::json!([
        ["wait", "\u{1b}[5n"],
        ["wait", "image_raw"],
        ["keys", "/image_raw\r"],
        ["wait", "▀"],
        ["answer"],
        ["wait", "\u{1b}_Gq=2,"],
        ["keys", "q"],
        ["exit", 10]
    ]);
    // A generous wait for the answers: a loaded test machine is slow to draw.
    let (verdict, out) = terminal(&steps, "60");
    assert_eq!(
        verdict["failed"],
        serde_json::Value::Null,
        "{verdict}: {} bytes written, the last: {}",
        out.len(),
        String::from_utf8_lossy(&out[out.len().saturating_sub(600)..]).escape_debug()
    );
    assert_eq!(verdict["exit"], 0, "{verdict}");
    let query = position(&out, b"\x1b[5n").unwrap();
    let frame = position(&out, b"image_raw").unwrap();
    assert!(query < frame, "the query is written before the first frame");
    assert!(contains(&out, b"a=T"), "kitty: no transmission");
    assert!(
        contains(&out, b"\x1b[?1049l"),
        "the terminal was not restored"
    );
}

/// A terminal that never answers: the explorer does not wait for it, one `q` quits (no
/// reader left behind eats it), and pictures are half-blocks.
#[test]
fn a_terminal_that_never_answers_costs_no_key() {
    if !have_python3() {
        crate::common::skip("python3 is not installed");
        return;
    }
    for wait in ["2", "0"] {
        let steps = serde_json::json!([
            ["wait", "image_raw"],
            ["keys", "/image_raw\r"],
            ["wait", "▀"],
            ["keys", "q"],
            ["exit", 10]
        ]);
        let (verdict, out) = terminal(&steps, wait);
        assert_eq!(
            verdict["failed"],
            serde_json::Value::Null,
            "wait {wait}: {verdict}"
        );
        assert_eq!(verdict["exit"], 0, "wait {wait}: {verdict}");
        assert!(
            !contains(&out, b"\x1b_Gq="),
            "wait {wait}: kitty without an answer"
        );
        assert!(contains(&out, b"\x1b[?1049l"), "wait {wait}: not restored");
    }
}

/// Quitting before the terminal has answered: the explorer reads the answers before it
/// restores the terminal, so they do not land at the shell's prompt.
#[test]
fn quitting_before_the_answers_waits_for_them() {
    if !have_python3() {
        crate::common::skip("python3 is not installed");
        return;
    }
    let steps = serde_json::json!([
        ["wait", "\u{1b}[5n"],
        ["wait", "bagscope"],
        ["keys", "q"],
        ["sleep", 0.5],
        ["alive"],
        ["answer"],
        ["exit", 10]
    ]);
    let (verdict, out) = terminal(&steps, "30");
    assert_eq!(verdict["failed"], serde_json::Value::Null, "{verdict}");
    assert_eq!(verdict["exit"], 0, "{verdict}");
    assert!(contains(&out, b"\x1b[?1049l"), "not restored");
}

/// A terminal that claims cells of 65535×65535 pixels (or a plausible 40×80): the explorer
/// neither aborts on a huge allocation nor sends megabytes per frame; kitty is told the cells
/// to fill, and the terminal is restored.
#[test]
fn a_terminal_lying_about_its_cell_size_costs_no_more_than_the_frame() {
    if !have_python3() {
        crate::common::skip("python3 is not installed");
        return;
    }
    for (w, h) in [(65535, 65535), (40, 80)] {
        let steps = serde_json::json!([
            ["wait", "\u{1b}[5n"],
            ["wait", "image_raw"],
            ["keys", "/image_raw\r"],
            ["wait", "▀"],
            ["answer", w, h],
            ["wait", "\u{1b}_Gq=2,"],
            ["sleep", 0.5],
            ["alive"],
            ["keys", "q"],
            ["exit", 10]
        ]);
        let (verdict, out) = terminal(&steps, "60");
        assert_eq!(
            verdict["failed"],
            serde_json::Value::Null,
            "{w}×{h}: {verdict}: {} bytes written, the last: {}",
            out.len(),
            String::from_utf8_lossy(&out[out.len().saturating_sub(600)..]).escape_debug()
        );
        assert_eq!(verdict["exit"], 0, "{w}×{h}: {verdict}");
        assert!(
            contains(&out, b"a=T,U=1,c="),
            "{w}×{h}: kitty not told the cells"
        );
        // The demo's 64×48 frame: at most 128×96 pixels sent (66 KB of base64 a frame).
        assert!(
            out.len() < 2_000_000,
            "{w}×{h}: {} bytes written",
            out.len()
        );
        assert!(contains(&out, b"\x1b[?1049l"), "{w}×{h}: not restored");
    }
}

/// Answers that come after the wait are not read as keys: a kitty error answer holds `E`
/// (write the marked interval), `G`, `i`…; a key typed afterwards still counts.
#[test]
fn answers_after_the_wait_are_not_keys() {
    if !have_python3() {
        crate::common::skip("python3 is not installed");
        return;
    }
    let steps = serde_json::json!([
        ["wait", "image_raw"],
        ["sleep", 1.0],
        [
            "keys",
            "\u{1b}_Gi=31;EINVAL:bad image\u{1b}\\\u{1b}]11;rgb:0000/0000/0000\u{7}"
        ],
        ["keys", "\u{1b}[6;20;10t\u{1b}[?62;4;22c\u{1b}[0n"],
        ["sleep", 0.5],
        ["alive"],
        ["keys", "E"],
        ["wait", "mark an interval first"],
        ["keys", "q"],
        ["exit", 10]
    ]);
    let (verdict, out) = terminal(&steps, "0.3");
    assert_eq!(
        verdict["failed"],
        serde_json::Value::Null,
        "{verdict}: the last: {}",
        String::from_utf8_lossy(&out[out.len().saturating_sub(600)..]).escape_debug()
    );
    assert_eq!(verdict["exit"], 0, "{verdict}");
    let typed = position(&out, b"mark an interval first").unwrap();
    // Only the `E` typed made the explorer speak: written once, after the answers.
    assert_eq!(
        out.windows(22)
            .filter(|w| w == b"mark an interval first")
            .count(),
        1,
        "the answer's E was read as a key"
    );
    assert!(typed > 0);
}

fn have(program: &str, arg: &str) -> bool {
    Command::new(program)
        .arg(arg)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok()
}

/// Polls `f` every 50 ms for at most `secs` seconds.
fn until(secs: u64, f: impl Fn() -> bool) -> bool {
    let end = std::time::Instant::now() + std::time::Duration::from_secs(secs);
    while std::time::Instant::now() < end {
        if f() {
            return true;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    f()
}

/// A real terminal answers the query: xterm as a VT340 (sixel graphics) under Xvfb, logging
/// what it is sent (`-l`). The camera is drawn in sixel, so xterm's own answers (its device
/// attributes and status; the cell size comes from the window size in pixels, as xterm does
/// not answer `CSI 16 t`) were read; the filter typed by xdotool reached the explorer, one
/// `q` quits, and the terminal is restored.
#[test]
fn xterm_answers_the_query_and_the_camera_is_drawn_in_sixel() {
    if !(have("Xvfb", "-help") && have("xterm", "-version") && have("xdotool", "version")) {
        crate::common::skip("Xvfb, xterm or xdotool is not installed");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let written = dir.path().join("written");
    let status = dir.path().join("status");
    // Xvfb picks a free display and writes its number once it is ready.
    let mut x = Command::new("Xvfb")
        .args([
            "-displayfd",
            "1",
            "-screen",
            "0",
            "1400x900x24",
            "-nolisten",
            "tcp",
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let ready = x.stdout.take().unwrap();
    let _x = Proc(x);
    let mut number = String::new();
    std::io::BufRead::read_line(&mut std::io::BufReader::new(ready), &mut number).unwrap();
    assert!(!number.trim().is_empty(), "Xvfb did not start");
    let display = format!(":{}", number.trim());
    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/demo.bag");
    let inner = format!(
        "{} {}; echo $? > {}",
        env!("CARGO_BIN_EXE_bagscope"),
        demo.display(),
        status.display()
    );
    let log_file = written.to_str().unwrap();
    let _term = Proc(
        Command::new("xterm")
            .args(["-display", &display, "-ti", "vt340", "-geometry", "120x40"])
            .args(["-l", "-lf", log_file])
            .args([
                "-xrm",
                "XTerm*allowSendEvents: true",
                "-e",
                "sh",
                "-c",
                &inner,
            ])
            .env_remove("TMUX")
            .env_remove("NO_COLOR")
            .env_remove("BAGSCOPE_GRAPHICS")
            .spawn()
            .unwrap(),
    );
    let log = || std::fs::read(&written).unwrap_or_default();
    assert!(
        until(30, || contains(&log(), b"image_raw")),
        "no frame: {} bytes written",
        log().len()
    );
    let xdotool = |args: &[&str]| {
        Command::new("xdotool")
            .args(args)
            .env("DISPLAY", &display)
            .output()
            .unwrap()
    };
    let window = String::from_utf8(xdotool(&["search", "--class", "xterm"]).stdout).unwrap();
    let window = window.lines().next().unwrap().to_string();
    xdotool(&["type", "--window", &window, "/image_raw"]);
    xdotool(&["key", "--window", &window, "Return"]);
    assert!(
        until(30, || contains(&log(), b"\x1bP")),
        "no sixel image: xterm's answers were not read"
    );
    assert!(!contains(&log(), "▀".as_bytes()), "half-blocks drawn");
    xdotool(&["type", "--window", &window, "q"]);
    assert!(
        until(10, || std::fs::read_to_string(&status)
            .is_ok_and(|s| s.trim() == "0")),
        "one `q` did not quit"
    );
    assert!(
        contains(&log(), b"\x1b[?1049l"),
        "the terminal was not restored"
    );
}
