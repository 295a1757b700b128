//! Time-ordered iteration over selected messages: a k-way merge over the chunks' sorted entry
//! lists (chunks overlap in time, so this is not a sort of the whole bag), with chunk
//! decompression running ahead on worker threads for full scans.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, VecDeque};
use std::sync::mpsc;
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;

use super::chunk::{Chunk, IndexEntry};
use super::error::{BagError, BagErrorKind};
use super::load::{LoadedChunk, Within};
use super::source::Changed;
use super::{Bag, Bytes, Message, Query};

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
    loader: Loader,
    errors: VecDeque<BagError>,
    /// The file changed on disk: the error is queued, nothing more is read.
    stopped: bool,
}

impl Messages {
    pub(super) fn new(bag: Bag, query: Query) -> Self {
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
            let slot = self.cursors.len();
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
            match advance(&mut cursor, &self.query) {
                Some(first) => self.heap.push(Reverse((first, slot))),
                None => self.loader.skip(next),
            }
            self.cursors.push(cursor);
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
                    .is_some_and(|c| c.state == super::ChunkState::Complete);
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
                // Release the chunk's data as soon as its last message is read.
                cursor.data = None;
                cursor.entries = Arc::from(Vec::new());
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

/// Loads chunk data, sequentially or with worker threads decompressing ahead.
enum Loader {
    Direct,
    Parallel(Box<Prefetcher>),
}

impl Loader {
    fn new(bag: &Bag, order: &[u32], parallel: bool) -> Self {
        // Chunk records (compressed or not: both are read with `pread` into memory); the
        // whole-file view of older layouts is not read ahead.
        let records: Vec<u32> = order
            .iter()
            .copied()
            .filter(|&i| bag.chunks().get(i as usize).is_some_and(Chunk::is_record))
            .collect();
        let threads = bag.options().threads;
        if parallel && threads > 1 && records.len() > 1 {
            Loader::Parallel(Box::new(Prefetcher::start(bag, records, threads)))
        } else {
            Loader::Direct
        }
    }

    fn get(&mut self, bag: &Bag, chunk: u32) -> Result<LoadedChunk, Changed> {
        match self {
            Loader::Parallel(p) => p.get(bag, chunk),
            Loader::Direct => direct(bag, chunk),
        }
    }

    fn skip(&mut self, chunk: u32) {
        if let Loader::Parallel(p) = self {
            p.discard(chunk);
        }
    }
}

fn direct(bag: &Bag, chunk: u32) -> Result<LoadedChunk, Changed> {
    match bag.chunks().get(chunk as usize) {
        Some(c) => bag.load_chunk_uncached(c),
        None => Ok(LoadedChunk {
            bytes: Bytes::from_vec(Vec::new()),
            error: None,
            permit: None,
        }),
    }
}

/// A worker's load: decodes no more than the chunk declares (a larger one is left to the
/// consumer, [`Within::Larger`]), and gives its budget back before handing the chunk over.
fn ahead(bag: &Bag, chunk: u32) -> Within {
    let Some(c) = bag.chunks().get(chunk as usize) else {
        return Within::Larger;
    };
    match bag.load_chunk_within(c) {
        Within::Done(Ok(mut l)) => {
            l.permit = None;
            Within::Done(Ok(l))
        }
        other => other,
    }
}

/// Worker threads decompressing chunks in the order the merge will need them, at most a
/// window ahead: a number of chunks, and at most half the decode budget in declared sizes
/// (workers never decode past a chunk's declared size, so that is what they hold).
struct Prefetcher {
    order: VecDeque<u32>,
    jobs: Option<mpsc::Sender<u32>>,
    done: mpsc::Receiver<(u32, Within)>,
    ready: HashMap<u32, Within>,
    in_flight: usize,
    window: usize,
    /// Declared sizes of the chunks in flight or ready, and the most they may add up to.
    ahead_bytes: u64,
    max_ahead_bytes: u64,
    sizes: HashMap<u32, u64>,
    discarded: std::collections::HashSet<u32>,
    workers: Vec<JoinHandle<()>>,
}

impl Prefetcher {
    fn start(bag: &Bag, order: Vec<u32>, threads: usize) -> Self {
        let order_sizes = order
            .iter()
            .map(|&i| {
                // Read in batches as the order goes (one read per batch of nearby chunks).
                let declared = bag
                    .head(i)
                    .map_or(0, |c| c.uncompressed_size.saturating_add(c.compressed_size));
                (i, declared)
            })
            .collect();
        let (job_tx, job_rx) = mpsc::channel::<u32>();
        let (done_tx, done_rx) = mpsc::channel();
        let job_rx = Arc::new(Mutex::new(job_rx));
        let workers = (0..threads)
            .map(|_| {
                let rx = Arc::clone(&job_rx);
                let tx = done_tx.clone();
                let bag = bag.clone();
                std::thread::spawn(move || {
                    loop {
                        let job = rx.lock().unwrap_or_else(PoisonError::into_inner).recv();
                        let Ok(chunk) = job else { break };
                        if tx.send((chunk, ahead(&bag, chunk))).is_err() {
                            break;
                        }
                    }
                })
            })
            .collect();
        let mut p = Prefetcher {
            order: order.into(),
            jobs: Some(job_tx),
            done: done_rx,
            ready: HashMap::new(),
            in_flight: 0,
            window: threads * 2,
            ahead_bytes: 0,
            max_ahead_bytes: bag.budget().total() / 2,
            sizes: order_sizes,
            discarded: std::collections::HashSet::new(),
            workers,
        };
        p.fill();
        p
    }

    fn size(&self, chunk: u32) -> u64 {
        self.sizes.get(&chunk).copied().unwrap_or(0)
    }

    fn fill(&mut self) {
        while self.in_flight + self.ready.len() < self.window {
            let Some(&next) = self.order.front() else {
                break;
            };
            if self.discarded.remove(&next) {
                self.order.pop_front();
                continue;
            }
            let size = self.size(next);
            if self.ahead_bytes > 0 && self.ahead_bytes.saturating_add(size) > self.max_ahead_bytes
            {
                break;
            }
            self.order.pop_front();
            if let Some(tx) = &self.jobs {
                if tx.send(next).is_ok() {
                    self.in_flight += 1;
                    self.ahead_bytes = self.ahead_bytes.saturating_add(size);
                }
            }
        }
    }

    /// A chunk left the window (taken, or dropped): its bytes no longer count.
    fn release(&mut self, chunk: u32) {
        self.ahead_bytes = self.ahead_bytes.saturating_sub(self.size(chunk));
    }

    fn discard(&mut self, chunk: u32) {
        if self.ready.remove(&chunk).is_some() {
            self.release(chunk);
        } else {
            self.discarded.insert(chunk);
        }
        self.fill();
    }

    fn get(&mut self, bag: &Bag, chunk: u32) -> Result<LoadedChunk, Changed> {
        if let Some(pos) = self.order.iter().position(|&c| c == chunk) {
            // Not submitted yet: load it here.
            let _ = self.order.remove(pos);
            return direct(bag, chunk);
        }
        loop {
            if let Some(l) = self.ready.remove(&chunk) {
                self.release(chunk);
                self.fill();
                return match l {
                    Within::Done(r) => r,
                    Within::Larger => direct(bag, chunk),
                };
            }
            if self.in_flight == 0 {
                return direct(bag, chunk);
            }
            match self.done.recv() {
                Ok((c, l)) => {
                    self.in_flight -= 1;
                    if self.discarded.remove(&c) {
                        self.release(c);
                        continue;
                    }
                    self.ready.insert(c, l);
                }
                Err(_) => return direct(bag, chunk),
            }
        }
    }
}

impl Drop for Prefetcher {
    fn drop(&mut self) {
        self.jobs = None;
        // Workers finish their current chunk and exit; dropping the receiver makes any
        // pending send fail, which also ends them.
        for w in self.workers.drain(..) {
            let _ = w.join();
        }
    }
}
