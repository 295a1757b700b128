//! Pictures through a terminal graphics protocol, end to end: the real binary on a
//! pseudo-terminal (`script`), `BAGSCOPE_GRAPHICS=kitty` / `sixel` / `iterm2` naming the
//! protocol (no terminal here answers the query), the camera topic selected: the protocol's
//! escape sequence carrying the frame reaches the terminal, and the terminal is restored on
//! the way out. (In tmux, the other end-to-end tests, `auto` keeps half-blocks.)

use std::path::Path;
use std::process::Command;

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
