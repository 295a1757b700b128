//! A bag cut off at any point and then reindexed by bagscope keeps at least every message the
//! official `rosbag reindex` keeps from the same cut (run on a copy with `--output-dir`), with
//! the same connection headers; and the official reader opens every bag bagscope writes.
//!
//! Cut points: inside the bag header, at and around every part of a chunk record (header,
//! length, data start, middle, end), inside the index data after it, inside the index section,
//! one byte short of the end; for bags recorded by the C++ recorder (uncompressed and lz4),
//! rewritten by the Python writer (bz2, one chunk) and by bagscope (bz2, many chunks).
//!
//! Skipped (with the reason printed) when `rosbag` or Python's `rosbag` are absent.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use bagscope::format::{Op, read_head};
use serde_json::Value;

use crate::common::official::{connection_headers, dump_full, have_rosbag_cli, rows};
use crate::common::{bagscope, fixtures_dir, skip};

/// Where to cut a bag: around every structural boundary of (up to 5) chunks and of the index.
fn cut_points(buf: &[u8]) -> Vec<usize> {
    let mut cuts = vec![13 + 100, 4117];
    let mut pos = 4117;
    let mut chunks = Vec::new();
    let mut index_pos = buf.len();
    while pos < buf.len() {
        let Ok(head) = read_head(buf, pos, 0) else {
            break;
        };
        let op = head.op().unwrap();
        let end = usize::try_from(head.end()).unwrap();
        match op {
            Ok(Op::Chunk) => chunks.push((pos, usize::try_from(head.data_offset).unwrap(), end)),
            Ok(Op::Connection | Op::ChunkInfo) if index_pos == buf.len() => index_pos = pos,
            _ => {}
        }
        pos = end;
    }
    assert!(!chunks.is_empty());
    let picked: Vec<_> = if chunks.len() <= 5 {
        chunks.clone()
    } else {
        let n = chunks.len();
        [0, 1, n / 2, n - 2, n - 1]
            .iter()
            .map(|&i| chunks[i])
            .collect()
    };
    for (start, data, end) in picked {
        cuts.extend([
            start + 2,
            data - 2,
            data + 1,
            data + (end - data) / 2,
            end - 1,
            end,
            end + 10,
        ]);
    }
    cuts.extend([
        index_pos + 5,
        index_pos + (buf.len() - index_pos) / 2,
        buf.len() - 1,
    ]);
    cuts.retain(|&c| c < buf.len());
    cuts.sort_unstable();
    cuts.dedup();
    cuts
}

/// (time, topic, size, md5, connection header) of every message of a dump; empty when the
/// official reader cannot open the bag.
fn messages(dump: &Value) -> Vec<(i128, String, u64, String, String)> {
    if dump["ok"] != true {
        return Vec::new();
    }
    let headers = connection_headers(dump);
    let mut v: Vec<_> = rows(dump)
        .into_iter()
        .map(|(t, topic, size, md5, conn)| (t, topic, size, md5, headers[&conn].1.to_string()))
        .collect();
    v.sort();
    v
}

fn official_reindex(inputs: &[PathBuf], out_dir: &Path) {
    let o = std::process::Command::new("rosbag")
        .arg("reindex")
        .arg("-q")
        .arg("--output-dir")
        .arg(out_dir)
        .args(inputs)
        .output()
        .unwrap();
    // It reports bags it cannot open on stderr and goes on with the others.
    assert!(
        o.status.success(),
        "rosbag reindex: {}",
        String::from_utf8_lossy(&o.stderr)
    );
}

#[test]
fn truncated_bags_keep_at_least_what_rosbag_reindex_keeps() {
    if let Err(why) = have_rosbag_cli() {
        skip(&why);
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let cut_dir = dir.path().join("cut");
    let theirs_dir = dir.path().join("theirs");
    let ours_dir = dir.path().join("ours");
    for d in [&cut_dir, &theirs_dir, &ours_dir] {
        std::fs::create_dir(d).unwrap();
    }
    // A bz2 bag with many chunks, written by bagscope.
    let many_bz2 = dir.path().join("many_bz2.bag");
    let o = bagscope()
        .arg("filter")
        .arg(fixtures_dir().join("recorded.bag"))
        .arg(&many_bz2)
        .args(["--compression", "bz2", "--chunk-size", "8"])
        .output()
        .unwrap();
    assert!(o.status.success());
    let sources = [
        fixtures_dir().join("recorded.bag"),
        fixtures_dir().join("recorded_record_lz4.bag"),
        fixtures_dir().join("recorded_bz2.bag"),
        many_bz2,
    ];
    let mut cuts = Vec::new();
    for (s, source) in sources.iter().enumerate() {
        let buf = std::fs::read(source).unwrap();
        for at in cut_points(&buf) {
            let path = cut_dir.join(format!("s{s}_{at}.bag"));
            std::fs::write(&path, &buf[..at]).unwrap();
            cuts.push(path);
        }
    }
    assert!(cuts.len() >= 80, "{} cuts", cuts.len());
    official_reindex(&cuts, &theirs_dir);
    let mut ours = Vec::new();
    let mut theirs = Vec::new();
    for cut in &cuts {
        let name = cut.file_name().unwrap();
        let out = ours_dir.join(name);
        let o = bagscope()
            .arg("reindex")
            .arg(cut)
            .arg(&out)
            .output()
            .unwrap();
        let code = o.status.code();
        assert!(
            matches!(code, Some(0 | 1)),
            "{}: {code:?} {}",
            cut.display(),
            String::from_utf8_lossy(&o.stderr)
        );
        ours.push(out);
        theirs.push(theirs_dir.join(name));
    }
    let existing: Vec<PathBuf> = theirs.iter().filter(|p| p.exists()).cloned().collect();
    let their_dumps: HashMap<PathBuf, Value> = existing
        .iter()
        .cloned()
        .zip(dump_full(&existing, &[]))
        .collect();
    let our_dumps = dump_full(&ours, &[]);
    let (mut kept_ours, mut kept_theirs) = (0, 0);
    for ((cut, theirs), ours) in cuts.iter().zip(&theirs).zip(&our_dumps) {
        let name = cut.display();
        assert!(
            ours["ok"] == true,
            "{name}: the official reader cannot read our copy: {ours}"
        );
        let mine = messages(ours);
        let official = their_dumps.get(theirs).map(messages).unwrap_or_default();
        let mut count: HashMap<_, i64> = HashMap::new();
        for m in &mine {
            *count.entry(m).or_default() += 1;
        }
        for m in &official {
            let n = count.entry(m).or_default();
            *n -= 1;
            assert!(
                *n >= 0,
                "{name}: the official reindex keeps {m:?}, ours does not"
            );
        }
        kept_ours += mine.len();
        kept_theirs += official.len();
    }
    eprintln!(
        "{} cuts: bagscope kept {kept_ours} messages, rosbag reindex {kept_theirs}",
        cuts.len()
    );
    assert!(kept_theirs > 0, "the official reindex recovered something");
    assert!(
        kept_ours > kept_theirs,
        "bagscope keeps partial chunks the official tool drops"
    );
}
