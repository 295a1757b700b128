//! One pass over the message lists of many chunks (the health scan): the lists of a bag of
//! many chunks are read as [`Bag::chunk_entries`] reads them — the index data of small chunks
//! that follow each other closely in one read — but not kept. Keeping every list of a bag of
//! a million one-message chunks held 72 MB (a 48-byte allocation and a 24-byte slot each) for
//! a scan that looks at each list once. A bag of at most [`KEEP_UP_TO`] chunks keeps them, as
//! [`Bag::chunk_entries`] does: the explorer's histogram and window counts are then exact
//! once the pass is done, for a few MB at most.

use std::sync::Arc;

use crate::bag::chunk::IndexEntry;
use crate::bag::handle::Bag;
use crate::bag::read::entries::{self, ReadAhead};

/// The most chunks of a bag whose lists a pass keeps (72 bytes a chunk besides the entries:
/// under 5 MB).
pub const KEEP_UP_TO: usize = 1 << 16;

/// Reads chunks' message lists for one pass over them, in any order (file order reads least):
/// made by [`Bag::entries_pass`].
pub struct EntriesPass<'a> {
    bag: &'a Bag,
    /// The last read of the index data of a run of small chunks.
    window: Option<ReadAhead>,
    /// True when the lists are kept (a bag of at most [`KEEP_UP_TO`] chunks).
    keep: bool,
}

impl Bag {
    /// A pass over the message lists of this bag's chunks, which keeps them only for a bag
    /// of at most 65 536 chunks, `KEEP_UP_TO` (see [`EntriesPass::entries`]).
    pub fn entries_pass(&self) -> EntriesPass<'_> {
        self.entries_pass_keeping_up_to(KEEP_UP_TO)
    }

    /// [`Bag::entries_pass`], keeping the lists of a bag of at most `chunks` chunks.
    pub(crate) fn entries_pass_keeping_up_to(&self, chunks: usize) -> EntriesPass<'_> {
        EntriesPass {
            bag: self,
            window: None,
            keep: self.chunks().len() <= chunks,
        }
    }
}

impl EntriesPass<'_> {
    /// The messages of chunk `chunk`, in reading order: what [`Bag::chunk_entries`] gives,
    /// from memory when it holds them, else read from the chunk's index data and, in a bag
    /// of many chunks, not kept. A chunk whose index data does not check out (or that has
    /// none) is read by [`Bag::chunk_entries`], with its warnings, and kept.
    pub fn entries(&mut self, chunk: u32) -> Arc<[IndexEntry]> {
        let bag = self.bag;
        if self.keep {
            return bag.chunk_entries(chunk);
        }
        if let Some(e) = bag.loaded_entries(chunk) {
            return e;
        }
        let inner = &bag.inner;
        let (Some(c), Ok(Ok(head))) = (inner.chunks.get(chunk as usize), bag.head_of(chunk)) else {
            return bag.chunk_entries(chunk);
        };
        let Some(pos) = head.index_data_pos else {
            return bag.chunk_entries(chunk);
        };
        if !self.window.as_ref().is_some_and(|w| w.holds(pos)) {
            self.window = bag.entries_window(chunk, &head);
        }
        let window = self.window.as_ref();
        match entries::from_index_data(&inner.source, c, &head, &inner.conn_map, window) {
            Ok(e) => Arc::from(entries::finish(e)),
            Err(_) => bag.chunk_entries(chunk),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::bag::handle::Bag;
    use crate::bag::read::entries_ahead::tests::write;

    #[test]
    fn a_pass_reads_what_chunk_entries_reads_and_keeps_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("small.bag");
        write(&path, 1, 60);
        let bag = Bag::open(&path).unwrap();
        let n = u32::try_from(bag.chunks().len()).unwrap();
        assert!(n > 10);
        let mut pass = bag.entries_pass_keeping_up_to(0);
        // File order, then out of order (a window read for one chunk, then another).
        let mut got: Vec<_> = (0..n).map(|i| pass.entries(i)).collect();
        got.push(pass.entries(n - 1));
        got.push(pass.entries(0));
        for i in 0..n {
            assert!(bag.loaded_entries(i).is_none(), "chunk {i} was kept");
        }
        let other = Bag::open(&path).unwrap();
        for (i, e) in got.iter().take(n as usize).enumerate() {
            let i = u32::try_from(i).unwrap();
            assert_eq!(**e, *other.chunk_entries(i), "chunk {i}");
            assert!(!e.is_empty());
        }
        assert_eq!(*got[n as usize], *other.chunk_entries(n - 1));
        assert_eq!(*got[n as usize + 1], *other.chunk_entries(0));
        // Lists already kept are used as they are.
        let kept = bag.chunk_entries(3);
        assert!(std::sync::Arc::ptr_eq(
            &kept,
            &bag.entries_pass().entries(3)
        ));
    }
}
