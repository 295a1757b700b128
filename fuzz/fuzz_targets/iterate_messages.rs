//! Opening a bag from arbitrary bytes and reading every message (in order, and by random
//! access through the cache) never panics or hangs.
#![no_main]

use bagscope::bag::{Bag, OpenOptions, Query};
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
    let Ok(bag) = Bag::from_bytes("fuzz.bag", data.to_vec(), options) else {
        return;
    };
    let mut read = 0usize;
    for m in bag.messages(&Query::all()).take(20_000) {
        if let Ok(m) = m {
            read += m.data.len();
        }
    }
    for c in 0..bag.chunks().len().min(64) {
        let entries = bag.chunk_entries(c as u32);
        for e in entries.iter().rev().take(16) {
            let _ = bag.read(e);
        }
    }
    let _ = bag.receive_times(&bag.connections().iter().map(|c| c.id).collect::<Vec<_>>());
    std::hint::black_box(read);
});
