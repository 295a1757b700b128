//! A series that grows with a followed recording: resuming after each snapshot (from the
//! last point's time, skipping the points already held at that time) gives exactly the
//! series of the finished bag.

use std::io::Write;
use std::sync::atomic::AtomicBool;

use super::*;
use crate::bag::writer::{BagWriter, WriterOptions};
use crate::format::{Compression, ConnectionHeader};

fn header(topic: &str, datatype: &str, md5: &str, def: &str) -> ConnectionHeader {
    ConnectionHeader::build(topic, datatype, md5, def, Some("/talker"), None)
}

/// A finished bag: `/x` (`std_msgs/Float64`, three messages per receive time, so a
/// snapshot often ends inside a run of equal times) between `/s` strings; its bytes.
fn finished(path: &std::path::Path, compression: Compression) -> Vec<u8> {
    let mut w = BagWriter::create(
        path,
        WriterOptions {
            compression,
            chunk_size: 500,
        },
    )
    .unwrap();
    let x = w
        .add_connection(
            "/x",
            &header(
                "/x",
                "std_msgs/Float64",
                "fdb28210bfa9d7c91146260178d9a584",
                "float64 data\n",
            ),
        )
        .unwrap();
    let s = w
        .add_connection(
            "/s",
            &header(
                "/s",
                "std_msgs/String",
                "992ce8a1687cec8c8bd883ec73ca41d1",
                "string data\n",
            ),
        )
        .unwrap();
    for i in 0..120u32 {
        let t = RosTime::new(100 + i / 3, 0);
        w.write(x, t, &(f64::from(i) * 0.5).to_le_bytes()).unwrap();
        if i % 4 == 0 {
            w.write(s, t, &[3, 0, 0, 0, b'a', b'b', b'c']).unwrap();
        }
    }
    w.finish().unwrap();
    std::fs::read(path).unwrap()
}

fn extract_all(catalog: &Catalog, request: &SeriesRequest) -> Column {
    extract(
        catalog,
        request,
        &Registry::bundled(),
        &AtomicBool::new(false),
        |_| true,
    )
    .unwrap()
    .0
}

#[test]
fn resuming_after_each_snapshot_gives_the_whole_series() {
    for compression in [Compression::None, Compression::Lz4] {
        let dir = tempfile::tempdir().unwrap();
        let done = dir.path().join("full.bag");
        let full = finished(&done, compression);
        let reference = Catalog::new(vec![Bag::open(&done).unwrap()]);
        let request = SeriesRequest::parse(&reference, "/x/data").unwrap();
        let want = extract_all(&reference, &request);
        assert_eq!(want.len(), 120);

        // The recording as written: the bag header's index position still 0.
        let (path, mut follower, live) = crate::catalog::tests::recording(dir.path(), &full);
        let mut grown = Column::new();
        let mut resumed = 0;
        for piece in live.chunks(173) {
            std::fs::OpenOptions::new()
                .append(true)
                .open(&path)
                .unwrap()
                .write_all(piece)
                .unwrap();
            while follower.poll(1 << 20).unwrap().more {}
            let catalog = Catalog::new(vec![follower.snapshot()]);
            if catalog.topics().iter().all(|t| t.topic != "/x") {
                continue; // its connection record is not written yet
            }
            let mut request = request.clone();
            request.from = Resume::after(&grown.times);
            resumed += usize::from(request.from.is_some_and(|r| r.skip > 0));
            let new = extract_all(&catalog, &request);
            assert!(
                new.is_empty() || new.times.first() >= grown.times.last(),
                "only what comes after ({compression:?})"
            );
            grown.merge(new);
        }
        assert!(
            resumed > 0,
            "some snapshots ended inside a run of equal times"
        );
        assert_eq!(grown, want, "{compression:?}");
    }
}

#[test]
fn resume_skips_the_points_at_the_last_time() {
    assert_eq!(Resume::after(&[]), None);
    let r = Resume::after(&[1, 2_000_000_000, 2_000_000_000]).unwrap();
    assert_eq!((r.time, r.skip), (RosTime::new(2, 0), 2));
    let r = Resume::after(&[5]).unwrap();
    assert_eq!((r.time, r.skip), (RosTime::new(0, 5), 1));
}
