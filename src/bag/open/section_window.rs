//! The index section of an indexed 2.0 bag read a window of a few MiB at a time into reused
//! buffers, the next window read while the one before is being parsed.
//!
//! At a million chunks the section is ~116 MB: copying it out of the page cache takes a
//! fifth of the open, and the parse of a window runs on every thread. The thread that reads
//! the next window ([`Ahead::read`]) parses a smaller share of the current one, so the copy
//! is hidden behind the other threads' parsing instead of following it.

use crate::bag::source::Source;

/// A stretch of the file read into one reused buffer, and the stretch after it, read ahead
/// into another.
pub(crate) struct Window<'s> {
    source: &'s Source,
    pub(crate) start: u64,
    bytes: Vec<u8>,
    /// Bytes read at a time (more when one record needs more).
    size: usize,
    /// The stretch read ahead and where it starts; `ahead_ready` is false when there is none.
    /// Neither buffer is ever emptied: a buffer read again at its size is not zeroed first
    /// (4 MiB of `memset` a window otherwise, ~5 % of an open at a million chunks).
    ahead: Vec<u8>,
    ahead_start: u64,
    ahead_ready: bool,
}

/// Where the window after the current one is to be read, handed to the thread that reads it
/// while the current one is being parsed.
pub(crate) struct Ahead<'w> {
    source: &'w Source,
    size: usize,
    start: &'w mut u64,
    bytes: &'w mut Vec<u8>,
    ready: &'w mut bool,
}

impl<'w> Ahead<'w> {
    /// Reads the window from `pos` and hands back its bytes (none past the end of the file;
    /// a short read keeps what was read, as [`Window::at`] does).
    pub(crate) fn read(self, pos: u64) -> &'w [u8] {
        let bytes: &'w mut Vec<u8> = self.bytes;
        // Read already when a run stopped and was taken up again in the same window.
        if *self.start != pos || !*self.ready {
            let len = self.source.len().saturating_sub(pos);
            *self.start = pos;
            *self.ready = len > 0;
            if len > 0 {
                // A short read keeps what was read (the buffer is cut to it).
                let _ = self
                    .source
                    .read_exact_into(pos, (self.size as u64).min(len), bytes);
                *self.ready = !bytes.is_empty();
            }
        }
        if *self.ready { bytes } else { &[] }
    }
}

impl<'s> Window<'s> {
    pub(crate) fn new(source: &'s Source, size: usize) -> Self {
        Window {
            source,
            start: 0,
            bytes: Vec::new(),
            size,
            ahead: Vec::new(),
            ahead_start: 0,
            ahead_ready: false,
        }
    }

    /// The bytes from `pos`: at least `want` of them unless the file ends first (fewer if it
    /// shrank: then [`Source::changed`] tells).
    pub(crate) fn at(&mut self, pos: u64, want: usize) -> &[u8] {
        self.split(pos, want).0
    }

    /// [`Window::at`], and where to read the window after it.
    pub(crate) fn split(&mut self, pos: u64, want: usize) -> (&[u8], Ahead<'_>) {
        if !covers(self.start, self.bytes.len(), pos, want, self.source.len()) {
            if self.ahead_ready
                && covers(
                    self.ahead_start,
                    self.ahead.len(),
                    pos,
                    want,
                    self.source.len(),
                )
            {
                std::mem::swap(&mut self.bytes, &mut self.ahead);
                self.start = self.ahead_start;
            } else {
                let len = self.source.len().saturating_sub(pos);
                let take = (want.max(self.size) as u64).min(len);
                self.start = pos;
                // A short read (the file shrank) leaves what was read: parsing fails on what
                // is missing and the caller reports the change.
                let _ = self.source.read_exact_into(pos, take, &mut self.bytes);
            }
            self.ahead_ready = false;
        }
        let at = usize::try_from(pos - self.start).unwrap_or(usize::MAX);
        let ahead = Ahead {
            source: self.source,
            size: self.size,
            start: &mut self.ahead_start,
            bytes: &mut self.ahead,
            ready: &mut self.ahead_ready,
        };
        (self.bytes.get(at..).unwrap_or_default(), ahead)
    }

    /// True when the window runs to the end of the file.
    pub(crate) fn reaches_end(&self) -> bool {
        self.start + self.bytes.len() as u64 >= self.source.len()
    }
}

/// True when `len` bytes from `start` hold `want` bytes from `pos`, or all there are up to
/// the end of a file of `file_len` bytes.
fn covers(start: u64, len: usize, pos: u64, want: usize, file_len: u64) -> bool {
    let end = start + len as u64;
    pos >= start && (pos.saturating_add(want as u64) <= end || end >= file_len)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SIZE: usize = 1 << 20;
    const WANT: usize = 64 << 10;

    #[test]
    fn the_window_is_read_again_only_near_its_end() {
        let source = Source::owned(vec![7u8; 3 * SIZE]);
        let mut w = Window::new(&source, SIZE);
        assert_eq!(w.at(0, WANT).len(), SIZE);
        let _ = w.at(1000, WANT);
        assert_eq!(w.start, 0);
        let last = (SIZE - WANT) as u64;
        assert_eq!(w.at(last, WANT).len(), WANT);
        assert_eq!(w.start, 0);
        let _ = w.at(last + 1, WANT);
        assert_eq!(w.start, last + 1);
        assert!(!w.reaches_end());
        // More than a window: the rest of the file, once.
        assert_eq!(w.at(10, usize::MAX).len(), 3 * SIZE - 10);
        assert!(w.reaches_end());
        let _ = w.at(2 * SIZE as u64, WANT);
        assert_eq!(w.start, 10);
    }

    #[test]
    fn the_window_read_ahead_is_taken_where_it_covers_and_dropped_where_not() {
        let bytes: Vec<u8> = (0..3 * SIZE)
            .map(|i| u8::try_from(i % 251).unwrap())
            .collect();
        let source = Source::owned(bytes.clone());
        let mut w = Window::new(&source, SIZE);
        let (first, ahead) = w.split(0, WANT);
        assert_eq!(first, &bytes[..SIZE]);
        ahead.read(SIZE as u64 - 100);
        // Taken: the bytes are those of the file there.
        assert_eq!(
            w.at(SIZE as u64 - 50, WANT),
            &bytes[SIZE - 50..2 * SIZE - 100]
        );
        assert_eq!(w.start, SIZE as u64 - 100);
        // Read ahead again, then asked for somewhere it does not cover: read afresh.
        let (_, ahead) = w.split(SIZE as u64 - 50, WANT);
        ahead.read(2 * SIZE as u64);
        assert_eq!(w.at(5, WANT), &bytes[5..SIZE + 5]);
        assert_eq!(w.start, 5);
        // Past the end of the file: nothing read ahead.
        let (_, ahead) = w.split(5, WANT);
        ahead.read(3 * SIZE as u64);
        assert!(!w.ahead_ready);
        // The last window, read ahead, reaches the end.
        let (_, ahead) = w.split(5, WANT);
        ahead.read(3 * SIZE as u64 - 10);
        assert_eq!(w.at(3 * SIZE as u64 - 8, WANT), &bytes[3 * SIZE - 8..]);
        assert!(w.reaches_end());
    }
}
