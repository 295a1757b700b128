//! bagscope's writer lays out a bag record for record as the official Python writer does, for
//! the same messages: same records in the same order, same header fields and values (field
//! order aside), same chunk boundaries, same index data and chunk infos. For uncompressed
//! bags also the same record positions and file size.
//!
//! Skipped (with the reason printed) when Debian's python3-rosbag is absent.

use std::collections::BTreeMap;
use std::path::Path;

use bagscope::bag::writer::{BagWriter, WriterOptions};
use bagscope::format::{Compression, compression::decompress, read_record};
use serde_json::json;

use crate::common::official::{have_python_rosbag, write_official};
use crate::common::skip;
use crate::common::synth::{SynthConn, SynthMsg, connections, messages};

/// A record, normalised: op, header fields by name, data (length and hash; for chunks: the
/// records inside instead).
#[derive(Debug, PartialEq)]
struct Rec {
    op: u8,
    fields: BTreeMap<String, Vec<u8>>,
    data: (usize, u64),
    inner: Vec<Rec>,
}

fn digest(data: &[u8]) -> (usize, u64) {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    data.hash(&mut h);
    (data.len(), h.finish())
}

fn walk(buf: &[u8], start: usize, positions: bool) -> Vec<Rec> {
    let mut out = Vec::new();
    let mut pos = start;
    while pos < buf.len() {
        let r = read_record(buf, pos, 0).unwrap();
        let op = r.header.op().unwrap();
        let mut fields: BTreeMap<String, Vec<u8>> = r
            .header
            .fields()
            .map(|f| {
                (
                    String::from_utf8(f.name.to_vec()).unwrap(),
                    f.value.to_vec(),
                )
            })
            .collect();
        let mut data = digest(r.data);
        let mut inner = Vec::new();
        if op == 5 {
            let method = Compression::parse(&fields["compression"]).unwrap();
            let size = u32::from_le_bytes(fields["size"].clone().try_into().unwrap());
            let mut plain = Vec::new();
            decompress(method, r.data, size, 1 << 30, &mut plain).unwrap();
            assert_eq!(plain.len(), size as usize);
            inner = walk(&plain, 0, true);
            // The records inside are compared instead (their field order differs).
            data = (0, 0);
        }
        if !positions {
            // Compressed sizes differ between compressors, and so every later position.
            fields.remove("chunk_pos");
            fields.remove("index_pos");
        }
        out.push(Rec {
            op,
            fields,
            data,
            inner,
        });
        pos = usize::try_from(r.end()).unwrap();
    }
    out
}

fn write_ours(
    path: &Path,
    compression: Compression,
    threshold: u32,
    conns: &[SynthConn],
    msgs: &[SynthMsg],
) {
    let mut w = BagWriter::create(
        path,
        WriterOptions {
            compression,
            chunk_size: threshold,
        },
    )
    .unwrap();
    // The official writer numbers connections in order of first use.
    let mut ids = vec![None; conns.len()];
    for m in msgs {
        let id = *ids[m.conn].get_or_insert_with(|| {
            let c = &conns[m.conn];
            w.add_connection(&c.topic, &c.header).unwrap()
        });
        w.write(id, m.time, &m.payload).unwrap();
    }
    w.finish().unwrap();
}

fn spec(
    compression: Compression,
    threshold: u32,
    conns: &[SynthConn],
    msgs: &[SynthMsg],
) -> serde_json::Value {
    let hex = |b: &[u8]| b.iter().map(|x| format!("{x:02x}")).collect::<String>();
    json!({
        "compression": compression.name(),
        "chunk_threshold": threshold,
        "connections": conns.iter().map(|c| {
            let fields: Vec<_> = bagscope::format::Header::parse(&c.header.raw, 0, bagscope::format::RecordKind::ConnectionHeader)
                .unwrap()
                .fields()
                .map(|f| json!([String::from_utf8(f.name.to_vec()).unwrap(), hex(f.value)]))
                .collect();
            json!({"topic": c.topic, "header": fields})
        }).collect::<Vec<_>>(),
        "messages": msgs.iter().map(|m| json!([m.conn, m.time.sec, m.time.nsec, hex(&m.payload)])).collect::<Vec<_>>(),
    })
}

#[test]
fn layout_matches_the_official_writer() {
    if let Err(why) = have_python_rosbag() {
        skip(&why);
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let conns = connections();
    let msgs = messages(300, conns.len(), 7);
    let mut compared = 0;
    for compression in [Compression::None, Compression::Bz2, Compression::Lz4] {
        for threshold in [0u32, 100, 4096, 65_536, 768 * 1024] {
            let name = format!("{compression}_{threshold}");
            let theirs = dir.path().join(format!("{name}.official.bag"));
            let ours = dir.path().join(format!("{name}.ours.bag"));
            write_official(&spec(compression, threshold, &conns, &msgs), &theirs);
            write_ours(&ours, compression, threshold, &conns, &msgs);
            let a = std::fs::read(&ours).unwrap();
            let b = std::fs::read(&theirs).unwrap();
            assert_eq!(&a[..13], b"#ROSBAG V2.0\n");
            assert_eq!(&a[..13], &b[..13]);
            let exact = compression == Compression::None;
            let ra = walk(&a, 13, exact);
            let rb = walk(&b, 13, exact);
            assert_eq!(ra.len(), rb.len(), "{name}: number of top-level records");
            for (i, (x, y)) in ra.iter().zip(&rb).enumerate() {
                assert_eq!(x, y, "{name}: record {i}");
            }
            if exact {
                assert_eq!(a.len(), b.len(), "{name}: file size");
            }
            let chunks = ra.iter().filter(|r| r.op == 5).count();
            if threshold == 0 {
                assert_eq!(chunks, msgs.len(), "{name}: one chunk per message");
            }
            compared += 1;
        }
    }
    assert_eq!(compared, 15);
}
