//! Damaged bags never crash or hang the reader, and recovery keeps what is intact:
//! truncating a bag at many offsets still yields every message of every chunk that ends before
//! the cut; random byte flips are survived.

use std::collections::HashMap;
use std::path::PathBuf;

use bagscope::bag::{Bag, ChunkLayout, OpenOptions, Query};

use crate::common::synth::XorShift as Rng;
use crate::common::{corpus_dir, fixtures_dir, skip};

fn options() -> OpenOptions {
    OpenOptions {
        threads: 1,
        max_chunk_size: 64 << 20,
        ..OpenOptions::default()
    }
}

/// `(end of the storage holding it, time ns, topic, payload)` for every message: the end of
/// its chunk record (2.0) or of its own record (older layouts).
fn inventory(bag: &Bag) -> Vec<(u64, u64, String, Vec<u8>)> {
    use bagscope::format::{legacy, read_record};
    let bytes = std::fs::read(bag.path()).unwrap();
    let mut out = Vec::new();
    for m in bag.messages(&Query::all()) {
        let Ok(m) = m else { continue };
        let chunk = &bag.chunks()[m.entry.chunk as usize];
        let at = m.entry.offset as usize;
        let end = match chunk.layout {
            ChunkLayout::V2 => {
                let h = bag.head(chunk.index).unwrap();
                h.data_offset + h.compressed_size
            }
            ChunkLayout::V12 => {
                let mut r = read_record(&bytes, at, 0).unwrap();
                if r.header.op().unwrap() == 1 {
                    r = read_record(&bytes, r.end() as usize, 0).unwrap();
                }
                r.end()
            }
            ChunkLayout::V11 => legacy::read_v11_message(&bytes, at, 0).unwrap().end(),
            ChunkLayout::V10 => legacy::read_v10_message(&bytes, at, 0).unwrap().end(),
            ChunkLayout::Mcap => unreachable!("bags only (MCAP: mcap_damage.rs)"),
        };
        let topic = bag.connection(m.entry.conn).unwrap().topic.clone();
        out.push((end, m.entry.time.as_nanos(), topic, m.data.to_vec()));
    }
    out
}

fn drain(bag: &Bag) -> Vec<(u64, String, Vec<u8>)> {
    bag.messages(&Query::all())
        .filter_map(Result::ok)
        .map(|m| {
            let topic = bag.connection(m.entry.conn).unwrap().topic.clone();
            (m.entry.time.as_nanos(), topic, m.data.to_vec())
        })
        .collect()
}

fn sample_bags() -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Some(dir) = corpus_dir() {
        for name in [
            "gen-mixed_none.bag",
            "gen-mixed_lz4.bag",
            "gen-mixed_bz2.bag",
            "gen-v12_indexed.bag",
            "gen-v11.bag",
            "rosbagjs-example-lz4.bag",
            "embag-test_2.bag",
            "frost-test-2000msgs.bag",
        ] {
            out.push(dir.join(name));
        }
    }
    if let Ok(rd) = std::fs::read_dir(fixtures_dir()) {
        for e in rd.flatten() {
            let p = e.path();
            if p.extension().is_some_and(|x| x == "bag")
                && std::fs::metadata(&p).map(|m| m.len()).unwrap_or(0) < 400_000
            {
                out.push(p);
            }
        }
    }
    out.retain(|p| p.exists());
    out
}

#[test]
fn truncation_keeps_every_message_of_every_complete_chunk() {
    let bags = sample_bags();
    if bags.is_empty() {
        skip("no sample bags (../shared/corpus and tests/fixtures absent)");
        return;
    }
    for path in bags {
        let full = Bag::open_with(&path, options()).unwrap();
        let all = inventory(&full);
        let bytes = std::fs::read(&path).unwrap();
        let steps = 150usize;
        let mut cuts: Vec<usize> = (1..steps).map(|i| i * bytes.len() / steps).collect();
        cuts.extend([0, 1, 12, 13, 14, 100, 4117, 4118, bytes.len() - 1]);
        for cut in cuts.into_iter().filter(|&c| c <= bytes.len()) {
            let truncated = bytes[..cut].to_vec();
            let Ok(bag) = Bag::from_bytes(&path, truncated, options()) else {
                continue;
            };
            let got = drain(&bag);
            let mut have: HashMap<(u64, &str, &[u8]), usize> = HashMap::new();
            for (t, topic, p) in &got {
                *have.entry((*t, topic.as_str(), p.as_slice())).or_default() += 1;
            }
            for (end, t, topic, p) in &all {
                if *end as usize <= cut {
                    let n = have.get_mut(&(*t, topic.as_str(), p.as_slice()));
                    assert!(
                        n.as_ref().is_some_and(|n| **n > 0),
                        "{}: cut at {cut}: message at {t} on {topic} (storage ends at {end}) was lost",
                        path.display()
                    );
                    *n.unwrap() -= 1;
                }
            }
        }
    }
}

#[test]
fn random_byte_flips_never_panic() {
    let bags = sample_bags();
    if bags.is_empty() {
        skip("no sample bags (../shared/corpus and tests/fixtures absent)");
        return;
    }
    let mut rng = Rng(0x5eed_1234_abcd_ef01);
    for path in bags {
        let bytes = std::fs::read(&path).unwrap();
        for round in 0..120 {
            let mut damaged = bytes.clone();
            let flips = 1 + (rng.next() % 8) as usize;
            for _ in 0..flips {
                let at = (rng.next() % damaged.len() as u64) as usize;
                // Bias towards the structure-heavy start and end of the file.
                let at = match round % 3 {
                    0 => at % 8192.min(damaged.len()),
                    1 => damaged.len() - 1 - at % 8192.min(damaged.len()),
                    _ => at,
                };
                damaged[at] ^= 1 << (rng.next() % 8);
            }
            if let Ok(bag) = Bag::from_bytes(&path, damaged, options()) {
                let _ = bag.topics();
                let _ = bag.warnings();
                for m in bag.messages(&Query::all()).take(100_000) {
                    let _ = m.map(|m| m.data.len());
                }
                for c in 0..bag.chunks().len() as u32 {
                    let _ = bag.chunk_entries(c);
                }
            }
        }
    }
}

#[test]
fn lies_in_lengths_and_counts_are_errors_not_allocations() {
    use bagscope::format::{header::write_field, record::write_record};
    // A chunk declaring 4 GB uncompressed in a tiny file; a chunk info counting 2^32 entries;
    // an index record whose count runs past the file.
    let mut bag = b"#ROSBAG V2.0\n".to_vec();
    let index_pos = 13 + 4104;
    bag.extend(
        bagscope::format::BagHeader {
            index_pos: index_pos as u64,
            conn_count: Some(0),
            chunk_count: Some(1),
        }
        .encode(),
    );
    let chunk_pos = bag.len() as u64;
    write_record(
        &mut bag,
        &[
            ("op", &[5]),
            ("compression", b"bz2"),
            ("size", &u32::MAX.to_le_bytes()),
        ],
        b"BZh9",
    );
    let mut hdr = Vec::new();
    write_field(&mut hdr, "op", &[6]);
    write_field(&mut hdr, "ver", &1u32.to_le_bytes());
    write_field(&mut hdr, "chunk_pos", &chunk_pos.to_le_bytes());
    write_field(&mut hdr, "start_time", &[0; 8]);
    write_field(&mut hdr, "end_time", &[0; 8]);
    write_field(&mut hdr, "count", &u32::MAX.to_le_bytes());
    bag.extend((hdr.len() as u32).to_le_bytes());
    bag.extend(&hdr);
    bag.extend(8u32.to_le_bytes());
    bag.extend([0u8; 8]);
    // Fix index_pos to point at the chunk info.
    let info_pos = bag.len() - (4 + hdr.len() + 4 + 8);
    let fixed = bagscope::format::BagHeader {
        index_pos: info_pos as u64,
        conn_count: Some(0),
        chunk_count: Some(1),
    }
    .encode();
    bag[13..13 + fixed.len()].copy_from_slice(&fixed);
    let opened = Bag::from_bytes("lies.bag", bag, options()).unwrap();
    assert!(!opened.is_indexed(), "the lying index is not trusted");
    assert_eq!(opened.message_count(), 0);
    assert!(opened.messages(&Query::all()).all(|m| m.is_err()));
}

/// A bag of one lz4 chunk of std_msgs/String messages, then the same file with the end of the
/// chunk's compressed data (after every message) damaged: `(path, damaged path)`.
fn chunk_damaged_after_its_messages(dir: &std::path::Path) -> (PathBuf, PathBuf) {
    use bagscope::bag::writer::{BagWriter, WriterOptions};
    use bagscope::format::{Compression, Op, read_head};
    use bagscope::time::RosTime;
    let path = dir.join("whole.bag");
    let mut w = BagWriter::create(
        &path,
        WriterOptions {
            compression: Compression::Lz4,
            chunk_size: 1 << 20,
        },
    )
    .unwrap();
    let c = w
        .add_connection(
            "/chatter",
            &crate::common::synth::string_header("/chatter", "/talker"),
        )
        .unwrap();
    for i in 0..20u32 {
        let text = format!("message {i}");
        let mut p = (text.len() as u32).to_le_bytes().to_vec();
        p.extend(text.as_bytes());
        w.write(c, RosTime::new(100 + i, 0), &p).unwrap();
    }
    w.finish().unwrap();
    let mut bytes = std::fs::read(&path).unwrap();
    let mut pos = 13;
    let chunk_end = loop {
        let head = read_head(&bytes, pos, 0).unwrap();
        if head.op().unwrap() == Ok(Op::Chunk) {
            break head.end() as usize;
        }
        pos = head.end() as usize;
    };
    // The frame's end mark (4 zero bytes) and content checksum: garbage.
    for b in &mut bytes[chunk_end - 6..chunk_end] {
        *b = 0x5a;
    }
    let damaged = dir.join("damaged.bag");
    std::fs::write(&damaged, &bytes).unwrap();
    (path, damaged)
}

/// A chunk whose lz4 frame is damaged after its last message: every message is read, the
/// damage is reported and the exit code is 1, and nothing says "0 message(s) could not be
/// read".
#[test]
fn a_chunk_damaged_after_its_last_message_is_not_called_a_loss_of_zero_messages() {
    let dir = tempfile::tempdir().unwrap();
    let (_, damaged) = chunk_damaged_after_its_messages(dir.path());
    let d = damaged.to_str().unwrap();
    let (out, err, code) = crate::common::run_bagscope(&["echo", d]);
    assert_eq!(code, 1, "{err}");
    assert_eq!(out.matches("data: ").count(), 20, "{out}");
    assert!(!err.contains(" 0 message"), "{err}");
    assert!(
        err.contains("this chunk does not decode to its end")
            && err.contains("damaged (above), but no message was lost"),
        "{err}"
    );
    let (out, _, code) = crate::common::run_bagscope(&["verify", d]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("20 messages"), "{out}");
}

/// The bag header's `index_pos` set far past the end of a whole bag: nothing is lost, and
/// no loss of 4.6e18 bytes is claimed. With the index section cut off as well, every chunk
/// the header counts is still there: only the index is missing. Cut inside the chunks, the
/// end of the recording is missing, of a size nobody knows.
#[test]
fn an_index_pos_past_the_end_is_told_as_it_is() {
    let dir = tempfile::tempdir().unwrap();
    let (whole, _) = chunk_damaged_after_its_messages(dir.path());
    let mut bytes = std::fs::read(&whole).unwrap();
    let at = bytes.windows(10).position(|w| w == b"index_pos=").unwrap() + 10;
    let index_pos = u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap()) as usize;
    bytes[at..at + 8].copy_from_slice(&(1u64 << 62).to_le_bytes());
    let bad = dir.path().join("bad_index_pos.bag");
    std::fs::write(&bad, &bytes).unwrap();
    let cut = dir.path().join("no_index_section.bag");
    std::fs::write(&cut, &bytes[..index_pos]).unwrap();
    for (path, why) in [
        (&bad, "the header's index_pos is damaged"),
        (&cut, "only the index section is missing"),
    ] {
        let bag = Bag::open(path).unwrap();
        let r = bag.recovery().unwrap();
        assert!(r.is_lossless(), "{:?}", r.losses);
        assert!(r.reason.contains(why), "{}", r.reason);
        assert_eq!(drain(&bag).len(), 20);
        let p = path.to_str().unwrap();
        let (out, err, code) = crate::common::run_bagscope(&["info", p]);
        assert_eq!(code, 0, "{out}{err}");
        assert!(!out.contains("lost"), "{out}");
    }
    // Cut inside the chunk: a loss at the end, no size made up from index_pos.
    let cut_inside = dir.path().join("cut_inside.bag");
    std::fs::write(&cut_inside, &bytes[..index_pos - 400]).unwrap();
    let p = cut_inside.to_str().unwrap();
    let (out, err, code) = crate::common::run_bagscope(&["info", p]);
    assert_eq!(code, 1, "{out}{err}");
    let lost = out
        .lines()
        .find(|l| l.starts_with("lost:"))
        .unwrap_or_else(|| panic!("{out}"));
    let len = index_pos - 400;
    assert!(lost.contains(&format!("at byte {len}: ")), "{lost}");
    // A size, if any, is what is known (the chunk's missing bytes), never index_pos − len.
    let said: Vec<u64> = lost
        .split(" bytes at byte")
        .next()
        .and_then(|head| head.split_whitespace().last())
        .and_then(|n| n.parse().ok())
        .into_iter()
        .collect();
    assert!(said.iter().all(|&n| n < len as u64), "{lost}");
    assert!(
        lost.contains("the end of the recording is missing"),
        "{lost}"
    );
}
