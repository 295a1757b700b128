//! Opens a bag repeatedly (for profiling the open path): `open_loop BAG [N]`.
#![allow(clippy::unwrap_used, clippy::pedantic)]
fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().unwrap();
    let n: usize = args.next().map_or(200, |s| s.parse().unwrap());
    let t = std::time::Instant::now();
    for _ in 0..n {
        let bag = bagscope::bag::Bag::open(&path).unwrap();
        std::hint::black_box(bagscope::cli::info::summary::text_summary(
            &bag, &path, false,
        ));
    }
    println!(
        "{:.3} ms per open+info",
        t.elapsed().as_secs_f64() * 1e3 / n as f64
    );
}
