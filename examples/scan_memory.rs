//! The memory a recovery scan takes: `scan_memory BAG [partial]`.
//!
//! Opens a bag that needs a scan (a crashed `.bag.active`) and prints the process's peak
//! resident memory (`VmHWM`), its anonymous memory once the bag is open (`RssAnon`) and the
//! time the scan took. With `partial`, the scan hands out partial results and the last one is
//! kept alive until the finished bag is there, as the explorer does.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::pedantic)]

use std::sync::{Arc, Mutex};

use bagscope::bag::{Bag, OpenOptions, PartialFn};

/// The value of `field` (in kB) in `/proc/self/status`.
fn status_kb(field: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("usage: scan_memory BAG [partial]");
    let partial = args.next().as_deref() == Some("partial");
    let kept: Arc<Mutex<Option<Bag>>> = Arc::new(Mutex::new(None));
    let handed = Arc::new(Mutex::new(0usize));
    let mut options = OpenOptions::default();
    if partial {
        let (kept, handed) = (Arc::clone(&kept), Arc::clone(&handed));
        options.partial = Some(PartialFn(Arc::new(move |p| {
            *kept.lock().unwrap() = Some(p.bag);
            *handed.lock().unwrap() += 1;
            true
        })));
    }
    let started = std::time::Instant::now();
    let bag = Bag::open_with(&path, options).unwrap();
    let took = started.elapsed();
    let messages: u64 = bag.connections().iter().map(|c| c.message_count).sum();
    println!(
        "{messages} messages, {} partial results; peak {:.1} MB, anonymous {:.1} MB; scan {:.0} ms",
        handed.lock().unwrap(),
        status_kb("VmHWM:") as f64 / 1024.0,
        status_kb("RssAnon:") as f64 / 1024.0,
        took.as_secs_f64() * 1e3
    );
    drop(kept);
}
