//! A bag with very many topics (one connection each), for the explorer's scaling test and
//! benchmark: `/robot{r}/sensor_{s}/data` with a few `std_msgs/String` messages each, in
//! lz4 chunks of 64 KiB, over about 10 minutes.

use std::path::Path;

use bagscope::bag::writer::{BagWriter, WriterOptions};
use bagscope::format::{Compression, ConnectionHeader};
use bagscope::time::RosTime;

/// Writes `topics` topics with `per_topic` messages each to `path`.
pub fn write(path: &Path, topics: usize, per_topic: usize) {
    let mut w = BagWriter::create(
        path,
        WriterOptions {
            compression: Compression::Lz4,
            chunk_size: 64 * 1024,
        },
    )
    .unwrap();
    let mut conns = Vec::with_capacity(topics);
    for i in 0..topics {
        let topic = format!("/robot{}/sensor_{:03}/data", i / 1000, i % 1000);
        let header = ConnectionHeader::build(
            &topic,
            "std_msgs/String",
            "992ce8a1687cec8c8bd883ec73ca41d1",
            "string data\n",
            Some("/node"),
            Some("0"),
        );
        conns.push(w.add_connection(&topic, &header).unwrap());
    }
    let payload = [4, 0, 0, 0, b'd', b'a', b't', b'a'];
    let total = topics * per_topic;
    for k in 0..total {
        // Round-robin over topics, times increasing over ~600 s.
        let c = conns[k % topics];
        let nanos =
            1_700_000_000_000_000_000u64 + (k as u64) * (600_000_000_000 / total.max(1) as u64);
        w.write(c, RosTime::from_nanos(nanos), &payload).unwrap();
    }
    w.finish().unwrap();
}

/// Writes a bag with `topics` (`std_msgs/String`, three messages each, a second apart).
pub fn write_named(path: &Path, topics: &[&str]) {
    let mut w = BagWriter::create(
        path,
        WriterOptions {
            compression: Compression::None,
            chunk_size: 4096,
        },
    )
    .unwrap();
    let mut conns = Vec::new();
    for topic in topics {
        let header = ConnectionHeader::build(
            topic,
            "std_msgs/String",
            "992ce8a1687cec8c8bd883ec73ca41d1",
            "string data\n",
            Some("/node"),
            Some("0"),
        );
        conns.push(w.add_connection(topic, &header).unwrap());
    }
    for k in 0..3u32 {
        for &c in &conns {
            w.write(
                c,
                RosTime::new(1_700_000_000 + k, 0),
                &[2, 0, 0, 0, b'o', b'k'],
            )
            .unwrap();
        }
    }
    w.finish().unwrap();
}
