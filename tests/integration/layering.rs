//! The dependency direction of `docs/ARCHITECTURE.md`, checked on the sources: each layer
//! imports only from the layers below it (`format` and `msg` know nothing of bags or the UI;
//! the UI never parses bytes itself).
//!
//! The sources are read as Rust tokens (`paths.rs`), so that every path rooted at `crate`,
//! `super` or `self` is seen: in `use` declarations, grouped (`use crate::{a, b::{c, d}}`,
//! over several lines) or not, in expressions and in doc links; `super` and `self` are
//! resolved against the module the path is written in.

mod cycles;
mod paths;

use std::path::{Path, PathBuf};

use paths::{Tok, crate_paths, module_of, resolve, tokens};

/// The layers, lowest first: a module may use the modules of a lower rank (and its own).
///
/// `time, stats, ros -> format, msg -> bag, picture -> catalog, rockin -> play, sink -> tui -> cli`.
const LAYERS: &[(&str, u8)] = &[
    ("time", 0),
    ("stats", 0),
    ("ros", 0),
    ("format", 1),
    ("msg", 1),
    ("bag", 2),
    ("catalog", 3),
    ("rockin", 3),
    ("play", 4),
    ("tui", 5),
    ("cli", 6),
    ("sink", 4),
    ("picture", 2),
];

/// Leaf modules every layer may use: they import nothing from the crate.
const LEAVES: &[&str] = &["printable", "wording"];

/// Every `.rs` file below `dir`, sorted.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

fn src_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every resolved crate path of the library's sources: `(file, line, module, target)`.
fn library_paths() -> Vec<(String, usize, Vec<String>, Vec<String>)> {
    let src = src_dir();
    let mut out = Vec::new();
    for file in rust_files(&src) {
        if file.file_name().is_some_and(|n| n == "main.rs") && file.parent() == Some(&src) {
            continue; // the binary: its `crate` is not the library
        }
        let module = module_of(&src, &file);
        let text = std::fs::read_to_string(&file).unwrap();
        for p in crate_paths(&text, &module) {
            if let Some(target) = resolve(&p) {
                let shown = file.strip_prefix(&src).unwrap().display().to_string();
                out.push((format!("src/{shown}"), p.line, p.module, target));
            }
        }
    }
    out
}

fn rank(layer: &str) -> Option<u8> {
    LAYERS.iter().find(|(l, _)| *l == layer).map(|(_, r)| *r)
}

/// Why `module` may not use `target`, if it may not.
fn violation(module: &[String], target: &[String]) -> Option<String> {
    let (Some(from), Some(to)) = (module.first(), target.first()) else {
        return None; // the crate root, or a path to it
    };
    if from == to {
        return None;
    }
    if LEAVES.contains(&from.as_str()) {
        return Some(format!(
            "the leaf `{from}` must import nothing from the crate"
        ));
    }
    if LEAVES.contains(&to.as_str()) {
        return None;
    }
    match (rank(from), rank(to)) {
        (Some(a), Some(b)) if b < a => None,
        (Some(_), Some(_)) => Some(format!(
            "`{from}` must not use `crate::{}`",
            target.join("::")
        )),
        _ => Some(format!("`{from}` -> `{to}`: a module missing from LAYERS")),
    }
}

/// The violations of the layer order in `src` (the source of `module`).
fn violations_in(src: &str, module: &[&str]) -> Vec<String> {
    let module: Vec<String> = module.iter().map(|s| (*s).to_string()).collect();
    crate_paths(src, &module)
        .iter()
        .filter_map(|p| {
            let target = resolve(p)?;
            violation(&p.module, &target).map(|v| format!("{}: {v}", p.line))
        })
        .collect()
}

#[test]
fn layers_import_only_from_below() {
    let bad: Vec<String> = library_paths()
        .into_iter()
        .filter_map(|(file, line, module, target)| {
            violation(&module, &target).map(|v| format!("{file}:{line}: {v}"))
        })
        .collect();
    assert!(bad.is_empty(), "layer violations:\n{}", bad.join("\n"));
}

#[test]
fn every_module_of_the_library_has_a_layer() {
    let lib = std::fs::read_to_string(src_dir().join("lib.rs")).unwrap();
    let toks = tokens(&lib);
    let mut modules = Vec::new();
    for w in toks.windows(3) {
        if let [(Tok::Ident(m), _), (Tok::Ident(name), _), (Tok::Semi, _)] = w {
            if m == "mod" {
                modules.push(name.clone());
            }
        }
    }
    assert!(modules.len() > 5, "no `mod x;` found in src/lib.rs");
    for m in &modules {
        assert!(
            rank(m).is_some() || LEAVES.contains(&m.as_str()),
            "src/lib.rs declares `{m}`, which LAYERS (tests/integration/layering.rs) does not place"
        );
    }
    for (layer, _) in LAYERS {
        assert!(
            modules.iter().any(|m| m == layer),
            "LAYERS names `{layer}`, not in src/lib.rs"
        );
    }
}

#[test]
fn no_file_is_in_an_import_circle() {
    let src = src_dir();
    let mut edges = std::collections::BTreeMap::new();
    for (file, _, _, target) in library_paths() {
        if let Some(to) = cycles::file_of(&src, &target) {
            if to != file {
                edges
                    .entry(file)
                    .or_insert_with(std::collections::BTreeSet::new)
                    .insert(to);
            }
        }
    }
    let found = cycles::cycles(&edges);
    let shown: Vec<String> = found.iter().map(|g| g.join(" ↔ ")).collect();
    assert!(
        found.is_empty(),
        "{} import circles (move what both sides share into a file of its own):\n{}",
        found.len(),
        shown.join("\n")
    );
}

#[test]
fn the_ui_never_parses_bytes() {
    for (file, line, module, target) in library_paths() {
        if module.first().is_some_and(|m| m == "tui")
            && target.first().is_some_and(|t| t == "format")
        {
            assert!(
                target.get(1).is_some_and(|s| s == "Compression"),
                "{file}:{line}: the UI may name compression methods, not read records: crate::{}",
                target.join("::")
            );
        }
    }
}

#[test]
fn leaves_import_nothing() {
    let paths = library_paths();
    for leaf in LEAVES {
        let bad: Vec<_> = paths
            .iter()
            .filter(|(_, _, m, t)| {
                m.first().is_some_and(|m| m == leaf) && t.first() != Some(&(*leaf).to_string())
            })
            .collect();
        assert!(bad.is_empty(), "{leaf} imports from the crate: {bad:?}");
    }
}

// The checks themselves.

#[test]
fn a_grouped_import_of_a_higher_layer_is_caught() {
    let v = violations_in(
        "use crate::{time::RosTime, catalog::Catalog};",
        &["bag", "iter"],
    );
    assert_eq!(v, ["1: `bag` must not use `crate::catalog::Catalog`"]);
    let multi = "use crate::{\n    format::{self, Compression},\n    tui::{app::App, *},\n};\n";
    assert_eq!(
        violations_in(multi, &["bag"]),
        [
            "1: `bag` must not use `crate::tui::app::App`",
            "1: `bag` must not use `crate::tui`"
        ]
    );
}

#[test]
fn super_super_up_the_layers_is_caught() {
    let m = ["bag", "writer", "atomic"];
    assert!(violations_in("use super::super::Bag; use super::open_chunk::Y;", &m).is_empty());
    assert_eq!(
        violations_in("use super::super::super::catalog::Catalog;", &m),
        ["1: `bag` must not use `crate::catalog::Catalog`"]
    );
    let src = "#[cfg(test)]\nmod tests {\n    use super::super::super::cli::run;\n}\n";
    assert_eq!(
        violations_in(src, &["bag", "x"]),
        ["3: `bag` must not use `crate::cli::run`"]
    );
}

#[test]
fn peers_of_a_rank_do_not_use_each_other() {
    assert_eq!(
        violations_in("use crate::msg::Schema;", &["format"]).len(),
        1
    );
    assert_eq!(
        violations_in("use crate::rockin::X;", &["catalog"]).len(),
        1
    );
    assert!(
        violations_in(
            "use crate::{printable::escape, time::RosTime};",
            &["format"]
        )
        .is_empty()
    );
    assert_eq!(
        violations_in("use crate::time::RosTime;", &["printable"]),
        ["1: the leaf `printable` must import nothing from the crate"]
    );
    assert_eq!(
        violations_in("use crate::newlayer::X;", &["bag"]),
        ["1: `bag` -> `newlayer`: a module missing from LAYERS"]
    );
}
