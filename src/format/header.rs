//! Record headers: a sequence of `len:u32, name '=' value` fields.

use super::cursor::{Cursor, le_time, le_u32, le_u64};
use super::error::{ErrorKind, FormatError, Result};
use super::op::RecordKind;
use crate::time::RosTime;

/// One `name=value` field of a header. The value is raw bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Field<'a> {
    /// The field name (bytes before the first `=`).
    pub name: &'a [u8],
    /// The value (everything after the first `=`).
    pub value: &'a [u8],
    /// Absolute offset of the value.
    pub offset: u64,
}

/// Iterates over the fields of a header, checking each length against what is left.
#[derive(Clone, Debug)]
pub struct FieldIter<'a> {
    cursor: Cursor<'a>,
    kind: RecordKind,
    failed: bool,
}

impl<'a> FieldIter<'a> {
    /// Iterates over the fields in `bytes`, whose first byte is at absolute offset `base`.
    pub fn new(bytes: &'a [u8], base: u64, kind: RecordKind) -> Self {
        FieldIter {
            cursor: Cursor::new(bytes, base, kind),
            kind,
            failed: false,
        }
    }

    fn next_field(&mut self) -> Result<Field<'a>> {
        let len = self.cursor.u32("header field length")?;
        let start = self.cursor.offset();
        let body = self.cursor.take_len(u64::from(len), "header field")?;
        let eq = body
            .iter()
            .position(|&b| b == b'=')
            .ok_or_else(|| FormatError::new(start, self.kind, ErrorKind::FieldWithoutSeparator))?;
        let (name, rest) = body.split_at(eq);
        let value = rest.get(1..).unwrap_or_default();
        Ok(Field {
            name,
            value,
            offset: start + eq as u64 + 1,
        })
    }
}

impl<'a> Iterator for FieldIter<'a> {
    type Item = Result<Field<'a>>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed || self.cursor.is_empty() {
            return None;
        }
        let item = self.next_field();
        self.failed = item.is_err();
        Some(item)
    }
}

/// A validated header: all fields are well formed, lookups cannot fail structurally.
#[derive(Clone, Copy, Debug)]
pub struct Header<'a> {
    bytes: &'a [u8],
    base: u64,
    kind: RecordKind,
}

impl<'a> Header<'a> {
    /// Validates the field structure of `bytes` (at absolute offset `base`).
    pub fn parse(bytes: &'a [u8], base: u64, kind: RecordKind) -> Result<Self> {
        for field in FieldIter::new(bytes, base, kind) {
            field?;
        }
        Ok(Header { bytes, base, kind })
    }

    /// The raw header bytes.
    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// Absolute offset of the first header byte.
    pub fn base(&self) -> u64 {
        self.base
    }

    /// The record kind used in errors.
    pub fn kind(&self) -> RecordKind {
        self.kind
    }

    /// Returns the same header with another record kind for error messages.
    #[must_use]
    pub fn with_kind(mut self, kind: RecordKind) -> Self {
        self.kind = kind;
        self
    }

    /// All fields in order.
    pub fn fields(&self) -> impl Iterator<Item = Field<'a>> + use<'a> {
        FieldIter::new(self.bytes, self.base, self.kind).filter_map(Result::ok)
    }

    /// The last field called `name` (later fields override earlier ones, as in rosbag).
    pub fn get(&self, name: &str) -> Option<Field<'a>> {
        self.fields().filter(|f| f.name == name.as_bytes()).last()
    }

    fn error(&self, offset: u64, kind: ErrorKind) -> FormatError {
        FormatError::new(offset, self.kind, kind)
    }

    /// Looks up several fields in one pass: the last field of each name, in the order asked.
    pub fn pick<const N: usize>(&self, names: [&str; N]) -> [Option<Field<'a>>; N] {
        let mut out = [None; N];
        for f in self.fields() {
            for (slot, name) in out.iter_mut().zip(names) {
                if f.name == name.as_bytes() {
                    *slot = Some(f);
                }
            }
        }
        out
    }

    /// Converts a field found by [`Header::pick`] with `conv`, or reports it missing or of the
    /// wrong size.
    pub fn convert<T>(
        &self,
        field: Option<Field<'a>>,
        name: &'static str,
        expected: usize,
        conv: impl Fn(&[u8]) -> Option<T>,
    ) -> Result<T> {
        let field = field.ok_or_else(|| self.error(self.base, ErrorKind::MissingField(name)))?;
        conv(field.value).ok_or_else(|| {
            self.error(
                field.offset,
                ErrorKind::FieldSize {
                    name,
                    len: field.value.len(),
                    expected,
                },
            )
        })
    }

    /// A u32 field found by [`Header::pick`].
    pub fn u32_of(&self, field: Option<Field<'a>>, name: &'static str) -> Result<u32> {
        self.convert(field, name, 4, le_u32)
    }

    /// A u64 field found by [`Header::pick`].
    pub fn u64_of(&self, field: Option<Field<'a>>, name: &'static str) -> Result<u64> {
        self.convert(field, name, 8, le_u64)
    }

    /// A time field found by [`Header::pick`].
    pub fn time_of(&self, field: Option<Field<'a>>, name: &'static str) -> Result<RosTime> {
        self.convert(field, name, 8, le_time)
    }

    /// The field called `name`, or a `MissingField` error.
    pub fn required(&self, name: &'static str) -> Result<Field<'a>> {
        self.get(name)
            .ok_or_else(|| self.error(self.base, ErrorKind::MissingField(name)))
    }

    fn sized<T>(
        &self,
        name: &'static str,
        expected: usize,
        conv: impl Fn(&[u8]) -> Option<T>,
    ) -> Result<T> {
        self.convert(Some(self.required(name)?), name, expected, conv)
    }

    /// The `op` byte.
    pub fn op(&self) -> Result<u8> {
        self.op_of(self.get("op"))
    }

    /// The `op` byte from its field found by [`Header::pick`] (errors as [`Header::op`]).
    pub fn op_of(&self, field: Option<Field<'a>>) -> Result<u8> {
        match field {
            None => Err(self.error(self.base, ErrorKind::MissingOp)),
            Some(f) => match f.value {
                [b] => Ok(*b),
                v => Err(self.error(
                    f.offset,
                    ErrorKind::FieldSize {
                        name: "op",
                        len: v.len(),
                        expected: 1,
                    },
                )),
            },
        }
    }

    /// A required little-endian u32 field.
    pub fn u32(&self, name: &'static str) -> Result<u32> {
        self.sized(name, 4, le_u32)
    }

    /// A required little-endian u64 field.
    pub fn u64(&self, name: &'static str) -> Result<u64> {
        self.sized(name, 8, le_u64)
    }

    /// A required time field (8 bytes).
    pub fn time(&self, name: &'static str) -> Result<RosTime> {
        self.sized(name, 8, le_time)
    }

    /// A required field as text (invalid UTF-8 replaced).
    pub fn string(&self, name: &'static str) -> Result<String> {
        Ok(String::from_utf8_lossy(self.required(name)?.value).into_owned())
    }

    /// An optional field as text (invalid UTF-8 replaced).
    pub fn opt_string(&self, name: &str) -> Option<String> {
        self.get(name)
            .map(|f| String::from_utf8_lossy(f.value).into_owned())
    }
}

/// Appends one `name=value` field (with its length prefix) to `out`.
pub fn write_field(out: &mut Vec<u8>, name: &str, value: &[u8]) {
    let len = name.len() + 1 + value.len();
    out.extend_from_slice(&u32::try_from(len).unwrap_or(u32::MAX).to_le_bytes());
    out.extend_from_slice(name.as_bytes());
    out.push(b'=');
    out.extend_from_slice(value);
}

/// The hot path of reading many record headers: the header at the start of `buf` (its
/// 4-byte length, then fields), each field handed to `field(name, value)` in order (a later
/// field of the same name overrides an earlier one, as in [`Header::pick`]). Gives the header's
/// length and the bytes after it; `None` when any length or field is malformed (the general
/// [`Header::parse`] then tells what).
pub fn walk_fast<'a>(
    buf: &'a [u8],
    mut field: impl FnMut(&'a [u8], &'a [u8]),
) -> Option<(usize, &'a [u8])> {
    let (header_len, rest) = buf.split_first_chunk::<4>()?;
    let header_len = usize::try_from(u32::from_le_bytes(*header_len)).ok()?;
    let (mut header, rest) = rest.split_at_checked(header_len)?;
    while !header.is_empty() {
        let (len, tail) = header.split_first_chunk::<4>()?;
        let len = usize::try_from(u32::from_le_bytes(*len)).ok()?;
        let (f, tail) = tail.split_at_checked(len)?;
        header = tail;
        let eq = f.iter().position(|&b| b == b'=')?;
        field(f.get(..eq)?, f.get(eq + 1..)?);
    }
    Some((header_len, rest))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(fields: &[(&str, &[u8])]) -> Vec<u8> {
        let mut out = Vec::new();
        for (n, v) in fields {
            write_field(&mut out, n, v);
        }
        out
    }

    #[test]
    fn finds_fields_and_splits_on_first_equals() {
        let bytes = header(&[
            ("op", &[2]),
            ("topic", b"/a=b"),
            ("conn", &7u32.to_le_bytes()),
        ]);
        let h = Header::parse(&bytes, 0, RecordKind::Record).unwrap();
        assert_eq!(h.op().unwrap(), 2);
        assert_eq!(h.string("topic").unwrap(), "/a=b");
        assert_eq!(h.u32("conn").unwrap(), 7);
        assert!(h.u64("conn").is_err());
        assert!(matches!(
            h.u32("missing").unwrap_err().kind,
            ErrorKind::MissingField("missing")
        ));
    }

    #[test]
    fn later_fields_override_earlier_ones() {
        let bytes = header(&[("op", &[2]), ("op", &[3])]);
        let h = Header::parse(&bytes, 0, RecordKind::Record).unwrap();
        assert_eq!(h.op().unwrap(), 3);
    }

    #[test]
    fn rejects_lying_lengths_and_missing_separator() {
        let mut bytes = header(&[("op", &[2])]);
        bytes[0] = 200;
        assert!(Header::parse(&bytes, 0, RecordKind::Record).is_err());
        let mut bytes = Vec::new();
        bytes.extend_from_slice(&3u32.to_le_bytes());
        bytes.extend_from_slice(b"abc");
        let err = Header::parse(&bytes, 10, RecordKind::Chunk).unwrap_err();
        assert_eq!(err.kind, ErrorKind::FieldWithoutSeparator);
        assert_eq!(err.offset, 14);
        assert_eq!(err.record, RecordKind::Chunk);
        // A stray byte after the last field is a truncated length.
        let mut bytes = header(&[("op", &[2])]);
        bytes.push(1);
        assert!(Header::parse(&bytes, 0, RecordKind::Record).is_err());
    }
}
