//! The dependency direction of `docs/ARCHITECTURE.md`, checked on the sources: each layer
//! imports only from the layers above it (`format` and `msg` know nothing of bags or the UI;
//! the UI never parses bytes itself).

use std::path::Path;

/// Every `crate::X` path used in the `.rs` files below `dir` (recursively).
fn uses(dir: &Path) -> Vec<(String, usize, String)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
                continue;
            }
            if p.extension().is_none_or(|x| x != "rs") {
                continue;
            }
            let text = std::fs::read_to_string(&p).unwrap();
            for (i, line) in text.lines().enumerate() {
                let mut rest = line;
                while let Some(at) = rest.find("crate::") {
                    let after = &rest[at + 7..];
                    let name: String = after
                        .chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_')
                        .collect();
                    out.push((p.display().to_string(), i + 1, name));
                    rest = after;
                }
            }
        }
    }
    out
}

/// Leaf modules every layer may use: they import nothing from the crate.
const LEAVES: &[&str] = &["printable"];

fn check(layer: &str, allowed: &[&str]) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("src")
        .join(layer);
    for (file, line, name) in uses(&dir) {
        assert!(
            name.is_empty()
                || name == layer
                || LEAVES.contains(&name.as_str())
                || allowed.contains(&name.as_str()),
            "{file}:{line}: `{layer}` must not use `crate::{name}`"
        );
    }
}

#[test]
fn layers_import_only_from_above() {
    check("format", &["time"]);
    check("msg", &["time"]);
    check("bag", &["time", "format", "msg"]);
    check("catalog", &["time", "format", "msg", "bag", "stats"]);
    check("rockin", &["time", "format", "msg", "bag"]);
    check("ros", &[]);
    check(
        "play",
        &[
            "time", "format", "msg", "bag", "catalog", "stats", "ros", "play",
        ],
    );
    check(
        "cli",
        &[
            "time", "format", "msg", "bag", "catalog", "stats", "tui", "ros", "rockin", "play",
        ],
    );
    check(
        "tui",
        &[
            "time", "format", "msg", "bag", "catalog", "stats", "ros", "play",
        ],
    );
}

#[test]
fn the_ui_never_parses_bytes() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/tui");
    for (file, line, name) in uses(&dir) {
        if name == "format" {
            let text = std::fs::read_to_string(&file).unwrap();
            let l = text.lines().nth(line - 1).unwrap();
            assert!(
                l.contains("format::Compression"),
                "{file}:{line}: the UI may name compression methods, not read records: {l}"
            );
        }
    }
}

#[test]
fn leaves_import_nothing() {
    for leaf in LEAVES {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("src")
            .join(format!("{leaf}.rs"));
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            text.lines().all(|l| !l.contains("crate::")),
            "{}",
            path.display()
        );
    }
}
