//! The file read in windows of [`WINDOW`] bytes while a scan walks its top-level records
//! (positioned reads, never a mapping: a file that shrinks under the walk ends it with
//! [`Changed`], not SIGBUS).

use crate::bag::source::{Changed, Source};

/// Bytes read at a time while walking top-level records.
pub(crate) const WINDOW: u64 = 4 << 20;

/// A window of the file.
pub(crate) struct Window<'s> {
    source: &'s Source,
    start: u64,
    bytes: Vec<u8>,
}

impl Window<'_> {
    /// The file's bytes `[at, at + len)` (fewer at the end of the file).
    pub fn get(&mut self, at: u64, len: u64) -> Result<&[u8], Changed> {
        let end = at.saturating_add(len).min(self.source.len());
        let inside = at >= self.start && end <= self.start + self.bytes.len() as u64;
        if !inside {
            let take = (end - at.min(end))
                .max(WINDOW)
                .min(self.source.len() - at.min(self.source.len()));
            self.bytes = self.source.read_exact_at(at, take)?.into_owned();
            self.start = at;
        }
        let from = usize::try_from(at - self.start).unwrap_or(usize::MAX);
        let to = usize::try_from(end - self.start).unwrap_or(usize::MAX);
        Ok(self.bytes.get(from..to).unwrap_or_default())
    }
}

impl<'s> Window<'s> {
    /// Nothing read yet.
    pub fn new(source: &'s Source) -> Window<'s> {
        Window {
            source,
            start: 0,
            bytes: Vec::new(),
        }
    }
}
