//! Reads every message of a bag (for profiling the read path): `read_all BAG [parallel]`.
#![allow(clippy::unwrap_used, clippy::pedantic)]
fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().unwrap();
    let parallel = args.next().is_some_and(|a| a == "parallel");
    let bag = bagscope::bag::Bag::open(&path).unwrap();
    let t = std::time::Instant::now();
    let (mut n, mut bytes, mut acc) = (0u64, 0u64, 0u64);
    for m in bag.messages(&bagscope::bag::Query::all().parallel(parallel)) {
        let m = m.unwrap();
        n += 1;
        bytes += m.data.len() as u64;
        acc = m
            .data
            .iter()
            .step_by(64)
            .fold(acc, |a, &b| a.wrapping_add(u64::from(b)));
    }
    let unc: u64 = bag
        .chunks()
        .iter()
        .filter_map(|c| bag.chunk_head(c.index))
        .map(|c| c.uncompressed_size)
        .sum();
    let s = t.elapsed().as_secs_f64();
    println!(
        "{n} msgs, {bytes} payload bytes in {s:.3} s: {:.2} GB/s uncompressed ({acc})",
        unc as f64 / s / 1e9
    );
}
