//! Inputs kept from fuzzing (`tests/fixtures/fuzz/`: small inputs that reached new code paths,
//! and any input that ever crashed) are replayed through what the fuzz targets do: open,
//! summarise, iterate every message, random access. None may panic or hang. The same for the
//! inputs kept from the `ros_peer` (XML-RPC, TCPROS headers, service requests) and
//! `rockin_yaml` targets.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::pedantic)]

mod common;

use bagscope::bag::{Bag, OpenOptions, Query};
use bagscope::msg::Registry;
use bagscope::play::bagserver::{PlayIntervalRequest, PlayIntervalResponse};
use bagscope::rockin::{Limits, MessageReader};
use bagscope::ros::xmlrpc::{parse_call, parse_response};
use bagscope::ros::{Header, read_frame};

/// The kept inputs of one target: `tests/fixtures/<dir>/*`.
fn kept(dir: &str) -> Vec<Vec<u8>> {
    let dir = common::fixtures_dir().join(dir);
    let mut v: Vec<Vec<u8>> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| std::fs::read(e.path()).unwrap())
        .collect();
    v.sort();
    assert!(!v.is_empty(), "{} is empty", dir.display());
    v
}

#[test]
fn kept_ros_peer_inputs_are_handled() {
    for data in kept("fuzz-ros") {
        let _ = parse_call(&data);
        let _ = parse_response(&data);
        let _ = Header::decode(&data);
        let _ = Header::read_from(&mut &data[..], 1 << 16);
        let _ = read_frame(&mut &data[..], 1 << 16);
        let _ = PlayIntervalRequest::decode(&data);
        let _ = PlayIntervalResponse::decode(&data);
    }
}

#[test]
fn kept_rockin_inputs_are_handled() {
    let registry = Registry::bundled();
    let limits = Limits {
        max_line: 1 << 16,
        max_scalar: 1 << 16,
        max_depth: 64,
    };
    for data in kept("fuzz-rockin") {
        let mut reader = MessageReader::new(&data[..], &registry, limits);
        for _ in 0..10_000 {
            match reader.next_message() {
                Ok(Some(_)) => {}
                Ok(None) | Err(_) => break,
            }
        }
    }
}

#[test]
fn kept_fuzz_inputs_are_handled() {
    let dir = common::fixtures_dir().join("fuzz");
    let Ok(rd) = std::fs::read_dir(&dir) else {
        common::skip("tests/fixtures/fuzz is not present");
        return;
    };
    let mut n = 0;
    for e in rd.flatten() {
        let bytes = std::fs::read(e.path()).unwrap();
        let options = OpenOptions {
            max_chunk_size: 8 << 20,
            cache_bytes: 8 << 20,
            threads: 1,
        };
        if let Ok(bag) = Bag::from_bytes(e.path(), bytes, options) {
            let _ = (bag.topics(), bag.compression_stats(), bag.warnings());
            let _ = bag.messages(&Query::all()).take(20_000).count();
            for c in 0..bag.chunks().len().min(64) {
                for entry in bag.chunk_entries(c as u32).iter().rev().take(16) {
                    let _ = bag.read(entry);
                }
            }
        }
        n += 1;
    }
    assert!(n > 0);
}
