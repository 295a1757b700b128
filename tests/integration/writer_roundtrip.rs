//! Bags written by `BagWriter` read back through bagscope's reader exactly: every compression,
//! several chunk sizes, empty bags, many connections, connection headers byte for byte.

use std::path::Path;

use bagscope::bag::writer::{BagWriter, WriteSummary, WriterOptions};
use bagscope::bag::{Bag, Query};
use bagscope::format::{Compression, ConnectionHeader};
use bagscope::time::RosTime;

use crate::common::synth::{SynthConn, SynthMsg, connections, messages};

/// Writes `msgs`, adding every connection up front; returns the summary and the ids.
fn write(
    path: &Path,
    options: WriterOptions,
    conns: &[SynthConn],
    msgs: &[SynthMsg],
) -> (WriteSummary, Vec<u32>) {
    let mut w = BagWriter::create(path, options).unwrap();
    let ids: Vec<u32> = conns
        .iter()
        .map(|c| w.add_connection(&c.topic, &c.header).unwrap())
        .collect();
    for m in msgs {
        w.write(ids[m.conn], m.time, &m.payload).unwrap();
    }
    (w.finish().unwrap(), ids)
}

/// What the reader must give back: (time, connection id, payload), stably sorted by time then
/// connection (ties in writing order), the official reader's order.
fn expected(msgs: &[SynthMsg], ids: &[u32]) -> Vec<(RosTime, u32, Vec<u8>)> {
    let mut v: Vec<_> = msgs
        .iter()
        .map(|m| (m.time, ids[m.conn], m.payload.clone()))
        .collect();
    v.sort_by_key(|(t, c, _)| (*t, *c));
    v
}

fn read_back(bag: &Bag) -> Vec<(RosTime, u32, Vec<u8>)> {
    bag.messages(&Query::all())
        .map(|m| {
            let m = m.unwrap();
            let c = bag.connection(m.entry.conn).unwrap();
            (m.entry.time, c.file_id, m.data.to_vec())
        })
        .collect()
}

/// Every chunk of `bag` is compressed with `compression`; every chunk but the last passed
/// the threshold `chunk_size`, and only by its last message.
fn chunks_close_past_the_threshold(
    bag: &Bag,
    compression: Compression,
    chunk_size: u32,
    name: &str,
) {
    let chunks = bag.chunks();
    for (i, c) in chunks.iter().enumerate() {
        let c = bag.head(c.index).unwrap();
        assert_eq!(c.compression, compression, "{name}");
        if i + 1 < chunks.len() {
            assert!(
                c.uncompressed_size > u64::from(chunk_size),
                "{name} chunk {i}"
            );
        }
        let biggest_record = 20_000 + 400;
        assert!(
            c.uncompressed_size <= u64::from(chunk_size) + biggest_record,
            "{name} chunk {i}: {}",
            c.uncompressed_size
        );
    }
    if chunk_size == 0 {
        assert_eq!(chunks.len(), 500, "{name}: one message per chunk");
    }
}

#[test]
fn every_compression_and_chunk_size_reads_back() {
    let dir = tempfile::tempdir().unwrap();
    let conns = connections();
    let msgs = messages(500, conns.len(), 11);
    for compression in [Compression::None, Compression::Bz2, Compression::Lz4] {
        for chunk_size in [0u32, 1000, 65_536, 768 * 1024] {
            let name = format!("{compression}_{chunk_size}");
            let path = dir.path().join(format!("{name}.bag"));
            let options = WriterOptions {
                compression,
                chunk_size,
            };
            let (summary, ids) = write(&path, options, &conns, &msgs);
            assert_eq!(summary.messages, 500, "{name}");
            assert_eq!(
                summary.bytes,
                std::fs::metadata(&path).unwrap().len(),
                "{name}"
            );
            let bag = Bag::open(&path).unwrap();
            assert!(bag.is_indexed(), "{name}: opened from its index");
            assert!(bag.warnings().is_empty(), "{name}: {:?}", bag.warnings());
            assert_eq!(bag.chunks().len() as u32, summary.chunks, "{name}");
            assert_eq!(read_back(&bag), expected(&msgs, &ids), "{name}");
            chunks_close_past_the_threshold(&bag, compression, chunk_size, &name);
            // Connection headers come back byte for byte.
            for (c, id) in conns.iter().zip(&ids) {
                let back = &bag.connections()[*id as usize];
                assert_eq!(back.topic, c.topic);
                assert_eq!(back.header.raw, c.header.raw, "{name}: {}", c.topic);
                assert_eq!(back.callerid, c.header.callerid);
                assert_eq!(back.latching, c.header.latching);
            }
        }
    }
}

#[test]
fn chunk_ranges_and_counts_match_what_was_written() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ranges.bag");
    let conns = connections();
    let msgs = messages(200, conns.len(), 5);
    let options = WriterOptions {
        compression: Compression::Lz4,
        chunk_size: 4096,
    };
    let (summary, _) = write(&path, options, &conns, &msgs);
    let bag = Bag::open(&path).unwrap();
    let first = msgs.iter().map(|m| m.time).min().unwrap();
    let last = msgs.iter().map(|m| m.time).max().unwrap();
    assert_eq!(summary.range, Some((first, last)));
    assert_eq!(bag.start_time(), Some(first));
    assert_eq!(bag.end_time(), Some(last));
    let total: u64 = bag.connections().iter().map(|c| c.message_count).sum();
    assert_eq!(total, 200);
    for (i, c) in bag.connections().iter().enumerate() {
        let n = msgs.iter().filter(|m| m.conn == i).count() as u64;
        assert_eq!(c.message_count, n, "{}", c.topic);
    }
    // The time range per chunk covers exactly its messages.
    for chunk in bag.chunks() {
        let entries = bag.chunk_entries(chunk.index);
        assert_eq!(entries.iter().map(|e| e.time).min(), Some(chunk.start));
        assert_eq!(entries.iter().map(|e| e.time).max(), Some(chunk.end));
    }
}

#[test]
fn bags_without_messages_are_valid_and_empty() {
    let dir = tempfile::tempdir().unwrap();
    for compression in [Compression::None, Compression::Bz2, Compression::Lz4] {
        let path = dir.path().join(format!("empty_{compression}.bag"));
        let mut w = BagWriter::create(
            &path,
            WriterOptions {
                compression,
                chunk_size: 0,
            },
        )
        .unwrap();
        // A connection that never carries a message is left out, as the official reader
        // would drop it.
        w.add_connection("/unused", &connections()[0].header)
            .unwrap();
        let s = w.finish().unwrap();
        assert_eq!(
            (s.messages, s.connections, s.chunks, s.bytes),
            (0, 0, 0, 4117)
        );
        let bag = Bag::open(&path).unwrap();
        assert!(bag.is_indexed());
        assert!(bag.connections().is_empty());
        assert_eq!(bag.messages(&Query::all()).count(), 0);
    }
}

#[test]
fn many_connections_keep_their_ids_and_headers() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("many.bag");
    let mut w = BagWriter::create(
        &path,
        WriterOptions {
            compression: Compression::Bz2,
            chunk_size: 2048,
        },
    )
    .unwrap();
    let mut headers = Vec::new();
    for i in 0..600u32 {
        let topic = format!("/robot_{}/topic", i % 40);
        let header = ConnectionHeader::build(
            &topic,
            "std_msgs/String",
            "992ce8a1687cec8c8bd883ec73ca41d1",
            "string data\n",
            Some(&format!("/node_{i}")),
            Some(if i % 3 == 0 { "1" } else { "0" }),
        );
        // Sparse ids, as when copying a bag whose connections were filtered.
        let id = w
            .add_connection_with_id(i * 7 + 3, &topic, &header)
            .unwrap();
        assert_eq!(id, i * 7 + 3);
        headers.push((id, topic, header));
    }
    for round in 0..3u32 {
        for (id, _, _) in headers.iter().rev() {
            let payload = format!("{id}:{round}");
            let mut data = (payload.len() as u32).to_le_bytes().to_vec();
            data.extend_from_slice(payload.as_bytes());
            w.write(*id, RosTime::new(100 + round, *id), &data).unwrap();
        }
    }
    let s = w.finish().unwrap();
    assert_eq!((s.messages, s.connections), (1800, 600));
    let bag = Bag::open(&path).unwrap();
    assert!(bag.is_indexed(), "{:?}", bag.recovery());
    assert_eq!(bag.connections().len(), 600);
    for (id, topic, header) in &headers {
        let dense = bag.conn_by_file_id(*id).unwrap();
        let c = bag.connection(dense).unwrap();
        assert_eq!(&c.topic, topic);
        assert_eq!(c.header.raw, header.raw);
        assert_eq!(c.message_count, 3);
    }
    let mut n = 0;
    for m in bag.messages(&Query::all()) {
        let m = m.unwrap();
        let c = bag.connection(m.entry.conn).unwrap();
        let text = String::from_utf8(m.data[4..].to_vec()).unwrap();
        let (id, round) = text.split_once(':').unwrap();
        assert_eq!(id.parse::<u32>().unwrap(), c.file_id);
        assert_eq!(
            RosTime::new(100 + round.parse::<u32>().unwrap(), c.file_id),
            m.entry.time
        );
        n += 1;
    }
    assert_eq!(n, 1800);
}
