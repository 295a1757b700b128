//! Cheap, shareable handles to bag bytes: a range of a chunk read from the file, of a
//! decompressed chunk, or of the whole-file view of older layouts. Cloning never copies data.

use std::ops::{Deref, Range};
use std::sync::Arc;

use super::source::Source;

/// Shared storage a [`Bytes`] points into.
#[derive(Clone, Debug)]
enum Backing {
    Source(Arc<Source>),
    Owned(Arc<Vec<u8>>),
}

/// A slice of a bag's bytes that keeps its storage alive.
#[derive(Clone, Debug)]
pub struct Bytes {
    backing: Backing,
    range: Range<usize>,
}

impl Bytes {
    /// A range of the whole-file view ([`Source::whole`]). Out-of-range requests are clamped
    /// to the file.
    pub fn from_source(source: &Arc<Source>, range: Range<usize>) -> Self {
        let len = source.whole().len();
        let start = range.start.min(len);
        let end = range.end.clamp(start, len);
        Bytes {
            backing: Backing::Source(Arc::clone(source)),
            range: start..end,
        }
    }

    /// Owned bytes (a chunk read from the file, or decompressed data).
    pub fn from_vec(v: Vec<u8>) -> Self {
        let len = v.len();
        Bytes {
            backing: Backing::Owned(Arc::new(v)),
            range: 0..len,
        }
    }

    /// A sub-range of these bytes, clamped to them.
    #[must_use]
    pub fn slice(&self, range: Range<usize>) -> Self {
        let len = self.range.len();
        let start = range.start.min(len);
        let end = range.end.clamp(start, len);
        Bytes {
            backing: self.backing.clone(),
            range: self.range.start + start..self.range.start + end,
        }
    }

    /// True when the bytes are held in memory of their own (not the whole-file view).
    pub fn is_owned(&self) -> bool {
        matches!(self.backing, Backing::Owned(_))
    }
}

impl Deref for Bytes {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        let all: &[u8] = match &self.backing {
            Backing::Source(s) => s.whole(),
            Backing::Owned(v) => v,
        };
        all.get(self.range.clone()).unwrap_or_default()
    }
}

impl AsRef<[u8]> for Bytes {
    fn as_ref(&self) -> &[u8] {
        self
    }
}
