//! Synthetic message streams for writer tests: several connections (latched, with and without
//! callerid, headers in the C++ and the Python writers' field orders), payloads from empty to
//! larger than a small chunk, and receive times that sometimes go backwards.

use bagscope::format::ConnectionHeader;
use bagscope::format::header::write_field;
use bagscope::time::RosTime;

/// A deterministic pseudo-random sequence (64-bit LCG).
pub struct Lcg(u64);

impl Lcg {
    pub fn new(seed: u64) -> Self {
        Lcg(seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1))
    }

    pub fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

/// A connection: topic and full header.
#[derive(Clone, Debug)]
pub struct SynthConn {
    pub topic: String,
    pub header: ConnectionHeader,
}

/// A message: connection index, receive time, payload.
#[derive(Clone, Debug)]
pub struct SynthMsg {
    pub conn: usize,
    pub time: RosTime,
    pub payload: Vec<u8>,
}

/// A header in the Python writer's field order (`topic, type, md5sum, message_definition`),
/// without callerid or latching.
pub fn python_style_header(topic: &str, datatype: &str, md5: &str, def: &str) -> ConnectionHeader {
    let mut raw = Vec::new();
    write_field(&mut raw, "topic", topic.as_bytes());
    write_field(&mut raw, "type", datatype.as_bytes());
    write_field(&mut raw, "md5sum", md5.as_bytes());
    write_field(&mut raw, "message_definition", def.as_bytes());
    let mut h = ConnectionHeader::build(topic, datatype, md5, def, None, None);
    h.raw = raw;
    h
}

/// The connections of the synthetic stream, one per topic.
pub fn connections() -> Vec<SynthConn> {
    let string_def = "string data\n";
    let conns = [
        (
            "/chatter",
            ConnectionHeader::build(
                "/chatter",
                "std_msgs/String",
                "992ce8a1687cec8c8bd883ec73ca41d1",
                string_def,
                Some("/talker_a"),
                Some("0"),
            ),
        ),
        (
            "/tf_static",
            ConnectionHeader::build(
                "/tf_static",
                "tf2_msgs/TFMessage",
                "94810edda583a504dfda3829e70d7eec",
                "geometry_msgs/TransformStamped[] transforms\n",
                Some("/robot_state_publisher"),
                Some("1"),
            ),
        ),
        (
            "/imu",
            python_style_header(
                "/imu",
                "sensor_msgs/Imu",
                "6a62c6daae103f4ff57a132d6f95cec2",
                "std_msgs/Header header\n# a comment = with equals\n",
            ),
        ),
        (
            "/empty",
            ConnectionHeader::build(
                "/empty",
                "std_msgs/Empty",
                "d41d8cd98f00b204e9800998ecf8427e",
                "",
                Some("/node"),
                None,
            ),
        ),
    ];
    conns
        .into_iter()
        .map(|(topic, header)| SynthConn {
            topic: topic.to_string(),
            header,
        })
        .collect()
}

/// `n` messages over `conns` connections: mostly increasing times 10 ms apart, every 17th
/// message 2.5 s in the past, payload sizes 0..2000 bytes with an occasional 20 kB one;
/// connection `conns - 1` carries only empty payloads.
pub fn messages(n: usize, conns: usize, seed: u64) -> Vec<SynthMsg> {
    let mut rng = Lcg::new(seed);
    let t0 = RosTime::new(1_700_000_000, 123_456_789);
    (0..n)
        .map(|i| {
            let conn = usize::try_from(rng.below(conns as u64)).unwrap();
            let mut nanos = i as i128 * 10_000_000;
            if i % 17 == 16 {
                nanos -= 2_500_000_000;
            }
            let time = t0.saturating_add_nanos(nanos);
            let len = if conn + 1 == conns {
                0
            } else if rng.below(40) == 0 {
                20_000
            } else {
                usize::try_from(rng.below(2000)).unwrap()
            };
            let payload = (0..len).map(|_| rng.below(256) as u8).collect();
            SynthMsg {
                conn,
                time: time.normalized(),
                payload,
            }
        })
        .collect()
}

/// The md5sum of `std_msgs/String`.
pub const STRING_MD5: &str = "992ce8a1687cec8c8bd883ec73ca41d1";

/// The connection header of a `std_msgs/String` topic published by `callerid`, not latched.
pub fn string_header(topic: &str, callerid: &str) -> ConnectionHeader {
    ConnectionHeader::build(
        topic,
        "std_msgs/String",
        STRING_MD5,
        "string data\n",
        Some(callerid),
        Some("0"),
    )
}

/// A `std_msgs/String` payload.
pub fn string_msg(s: &str) -> Vec<u8> {
    let mut p = (s.len() as u32).to_le_bytes().to_vec();
    p.extend_from_slice(s.as_bytes());
    p
}

/// A bag writer on `path` with uncompressed chunks of 4 KiB.
pub fn plain_writer(path: &std::path::Path) -> bagscope::bag::writer::BagWriter {
    use bagscope::bag::writer::{BagWriter, WriterOptions};
    BagWriter::create(
        path,
        WriterOptions {
            compression: bagscope::format::Compression::None,
            chunk_size: 4096,
        },
    )
    .unwrap()
}

/// A small deterministic generator (xorshift64) so that failures reproduce.
pub struct XorShift(pub u64);

impl XorShift {
    /// The next number of the sequence.
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}
