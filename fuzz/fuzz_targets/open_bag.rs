//! Opening a bag from arbitrary bytes and summarising it never panics.
#![no_main]

use bagscope::bag::{Bag, OpenOptions};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let options = OpenOptions {
        max_chunk_size: 8 << 20,
        cache_bytes: 8 << 20,
        threads: 1,
        decode_budget: 16 << 20,
        progress: None,
        partial: None,
    };
    if let Ok(bag) = Bag::from_bytes("fuzz.bag", data.to_vec(), options) {
        let _ = bag.topics();
        let _ = bag.compression_stats();
        let _ = bag.warnings();
        let _ = (bag.start_time(), bag.end_time(), bag.message_count());
        if let Some(r) = bag.recovery() {
            let _ = r.lost_bytes();
        }
    }
});
