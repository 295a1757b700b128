//! MCAP records (<https://mcap.dev/spec>): the magic, the framing (opcode, `u64` length,
//! body) and the bodies, read through the `mcap` crate's `parse_record` with our errors
//! (offset and record kind). Pure, like the rest of `format/`: slices in, records out.
//!
//! Attachment records are not handed to the crate: its parser slices the body before
//! checking its length (a short attachment record would panic), so [`attachment_head`]
//! reads what is listed of them here.

use mcap::records::Record;

use super::error::{ErrorKind, FormatError};
use super::op::RecordKind;

/// The eight bytes an MCAP file starts and ends with.
pub const MAGIC: &[u8; 8] = b"\x89MCAP0\r\n";

pub mod op;

/// Bytes of a record's frame: opcode and length.
pub const FRAME: u64 = 9;

/// [`FRAME`] as an index.
pub const FRAME_LEN: usize = 9;

/// Bytes of a footer record with the closing magic.
pub const FOOTER_LEN: u64 = FRAME + 20 + 8;

/// True when `buf` starts with the MCAP magic.
pub fn is_mcap(buf: &[u8]) -> bool {
    buf.starts_with(MAGIC)
}

/// One framed record of a run of bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Frame<'a> {
    /// The opcode.
    pub op: u8,
    /// Where the record starts in the run.
    pub at: u64,
    /// The body (all of it: the length said so and the run holds it).
    pub body: &'a [u8],
    /// Where the next record starts.
    pub end: u64,
}

/// The record at `at` of `bytes`. `base` is added to offsets in errors (the run's place in
/// the file). A record whose body the run does not hold is `Truncated`.
pub fn frame_at(bytes: &[u8], at: u64, base: u64) -> Result<Frame<'_>, FormatError> {
    let start = usize::try_from(at).unwrap_or(usize::MAX);
    let rest = bytes.get(start..).unwrap_or_default();
    let cut = |needed: u64| {
        FormatError::new(
            base.saturating_add(at),
            RecordKind::Mcap(rest.first().copied().unwrap_or(0)),
            ErrorKind::Truncated {
                what: "MCAP record",
                needed,
                available: rest.len() as u64,
            },
        )
    };
    let Some((&op, tail)) = rest.split_first() else {
        return Err(cut(FRAME));
    };
    let Some((len, body)) = tail.split_first_chunk::<8>() else {
        return Err(cut(FRAME));
    };
    let len = u64::from_le_bytes(*len);
    let body = usize::try_from(len)
        .ok()
        .and_then(|n| body.get(..n))
        .ok_or_else(|| cut(FRAME.saturating_add(len)))?;
    Ok(Frame {
        op,
        at,
        body,
        end: at.saturating_add(FRAME).saturating_add(len),
    })
}

/// The record length stated at `at` of `bytes` (the record need not be all there).
pub fn stated_len(bytes: &[u8], at: u64) -> Option<(u8, u64)> {
    let start = usize::try_from(at).ok()?;
    let rest = bytes.get(start..)?;
    let (&op, tail) = rest.split_first()?;
    let len = tail.first_chunk::<8>()?;
    Some((op, u64::from_le_bytes(*len)))
}

/// Parses a record body with the `mcap` crate. `offset`: where the record starts in the file
/// (for errors). Attachment records are refused (see [`attachment_head`]).
pub fn parse(frame: &Frame<'_>, offset: u64) -> Result<Record<'static>, FormatError> {
    parse_borrowed(frame, offset).map(Record::into_owned)
}

/// [`parse`] borrowing from the frame's bytes.
pub fn parse_borrowed<'a>(frame: &Frame<'a>, offset: u64) -> Result<Record<'a>, FormatError> {
    let malformed = |reason: String| {
        FormatError::new(
            offset,
            RecordKind::Mcap(frame.op),
            ErrorKind::BadValue {
                name: "body",
                reason,
            },
        )
    };
    if frame.op == op::ATTACHMENT {
        return Err(malformed(
            "attachments are read with attachment_head".into(),
        ));
    }
    mcap::read::parse_record(frame.op, frame.body).map_err(|e| malformed(e.to_string()))
}

/// What an attachment record says of itself (not its data).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AttachmentHead {
    /// Log time (ns).
    pub log_time: u64,
    /// Creation time (ns).
    pub create_time: u64,
    /// Name.
    pub name: String,
    /// Media type.
    pub media_type: String,
    /// Bytes of data.
    pub data_size: u64,
}

/// Reads an attachment record's fields up to its data length.
pub fn attachment_head(frame: &Frame<'_>, offset: u64) -> Result<AttachmentHead, FormatError> {
    let bad = |what: &'static str| {
        FormatError::new(
            offset,
            RecordKind::Mcap(op::ATTACHMENT),
            ErrorKind::Truncated {
                what,
                needed: 8,
                available: frame.body.len() as u64,
            },
        )
    };
    let mut b = frame.body;
    let mut u64_ = |what| -> Result<u64, FormatError> {
        let (v, rest) = b.split_first_chunk::<8>().ok_or_else(|| bad(what))?;
        b = rest;
        Ok(u64::from_le_bytes(*v))
    };
    let log_time = u64_("attachment log time")?;
    let create_time = u64_("attachment create time")?;
    let mut string = |what| -> Result<String, FormatError> {
        let (n, rest) = b.split_first_chunk::<4>().ok_or_else(|| bad(what))?;
        let n = u32::from_le_bytes(*n) as usize;
        let s = rest.get(..n).ok_or_else(|| bad(what))?;
        b = rest.get(n..).unwrap_or_default();
        Ok(String::from_utf8_lossy(s).into_owned())
    };
    let name = string("attachment name")?;
    let media_type = string("attachment media type")?;
    let (n, _) = b
        .split_first_chunk::<8>()
        .ok_or_else(|| bad("attachment data length"))?;
    Ok(AttachmentHead {
        log_time,
        create_time,
        name,
        media_type,
        data_size: u64::from_le_bytes(*n),
    })
}

/// Bytes of a chunk record's body before its compressed records: start and end times,
/// uncompressed size and CRC, the compression string and the records' length.
pub fn chunk_prefix_len(compression: &str) -> u64 {
    8 + 8 + 8 + 4 + 4 + compression.len() as u64 + 8
}

/// What a chunk record's body says before its compressed records (read even when the
/// records are cut off).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChunkPrefix {
    /// Earliest message log time (ns).
    pub message_start_time: u64,
    /// Latest message log time (ns).
    pub message_end_time: u64,
    /// Declared uncompressed size.
    pub uncompressed_size: u64,
    /// CRC-32 of the uncompressed records (0: none).
    pub uncompressed_crc: u32,
    /// Compression name (`""`, `zstd`, `lz4`).
    pub compression: String,
    /// Declared compressed size.
    pub compressed_size: u64,
    /// Where the compressed records start in the body.
    pub records_start: usize,
}

/// Reads a chunk record body's fields before its records; `None` when the body is too short
/// to hold them.
pub fn chunk_prefix(body: &[u8]) -> Option<ChunkPrefix> {
    let (start, b) = body.split_first_chunk::<8>()?;
    let (end, b) = b.split_first_chunk::<8>()?;
    let (size, b) = b.split_first_chunk::<8>()?;
    let (crc, b) = b.split_first_chunk::<4>()?;
    let (n, b) = b.split_first_chunk::<4>()?;
    let n = usize::try_from(u32::from_le_bytes(*n)).ok()?;
    let compression = b.get(..n)?;
    let (compressed, _) = b.get(n..)?.split_first_chunk::<8>()?;
    Some(ChunkPrefix {
        message_start_time: u64::from_le_bytes(*start),
        message_end_time: u64::from_le_bytes(*end),
        uncompressed_size: u64::from_le_bytes(*size),
        uncompressed_crc: u32::from_le_bytes(*crc),
        compression: String::from_utf8_lossy(compression).into_owned(),
        compressed_size: u64::from_le_bytes(*compressed),
        records_start: 8 + 8 + 8 + 4 + 4 + n + 8,
    })
}

/// A message record inside a run of bytes, read in one pass with every length checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MessageAt {
    /// Channel id.
    pub channel: u16,
    /// Sequence number.
    pub sequence: u32,
    /// Log time (ns).
    pub log_time: u64,
    /// Publish time (ns).
    pub publish_time: u64,
    /// Where the payload starts in the run.
    pub data_start: usize,
    /// Where it ends.
    pub data_end: usize,
}

/// The message record at `at` of `bytes`; `None` when it is not a whole message record.
#[inline]
pub fn message_at(bytes: &[u8], at: usize) -> Option<MessageAt> {
    let rest = bytes.get(at..)?;
    let (&opcode, rest) = rest.split_first()?;
    if opcode != op::MESSAGE {
        return None;
    }
    let (len, rest) = rest.split_first_chunk::<8>()?;
    let len = usize::try_from(u64::from_le_bytes(*len)).ok()?;
    let body = rest.get(..len)?;
    let (channel, body) = body.split_first_chunk::<2>()?;
    let (sequence, body) = body.split_first_chunk::<4>()?;
    let (log_time, body) = body.split_first_chunk::<8>()?;
    let (publish_time, _) = body.split_first_chunk::<8>()?;
    let data_start = at.checked_add(9 + 22)?;
    Some(MessageAt {
        channel: u16::from_le_bytes(*channel),
        sequence: u32::from_le_bytes(*sequence),
        log_time: u64::from_le_bytes(*log_time),
        publish_time: u64::from_le_bytes(*publish_time),
        data_start,
        data_end: at.checked_add(9)?.checked_add(len)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_and_messages_are_read_with_every_length_checked() {
        let mut m = vec![op::MESSAGE];
        m.extend_from_slice(&(22u64 + 3).to_le_bytes());
        m.extend_from_slice(&7u16.to_le_bytes());
        m.extend_from_slice(&1u32.to_le_bytes());
        m.extend_from_slice(&5u64.to_le_bytes());
        m.extend_from_slice(&6u64.to_le_bytes());
        m.extend_from_slice(b"abc");
        let f = frame_at(&m, 0, 0).unwrap();
        assert_eq!((f.op, f.end), (op::MESSAGE, m.len() as u64));
        let msg = message_at(&m, 0).unwrap();
        assert_eq!((msg.channel, msg.log_time), (7, 5));
        assert_eq!(&m[msg.data_start..msg.data_end], b"abc");
        for cut in 0..m.len() {
            assert!(message_at(&m[..cut], 0).is_none());
            assert!(frame_at(&m[..cut], 0, 100).is_err());
        }
        match parse_borrowed(&f, 0).unwrap() {
            Record::Message { header, data } => {
                assert_eq!(header.channel_id, 7);
                assert_eq!(&data[..], b"abc");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_short_attachment_is_an_error_not_a_panic() {
        let mut a = vec![op::ATTACHMENT];
        a.extend_from_slice(&10u64.to_le_bytes());
        a.extend_from_slice(&[0; 10]);
        let f = frame_at(&a, 0, 0).unwrap();
        assert!(attachment_head(&f, 0).is_err());
        assert!(parse(&f, 0).is_err());
    }
}
