//! `export --format parquet` and `export --format csv` of the MCAP files and ROS 2 bags of
//! `../shared/corpus-mcap` hold the values the Python readers decode (the `*.ref.jsonl`
//! reference dumps, made with rosbags and cross-checked with mcap-ros1/ros2-support): every
//! message of every topic, every field, compared by `tests/common/interop/ros2_export_check.py`
//! (DuckDB reads the Parquet files; skipped with the reason when `$BAGSCOPE_EXPORT_PYTHON`
//! cannot import duckdb — CI's venv can).

use std::path::Path;
use std::process::Command;

use crate::common::{bagscope, skip};
use crate::mcap_refs::corpus_mcap;

fn script() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/common/interop/ros2_export_check.py")
}

fn python() -> Option<String> {
    let p = std::env::var("BAGSCOPE_EXPORT_PYTHON").ok()?;
    Command::new(&p)
        .arg(script())
        .arg("probe")
        .output()
        .is_ok_and(|o| o.status.success())
        .then_some(p)
}

/// The topics of `input`, from `info --json` (the ROS 2 layout's or a bag's).
fn topics(input: &Path) -> Vec<String> {
    let out = bagscope()
        .args(["info", "--json"])
        .arg(input)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let list = v
        .get("topics")
        .or_else(|| v.get("topic_information"))
        .and_then(|t| t.as_array())
        .cloned()
        .unwrap_or_default();
    list.iter()
        .filter_map(|t| t.get("topic").or_else(|| t.get("name"))?.as_str())
        .map(str::to_string)
        .collect()
}

#[test]
fn parquet_and_csv_exports_equal_the_python_readers() {
    let Some(corpus) = corpus_mcap() else { return };
    let Some(python) = python() else {
        skip("$BAGSCOPE_EXPORT_PYTHON is unset or cannot import duckdb (CI's venv can)");
        return;
    };
    let typedefs = corpus.join("typedefs");
    let mut checked = 0;
    for case in [
        "rosbag2/mcap/cdr_test",
        "rosbag2/sqlite3/cdr_test",
        "rosbag2/sqlite3/multiple_files",
        "rosbag2/sqlite3/test_msgs_string",
        "mcap-rust-testdata/compressed",
    ] {
        let dir = corpus.join(case);
        let input = if dir.exists() {
            dir
        } else {
            corpus.join(format!("{case}.mcap"))
        };
        let out = tempfile::tempdir().unwrap();
        let pq = out.path().join("pq");
        let csv = out.path().join("csv");
        std::fs::create_dir(&csv).unwrap();
        let run = bagscope()
            .args(["export", "--format", "parquet", "--msg-path"])
            .arg(&typedefs)
            .arg("-o")
            .arg(&pq)
            .arg(&input)
            .output()
            .unwrap();
        assert!(
            run.status.success(),
            "{case}: {}",
            String::from_utf8_lossy(&run.stderr)
        );
        for topic in topics(&input) {
            let name = topic.trim_start_matches('/').replace('/', ".");
            let run = bagscope()
                .args(["export", "--format", "csv", "-t", &topic, "--msg-path"])
                .arg(&typedefs)
                .arg("-o")
                .arg(csv.join(format!("{name}.csv")))
                .arg(&input)
                .output()
                .unwrap();
            // A later message's longer array than the first's is cut and warned about (exit 1).
            assert!(run.status.code().is_some_and(|c| c <= 1), "{case} {topic}");
        }
        let check = Command::new(&python)
            .arg(script())
            .arg(corpus.join(format!("{case}.ref.jsonl")))
            .arg(&pq)
            .arg(&csv)
            .output()
            .unwrap();
        assert!(
            check.status.success(),
            "{case}: {}{}",
            String::from_utf8_lossy(&check.stdout),
            String::from_utf8_lossy(&check.stderr)
        );
        checked += 1;
    }
    assert_eq!(checked, 5);
}
