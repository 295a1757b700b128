//! Reads and decodes every message of a topic (for profiling): `decode_topic BAG TOPIC [N]`.
#![allow(clippy::unwrap_used, clippy::pedantic)]
fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().unwrap();
    let topic = args.next().unwrap();
    let rounds: usize = args.next().map_or(1, |s| s.parse().unwrap());
    let bag = bagscope::bag::Bag::open(&path).unwrap();
    let conns: Vec<_> = bag
        .connections()
        .iter()
        .filter(|c| c.topic == topic)
        .map(|c| c.id)
        .collect();
    let mut schemas = bagscope::catalog::Schemas::default();
    let t = std::time::Instant::now();
    let mut n = 0u64;
    for _ in 0..rounds {
        for m in bag.messages(&bagscope::bag::Query::all().connections(conns.clone())) {
            let m = m.unwrap();
            let c = bag.connection(m.entry.conn).unwrap();
            let s = schemas.get(0, c).schema.clone().unwrap();
            let v = bagscope::msg::decode(&s, &m.data).unwrap();
            std::hint::black_box(&v);
            n += 1;
        }
    }
    let s = t.elapsed().as_secs_f64();
    println!("{n} messages in {s:.3} s: {:.0} msg/s", n as f64 / s);
}
