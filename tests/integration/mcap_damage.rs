//! Damaged MCAP files never crash, hang or lie: real files (the mcap crate's
//! `compressed.mcap`, conformance cases, a ROS 2 MCAP, MCAPs `bagscope export` writes) cut at
//! every byte (a dense sample for the bigger ones) keep every message stored before the cut,
//! byte for byte, and report the cut; bytes flipped in the footer, the summary, chunk headers,
//! message indexes and compressed data never yield a message the file does not hold, and
//! what they cost is reported; lengths that lie (2^63, a chunk's sizes) and zstd and lz4
//! bombs are refused within the memory the file declares, and the CLI says so with exit 1.

use std::collections::HashMap;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use bagscope::bag::{Bag, OpenOptions, Query};
use bagscope::format::Compression;

use crate::common::{bagscope, fixtures_dir, skip};
use crate::mcap_conformance::corpus_mcap;

mod bombs;
mod build;

const MIB: u64 = 1 << 20;

fn options() -> OpenOptions {
    OpenOptions {
        threads: 1,
        max_chunk_size: 64 << 20,
        ..OpenOptions::default()
    }
}

/// A message as read: time, channel id, payload.
type Msg = (u64, u32, Vec<u8>);

/// `(end of the bytes that hold it, message)` for every message of a whole file: the end of
/// its record for messages outside chunks and in uncompressed chunks, the end of its chunk's
/// data for compressed chunks.
fn inventory(bag: &Bag) -> Vec<(u64, Msg)> {
    let mut out = Vec::new();
    for m in bag.messages(&Query::all()) {
        let m = m.unwrap();
        let chunk = &bag.chunks()[m.entry.chunk as usize];
        let head = bag.head(chunk.index).unwrap();
        let end = if head.compression == Compression::None {
            head.data_offset + m.entry.offset + 31 + m.data.len() as u64
        } else {
            head.data_offset + head.compressed_size
        };
        let ch = bag.connection(m.entry.conn).unwrap().file_id;
        out.push((end, (m.entry.time.as_nanos(), ch, m.data.to_vec())));
    }
    out
}

/// What reading a (damaged) file gave: the messages, and how much trouble was reported.
struct Read_ {
    messages: Vec<Msg>,
    errors: usize,
    losses: usize,
    warnings: usize,
}

impl Read_ {
    fn reported(&self) -> bool {
        self.errors + self.losses + self.warnings > 0
    }
}

fn read_all(bag: &Bag) -> Read_ {
    let mut messages = Vec::new();
    let mut errors = 0;
    for m in bag.messages(&Query::all()).take(1_000_000) {
        match m {
            Ok(m) => {
                let ch = bag.connection(m.entry.conn).map_or(u32::MAX, |c| c.file_id);
                messages.push((m.entry.time.as_nanos(), ch, m.data.to_vec()));
            }
            Err(_) => errors += 1,
        }
    }
    Read_ {
        messages,
        errors,
        losses: bag.recovery().map_or(0, |r| r.losses.len()),
        warnings: bag.warnings().len(),
    }
}

/// Messages of `got` that `all` does not hold (as a multiset): what a reader made up.
fn made_up<'a>(got: &'a [Msg], all: &[(u64, Msg)]) -> Vec<&'a Msg> {
    let mut have: HashMap<&Msg, usize> = HashMap::new();
    for (_, m) in all {
        *have.entry(m).or_default() += 1;
    }
    let mut out = Vec::new();
    for m in got {
        match have.get_mut(m) {
            Some(n) if *n > 0 => *n -= 1,
            _ => out.push(m),
        }
    }
    out
}

/// A file to damage.
struct Sample {
    name: String,
    bytes: Vec<u8>,
}

impl Sample {
    fn load(path: &Path) -> Sample {
        Sample {
            name: path.file_name().unwrap().to_string_lossy().into_owned(),
            bytes: std::fs::read(path).unwrap(),
        }
    }

    fn open(&self, bytes: Vec<u8>) -> Result<Bag, bagscope::bag::BagError> {
        Bag::from_bytes(&self.name, bytes, options())
    }
}

/// An MCAP of a fixture bag, written by `bagscope export --format mcap`.
fn exported(dir: &Path, bag: &Path, compression: &str) -> PathBuf {
    let out = dir.join(format!(
        "{}-{compression}.mcap",
        bag.file_stem().unwrap().to_string_lossy()
    ));
    let status = bagscope()
        .args([
            "export",
            "--format",
            "mcap",
            "--compression",
            compression,
            "-o",
        ])
        .arg(&out)
        .arg(bag)
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success(), "export of {}", bag.display());
    out
}

/// The real files: the corpus ones that are present, and exports of a fixture bag.
fn samples(tmp: &Path) -> Vec<Sample> {
    let mut out = Vec::new();
    if let Some(dir) = corpus_mcap() {
        for rel in [
            "mcap-rust-testdata/compressed.mcap",
            "rosbag2/mcap/cdr_test/cdr_test_0.mcap",
            "conformance/TenMessages/TenMessages.mcap",
            "conformance/TenMessages/TenMessages-ch-chx-mx-pad-rch-rsh-st-sum.mcap",
            "conformance/TenMessages/TenMessages-ch-mx.mcap",
            "conformance/OneMessage/OneMessage-ch-chx-mx-rch-rsh-st-sum.mcap",
            "conformance/OneAttachment/OneAttachment-ax-pad-st-sum.mcap",
            "conformance/OneMetadata/OneMetadata-mdx-pad-st-sum.mcap",
        ] {
            let p = dir.join(rel);
            if p.exists() {
                out.push(Sample::load(&p));
            }
        }
    }
    let bag = fixtures_dir().join("recorded_lz4.bag");
    for compression in ["zstd", "lz4", "none"] {
        out.push(Sample::load(&exported(tmp, &bag, compression)));
    }
    out
}

/// A top-level record of a whole file: opcode, start, end.
#[derive(Clone, Copy, Debug)]
struct Rec {
    op: u8,
    start: usize,
    end: usize,
}

/// The top-level records of a whole (well-formed) file, from its magic to its footer.
fn records(bytes: &[u8]) -> Vec<Rec> {
    let mut out = Vec::new();
    let mut at = 8;
    while at + 9 <= bytes.len() - 8 {
        let op = bytes[at];
        let len = u64::from_le_bytes(bytes[at + 1..at + 9].try_into().unwrap()) as usize;
        let end = at + 9 + len;
        out.push(Rec { op, start: at, end });
        if op == 0x02 {
            break;
        }
        at = end;
    }
    out
}

/// Cuts, for a file of `len` bytes whose records end at `ends`: every byte for small files,
/// else a dense sample plus every record end and its neighbours.
fn cuts(len: usize, ends: &[usize], every_byte_below: usize) -> Vec<usize> {
    if len <= every_byte_below {
        return (0..len).collect();
    }
    let mut out: Vec<usize> = (0..400).map(|i| i * len / 400).collect();
    out.extend(0..64);
    for e in spread(ends, 60) {
        out.extend([e.saturating_sub(1), e, e + 1]);
    }
    out.retain(|&c| c < len);
    out.sort_unstable();
    out.dedup();
    out
}

#[test]
fn cuts_keep_every_message_stored_before_them_and_report_the_cut() {
    let tmp = tempfile::tempdir().unwrap();
    let samples = samples(tmp.path());
    if samples.len() < 4 {
        skip("../shared/corpus-mcap absent: only the exported files are cut");
    }
    for s in &samples {
        let full = s.open(s.bytes.clone()).unwrap();
        assert!(
            full.recovery().is_none_or(|r| r.losses.is_empty()),
            "{}: the whole file has losses",
            s.name
        );
        let all = inventory(&full);
        let recs = records(&s.bytes);
        // The data section ends with the data end record: cutting after it loses no data.
        let data_end = recs
            .iter()
            .find(|r| r.op == 0x0F)
            .map_or(s.bytes.len(), |r| r.end);
        let ends: Vec<usize> = recs.iter().map(|r| r.end).collect();
        let mut opened = 0;
        for cut in cuts(s.bytes.len(), &ends, 16 << 10) {
            let bag = match s.open(s.bytes[..cut].to_vec()) {
                Ok(b) => b,
                Err(e) => {
                    assert!(cut < 8, "{} cut at {cut}: does not open: {e}", s.name);
                    continue;
                }
            };
            opened += 1;
            let read = read_all(&bag);
            let lies = made_up(&read.messages, &all);
            assert!(lies.is_empty(), "{} cut at {cut}: made up {lies:?}", s.name);
            let before: Vec<(u64, Msg)> = all
                .iter()
                .filter(|(end, _)| *end as usize <= cut)
                .cloned()
                .collect();
            let before: Vec<Msg> = before.into_iter().map(|(_, m)| m).collect();
            let missing = made_up(
                &before,
                &read
                    .messages
                    .iter()
                    .map(|m| (0, m.clone()))
                    .collect::<Vec<_>>(),
            );
            assert!(
                missing.is_empty(),
                "{} cut at {cut}: lost {} message(s) stored before the cut, e.g. {:?}",
                s.name,
                missing.len(),
                missing.first()
            );
            if cut < data_end {
                let losses = bag.recovery().map_or(0, |r| r.losses.len());
                assert!(
                    losses > 0,
                    "{} cut at {cut}: the cut is not reported",
                    s.name
                );
            }
        }
        println!("{}: {opened} cuts opened", s.name);
    }
}

/// The regions of a well-formed file to damage: footer, summary, chunk headers, message
/// indexes, chunk data.
fn regions(bytes: &[u8]) -> Vec<(&'static str, Vec<usize>)> {
    let recs = records(bytes);
    let len = bytes.len();
    let footer: Vec<usize> = (len - 37..len).collect();
    let summary_start =
        u64::from_le_bytes(bytes[len - 37 + 9..len - 37 + 17].try_into().unwrap()) as usize;
    let summary: Vec<usize> = if summary_start == 0 {
        Vec::new()
    } else {
        (summary_start..len - 37).collect()
    };
    let mut heads = Vec::new();
    let mut data = Vec::new();
    let mut indexes = Vec::new();
    for r in recs.iter().filter(|r| r.op == 0x06).take(4) {
        let body = &bytes[r.start + 9..r.end];
        let n = u32::from_le_bytes(body[28..32].try_into().unwrap()) as usize;
        let records_start = r.start + 9 + 32 + n + 8;
        heads.extend(r.start..records_start);
        data.extend(records_start..r.end);
    }
    for r in recs.iter().filter(|r| r.op == 0x07).take(8) {
        indexes.extend(r.start..r.end);
    }
    vec![
        ("footer", footer),
        ("summary", summary),
        ("chunk header", heads),
        ("message index", indexes),
        ("chunk data", data),
    ]
}

/// The CRC of the chunk record holding byte `at` of a whole file (0: none).
fn chunk_crc_at(bytes: &[u8], at: usize) -> u32 {
    records(bytes)
        .iter()
        .find(|r| r.op == 0x06 && r.start <= at && at < r.end)
        .map_or(0, |r| {
            u32::from_le_bytes(
                bytes[r.start + 9 + 24..r.start + 9 + 28]
                    .try_into()
                    .unwrap(),
            )
        })
}

/// At most `n` of `all`, spread evenly.
fn spread(all: &[usize], n: usize) -> Vec<usize> {
    if all.len() <= n {
        return all.to_vec();
    }
    (0..n).map(|i| all[i * all.len() / n]).collect()
}

#[test]
fn flipped_bytes_never_yield_a_message_the_file_does_not_hold() {
    let tmp = tempfile::tempdir().unwrap();
    let samples = samples(tmp.path());
    let (mut tried, mut verify_caught, mut undetectable) = (0, 0, 0);
    for s in &samples {
        let full = s.open(s.bytes.clone()).unwrap();
        let all = inventory(&full);
        let len = s.bytes.len();
        let summary_crc = u32::from_le_bytes(s.bytes[len - 12..len - 8].try_into().unwrap());
        for (region, places) in regions(&s.bytes) {
            for at in spread(&places, 48) {
                for mask in [0xFF, 0x01] {
                    let mut damaged = s.bytes.clone();
                    damaged[at] ^= mask;
                    tried += 1;
                    let Ok(bag) = s.open(damaged.clone()) else {
                        continue;
                    };
                    let read = read_all(&bag);
                    let lies = made_up(&read.messages, &all);
                    let unprotected = region == "chunk data" && chunk_crc_at(&s.bytes, at) == 0;
                    if !lies.is_empty() && unprotected {
                        // A chunk without a CRC: a changed byte is data as good as any.
                        undetectable += 1;
                    } else if !lies.is_empty() {
                        // Chunk data that still decodes reads as it is (as other readers do by
                        // default): its CRC or the codec's checksum tells, and `verify` checks
                        // them.
                        let path = tmp.path().join("flipped.mcap");
                        std::fs::write(&path, &damaged).unwrap();
                        let out = bagscope().arg("verify").arg(&path).output().unwrap();
                        let text = String::from_utf8_lossy(&out.stdout);
                        assert!(
                            out.status.code() == Some(1),
                            "{}: {region} byte {at} ^ {mask:#x}: made up {lies:?}, and verify says\n{text}",
                            s.name
                        );
                        verify_caught += 1;
                    }
                    let lost = all.len().saturating_sub(read.messages.len());
                    assert!(
                        lost == 0 || read.reported(),
                        "{}: {region} byte {at} ^ {mask:#x}: {lost} message(s) lost silently",
                        s.name
                    );
                    if region == "footer" || (region == "summary" && summary_crc != 0) {
                        // The data section is intact: everything is read (by a scan when the
                        // summary does not check out). A summary without a CRC may lie
                        // undetected (a chunk's sizes): then what it costs is reported.
                        assert_eq!(
                            read.messages.len(),
                            all.len(),
                            "{}: {region} byte {at} ^ {mask:#x}",
                            s.name
                        );
                    }
                }
            }
        }
    }
    println!(
        "{tried} damaged files read; {verify_caught} read with damaged bytes that verify caught \
         (CRC, codec checksum), {undetectable} changed bytes of chunks without a CRC"
    );
}

// ---------------------------------------------------------------------------------------
// Files built record by record, to lie in their lengths.

use build::ChunkSpec;

/// A message record on channel 1 at `time`.
fn msg(time: u64) -> Vec<u8> {
    build::message(1, 0, time, b"payload!")
}

/// A file of two chunks (zstd, lz4) of one message each, then `extra` (a damaged chunk).
fn with_bad_chunk(extra: ChunkSpec, summary: bool) -> Vec<u8> {
    let good = |compression: &'static str, time: u64| {
        let m = msg(time);
        let data = bagscope::format::compression::compress(
            Compression::parse(compression.as_bytes()).unwrap(),
            &m,
        )
        .unwrap();
        ChunkSpec {
            compression,
            data,
            uncompressed_size: m.len() as u64,
            crc: crc32fast::hash(&m),
            messages: vec![(time, 0)],
        }
    };
    build::file(&[good("zstd", 1), good("lz4", 2), extra], summary)
}

/// The good part of [`with_bad_chunk`]: the messages at 1 and 2.
fn good_part(bag: &Bag) -> Vec<u64> {
    bag.messages(&Query::all())
        .filter_map(Result::ok)
        .map(|m| m.entry.time.as_nanos())
        .filter(|&t| t < 3)
        .collect()
}

#[test]
fn built_files_read_as_written() {
    // The builder itself: a file of good chunks reads back, from its summary and by a scan.
    let m = msg(3);
    let extra = ChunkSpec {
        compression: "",
        data: m.clone(),
        uncompressed_size: m.len() as u64,
        crc: crc32fast::hash(&m),
        messages: vec![(3, 0)],
    };
    for summary in [true, false] {
        let f = with_bad_chunk(extra.clone(), summary);
        let bag = Bag::from_bytes("built.mcap", f, options()).unwrap();
        assert_eq!(bag.recovery().is_none(), summary);
        assert!(bag.recovery().is_none_or(|r| r.losses.is_empty()));
        let times: Vec<u64> = bag
            .messages(&Query::all())
            .map(|m| m.unwrap().entry.time.as_nanos())
            .collect();
        assert_eq!(times, [1, 2, 3]);
    }
}

/// Lies in lengths: each variant opens (or is refused) without a panic or a huge allocation,
/// keeps the good part and reports the rest.
#[test]
fn lying_lengths_are_errors_not_allocations() {
    let m = msg(3);
    let zstd = bagscope::format::compression::compress(Compression::Zstd, &m).unwrap();
    let variants: Vec<(&str, ChunkSpec)> = vec![
        (
            "uncompressed_size 2^63",
            ChunkSpec {
                compression: "zstd",
                data: zstd.clone(),
                uncompressed_size: 1 << 63,
                crc: 0,
                messages: vec![(3, 0)],
            },
        ),
        (
            "uncompressed_size u64::MAX, no compression",
            ChunkSpec {
                compression: "",
                data: m.clone(),
                uncompressed_size: u64::MAX,
                crc: 0,
                messages: vec![(3, 0)],
            },
        ),
        (
            "uncompressed_size 1 TiB, lz4",
            ChunkSpec {
                compression: "lz4",
                data: bagscope::format::compression::compress(Compression::Lz4, &m).unwrap(),
                uncompressed_size: 1 << 40,
                crc: 0,
                messages: vec![(3, 0)],
            },
        ),
        (
            "a message index offset past the data",
            ChunkSpec {
                compression: "zstd",
                data: zstd.clone(),
                uncompressed_size: m.len() as u64,
                crc: 0,
                messages: vec![(3, 1 << 62)],
            },
        ),
        (
            "an unknown compression",
            ChunkSpec {
                compression: "brotli",
                data: zstd.clone(),
                uncompressed_size: m.len() as u64,
                crc: 0,
                messages: vec![(3, 0)],
            },
        ),
    ];
    for (what, spec) in variants {
        for summary in [true, false] {
            let f = with_bad_chunk(spec.clone(), summary);
            let bag = Bag::from_bytes("lie.mcap", f, options()).unwrap();
            let read = read_all(&bag);
            assert_eq!(good_part(&bag), [1, 2], "{what} summary={summary}");
            assert!(
                read.messages.len() == 3 || read.reported(),
                "{what} summary={summary}: the third message lost silently"
            );
        }
    }
    // Record lengths of 2^63 at each record of a built file, and each compressed_size.
    let m3 = msg(3);
    let base = with_bad_chunk(
        ChunkSpec {
            compression: "zstd",
            data: bagscope::format::compression::compress(Compression::Zstd, &m3).unwrap(),
            uncompressed_size: m3.len() as u64,
            crc: crc32fast::hash(&m3),
            messages: vec![(3, 0)],
        },
        true,
    );
    let recs = records(&base);
    for r in &recs {
        for lie in [1u64 << 63, u64::MAX, (base.len() as u64) * 2] {
            let mut f = base.clone();
            f[r.start + 1..r.start + 9].copy_from_slice(&lie.to_le_bytes());
            let bag = Bag::from_bytes("lie.mcap", f, options()).unwrap();
            let _ = read_all(&bag);
        }
        if r.op == 0x06 {
            // compressed_size in the chunk record.
            let n = u32::from_le_bytes(base[r.start + 9 + 28..r.start + 9 + 32].try_into().unwrap())
                as usize;
            let at = r.start + 9 + 32 + n;
            for lie in [1u64 << 63, u64::MAX] {
                let mut f = base.clone();
                f[at..at + 8].copy_from_slice(&lie.to_le_bytes());
                let bag = Bag::from_bytes("lie.mcap", f, options()).unwrap();
                let _ = read_all(&bag);
            }
        }
    }
}

#[test]
fn chunk_not_closed_is_a_clean_loss() {
    let Some(dir) = corpus_mcap() else {
        skip("../shared/corpus-mcap absent");
        return;
    };
    let path = dir.join("mcap-rust-testdata/chunk_not_closed.mcap");
    let bag = Bag::open(&path).unwrap();
    let r = bag.recovery().expect("scanned");
    assert!(!r.losses.is_empty(), "{r:?}");
    assert_eq!(bag.message_count(), 0);
    assert_eq!(bag.mcap().unwrap().library, "mcap-rs-0.23.3");
    for cmd in ["info", "verify"] {
        let out = bagscope().arg(cmd).arg(&path).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{cmd}: {err}");
        assert!(!err.contains("panicked"), "{cmd}: {err}");
    }
}

/// A byte changed in an uncompressed chunk's message: reading cannot tell (the data is read as
/// it is), `verify` can, from the chunk's CRC.
#[test]
fn verify_checks_each_chunk_against_its_crc() {
    let tmp = tempfile::tempdir().unwrap();
    let m = msg(3);
    let spec = ChunkSpec {
        compression: "",
        data: m.clone(),
        uncompressed_size: m.len() as u64,
        crc: crc32fast::hash(&m),
        messages: vec![(3, 0)],
    };
    for summary in [true, false] {
        let good = with_bad_chunk(spec.clone(), summary);
        let path = tmp.path().join(format!("crc-{summary}.mcap"));
        std::fs::write(&path, &good).unwrap();
        let out = bagscope().arg("verify").arg(&path).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        // The payload's last byte ('!').
        let at = good
            .windows(8)
            .rposition(|w| w == b"payload!")
            .map(|p| p + 7)
            .unwrap();
        let mut bad = good.clone();
        bad[at] = b'?';
        std::fs::write(&path, &bad).unwrap();
        let out = bagscope().arg("verify").arg(&path).output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(1), "summary={summary}: {text}");
        if summary {
            assert!(text.contains("do not match their CRC"), "{text}");
        } else {
            // The scan finds it while opening: a loss.
            assert!(text.contains("lost:") && text.contains("CRC"), "{text}");
        }
    }
}

/// `info` and `verify` exit 1 on a file cut in its data section, 0 on the whole one.
#[test]
fn the_cli_exits_1_on_a_cut_file() {
    let tmp = tempfile::tempdir().unwrap();
    let mut files = vec![exported(
        tmp.path(),
        &fixtures_dir().join("recorded_lz4.bag"),
        "zstd",
    )];
    if let Some(dir) = corpus_mcap() {
        files.push(dir.join("mcap-rust-testdata/compressed.mcap"));
        files.push(dir.join("conformance/TenMessages/TenMessages-ch-chx-mx-st-sum.mcap"));
    }
    for path in files {
        let bytes = std::fs::read(&path).unwrap();
        for cmd in ["info", "verify"] {
            if cmd == "verify" && path.to_string_lossy().contains("conformance") {
                // Its schema (encoding `c`, 3 bytes) is no ros1msg: verify says it does not
                // decode.
                continue;
            }
            let out = bagscope().arg(cmd).arg(&path).output().unwrap();
            assert_eq!(
                out.status.code(),
                Some(0),
                "{cmd} {}: {out:?}",
                path.display()
            );
        }
        // Cuts in the data section (a cut after it loses no data: exit 0, docs/mcap.md).
        let data_end = records(&bytes).iter().find(|r| r.op == 0x0F).unwrap().start;
        for cut in [data_end / 3, data_end / 2, data_end - 5] {
            let cut_path = tmp.path().join("cut.mcap");
            std::fs::write(&cut_path, &bytes[..cut]).unwrap();
            for cmd in ["info", "verify"] {
                let out = bagscope().arg(cmd).arg(&cut_path).output().unwrap();
                let err = String::from_utf8_lossy(&out.stderr);
                assert_eq!(
                    out.status.code(),
                    Some(1),
                    "{cmd} {} cut at {cut}: {err}",
                    path.display()
                );
                assert!(!err.contains("panicked"), "{err}");
            }
        }
    }
}
