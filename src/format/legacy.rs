//! Pre-1.2 layouts, which have no record headers and no message definitions.
//!
//! * `#ROSRECORD V1.1` / `#ROSLOG V1.1`, and version 0 (no version line): per message the
//!   lines `topic`, `md5sum`, `datatype`, then `sec:u32 nsec:u32 len:u32` and the payload.
//! * `#ROSLOG V1.0`: a zero-padded decimal topic count line, that many `topic`, `datatype`,
//!   `md5sum` line triples (the recorder wrote the type before the md5sum; we tell them apart
//!   by shape), then per message a `topic` line, `sec nsec len` and the payload. Times are
//!   offsets from the start of the recording.

use super::cursor::Cursor;
use super::error::{ErrorKind, FormatError, Result};
use super::op::RecordKind;
use crate::time::RosTime;

/// Longest topic or type line accepted.
pub const MAX_LINE: usize = 1024;
/// Longest md5sum line accepted (32 hex digits; `*` for the wildcard).
const MAX_MD5_LINE: usize = 64;

/// One message of a pre-1.2 bag.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LegacyMessage<'a> {
    /// Absolute offset of the message (its first line).
    pub offset: u64,
    /// Topic.
    pub topic: &'a [u8],
    /// md5sum (1.1 and 0; `None` in 1.0 where it is in the topic table).
    pub md5sum: Option<&'a [u8]>,
    /// Type (1.1 and 0; `None` in 1.0).
    pub datatype: Option<&'a [u8]>,
    /// Receive time.
    pub time: RosTime,
    /// Absolute offset of the payload.
    pub data_offset: u64,
    /// The serialized message.
    pub data: &'a [u8],
}

impl LegacyMessage<'_> {
    /// Absolute offset just past the message.
    pub fn end(&self) -> u64 {
        self.data_offset + self.data.len() as u64
    }
}

/// True for a 32-character lowercase or uppercase hex string (or `*`, the wildcard md5sum).
pub fn looks_like_md5(s: &[u8]) -> bool {
    s == b"*" || (s.len() == 32 && s.iter().all(u8::is_ascii_hexdigit))
}

/// True for something shaped like a ROS type name (`pkg/Type`, printable, no spaces).
pub fn looks_like_type(s: &[u8]) -> bool {
    !s.is_empty() && s.contains(&b'/') && s.iter().all(u8::is_ascii_graphic)
}

/// True for something shaped like a topic name (printable, no spaces).
pub fn looks_like_topic(s: &[u8]) -> bool {
    !s.is_empty() && s.iter().all(u8::is_ascii_graphic)
}

fn bad(offset: u64, what: &'static str) -> FormatError {
    FormatError::new(offset, RecordKind::LegacyMessage, ErrorKind::BadLine(what))
}

/// Reads a 1.1 / version-0 message at `pos` of `buf` (first byte at absolute offset `base`).
pub fn read_v11_message(buf: &[u8], pos: usize, base: u64) -> Result<LegacyMessage<'_>> {
    let (mut c, offset, topic) = topic_line(buf, pos, base)?;
    let md5_at = c.offset();
    let md5 = c.line(MAX_MD5_LINE, "md5sum line")?;
    if !looks_like_md5(md5) {
        return Err(bad(md5_at, "the md5sum line is not 32 hex digits"));
    }
    let type_at = c.offset();
    let datatype = c.line(MAX_LINE, "type line")?;
    if !looks_like_type(datatype) {
        return Err(bad(type_at, "the type line is not a type name"));
    }
    finish(c, offset, topic, Some(md5), Some(datatype))
}

/// Reads a 1.0 message (topic line, time, length, payload).
pub fn read_v10_message(buf: &[u8], pos: usize, base: u64) -> Result<LegacyMessage<'_>> {
    let (c, offset, topic) = topic_line(buf, pos, base)?;
    finish(c, offset, topic, None, None)
}

/// The topic line that starts every old message record at `pos` of `buf`: the cursor after
/// it, the record's absolute offset and the topic.
fn topic_line(buf: &[u8], pos: usize, base: u64) -> Result<(Cursor<'_>, u64, &[u8])> {
    let offset = base + pos as u64;
    let mut c = Cursor::new(
        buf.get(pos..).unwrap_or_default(),
        offset,
        RecordKind::LegacyMessage,
    );
    let topic = c.line(MAX_LINE, "topic line")?;
    if !looks_like_topic(topic) {
        return Err(bad(offset, "the topic line is not a topic name"));
    }
    Ok((c, offset, topic))
}

fn finish<'a>(
    mut c: Cursor<'a>,
    offset: u64,
    topic: &'a [u8],
    md5sum: Option<&'a [u8]>,
    datatype: Option<&'a [u8]>,
) -> Result<LegacyMessage<'a>> {
    let time = c.time("message time")?;
    let len = c.u32("message length")?;
    let data_offset = c.offset();
    let data = c.take_len(u64::from(len), "message data")?;
    Ok(LegacyMessage {
        offset,
        topic,
        md5sum,
        datatype,
        time,
        data_offset,
        data,
    })
}

/// One entry of the 1.0 topic table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TopicEntry {
    /// Topic name.
    pub topic: String,
    /// Type name.
    pub datatype: String,
    /// md5sum.
    pub md5sum: String,
}

/// Reads the 1.0 topic table at `pos` (just after the version line). Returns the entries and
/// the position after the table.
pub fn read_v10_topic_table(buf: &[u8], pos: usize, base: u64) -> Result<(Vec<TopicEntry>, usize)> {
    let start = base + pos as u64;
    let mut c = Cursor::new(
        buf.get(pos..).unwrap_or_default(),
        start,
        RecordKind::LegacyTopicTable,
    );
    let count_line = c.line(32, "topic count line")?;
    let count: usize = std::str::from_utf8(count_line)
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .ok_or_else(|| {
            FormatError::new(
                start,
                RecordKind::LegacyTopicTable,
                ErrorKind::BadLine("the topic count is not a number"),
            )
        })?;
    let mut entries = Vec::new();
    for _ in 0..count {
        let at = c.offset();
        let topic = c.line(MAX_LINE, "topic line")?;
        let a = c.line(MAX_LINE, "type line")?;
        let b = c.line(MAX_LINE, "md5sum line")?;
        let (datatype, md5) = if looks_like_md5(b) { (a, b) } else { (b, a) };
        if !looks_like_topic(topic) || !looks_like_md5(md5) {
            return Err(FormatError::new(
                at,
                RecordKind::LegacyTopicTable,
                ErrorKind::BadLine("a topic table entry is not topic, type and md5sum lines"),
            ));
        }
        let s = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
        entries.push(TopicEntry {
            topic: s(topic),
            datatype: s(datatype),
            md5sum: s(md5),
        });
    }
    Ok((entries, pos + c.pos()))
}

/// Encodes a 1.1 / version-0 message (used by tests and fixtures).
pub fn encode_v11_message(
    out: &mut Vec<u8>,
    topic: &str,
    md5sum: &str,
    datatype: &str,
    time: RosTime,
    data: &[u8],
) {
    for line in [topic, md5sum, datatype] {
        out.extend_from_slice(line.as_bytes());
        out.push(b'\n');
    }
    out.extend_from_slice(&time.sec.to_le_bytes());
    out.extend_from_slice(&time.nsec.to_le_bytes());
    out.extend_from_slice(&u32::try_from(data.len()).unwrap_or(u32::MAX).to_le_bytes());
    out.extend_from_slice(data);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_v11_messages() {
        let mut buf = Vec::new();
        encode_v11_message(
            &mut buf,
            "/chatter",
            "992ce8a1687cec8c8bd883ec73ca41d1",
            "std_msgs/String",
            RosTime::new(1, 2),
            b"\x02\0\0\0hi",
        );
        let m = read_v11_message(&buf, 0, 16).unwrap();
        assert_eq!(m.topic, b"/chatter");
        assert_eq!(m.time, RosTime::new(1, 2));
        assert_eq!(m.data, b"\x02\0\0\0hi");
        assert_eq!(m.end(), 16 + buf.len() as u64);
        assert!(read_v11_message(&buf[..buf.len() - 1], 0, 0).is_err());
        assert!(read_v11_message(b"/a\nnot-md5\nx/y\n", 0, 0).is_err());
    }

    #[test]
    fn reads_the_v10_topic_table_in_either_line_order() {
        let buf = b"0002\n/a\nstd_msgs/String\n992ce8a1687cec8c8bd883ec73ca41d1\n/b\nd41d8cd98f00b204e9800998ecf8427e\nstd_msgs/Empty\n/a\n";
        let (entries, end) = read_v10_topic_table(buf, 0, 0).unwrap();
        assert_eq!(entries.len(), 2);
        assert_eq!(entries[0].datatype, "std_msgs/String");
        assert_eq!(entries[1].datatype, "std_msgs/Empty");
        assert_eq!(entries[1].md5sum, "d41d8cd98f00b204e9800998ecf8427e");
        assert_eq!(&buf[end..], b"/a\n");
    }
}
