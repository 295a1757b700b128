//! Time-ordered iteration over selected messages: a k-way merge over the chunks' sorted entry
//! lists (chunks overlap in time, so this is not a sort of the whole bag), with chunk
//! decompression running ahead on worker threads for full scans ([`crate::bag::read::prefetch`]).

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};
use std::sync::Arc;

use crate::bag::bytes::Bytes;
use crate::bag::chunk::IndexEntry;
use crate::bag::error::{BagError, BagErrorKind};
use crate::bag::handle::{Bag, Message};
use crate::bag::query::Query;
use crate::bag::read::prefetch::Loader;
use crate::bag::source::Changed;

/// A chunk being merged.
struct Cursor {
    entries: Arc<[IndexEntry]>,
    pos: usize,
    data: Option<Result<Bytes, ()>>,
}

/// Iterator over the messages selected by a [`Query`], in receive-time order.
///
/// Yields `Err` for messages that cannot be read (and once for a chunk that cannot be
/// decompressed), then goes on with the rest.
pub struct Messages {
    bag: Bag,
    query: Selection,
    /// Chunks not opened yet, in opening order (by start time).
    pending: VecDeque<u32>,
    heap: BinaryHeap<Reverse<(IndexEntry, usize)>>,
    cursors: Vec<Cursor>,
    /// Slots of `cursors` whose chunk is done, for the next chunks opened (a merge over a
    /// million chunks holds as many cursors as chunks overlap, not one per chunk).
    free: Vec<usize>,
    /// An empty entry list, shared by the cursors of finished chunks.
    empty: Arc<[IndexEntry]>,
    loader: Loader,
    errors: VecDeque<BagError>,
    /// The file changed on disk: the error is queued, nothing more is read.
    stopped: bool,
}

impl Bag {
    /// Iterates over the selected messages in receive-time order (ties: connection, then
    /// position in the file), merging chunks as it goes.
    pub fn messages(&self, query: &Query) -> Messages {
        Messages::new(self.clone(), query.clone())
    }
}

impl Messages {
    pub(crate) fn new(bag: Bag, query: Query) -> Self {
        let mut pending: Vec<u32> = bag
            .chunks()
            .iter()
            .filter(|c| query.may_touch(c))
            .map(|c| c.index)
            .collect();
        pending.sort_by_key(|&i| (bag.chunks().get(i as usize).map(|c| c.start), i));
        let loader = Loader::new(&bag, &pending, query.parallel);
        let query = Selection::new(&bag, query);
        Messages {
            bag,
            query,
            pending: pending.into(),
            heap: BinaryHeap::new(),
            cursors: Vec::new(),
            free: Vec::new(),
            empty: Arc::from(Vec::new()),
            loader,
            errors: VecDeque::new(),
            stopped: false,
        }
    }

    /// Ends the iteration with the file's [`BagErrorKind::ChangedOnDisk`] error, counting the
    /// selected messages it leaves unread: `in_flight` (popped from the merge but not read), those
    /// queued in the merge and left in open chunks, and those the chunk infos list for the
    /// chunks not opened yet (all of a chunk's selected connections, even where it reaches past
    /// a time range: an upper bound there).
    fn stop(&mut self, changed: Option<Changed>, in_flight: u64) {
        if self.stopped {
            return;
        }
        self.stopped = true;
        let queued = self.heap.len() as u64;
        let in_cursors: u64 = self
            .cursors
            .iter()
            .map(|c| {
                c.entries.get(c.pos..).map_or(0, |rest| {
                    rest.iter().filter(|e| self.query.wants(e)).count()
                }) as u64
            })
            .sum();
        let in_pending: u64 = self
            .pending
            .iter()
            .filter_map(|&i| self.bag.chunks().get(i as usize))
            .flat_map(|c| c.counts.iter())
            .filter(|&&(conn, _)| self.query.query.wants_conn(conn))
            .map(|&(_, n)| u64::from(n))
            .sum();
        let kind = BagErrorKind::ChangedOnDisk {
            changed: changed.unwrap_or_else(|| self.bag.source().short_read()),
            unread: in_flight + queued + in_cursors + in_pending,
        };
        self.errors.push_back(self.bag.error(kind));
        self.heap.clear();
        self.pending.clear();
        self.cursors.clear();
    }

    /// Opens the pending chunks that start no later than the earliest queued entry.
    fn open_due_chunks(&mut self) {
        while let Some(&next) = self.pending.front() {
            let start = self.bag.chunks().get(next as usize).map(|c| c.start);
            let due = match (self.heap.peek(), start) {
                (None, _) | (_, None) => true,
                (Some(Reverse((top, _))), Some(s)) => s <= top.time,
            };
            if !due {
                break;
            }
            self.pending.pop_front();
            let entries = self.bag.chunk_entries(next);
            if entries.is_empty() && self.bag.source().changed() {
                // Its index data could not be read: still unread, counted when stopping.
                self.pending.push_front(next);
                break;
            }
            let mut cursor = Cursor {
                entries,
                pos: 0,
                data: None,
            };
            // Messages the index lists that the chunk turned out not to hold.
            let lost = self.bag.unfound(next, |c| self.query.query.wants_conn(c));
            if lost > 0 {
                let pos = self.bag.chunks().get(next as usize).map_or(0, |c| c.pos);
                self.errors
                    .push_back(self.bag.error(BagErrorKind::NotFound { lost }).at(pos));
            }
            let Some(first) = advance(&mut cursor, &self.query) else {
                // Nothing selected in it: never merged.
                self.loader.skip(next);
                continue;
            };
            let slot = self.free.pop().unwrap_or_else(|| {
                self.cursors.push(Cursor {
                    entries: Arc::clone(&self.empty),
                    pos: 0,
                    data: None,
                });
                self.cursors.len() - 1
            });
            if let Some(c) = self.cursors.get_mut(slot) {
                *c = cursor;
            }
            self.heap.push(Reverse((first, slot)));
        }
    }
}

/// The query, with its connection set also as a table indexed by connection id (one lookup
/// per index entry instead of a search).
struct Selection {
    query: Query,
    /// `Some`: whether each connection id below its length is selected.
    table: Option<Vec<bool>>,
}

impl Selection {
    fn new(bag: &Bag, query: Query) -> Self {
        let table = query.connections.as_ref().map(|conns| {
            let mut table = vec![false; bag.connections().len()];
            for &c in conns {
                if let Some(slot) = table.get_mut(c as usize) {
                    *slot = true;
                }
            }
            table
        });
        Selection { query, table }
    }

    /// Same as [`Query::wants`].
    #[inline]
    fn wants(&self, entry: &IndexEntry) -> bool {
        let conn_ok = match &self.table {
            None => true,
            Some(table) => match table.get(entry.conn as usize) {
                Some(&yes) => yes,
                None => self.query.wants_conn(entry.conn),
            },
        };
        conn_ok
            && self.query.start.is_none_or(|s| entry.time >= s)
            && self.query.end.is_none_or(|e| entry.time <= e)
    }
}

/// Moves the cursor to its next selected entry.
fn advance(cursor: &mut Cursor, query: &Selection) -> Option<IndexEntry> {
    while let Some(e) = cursor.entries.get(cursor.pos) {
        cursor.pos += 1;
        if query.wants(e) {
            return Some(*e);
        }
        if query.query.end.is_some_and(|end| e.time > end) {
            cursor.pos = cursor.entries.len();
            return None;
        }
    }
    None
}

impl Iterator for Messages {
    type Item = Result<Message, BagError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(e) = self.errors.pop_front() {
                return Some(Err(e));
            }
            if self.stopped {
                return None;
            }
            self.open_due_chunks();
            if self.bag.source().changed() {
                // An index read came back short.
                self.stop(None, 0);
                continue;
            }
            if let Some(e) = self.errors.pop_front() {
                return Some(Err(e));
            }
            let Reverse((entry, slot)) = self.heap.pop()?;
            let cursor = self.cursors.get_mut(slot)?;
            // A cursor has at most one entry in the heap, so with no next entry this is its
            // last message.
            let next = advance(cursor, &self.query);
            let last = next.is_none();
            if let Some(next) = next {
                self.heap.push(Reverse((next, slot)));
            }
            if cursor.data.is_none() {
                let mut loaded = match self.loader.get(&self.bag, entry.chunk) {
                    Ok(l) => l,
                    Err(c) => {
                        self.stop(Some(c), 1);
                        continue;
                    }
                };
                // Held while decoding; the consumer's chunks are bounded by the merge.
                loaded.permit = None;
                let complete = self
                    .bag
                    .chunks()
                    .get(entry.chunk as usize)
                    .is_some_and(|c| c.state == crate::bag::chunk::ChunkState::Complete);
                if !complete {
                    // Cut short or never closed: the loss was reported when the bag was opened.
                    loaded.error = None;
                }
                cursor.data = Some(match loaded.error {
                    Some(e) if loaded.bytes.is_empty() => {
                        // This message, the next one (already queued) and those after it.
                        let remaining = 1
                            + usize::from(!last)
                            + cursor.entries.get(cursor.pos..).map_or(0, |rest| {
                                rest.iter().filter(|e| self.query.wants(e)).count()
                            });
                        self.errors
                            .push_back(self.bag.error(BagErrorKind::ChunkDamaged {
                                lost: remaining as u64,
                                reason: e,
                            }));
                        Err(())
                    }
                    Some(e) => {
                        // Partly decoded: messages inside the decoded part still read.
                        self.errors.push_back(
                            self.bag
                                .error(BagErrorKind::ChunkDamaged { lost: 0, reason: e }),
                        );
                        Ok(loaded.bytes)
                    }
                    None => Ok(loaded.bytes),
                });
            }
            let result = match &cursor.data {
                Some(Ok(bytes)) => Some(self.bag.read_in(&entry, bytes)),
                _ => None,
            };
            if last {
                // Release the chunk's data as soon as its last message is read; the slot
                // serves the next chunk opened.
                cursor.data = None;
                cursor.entries = Arc::clone(&self.empty);
                cursor.pos = 0;
                self.free.push(slot);
            }
            if let Some(r) = result {
                if let Some(e) = self.errors.pop_front() {
                    self.errors.push_front(e);
                }
                return Some(r);
            }
        }
    }
}
