//! Every thread the explorer starts is started in `src/tui/jobs/` (issue 38): a file elsewhere
//! in `src/tui` that starts one (`thread::spawn`, `thread::Builder`, `thread::scope`, or an
//! import of them) fails this test. The terminal's input reader (`term/input.rs`) may start
//! its own (today it too goes through `jobs::job::detach`).

use std::path::{Path, PathBuf};

/// Where threads may be started, relative to `src/tui`.
const ALLOWED_DIR: &str = "jobs";
const ALLOWED_FILES: &[&str] = &["term/input.rs"];

/// What starts a thread.
const STARTS: &[&str] = &["thread::spawn", "thread::Builder", "thread::scope"];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The lines of `text` (comments left out) that start a thread or import what does.
fn starts(text: &str) -> Vec<(usize, String)> {
    text.lines()
        .enumerate()
        .filter_map(|(i, line)| {
            let code = line.split("//").next().unwrap_or("");
            let imports = code.contains("std::thread::{")
                && ["spawn", "Builder", "scope"]
                    .iter()
                    .any(|w| code.contains(w));
            (imports || STARTS.iter().any(|s| code.contains(s)))
                .then(|| (i + 1, line.trim().to_string()))
        })
        .collect()
}

#[test]
fn threads_are_started_only_in_tui_jobs() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/tui");
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    files.sort();
    assert!(files.len() > 20, "src/tui read: {} files", files.len());
    let mut found = Vec::new();
    for file in &files {
        let rel = file
            .strip_prefix(&root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        if rel.starts_with(&format!("{ALLOWED_DIR}/")) || ALLOWED_FILES.contains(&rel.as_str()) {
            continue;
        }
        let text = std::fs::read_to_string(file).unwrap();
        for (line, code) in starts(&text) {
            found.push(format!("src/tui/{rel}:{line}: {code}"));
        }
    }
    assert!(
        found.is_empty(),
        "threads started outside src/tui/jobs/ (start them through tui::jobs::job):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_scan_sees_every_way_of_starting_a_thread() {
    assert_eq!(starts("    std::thread::spawn(move || {});").len(), 1);
    assert_eq!(starts("let b = thread::Builder::new();").len(), 1);
    assert_eq!(starts("std::thread::scope(|s| {});").len(), 1);
    assert_eq!(starts("use std::thread::{sleep, spawn};").len(), 1);
    assert!(starts("// std::thread::spawn in a comment").is_empty());
    assert!(starts("std::thread::sleep(d);").is_empty());
    assert!(starts("std::thread::available_parallelism()").is_empty());
}
