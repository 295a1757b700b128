//! A bounds-checked little-endian reader over untrusted bytes.

use super::error::{ErrorKind, FormatError, Result};
use super::op::RecordKind;
use crate::time::RosTime;

/// Reads little-endian values from a byte slice; every read checks what is left and reports
/// the absolute offset and record kind on failure.
#[derive(Clone, Debug)]
pub struct Cursor<'a> {
    data: &'a [u8],
    pos: usize,
    base: u64,
    kind: RecordKind,
}

impl<'a> Cursor<'a> {
    /// A cursor over `data`, whose first byte is at absolute offset `base`.
    pub fn new(data: &'a [u8], base: u64, kind: RecordKind) -> Self {
        Cursor {
            data,
            pos: 0,
            base,
            kind,
        }
    }

    /// Position relative to the start of the slice.
    pub fn pos(&self) -> usize {
        self.pos
    }

    /// Absolute offset of the next byte.
    pub fn offset(&self) -> u64 {
        self.base + self.pos as u64
    }

    /// Bytes left.
    pub fn remaining(&self) -> usize {
        self.data.len().saturating_sub(self.pos)
    }

    /// True when nothing is left.
    pub fn is_empty(&self) -> bool {
        self.remaining() == 0
    }

    /// The bytes not read yet.
    pub fn rest(&self) -> &'a [u8] {
        self.data.get(self.pos..).unwrap_or_default()
    }

    /// Builds an error at the current position.
    pub fn error(&self, kind: ErrorKind) -> FormatError {
        FormatError::new(self.offset(), self.kind, kind)
    }

    /// Takes the next `n` bytes.
    pub fn take(&mut self, n: usize, what: &'static str) -> Result<&'a [u8]> {
        let end = self.pos.checked_add(n);
        match end.and_then(|end| self.data.get(self.pos..end)) {
            Some(bytes) => {
                self.pos += n;
                Ok(bytes)
            }
            None => Err(self.error(ErrorKind::Truncated {
                what,
                needed: n as u64,
                available: self.remaining() as u64,
            })),
        }
    }

    /// Takes `n` bytes where `n` comes from the file as a u32/u64.
    pub fn take_len(&mut self, n: u64, what: &'static str) -> Result<&'a [u8]> {
        match usize::try_from(n) {
            Ok(n) => self.take(n, what),
            Err(_) => Err(self.error(ErrorKind::Truncated {
                what,
                needed: n,
                available: self.remaining() as u64,
            })),
        }
    }

    fn array<const N: usize>(&mut self, what: &'static str) -> Result<[u8; N]> {
        let bytes = self.take(N, what)?;
        let mut out = [0u8; N];
        out.copy_from_slice(bytes);
        Ok(out)
    }

    /// Reads one byte.
    pub fn u8(&mut self, what: &'static str) -> Result<u8> {
        Ok(self.array::<1>(what)?[0])
    }

    /// Reads a little-endian u32.
    pub fn u32(&mut self, what: &'static str) -> Result<u32> {
        Ok(u32::from_le_bytes(self.array(what)?))
    }

    /// Reads a little-endian u64.
    pub fn u64(&mut self, what: &'static str) -> Result<u64> {
        Ok(u64::from_le_bytes(self.array(what)?))
    }

    /// Reads a ROS time (`sec:u32, nsec:u32`).
    pub fn time(&mut self, what: &'static str) -> Result<RosTime> {
        let sec = self.u32(what)?;
        let nsec = self.u32(what)?;
        Ok(RosTime::new(sec, nsec))
    }

    /// Reads bytes up to (not including) the next `\n`, and skips the newline. Fails if no
    /// newline appears within `max` bytes.
    pub fn line(&mut self, max: usize, what: &'static str) -> Result<&'a [u8]> {
        let rest = self.rest();
        let window = rest.get(..max.min(rest.len())).unwrap_or(rest);
        match window.iter().position(|&b| b == b'\n') {
            Some(i) => {
                let line = self.take(i, what)?;
                self.pos += 1;
                Ok(line)
            }
            None => Err(self.error(ErrorKind::Truncated {
                what,
                needed: window.len() as u64 + 1,
                available: window.len() as u64,
            })),
        }
    }
}

/// Reads a little-endian u32 from a slice of exactly 4 bytes.
pub fn le_u32(bytes: &[u8]) -> Option<u32> {
    Some(u32::from_le_bytes(bytes.try_into().ok()?))
}

/// Reads a little-endian u64 from a slice of exactly 8 bytes.
pub fn le_u64(bytes: &[u8]) -> Option<u64> {
    Some(u64::from_le_bytes(bytes.try_into().ok()?))
}

/// Reads a ROS time from a slice of exactly 8 bytes.
pub fn le_time(bytes: &[u8]) -> Option<RosTime> {
    let sec = le_u32(bytes.get(..4)?)?;
    let nsec = le_u32(bytes.get(4..8)?)?;
    (bytes.len() == 8).then_some(RosTime::new(sec, nsec))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_values_and_reports_short_input() {
        let bytes = [1, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 9];
        let mut c = Cursor::new(&bytes, 100, RecordKind::Record);
        assert_eq!(c.u32("a").unwrap(), 1);
        assert_eq!(c.u64("b").unwrap(), 2);
        assert_eq!(c.offset(), 112);
        let err = c.u32("c").unwrap_err();
        assert_eq!(err.offset, 112);
        assert_eq!(
            err.kind,
            ErrorKind::Truncated {
                what: "c",
                needed: 4,
                available: 1
            }
        );
        assert_eq!(c.u8("d").unwrap(), 9);
        assert!(c.is_empty());
    }

    #[test]
    fn huge_lengths_are_errors_not_panics() {
        let mut c = Cursor::new(&[0u8; 4], 0, RecordKind::Record);
        assert!(c.take_len(u64::MAX, "x").is_err());
        assert!(c.take(usize::MAX, "x").is_err());
        assert_eq!(c.remaining(), 4);
    }

    #[test]
    fn lines_need_a_newline_within_the_limit() {
        let mut c = Cursor::new(b"abc\ndef", 0, RecordKind::Record);
        assert_eq!(c.line(10, "l").unwrap(), b"abc");
        assert!(c.line(10, "l").is_err());
        let mut c = Cursor::new(b"abcdef\n", 0, RecordKind::Record);
        assert!(c.line(3, "l").is_err());
    }
}
