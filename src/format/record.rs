//! The generic record frame: `header_len:u32, header, data_len:u32, data`.

use super::cursor::Cursor;
use super::error::{ErrorKind, Result};
use super::header::{Header, write_field};
use super::op::{Op, RecordKind};

/// A record's header and the declared length of its data, read without requiring the data to
/// be present (recovery of truncated files needs this).
#[derive(Clone, Copy, Debug)]
pub struct RecordHead<'a> {
    /// Absolute offset of the record (its `header_len` field).
    pub offset: u64,
    /// The validated header.
    pub header: Header<'a>,
    /// Declared data length.
    pub data_len: u32,
    /// Absolute offset of the first data byte.
    pub data_offset: u64,
}

impl RecordHead<'_> {
    /// Absolute offset just past the record, if its data were complete.
    pub fn end(&self) -> u64 {
        self.data_offset + u64::from(self.data_len)
    }

    /// The record's op, as a known [`Op`] or the raw byte.
    pub fn op(&self) -> Result<Result<Op, u8>> {
        let b = self.header.op()?;
        Ok(Op::from_byte(b).ok_or(b))
    }
}

/// A complete record: header and data.
#[derive(Clone, Copy, Debug)]
pub struct Record<'a> {
    /// Absolute offset of the record (its `header_len` field).
    pub offset: u64,
    /// The validated header.
    pub header: Header<'a>,
    /// The data bytes.
    pub data: &'a [u8],
    /// Absolute offset of the first data byte.
    pub data_offset: u64,
}

impl Record<'_> {
    /// Absolute offset just past the record.
    pub fn end(&self) -> u64 {
        self.data_offset + self.data.len() as u64
    }

    /// The record's op, as a known [`Op`] or the raw byte.
    pub fn op(&self) -> Result<Result<Op, u8>> {
        let b = self.header.op()?;
        Ok(Op::from_byte(b).ok_or(b))
    }

    /// Fails unless the record has op `expected`.
    pub fn expect_op(&self, expected: Op) -> Result<()> {
        let found = self.header.op()?;
        if found == expected.byte() {
            Ok(())
        } else {
            Err(super::error::FormatError::new(
                self.offset,
                expected.kind(),
                ErrorKind::UnexpectedOp {
                    found,
                    expected: expected.kind(),
                },
            ))
        }
    }
}

/// Where the record at `at` of `buf` ends by its length fields, if it is whole in `buf`.
pub fn record_end(buf: &[u8], at: usize) -> Option<usize> {
    let header_len = buf
        .get(at..)?
        .first_chunk::<4>()
        .map(|b| u32::from_le_bytes(*b))?;
    let data_at = at.checked_add(4)?.checked_add(header_len as usize)?;
    let data_len = buf
        .get(data_at..)?
        .first_chunk::<4>()
        .map(|b| u32::from_le_bytes(*b))?;
    let end = data_at.checked_add(4)?.checked_add(data_len as usize)?;
    (end <= buf.len()).then_some(end)
}

/// Reads the header of the record at `pos` in `buf` (whose first byte is at absolute offset
/// `base`) and the declared data length; the data itself may be missing.
pub fn read_head(buf: &[u8], pos: usize, base: u64) -> Result<RecordHead<'_>> {
    let tail = buf.get(pos..).unwrap_or_default();
    let offset = base + pos as u64;
    let mut c = Cursor::new(tail, offset, RecordKind::Record);
    let header_len = c.u32("record header length")?;
    let header_offset = c.offset();
    let header_bytes = c.take_len(u64::from(header_len), "record header")?;
    let header = Header::parse(header_bytes, header_offset, RecordKind::Record)?;
    let data_len = c.u32("record data length")?;
    Ok(RecordHead {
        offset,
        header,
        data_len,
        data_offset: c.offset(),
    })
}

/// Reads the complete record at `pos` in `buf` (whose first byte is at absolute offset `base`).
pub fn read_record(buf: &[u8], pos: usize, base: u64) -> Result<Record<'_>> {
    let head = read_head(buf, pos, base)?;
    let start = usize::try_from(head.data_offset - base).unwrap_or(usize::MAX);
    let mut c = Cursor::new(
        buf.get(start..).unwrap_or_default(),
        head.data_offset,
        RecordKind::Record,
    );
    let kind = head
        .header
        .op()
        .ok()
        .and_then(Op::from_byte)
        .map_or(RecordKind::Record, Op::kind);
    let data = c
        .take_len(u64::from(head.data_len), "record data")
        .map_err(|mut e| {
            e.record = kind;
            e
        })?;
    Ok(Record {
        offset: head.offset,
        header: head.header.with_kind(kind),
        data,
        data_offset: head.data_offset,
    })
}

/// Appends a record made of `fields` and `data` to `out`.
///
/// Lengths above `u32::MAX` cannot be represented; callers that take sizes from outside (the
/// writer) check them first.
pub fn write_record(out: &mut Vec<u8>, fields: &[(&str, &[u8])], data: &[u8]) {
    write_record_head(out, fields, u32::try_from(data.len()).unwrap_or(u32::MAX));
    out.extend_from_slice(data);
}

/// Appends the part of a record before its data: `header_len`, the header made of `fields`,
/// and `data_len`. The caller writes the `data_len` data bytes next (the writer streams a
/// chunk's compressed data this way instead of copying it).
pub fn write_record_head(out: &mut Vec<u8>, fields: &[(&str, &[u8])], data_len: u32) {
    let mut header = Vec::with_capacity(64);
    for (name, value) in fields {
        write_field(&mut header, name, value);
    }
    out.extend_from_slice(
        &u32::try_from(header.len())
            .unwrap_or(u32::MAX)
            .to_le_bytes(),
    );
    out.extend_from_slice(&header);
    out.extend_from_slice(&data_len.to_le_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_record_and_reports_missing_data() {
        let mut buf = vec![0xAA; 3];
        write_record(
            &mut buf,
            &[("op", &[2]), ("conn", &1u32.to_le_bytes())],
            b"hello",
        );
        let r = read_record(&buf, 3, 1000).unwrap();
        assert_eq!(r.offset, 1003);
        assert_eq!(r.op().unwrap(), Ok(Op::MessageData));
        assert_eq!(r.data, b"hello");
        assert_eq!(r.end(), 1000 + buf.len() as u64);
        let short = &buf[..buf.len() - 2];
        let err = read_record(short, 3, 1000).unwrap_err();
        assert_eq!(err.record, RecordKind::MessageData);
        let head = read_head(short, 3, 1000).unwrap();
        assert_eq!(head.data_len, 5);
    }

    #[test]
    fn unknown_ops_are_reported_as_raw_bytes() {
        let mut buf = Vec::new();
        write_record(&mut buf, &[("op", &[0x42])], b"");
        assert_eq!(read_record(&buf, 0, 0).unwrap().op().unwrap(), Err(0x42));
    }
}
