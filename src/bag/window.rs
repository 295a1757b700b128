//! A window of a bag file read with positioned reads, for the walks that go through a file
//! record by record (the recovery walk of a 2.0 bag without a usable index).
//!
//! The window holds one owned stretch of the file, read with [`Source::read_exact_into`]:
//! [`SEQUENTIAL_READ`] bytes at a time while the walk moves on from where the window ends (a
//! run of small records, a search for the next record: one `pread` per megabyte), and only
//! [`JUMP_READ`] bytes when it jumps further (from one chunk header to the next: the chunk data
//! between is not read, as a map would not have touched it). Nothing is mapped: a file that shrinks under the walk gives a short read,
//! kept as [`Changed`], never SIGBUS.

use super::source::{Changed, Source};

/// The least a window reads at once when the walk goes on from (or steps back a little
/// before) the window.
pub(crate) const SEQUENTIAL_READ: u64 = 1 << 20;

/// The least a window reads at once when the walk jumps past it.
pub(crate) const JUMP_READ: u64 = 16 << 10;

/// How far before the position asked for a read starts, so that a walk stepping back a little
/// (the resynchronisation after damage looks back up to 512 bytes) stays in the window.
const BACK: u64 = 4096;

/// The most one view may span: a record header or record claiming more is treated as damage
/// by the walk (its parse sees a cut-off buffer), so a corrupt length never makes us allocate
/// gigabytes.
pub(crate) const MAX_VIEW: u64 = 64 << 20;

/// A window over a [`Source`].
pub(crate) struct Window<'s> {
    source: &'s Source,
    /// Absolute offset of `buf[0]`.
    base: u64,
    buf: Vec<u8>,
    /// The first short read.
    changed: Option<Changed>,
}

/// Bytes of the file from some absolute offset on.
#[derive(Clone, Copy)]
pub(crate) struct View<'w> {
    /// The bytes (the first at absolute offset `base`).
    pub buf: &'w [u8],
    /// Absolute offset of `buf[0]`.
    pub base: u64,
    /// Index in `buf` of the position asked for.
    pub at: usize,
}

impl<'s> Window<'s> {
    /// An empty window over `source`.
    pub(crate) fn new(source: &'s Source) -> Self {
        Window {
            source,
            base: 0,
            buf: Vec::new(),
            changed: None,
        }
    }

    /// Size of the file when it was opened.
    pub(crate) fn len(&self) -> u64 {
        self.source.len()
    }

    /// The first short read, if the file changed under the walk.
    pub(crate) fn changed(&self) -> Option<Changed> {
        self.changed
    }

    /// The bytes from `pos` on: at least `need` of them (at most [`MAX_VIEW`]) unless the file
    /// ends first, or changed (then fewer, and [`Window::changed`] tells).
    pub(crate) fn view(&mut self, pos: u64, need: u64) -> View<'_> {
        let len = self.len();
        let pos = pos.min(len);
        let need = need.min(MAX_VIEW).min(len - pos);
        let end = self.base + self.buf.len() as u64;
        let resident = pos >= self.base && pos + need <= end;
        if !resident && self.changed.is_none() {
            let near = pos.saturating_add(2 * BACK) >= self.base && pos <= end;
            let (base, least) = if near {
                (pos.saturating_sub(BACK), SEQUENTIAL_READ)
            } else {
                (pos, JUMP_READ)
            };
            let want = (pos - base + need).max(least).min(len - base);
            self.base = base;
            if let Err(c) = self.source.read_exact_into(base, want, &mut self.buf) {
                self.changed = Some(c);
            }
        }
        if pos < self.base || pos > self.base + self.buf.len() as u64 {
            // After a short read, positions outside what was read see nothing.
            return View {
                buf: &[],
                base: pos,
                at: 0,
            };
        }
        View {
            buf: &self.buf,
            base: self.base,
            at: usize::try_from(pos - self.base).unwrap_or(usize::MAX),
        }
    }

    /// The bytes from `pos` on holding a whole record header (its length field, header and
    /// data length field), as far as the file (and [`MAX_VIEW`]) allows.
    pub(crate) fn head(&mut self, pos: u64) -> View<'_> {
        let header_len = {
            let v = self.view(pos, 4);
            v.buf
                .get(v.at..v.at.saturating_add(4))
                .and_then(crate::format::cursor::le_u32)
        };
        let need = header_len.map_or(4, |h| 8 + u64::from(h));
        self.view(pos, need)
    }

    /// The bytes from `pos` on holding a whole record (header and data), as far as the file
    /// (and [`MAX_VIEW`]) allows.
    pub(crate) fn record(&mut self, pos: u64) -> View<'_> {
        let need = {
            let v = self.head(pos);
            match crate::format::read_head(v.buf, v.at, v.base) {
                Ok(h) => h.end().saturating_sub(pos),
                Err(_) => 0,
            }
        };
        self.view(pos, need.max(4))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn views_cover_what_is_asked_and_stop_at_the_end() {
        let data: Vec<u8> = (0..=255u8).cycle().take(3 << 20).collect();
        let s = Source::owned(data.clone());
        let mut w = Window::new(&s);
        let v = w.view(10, 4);
        assert_eq!(v.buf.get(v.at..v.at + 4), data.get(10..14));
        let v = w.view((3 << 20) - 2, 100);
        assert_eq!(v.buf.len() - v.at, 2);
        let v = w.view(5 << 20, 1);
        assert_eq!(v.buf.len() - v.at, 0);
        assert!(w.changed().is_none());
    }
}
