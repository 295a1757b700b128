//! MCAP files built record by record (for files that lie in their lengths), and zstd and lz4
//! bombs.

/// A record: opcode, length, body.
pub fn record(out: &mut Vec<u8>, op: u8, body: &[u8]) {
    out.push(op);
    out.extend((body.len() as u64).to_le_bytes());
    out.extend(body);
}

pub fn string(b: &mut Vec<u8>, s: &str) {
    b.extend((s.len() as u32).to_le_bytes());
    b.extend(s.as_bytes());
}

pub fn message(channel: u16, seq: u32, time: u64, data: &[u8]) -> Vec<u8> {
    let mut b = Vec::new();
    b.extend(channel.to_le_bytes());
    b.extend(seq.to_le_bytes());
    b.extend(time.to_le_bytes());
    b.extend(time.to_le_bytes());
    b.extend(data);
    let mut r = Vec::new();
    record(&mut r, 0x05, &b);
    r
}

/// One chunk of data `data` (already compressed) holding the records `messages` places.
#[derive(Clone)]
pub struct ChunkSpec {
    pub compression: &'static str,
    pub data: Vec<u8>,
    pub uncompressed_size: u64,
    pub crc: u32,
    /// `(log time, offset)` of its messages (channel 1).
    pub messages: Vec<(u64, u64)>,
}

/// A file with profile `x`, one schema and channel (1, topic `/t`), `chunks`, their
/// message indexes, and (when `summary`) a summary section with the schema, channel,
/// chunk indexes and statistics.
pub fn file(chunks: &[ChunkSpec], summary: bool) -> Vec<u8> {
    let mut f = b"\x89MCAP0\r\n".to_vec();
    let mut h = Vec::new();
    string(&mut h, "x");
    string(&mut h, "test");
    record(&mut f, 0x01, &h);
    let mut schema = Vec::new();
    schema.extend(1u16.to_le_bytes());
    string(&mut schema, "pkg/T");
    string(&mut schema, "ros1msg");
    string(&mut schema, "uint64 data");
    let mut channel = Vec::new();
    channel.extend(1u16.to_le_bytes());
    channel.extend(1u16.to_le_bytes());
    string(&mut channel, "/t");
    string(&mut channel, "ros1");
    channel.extend(0u32.to_le_bytes());
    record(&mut f, 0x03, &schema);
    record(&mut f, 0x04, &channel);
    let mut index = Vec::new();
    for c in chunks {
        let start = f.len() as u64;
        let (t0, t1) = (
            c.messages.iter().map(|m| m.0).min().unwrap_or(0),
            c.messages.iter().map(|m| m.0).max().unwrap_or(0),
        );
        let mut b = Vec::new();
        b.extend(t0.to_le_bytes());
        b.extend(t1.to_le_bytes());
        b.extend(c.uncompressed_size.to_le_bytes());
        b.extend(c.crc.to_le_bytes());
        string(&mut b, c.compression);
        b.extend((c.data.len() as u64).to_le_bytes());
        b.extend(&c.data);
        record(&mut f, 0x06, &b);
        let chunk_len = f.len() as u64 - start;
        let mi_start = f.len() as u64;
        let mut mi = Vec::new();
        mi.extend(1u16.to_le_bytes());
        mi.extend((c.messages.len() as u32 * 16).to_le_bytes());
        for &(t, o) in &c.messages {
            mi.extend(t.to_le_bytes());
            mi.extend(o.to_le_bytes());
        }
        record(&mut f, 0x07, &mi);
        let mut ci = Vec::new();
        ci.extend(t0.to_le_bytes());
        ci.extend(t1.to_le_bytes());
        ci.extend(start.to_le_bytes());
        ci.extend(chunk_len.to_le_bytes());
        ci.extend(10u32.to_le_bytes());
        ci.extend(1u16.to_le_bytes());
        ci.extend(mi_start.to_le_bytes());
        ci.extend((f.len() as u64 - mi_start).to_le_bytes());
        string(&mut ci, c.compression);
        ci.extend((c.data.len() as u64).to_le_bytes());
        ci.extend(c.uncompressed_size.to_le_bytes());
        index.push(ci);
    }
    record(&mut f, 0x0F, &0u32.to_le_bytes());
    let summary_start = f.len() as u64;
    if summary {
        record(&mut f, 0x03, &schema);
        record(&mut f, 0x04, &channel);
        for ci in &index {
            record(&mut f, 0x08, ci);
        }
        let n: u64 = chunks.iter().map(|c| c.messages.len() as u64).sum();
        let mut st = Vec::new();
        st.extend(n.to_le_bytes());
        st.extend(1u16.to_le_bytes());
        st.extend(1u32.to_le_bytes());
        st.extend(0u32.to_le_bytes());
        st.extend(0u32.to_le_bytes());
        st.extend((chunks.len() as u32).to_le_bytes());
        st.extend(0u64.to_le_bytes());
        st.extend(u64::MAX.to_le_bytes());
        st.extend(10u32.to_le_bytes());
        st.extend(1u16.to_le_bytes());
        st.extend(n.to_le_bytes());
        record(&mut f, 0x0B, &st);
    }
    let mut footer = Vec::new();
    footer.extend((if summary { summary_start } else { 0 }).to_le_bytes());
    footer.extend(0u64.to_le_bytes());
    footer.extend(0u32.to_le_bytes());
    record(&mut f, 0x02, &footer);
    f.extend(b"\x89MCAP0\r\n");
    f
}

/// A zstd frame: `head` as a raw block, then `zeros` zero bytes as RLE blocks of 128 KiB
/// (4 bytes each: 1 GiB costs 32 KiB).
pub fn zstd_bomb(head: &[u8], zeros: u64) -> Vec<u8> {
    let mut z = vec![0x28, 0xB5, 0x2F, 0xFD, 0x00, 0x38];
    let block = |z: &mut Vec<u8>, last: bool, kind: u32, size: u32| {
        let v = u32::from(last) | (kind << 1) | (size << 3);
        z.extend(&v.to_le_bytes()[..3]);
    };
    block(&mut z, false, 0, head.len() as u32);
    z.extend(head);
    let full = zeros / (128 << 10);
    for i in 0..full {
        block(&mut z, i + 1 == full, 1, 128 << 10);
        z.push(0);
    }
    z
}

/// An LZ4 frame (4 MiB blocks): `head` as an uncompressed block, then `blocks` blocks of
/// 4 MiB of zeros each (one long match: 16 KiB a block).
pub fn lz4_bomb(head: &[u8], blocks: u32) -> Vec<u8> {
    let mut z = vec![0x04, 0x22, 0x4D, 0x18, 0x60, 0x70];
    let hc = (twox_hash::XxHash32::oneshot(0, &[0x60, 0x70]) >> 8) as u8;
    z.push(hc);
    z.extend((head.len() as u32 | 0x8000_0000).to_le_bytes());
    z.extend(head);
    // literal 0, match (offset 1) of 4 + 15 + 255 * 16448 + 39, then 5 literals: 4 MiB.
    let mut b = vec![0x1F, 0x00, 0x01, 0x00];
    b.extend(std::iter::repeat_n(255u8, 16448));
    b.push(39);
    b.extend([0x50, 0, 0, 0, 0, 0]);
    for _ in 0..blocks {
        z.extend((b.len() as u32).to_le_bytes());
        z.extend(&b);
    }
    z.extend(0u32.to_le_bytes());
    z
}
