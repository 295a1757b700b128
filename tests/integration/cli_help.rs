//! `bagscope --help` and every subcommand's `--help` (nested ones too, `index build`), as
//! reviewed snapshots: the help text is the first documentation users read, and a change to
//! it shows in review. The subcommands are found in the `Commands:` section of each help, so
//! a new one cannot go without a snapshot.

use crate::common::bagscope;

/// The help of `bagscope ARGS... --help`, run with a fixed terminal width and no colours.
fn help(args: &[&str]) -> String {
    let out = bagscope()
        .args(args)
        .arg("--help")
        .env("COLUMNS", "100")
        .env("NO_COLOR", "1")
        .env_remove("CLICOLOR_FORCE")
        .output()
        .unwrap();
    assert!(out.status.success(), "bagscope {args:?} --help: {out:?}");
    assert!(
        out.stderr.is_empty(),
        "bagscope {args:?} --help wrote to stderr: {out:?}"
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The subcommands a help text lists (its `Commands:` section), without `help`.
fn subcommands(help: &str) -> Vec<String> {
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
fn every_help_text_is_as_reviewed() {
    let mut todo: Vec<Vec<String>> = vec![Vec::new()];
    let mut seen = Vec::new();
    while let Some(path) = todo.pop() {
        let args: Vec<&str> = path.iter().map(String::as_str).collect();
        let text = help(&args);
        let name = if path.is_empty() {
            "bagscope".to_string()
        } else {
            path.join("_")
        };
        insta::assert_snapshot!(format!("help_{name}"), text);
        for sub in subcommands(&text) {
            let mut p = path.clone();
            p.push(sub);
            todo.push(p);
        }
        seen.push(name);
    }
    seen.sort();
    // The commands of docs/cli.md, and `index`'s own.
    for want in [
        "bagscope",
        "call",
        "convert",
        "echo",
        "export",
        "filter",
        "index",
        "index_build",
        "index_info",
        "info",
        "play",
        "query",
        "reindex",
        "serve",
        "verify",
    ] {
        assert!(
            seen.iter().any(|s| s == want),
            "no help snapshot for {want}: {seen:?}"
        );
    }
}
