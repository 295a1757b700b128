//! Reading a RoCKIn YAML file of arbitrary bytes never panics: every message either converts
//! or is an error with a position.
#![no_main]

use std::sync::OnceLock;

use bagscope::msg::Registry;
use bagscope::rockin::{Limits, MessageReader};
use libfuzzer_sys::fuzz_target;

fn registry() -> &'static Registry {
    static R: OnceLock<Registry> = OnceLock::new();
    R.get_or_init(Registry::bundled)
}

fuzz_target!(|data: &[u8]| {
    let limits = Limits {
        max_line: 1 << 16,
        max_scalar: 1 << 16,
        max_depth: 64,
    };
    let mut reader = MessageReader::new(data, registry(), limits);
    for _ in 0..10_000 {
        match reader.next_message() {
            Ok(Some(_)) => {}
            Ok(None) | Err(_) => break,
        }
    }
});
