//! `export --where` in every format keeps exactly the messages `echo --where` prints (itself
//! checked against `rosbag filter` in `cli_where`): JSON lines and CSV rows counted, MCAP
//! messages counted with the `mcap` crate, Parquet rows from the files' metadata.

use crate::common::{fixtures_dir, run_bagscope};

const WHERE: &str = "header.seq < 20 or header.frame_id == \"odom\"";

fn bag() -> String {
    fixtures_dir().join("recorded.bag").display().to_string()
}

/// Messages `echo --where` prints for these topics (one JSON object per line).
fn expected(topics: &[&str]) -> usize {
    let mut args = vec!["echo", "--format", "json", "--where", WHERE];
    for t in topics {
        args.extend(["-t", t]);
    }
    let b = bag();
    args.push(&b);
    let (out, err, code) = run_bagscope(&args);
    assert_eq!(code, 0, "{err}");
    out.lines().count()
}

#[test]
fn every_format_keeps_what_echo_keeps() {
    let dir = tempfile::tempdir().unwrap();
    let b = bag();
    let all_imu = expected(&["/imu"]);
    let want = expected(&["/imu", "/odom"]);
    // The expression keeps some messages of each topic and drops others.
    assert!(
        all_imu > 0 && want > all_imu && want < 55 + 27,
        "{all_imu} {want}"
    );

    let (out, err, code) = run_bagscope(&[
        "export", &b, "-t", "/imu", "-t", "/odom", "--format", "jsonl", "--where", WHERE,
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.lines().count(), want);

    let (out, err, code) = run_bagscope(&[
        "export", &b, "-t", "/imu", "--format", "csv", "--where", WHERE,
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.lines().count(), all_imu + 1, "header + rows");

    let mcap = dir.path().join("out.mcap");
    let (_, err, code) = run_bagscope(&[
        "export",
        &b,
        "-t",
        "/imu",
        "-t",
        "/odom",
        "--format",
        "mcap",
        "-o",
        mcap.to_str().unwrap(),
        "--where",
        WHERE,
    ]);
    assert_eq!(code, 0, "{err}");
    let bytes = std::fs::read(&mcap).unwrap();
    let mut n = 0;
    for m in mcap::MessageStream::new(&bytes).unwrap() {
        m.unwrap();
        n += 1;
    }
    assert_eq!(n, want);

    let pq = dir.path().join("pq");
    let (_, err, code) = run_bagscope(&[
        "export",
        &b,
        "-t",
        "/imu",
        "-t",
        "/odom",
        "--format",
        "parquet",
        "-o",
        pq.to_str().unwrap(),
        "--where",
        WHERE,
    ]);
    assert_eq!(code, 0, "{err}");
    let mut rows = 0;
    for e in std::fs::read_dir(&pq).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "parquet") {
            let f = std::fs::File::open(&p).unwrap();
            let r = parquet::file::reader::SerializedFileReader::new(f).unwrap();
            rows += parquet::file::reader::FileReader::metadata(&r)
                .file_metadata()
                .num_rows();
        }
    }
    assert_eq!(usize::try_from(rows).unwrap(), want);
}

#[test]
fn a_field_the_type_lacks_is_refused_in_every_format() {
    let dir = tempfile::tempdir().unwrap();
    let b = bag();
    let out = dir.path().join("x.mcap");
    for format in ["jsonl", "mcap", "parquet"] {
        let (_, err, code) = run_bagscope(&[
            "export",
            &b,
            "-t",
            "/chatter",
            "--format",
            format,
            "-o",
            out.to_str().unwrap(),
            "--where",
            "header.seq < 3",
        ]);
        assert_eq!(code, 2, "{format}: {err}");
        assert!(err.contains("header"), "{format}: {err}");
    }
}
