use super::*;
use crate::bag::handle::Bag;
use crate::bag::query::Query;
use crate::format::{Op, read_head};

fn string_header(topic: &str) -> ConnectionHeader {
    ConnectionHeader::build(
        topic,
        "std_msgs/String",
        "992ce8a1687cec8c8bd883ec73ca41d1",
        "string data\n",
        Some("/talker"),
        Some("1"),
    )
}

fn entries(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn an_empty_bag_is_a_header_and_nothing_else() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("empty.bag");
    let w = BagWriter::create(&path, WriterOptions::default()).unwrap();
    assert!(!path.exists(), "nothing at the target before finish");
    let s = w.finish().unwrap();
    assert_eq!((s.messages, s.chunks, s.connections), (0, 0, 0));
    let bytes = std::fs::read(&path).unwrap();
    assert_eq!(bytes.len(), 4117);
    assert_eq!(s.bytes, 4117);
    let head = read_head(&bytes, 13, 0).unwrap();
    let h = BagHeader::from_header(&head.header, 13).unwrap();
    assert_eq!(h.index_pos, 4117);
    assert_eq!(entries(dir.path()), vec!["empty.bag"]);
    let bag = Bag::open(&path).unwrap();
    assert!(bag.is_indexed());
    assert_eq!(bag.message_count(), 0);
}

#[test]
fn dropping_an_unfinished_writer_leaves_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("out.bag");
    let mut w = BagWriter::create(&path, WriterOptions::default()).unwrap();
    let c = w.add_connection("/a", &string_header("/a")).unwrap();
    w.write(c, RosTime::new(1, 0), b"\x01\x00\x00\x00x")
        .unwrap();
    assert_eq!(entries(dir.path()).len(), 1, "the temporary file exists");
    drop(w);
    assert!(entries(dir.path()).is_empty());
}

#[test]
fn unknown_and_duplicate_connections_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let mut w = BagWriter::create(dir.path().join("x.bag"), WriterOptions::default()).unwrap();
    assert!(matches!(
        w.write(3, RosTime::new(1, 0), b""),
        Err(WriteError::UnknownConnection { conn: 3, .. })
    ));
    assert_eq!(
        w.add_connection_with_id(7, "/a", &string_header("/a"))
            .unwrap(),
        7
    );
    assert_eq!(w.add_connection("/b", &string_header("/b")).unwrap(), 8);
    assert!(matches!(
        w.add_connection_with_id(7, "/c", &string_header("/c")),
        Err(WriteError::DuplicateConnection { conn: 7, .. })
    ));
}

#[test]
fn chunks_close_after_the_message_that_crosses_the_threshold() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.bag");
    let options = WriterOptions {
        compression: Compression::None,
        chunk_size: 100,
    };
    let mut w = BagWriter::create(&path, options).unwrap();
    let a = w.add_connection("/a", &string_header("/a")).unwrap();
    let unused = w
        .add_connection("/unused", &string_header("/unused"))
        .unwrap();
    let payload = [7u8; 40];
    for i in 0..5 {
        w.write(a, RosTime::new(10 - i, 0), &payload).unwrap();
    }
    let s = w.finish().unwrap();
    assert_eq!(s.connections, 1, "connection {unused} carries nothing");
    assert_eq!(s.range, Some((RosTime::new(6, 0), RosTime::new(10, 0))));
    let bytes = std::fs::read(&path).unwrap();
    // First chunk: connection record (~190 bytes) + message record: past 100 at once.
    let chunk = read_head(&bytes, 4117, 0).unwrap();
    assert_eq!(chunk.op().unwrap(), Ok(Op::Chunk));
    let bag = Bag::open(&path).unwrap();
    assert!(bag.is_indexed());
    assert_eq!(bag.connections().len(), 1);
    // A message record is 86 bytes (46 of framing and header, 40 of payload): two per chunk
    // after the first.
    assert_eq!(s.chunks, 3);
    let times: Vec<u32> = bag
        .messages(&Query::all())
        .map(|m| m.unwrap().entry.time.sec)
        .collect();
    assert_eq!(times, vec![6, 7, 8, 9, 10]);
}
