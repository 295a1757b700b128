//! Inputs kept from fuzzing (`tests/fixtures/fuzz/`: small inputs that reached new code paths,
//! and any input that ever crashed) are replayed through what the fuzz targets do: open,
//! summarise, iterate every message, random access. None may panic or hang.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::pedantic)]

mod common;

use bagscope::bag::{Bag, OpenOptions, Query};

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
