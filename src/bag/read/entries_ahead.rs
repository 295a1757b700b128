//! The index data of small chunks read ahead: a bag of tiny chunks (a recorder that splits
//! often, or a chunk size set low) keeps each chunk's index data a few hundred bytes after
//! the previous one's, and reading them one positioned read each made reading all of them
//! (`info --freq`, health, verify, the explorer's exact counts) a million reads at a
//! million chunks. When the next chunk starts close after a chunk's index data, one read
//! of up to [`WINDOW`] takes the index data of the chunks that follow as well, and their
//! message lists are kept as if each had been asked for.

use std::sync::Arc;

use crate::bag::handle::Bag;
use crate::bag::read::entries::{self, ReadAhead};
use crate::bag::read::heads::ChunkHead;

/// The next chunk must start less than this after a chunk's index data for it to be read
/// ahead (chunks farther apart are read one at a time, as their data lies between them).
const NEAR: u64 = 32 << 10;
/// The most bytes one read ahead takes.
const WINDOW: u64 = 64 << 10;
/// The most chunks one read ahead covers.
const MAX_CHUNKS: usize = 4096;

impl Bag {
    /// The bytes from the index data of chunk `index` (whose head is `head`) through the
    /// index data of the small chunks that follow it closely, when there are such chunks.
    pub(in crate::bag) fn entries_window(&self, index: u32, head: &ChunkHead) -> Option<ReadAhead> {
        let chunks = &self.inner.chunks;
        let start = head.index_data_pos?;
        let i = index as usize;
        let next = chunks.get(i + 1)?.pos;
        if next <= start || next - start >= NEAR {
            return None;
        }
        // The window ends where the last chunk it covers is followed by the next chunk: its
        // index data lies before that one (in a bag written as the format describes).
        let mut end = next;
        let mut prev = next;
        for c in chunks.iter().skip(i + 2).take(MAX_CHUNKS) {
            if c.pos <= prev || c.pos - start > WINDOW || c.pos - prev >= NEAR {
                break;
            }
            end = c.pos;
            prev = c.pos;
        }
        let mut bytes = Vec::new();
        self.inner
            .source
            .read_exact_into(start, end - start, &mut bytes)
            .ok()?;
        Some(ReadAhead { start, bytes })
    }

    /// Keeps the message lists of the chunks after `index` whose index data `window` holds
    /// whole and which check out; stops at the first that does not (it is read as usual
    /// when asked for, with its warning) or that another thread has read already.
    pub(in crate::bag) fn entries_ahead(&self, index: u32, window: &ReadAhead) {
        let window_end = window.start + window.bytes.len() as u64;
        for chunk in self.inner.chunks.iter().skip(index as usize + 1) {
            if chunk.pos >= window_end || self.inner.entries.get(chunk.index as usize).is_some() {
                return;
            }
            let Ok(Ok(head)) = self.head_of(chunk.index) else {
                return;
            };
            if head.index_data_pos.is_none_or(|p| p >= window_end) {
                return;
            }
            let source = &self.inner.source;
            let map = &self.inner.conn_map;
            match entries::from_index_data(source, chunk, &head, map, Some(window)) {
                Ok(e) => {
                    let list: Arc<[_]> = Arc::from(entries::finish(e));
                    self.inner.entries.set(chunk.index as usize, list);
                }
                Err(_) => return,
            }
        }
    }
}

#[cfg(test)]
#[path = "entries_ahead_tests.rs"]
pub(crate) mod tests;
