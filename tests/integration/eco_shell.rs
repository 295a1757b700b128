//! `bagscope completions` and `bagscope manpage`: bash loads the completion script, `man -l`
//! renders the page without warnings, and the page names every subcommand.

use std::process::Command;

use crate::common::{bagscope, run_bagscope};

/// The subcommands `bagscope --help` lists (without `help`).
fn subcommands() -> Vec<String> {
    let (help, _, code) = run_bagscope(&["--help"]);
    assert_eq!(code, 0);
    help.lines()
        .skip_while(|l| *l != "Commands:")
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .map(String::from)
        .collect()
}

#[test]
fn bash_loads_the_completion_script() {
    let bin = env!("CARGO_BIN_EXE_bagscope");
    let out = Command::new("bash")
        .arg("-c")
        .arg(format!(
            "source <('{bin}' completions bash) && complete -p bagscope"
        ))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{out:?}");
    assert!(out.stderr.is_empty(), "{out:?}");
    assert!(stdout.contains("bagscope"), "{stdout}");
    // The script offers the subcommands.
    let (script, _, code) = run_bagscope(&["completions", "bash"]);
    assert_eq!(code, 0);
    for sub in subcommands() {
        assert!(script.contains(&sub), "the bash script lacks {sub}");
    }
}

#[test]
fn zsh_and_fish_scripts_are_printed() {
    for shell in ["zsh", "fish"] {
        let (script, err, code) = run_bagscope(&["completions", shell]);
        assert_eq!(code, 0, "{err}");
        assert!(
            script.contains("bagscope") && script.contains("info"),
            "{shell}"
        );
    }
    let (_, err, code) = run_bagscope(&["completions", "tcsh"]);
    assert_eq!(code, 2);
    assert!(err.contains("tcsh"), "{err}");
}

#[test]
fn the_man_page_renders_without_warnings_and_names_every_subcommand() {
    let (roff, err, code) = run_bagscope(&["manpage"]);
    assert_eq!(code, 0, "{err}");
    assert!(roff.contains(".TH bagscope 1"), "{roff}");
    let subs = subcommands();
    assert!(subs.len() >= 12, "{subs:?}");
    for sub in &subs {
        let heading = format!(".SH \"BAGSCOPE {}\"", sub.to_uppercase());
        assert!(roff.contains(&heading), "no section {heading}");
    }
    if Command::new("man").arg("--version").output().is_err() {
        println!("skipping: man (Debian man-db) is not installed");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("bagscope.1");
    std::fs::write(&page, &roff).unwrap();
    let out = Command::new("man")
        .args(["--warnings", "-l"])
        .arg(&page)
        .env("MANWIDTH", "100")
        .env_remove("MAN_KEEP_FORMATTING")
        .env_remove("MANPAGER")
        .env("PAGER", "cat")
        .output()
        .unwrap();
    // Bold and underline may come as overstrikes (`X\x08X`): keep the last character.
    let mut text = String::new();
    for c in String::from_utf8_lossy(&out.stdout).chars() {
        if c == '\u{8}' {
            text.pop();
        } else {
            text.push(c);
        }
    }
    assert!(out.status.success(), "{out:?}");
    assert!(
        out.stderr.is_empty(),
        "man warned: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    for sub in &subs {
        assert!(
            text.contains(&format!("BAGSCOPE {}", sub.to_uppercase())),
            "the rendered page lacks {sub}"
        );
    }
    for section in ["KEYS", "ENVIRONMENT"] {
        assert!(
            text.lines().any(|l| l == section),
            "the rendered page lacks {section}"
        );
    }
    for words in [
        "sort topics by name/count/rate/size/bandwidth",
        "BAGSCOPE_GRAPHICS",
        "BAGSCOPE_CACHE_DIR",
        "NO_COLOR",
        "ROS_MASTER_URI",
    ] {
        assert!(text.contains(words), "the rendered page lacks {words}");
    }
}

#[test]
fn manpage_out_writes_one_file_per_subcommand() {
    let top = tempfile::tempdir().unwrap();
    // A directory that does not exist yet, nor its parent: created.
    let dir = top.path().join("share").join("man1");
    let out = bagscope()
        .args(["manpage", "--out"])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let main = std::fs::read_to_string(dir.join("bagscope.1")).unwrap();
    assert!(main.contains(".SH KEYS") && main.contains(".SH ENVIRONMENT"));
    for sub in subcommands() {
        let f = dir.join(format!("bagscope-{sub}.1"));
        assert!(f.is_file(), "{} missing", f.display());
    }
    assert!(dir.join("bagscope-index-build.1").is_file());
}
