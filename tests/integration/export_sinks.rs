//! `bagscope export --format mcap|parquet`, checked by the readers users will open the files
//! with: Foxglove's Python `mcap` with `mcap-ros1-support` (every message decoded equal to the
//! official `rosbag` reader's decoding; summary, chunk and message indexes present) and DuckDB
//! (row counts per topic, chosen column values, Hive partitions), through
//! `tests/common/interop/export_check.py`; and Apache Spark in local mode with its default
//! reading settings (`tests/common/interop/spark_check.py`: pyspark 4 and a Java 17 runtime,
//! else that test skips with the reason).
//!
//! The interpreter is `$BAGSCOPE_EXPORT_PYTHON`, else the first of `python3`, `/usr/bin/python3`
//! that imports mcap, mcap_ros1, duckdb and rosbag; the tests skip with the reason otherwise.
//! (`pip install mcap mcap-ros1-support duckdb` in an interpreter that sees Debian's
//! python3-rosbag, e.g. a venv made with `--system-site-packages`.)

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::{corpus_bag, fixtures_dir, run_bagscope, skip};

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/common/interop/export_check.py")
}

/// The interpreter that can run the checks, or `None` after printing why not.
fn python() -> Option<String> {
    let mut candidates: Vec<String> = Vec::new();
    if let Ok(p) = std::env::var("BAGSCOPE_EXPORT_PYTHON") {
        candidates.push(p);
    }
    candidates.extend(["python3".to_string(), "/usr/bin/python3".to_string()]);
    for p in &candidates {
        let ok = Command::new(p)
            .arg(script())
            .arg("probe")
            .output()
            .is_ok_and(|o| o.status.success());
        if ok {
            return Some(p.clone());
        }
    }
    skip(&format!(
        "no interpreter among {candidates:?} imports mcap, mcap_ros1, duckdb and rosbag \
         (pip install mcap mcap-ros1-support duckdb; set BAGSCOPE_EXPORT_PYTHON)"
    ));
    None
}

/// Runs the checker; panics with its complaint when it finds a difference.
fn check(python: &str, args: &[&Path]) -> serde_json::Value {
    let out = Command::new(python)
        .arg(script())
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{:?}: {}",
        args,
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn export(args: &[&str]) -> String {
    let (_, err, code) = run_bagscope(args);
    assert_eq!(code, 0, "bagscope {args:?}: {err}");
    err
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn mcap_decodes_equal_to_the_official_reader() {
    let Some(py) = python() else { return };
    let mut bags = vec![
        fixtures_dir().join("recorded.bag"),
        fixtures_dir().join("recorded_lz4.bag"),
    ];
    for name in [
        "gen-mixed_lz4.bag",
        "gen-edge_values.bag",
        "embag-array_test.bag",
        "rosbagjs-example.bag",
    ] {
        let Some(b) = corpus_bag(name) else { return };
        bags.push(b);
    }
    let dir = tempfile::tempdir().unwrap();
    for (i, bag) in bags.iter().enumerate() {
        let compression = ["zstd", "lz4", "none"][i % 3];
        let out = dir.path().join(format!("{i}.mcap"));
        export(&[
            "export",
            "--format",
            "mcap",
            "--compression",
            compression,
            "-o",
            s(&out),
            s(bag),
        ]);
        let summary = check(&py, &[Path::new("mcap"), &out, bag]);
        assert!(summary["messages"].as_u64().unwrap() > 0, "{bag:?}");
        assert_eq!(summary["messages"], summary["stat_messages"], "{bag:?}");
    }
}

#[test]
fn mcap_merges_bags_in_time_order() {
    let Some(py) = python() else { return };
    let Some(a) = corpus_bag("gen-mixed_lz4.bag") else {
        return;
    };
    let b = fixtures_dir().join("recorded.bag");
    let c = fixtures_dir().join("recorded_bz2.bag");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("merged.mcap");
    export(&[
        "export",
        "--format",
        "mcap",
        "-o",
        s(&out),
        s(&a),
        s(&b),
        s(&c),
    ]);
    let summary = check(&py, &[Path::new("mcap"), &out, &a, &b, &c]);
    assert_eq!(summary["messages"], 159 * 2 + 662, "{summary}");
    // A selection: two topics within a time range.
    let sel = dir.path().join("sel.mcap");
    let err = export(&[
        "export",
        "--format",
        "mcap",
        "-t",
        "/imu",
        "-t",
        "/odom",
        "--start",
        "+0.5",
        "--end",
        "+2",
        "-o",
        s(&sel),
        s(&b),
    ]);
    assert!(err.contains("messages on 2 channels"), "{err}");
    // The input is never the output.
    let (_, err, code) = run_bagscope(&["export", "--format", "mcap", "-o", s(&b), s(&b)]);
    assert_eq!(code, 2, "{err}");
}

#[test]
fn parquet_reads_in_duckdb_equal_to_the_official_reader() {
    let Some(py) = python() else { return };
    let bag = fixtures_dir().join("recorded.bag");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("exports");
    export(&[
        "export",
        "--format",
        "parquet",
        "--partition-by",
        "robot=r1,date",
        "-o",
        s(&out),
        s(&bag),
    ]);
    let odom = out.join("robot=r1/date=2026-11-21/odom.parquet");
    assert!(odom.is_file(), "{odom:?}");
    let spec = serde_json::json!({
        "partitions": {"robot": "r1", "date": "2026-11-21"},
        "columns": {
            "/odom": [
                ["pose.pose.position.x", "pose.pose.position.x", "float"],
                ["twist.twist.angular.z", "twist.twist.angular.z", "float"],
                ["header.stamp", "header.stamp", "time"],
                ["header.frame_id", "header.frame_id", "plain"],
                ["child_frame_id", "child_frame_id", "plain"],
                ["pose.covariance", "pose.covariance", "list"]
            ],
            "/imu": [
                ["orientation_covariance", "orientation_covariance", "list"],
                ["linear_acceleration.z", "linear_acceleration.z", "float"],
                ["header.seq", "header.seq", "plain"]
            ],
            "/camera/image_raw": [
                ["data", "data", "bytes"],
                ["width", "width", "plain"],
                ["encoding", "encoding", "plain"]
            ],
            "/chatter": [["data", "data", "plain"]],
            "/rosout": [["topics", "topics", "list"]]
        }
    });
    let spec_path = dir.path().join("spec.json");
    std::fs::write(&spec_path, spec.to_string()).unwrap();
    let summary = check(&py, &[Path::new("parquet"), &out, &spec_path, &bag]);
    assert_eq!(summary["rows"], 159, "{summary}");
    assert_eq!(summary["topics"], 8, "{summary}");
}

#[test]
fn parquet_of_several_bags_by_bag() {
    let Some(py) = python() else { return };
    let Some(a) = corpus_bag("gen-mixed_lz4.bag") else {
        return;
    };
    let Some(b) = corpus_bag("embag-array_test.bag") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("pq");
    export(&[
        "export",
        "--format",
        "parquet",
        "--per-bag",
        "--partition-by",
        "bag-date",
        "-t",
        "/custom/all_types",
        "-t",
        "/imu",
        "-t",
        "/points",
        "-t",
        "/array_test",
        "-o",
        s(&out),
        s(&a),
        s(&b),
    ]);
    // (gen-mixed_lz4's /multi_type has two types: not selected here.)
    let spec = serde_json::json!({
        "topics": ["/custom/all_types", "/imu", "/points", "/array_test"],
        "columns": {
            "/custom/all_types": [
                ["f64", "f64", "float"],
                ["f32", "f32", "float"],
                ["u64", "u64", "plain"],
                ["i8", "i8", "plain"],
                ["b", "b", "plain"],
                ["s", "s", "plain"],
                ["t", "t", "time"],
                ["d", "d", "duration"],
                ["u8_var", "u8_var", "bytes"],
                ["u8_fixed", "u8_fixed", "bytes"],
                ["i8_fixed", "i8_fixed", "list"],
                ["f32_fixed", "f32_fixed", "list"],
                ["u64_var", "u64_var", "list"],
                ["s_var", "s_var", "list"],
                ["single_inner.label", "single_inner.label", "plain"],
                ["single_inner.where.z", "single_inner.where.z", "float"],
                ["single_inner.values", "single_inner.values", "list"]
            ]
        }
    });
    let spec_path = dir.path().join("spec.json");
    std::fs::write(&spec_path, spec.to_string()).unwrap();
    let summary = check(&py, &[Path::new("parquet"), &out, &spec_path, &a, &b]);
    assert_eq!(summary["topics"], 4, "{summary}");
    assert!(summary["rows"].as_u64().unwrap() > 300, "{summary}");
}

/// The interpreter that runs `spark_check.py` (pyspark, rosbag and Java 17+), or `None` after
/// printing why not.
fn spark_python() -> Option<String> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/common/interop/spark_check.py");
    let mut candidates: Vec<String> = Vec::new();
    if let Ok(p) = std::env::var("BAGSCOPE_EXPORT_PYTHON") {
        candidates.push(p);
    }
    candidates.extend(["python3".to_string(), "/usr/bin/python3".to_string()]);
    let mut why = Vec::new();
    for p in &candidates {
        match Command::new(p).arg(&script).arg("probe").output() {
            Ok(o) if o.status.success() => return Some(p.clone()),
            Ok(o) => why.push(format!(
                "{p}: {}",
                String::from_utf8_lossy(&o.stderr).trim()
            )),
            Err(e) => why.push(format!("{p}: {e}")),
        }
    }
    skip(&format!(
        "Spark is not available ({}); pip install pyspark, apt-get install openjdk-17-jre-headless",
        why.join("; ")
    ));
    None
}

/// Apache Spark reads the export with its default settings (it refuses nanosecond
/// timestamps: times are microsecond timestamps, with exact nanoseconds beside them), Hive
/// partitions discovered, counts, sums and times equal to the official reader's.
#[test]
fn parquet_reads_in_spark_with_its_default_settings() {
    let Some(py) = spark_python() else { return };
    let bag = fixtures_dir().join("recorded.bag");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("exports");
    export(&[
        "export",
        "--format",
        "parquet",
        "--partition-by",
        "robot=r1,date",
        "-o",
        s(&out),
        s(&bag),
    ]);
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/common/interop/spark_check.py");
    let run = Command::new(&py)
        .arg(script)
        .arg(&out)
        .arg(&bag)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let summary: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
    assert_eq!(summary["rows"], 159, "{summary}");
    assert_eq!(summary["odom"]["rows"], 27, "{summary}");
}
