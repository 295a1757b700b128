//! Bags as a crashed recorder would leave them, and worse: the index section cut off, the
//! bag header's index position 0, and (optionally) every chunk's index data records gone, so
//! that a recovery scan must decompress and walk every chunk.

use std::path::Path;

use bagscope::bag::writer::{BagWriter, WriterOptions};
use bagscope::format::Compression;
use bagscope::time::RosTime;

use super::synth::{string_header, string_msg};

/// The fields of a record header: `(name, value)` pairs with their offsets in `header`.
fn fields(header: &[u8]) -> Vec<(&[u8], usize, usize)> {
    let mut out = Vec::new();
    let mut at = 0;
    while at + 4 <= header.len() {
        let len = u32::from_le_bytes(header[at..at + 4].try_into().unwrap()) as usize;
        let field = &header[at + 4..at + 4 + len];
        let eq = field.iter().position(|&b| b == b'=').unwrap();
        out.push((&field[..eq], at + 4 + eq + 1, at + 4 + len));
        at += 4 + len;
    }
    out
}

/// `bytes` (a closed 2.0 bag) without its index section, its bag header saying index
/// position 0 with no connections or chunks (as `rosbag record` leaves it while recording),
/// and, when `drop_index_data`, without the index data records after each chunk.
pub fn unindexed(bytes: &[u8], drop_index_data: bool) -> Vec<u8> {
    let mut out = bytes[..13].to_vec();
    let mut at = 13;
    let mut index_pos = bytes.len();
    while at < index_pos.min(bytes.len()) {
        let hlen = u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
        let header = &bytes[at + 4..at + 4 + hlen];
        let dlen_at = at + 4 + hlen;
        let dlen = u32::from_le_bytes(bytes[dlen_at..dlen_at + 4].try_into().unwrap()) as usize;
        let end = dlen_at + 4 + dlen;
        let fs = fields(header);
        let op = fs
            .iter()
            .find(|f| f.0 == b"op")
            .map(|f| header[f.1])
            .unwrap();
        let mut record = bytes[at..end].to_vec();
        if op == 0x03 {
            for (name, from, to) in &fs {
                if *name == b"index_pos" {
                    index_pos = u64::from_le_bytes(header[*from..*to].try_into().unwrap()) as usize;
                }
                if matches!(*name, b"index_pos" | b"conn_count" | b"chunk_count") {
                    record[4 + from..4 + to].fill(0);
                }
            }
        }
        if !(op == 0x04 && drop_index_data) {
            out.extend_from_slice(&record);
        }
        at = end;
    }
    out
}

/// Where each top-level record of a 2.0 bag starts (after the version line).
pub fn record_starts(bytes: &[u8]) -> Vec<usize> {
    let mut out = Vec::new();
    let mut at = 13;
    while at + 4 <= bytes.len() {
        out.push(at);
        let hlen = u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
        let dlen_at = at + 4 + hlen;
        let dlen = u32::from_le_bytes(bytes[dlen_at..dlen_at + 4].try_into().unwrap()) as usize;
        at = dlen_at + 4 + dlen;
    }
    out
}

/// A bag without index and index data records (small lz4 chunks, three topics); its bytes.
pub fn crashed(dir: &Path, n: u32) -> Vec<u8> {
    let path = dir.join("closed.bag");
    let mut w = BagWriter::create(
        &path,
        WriterOptions {
            compression: Compression::Lz4,
            chunk_size: 1500,
        },
    )
    .unwrap();
    let conns: Vec<_> = ["/imu", "/odom", "/scan"]
        .iter()
        .map(|t| w.add_connection(t, &string_header(t, "/robot")).unwrap())
        .collect();
    for i in 0..n {
        let data = string_msg(&format!("reading {i}"));
        let t = RosTime::new(1_700_000_000 + i / 20, (i % 20) * 50_000_000);
        w.write(conns[(i % 3) as usize], t, &data).unwrap();
    }
    w.finish().unwrap();
    unindexed(&std::fs::read(&path).unwrap(), true)
}
