//! The checked reader both ROS1 walks (`decode` and `validate`) read the payload through:
//! every read bounds-checked, errors naming the offset; and the limits every walk (ROS1 and
//! CDR) applies ([`values_allowed`], [`MAX_ZERO_SIZE_ELEMENTS`]).

use crate::msg::decoded::Span;
use crate::msg::error::{DecodeError, DecodeErrorKind};

/// Elements allowed in a variable-length array whose elements occupy no bytes
/// (`std_msgs/Empty[]`), where the remaining payload cannot bound the count read from it.
pub const MAX_ZERO_SIZE_ELEMENTS: usize = 1 << 16;

/// The most values (nodes) a message of `bytes` bytes may decode to: 8 per byte plus room for
/// arrays of empty messages. Every value but a nested message or an empty array takes at least
/// one byte, so real messages stay far below it.
pub fn values_allowed(bytes: usize) -> usize {
    bytes
        .saturating_mul(8)
        .saturating_add(2 * MAX_ZERO_SIZE_ELEMENTS)
}

/// What the walks return.
pub(super) type Result<T> = std::result::Result<T, DecodeError>;

/// A position in the payload. Every read is checked; errors name the offset (the field path
/// is added by the caller). Both walks use it: [`decode`] and [`validate`].
pub(super) struct Reader<'a> {
    pub(super) data: &'a [u8],
    pub(super) pos: usize,
}

impl<'a> Reader<'a> {
    #[inline]
    pub(super) fn remaining(&self) -> usize {
        self.data.len().saturating_sub(self.pos)
    }

    #[cold]
    #[inline(never)]
    pub(super) fn truncated(&self, needed: usize) -> DecodeError {
        DecodeError::new(
            self.pos,
            DecodeErrorKind::Truncated {
                needed: needed as u64,
                available: self.remaining() as u64,
            },
        )
    }

    #[inline]
    pub(super) fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        match self
            .pos
            .checked_add(n)
            .and_then(|end| self.data.get(self.pos..end))
        {
            Some(bytes) => {
                self.pos += n;
                Ok(bytes)
            }
            None => Err(self.truncated(n)),
        }
    }

    #[inline]
    pub(super) fn fixed<const N: usize>(&mut self) -> Result<[u8; N]> {
        match self.data.get(self.pos..).and_then(<[u8]>::first_chunk::<N>) {
            Some(bytes) => {
                self.pos += N;
                Ok(*bytes)
            }
            None => Err(self.truncated(N)),
        }
    }

    #[inline]
    pub(super) fn u32(&mut self) -> Result<u32> {
        self.fixed::<4>().map(u32::from_le_bytes)
    }

    /// Checks that `count` elements of at least `min_size` bytes can fit in what is left
    /// (a count read from the payload for elements of no bytes: at most
    /// [`MAX_ZERO_SIZE_ELEMENTS`]; a declared length `T[n]` of them is the definition's, and
    /// [`values_allowed`] bounds what decoding it builds). `at` is the offset to report.
    #[inline]
    pub(super) fn check_count(
        &self,
        count: usize,
        min_size: usize,
        declared: bool,
        at: usize,
    ) -> Result<()> {
        let needed = count.checked_mul(min_size);
        let fits = match needed {
            Some(0) => declared || count <= MAX_ZERO_SIZE_ELEMENTS,
            Some(n) => n <= self.remaining(),
            None => false,
        };
        if fits {
            Ok(())
        } else {
            Err(self.too_long(count, needed, at))
        }
    }

    #[cold]
    #[inline(never)]
    pub(super) fn too_long(&self, count: usize, needed: Option<usize>, at: usize) -> DecodeError {
        DecodeError::new(
            at,
            DecodeErrorKind::ArrayTooLong {
                count: count as u64,
                needed: needed.map_or(u64::MAX, |n| n as u64),
                available: self.remaining() as u64,
            },
        )
    }

    /// Reads an array's element count (`Some(n)` for `T[n]`, from the payload for `T[]`) and
    /// checks that many elements of at least `min_size` bytes can fit.
    #[inline]
    pub(super) fn count(&mut self, fixed: Option<usize>, min_size: usize) -> Result<usize> {
        let at = self.pos;
        let count = match fixed {
            Some(n) => n,
            None => self.u32()? as usize,
        };
        self.check_count(count, min_size, fixed.is_some(), at)?;
        Ok(count)
    }

    /// A string's bytes (length prefix checked against what is left).
    #[inline]
    pub(super) fn string(&mut self) -> Result<&'a [u8]> {
        let at = self.pos;
        let len = self.u32()? as usize;
        if len > self.remaining() {
            // The length the string declares, against what follows its length field.
            let available = self.remaining() as u64;
            self.pos = at;
            return Err(DecodeError::new(
                at,
                DecodeErrorKind::Truncated {
                    needed: len as u64,
                    available,
                },
            ));
        }
        self.take(len)
    }

    /// Where the next `n` bytes are, as a span of the payload (which is at most 4 GiB, as a
    /// record's data length is a `u32`).
    #[inline]
    pub(super) fn span(&mut self, n: usize) -> Result<Span> {
        let at = self.pos;
        let bytes = self.take(n)?;
        span_at(at, bytes.len())
    }

    /// Where the next string's bytes are (length prefix checked as [`Reader::string`] does).
    #[inline]
    pub(super) fn string_span(&mut self) -> Result<Span> {
        let bytes = self.string()?;
        span_at(self.pos - bytes.len(), bytes.len())
    }
}

#[inline]
pub(super) fn span_at(at: usize, len: usize) -> Result<Span> {
    match (u32::try_from(at), u32::try_from(len)) {
        (Ok(at), Ok(len)) => Ok(Span { at, len }),
        _ => Err(DecodeError::new(
            at,
            DecodeErrorKind::TooManyValues {
                limit: u64::from(u32::MAX),
                bytes: at.saturating_add(len) as u64,
            },
        )),
    }
}
