//! Chunk data for the time-ordered merge (`read/iter.rs`): loaded on the merge's thread, or
//! decompressed ahead by worker threads in the order the merge will need the chunks.
//!
//! Workers are handed jobs of several chunks when the chunks are small: a hand-over between
//! threads costs a few microseconds (a channel send and a wake-up each way), more than reading
//! a chunk of a few hundred bytes, so one job per chunk made a merge over a million tiny chunks
//! four times slower than reading them on one thread.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::mpsc;
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;

use crate::bag::bytes::Bytes;
use crate::bag::chunk::Chunk;
use crate::bag::handle::Bag;
use crate::bag::read::load::{LoadedChunk, Within};
use crate::bag::source::Changed;

/// A job holds chunks up to about this many declared bytes (at least one chunk)…
const JOB_BYTES: u64 = 512 << 10;

/// …and at most this many chunks.
const JOB_CHUNKS: usize = 64;

/// Loads chunk data, sequentially or with worker threads decompressing ahead.
pub(crate) enum Loader {
    Direct,
    Parallel(Box<Prefetcher>),
}

impl Loader {
    /// A loader for the chunks `order`, in the order they will be asked for; with worker
    /// threads when `parallel` and the bag has more than one thread.
    pub fn new(bag: &Bag, order: &[u32], parallel: bool) -> Self {
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

    /// The data of chunk `chunk`.
    pub fn get(&mut self, bag: &Bag, chunk: u32) -> Result<LoadedChunk, Changed> {
        match self {
            Loader::Parallel(p) => p.get(chunk),
            Loader::Direct => direct(bag, chunk),
        }
    }

    /// Chunk `chunk` will not be asked for.
    pub fn skip(&mut self, chunk: u32) {
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
/// window ahead: a number of jobs, and at most half the decode budget in declared sizes
/// (workers never decode past a chunk's declared size, so that is what they hold).
pub(crate) struct Prefetcher {
    /// Chunks in the order they are submitted; those no longer in `queued` (loaded early by
    /// the consumer, or dropped) are passed over when they come to the front.
    order: VecDeque<u32>,
    /// The chunks of `order` still to submit: whether a chunk was submitted is one lookup,
    /// not a search of the order (which made a merge over a million chunks quadratic).
    queued: ChunkSet,
    jobs: Option<mpsc::Sender<Vec<u32>>>,
    done: mpsc::Receiver<Vec<(u32, Within)>>,
    ready: HashMap<u32, Within>,
    /// Jobs submitted and not returned.
    in_flight: usize,
    /// The most jobs in flight.
    window: usize,
    /// Declared sizes of the chunks in flight or ready, and the most they may add up to.
    ahead_bytes: u64,
    max_ahead_bytes: u64,
    /// The declared size of each chunk in flight or ready, looked up when it is submitted
    /// (not for every chunk up front: a merge that stops after a few messages reads a few
    /// chunk headers).
    sizes: HashMap<u32, u64>,
    /// Chunks in flight whose result is not wanted any more.
    discarded: HashSet<u32>,
    workers: Vec<JoinHandle<()>>,
    /// For the chunk headers (declared sizes), and the chunks loaded on the merge's thread.
    bag: Bag,
}

impl Prefetcher {
    fn start(bag: &Bag, order: Vec<u32>, threads: usize) -> Self {
        let (job_tx, job_rx) = mpsc::channel::<Vec<u32>>();
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
                        let Ok(chunks) = job else { break };
                        let loaded = chunks.into_iter().map(|c| (c, ahead(&bag, c))).collect();
                        if tx.send(loaded).is_err() {
                            break;
                        }
                    }
                })
            })
            .collect();
        let mut p = Prefetcher {
            queued: ChunkSet::of(bag.chunks().len(), &order),
            order: order.into(),
            jobs: Some(job_tx),
            done: done_rx,
            ready: HashMap::new(),
            in_flight: 0,
            window: threads * 2,
            ahead_bytes: 0,
            max_ahead_bytes: bag.budget().total() / 2,
            sizes: HashMap::new(),
            discarded: HashSet::new(),
            workers,
            bag: bag.clone(),
        };
        p.fill();
        p
    }

    /// Submits jobs while the window has room (jobs in flight, and chunks done but not taken
    /// yet: at most as many as the jobs in flight could hold).
    fn fill(&mut self) {
        while self.in_flight < self.window && self.ready.len() < self.window * JOB_CHUNKS {
            let job = self.next_job();
            if job.is_empty() {
                break;
            }
            let Some(tx) = &self.jobs else { break };
            if tx.send(job).is_err() {
                break;
            }
            self.in_flight += 1;
        }
    }

    /// The next chunks of the order, as many as make a job and fit in the bytes ahead
    /// (counted as submitted).
    fn next_job(&mut self) -> Vec<u32> {
        let mut job = Vec::new();
        let mut bytes = 0u64;
        while let Some(&next) = self.order.front() {
            if !self.queued.contains(next) {
                self.order.pop_front();
                continue;
            }
            // Read in batches as the order goes (one read per batch of nearby chunks).
            let size = self
                .bag
                .head(next)
                .map_or(0, |c| c.uncompressed_size.saturating_add(c.compressed_size));
            let over_budget = self.ahead_bytes > 0
                && self.ahead_bytes.saturating_add(size) > self.max_ahead_bytes;
            let job_full = !job.is_empty()
                && (job.len() >= JOB_CHUNKS || bytes.saturating_add(size) > JOB_BYTES);
            if over_budget || job_full {
                break;
            }
            self.order.pop_front();
            self.queued.remove(next);
            self.ahead_bytes = self.ahead_bytes.saturating_add(size);
            self.sizes.insert(next, size);
            bytes = bytes.saturating_add(size);
            job.push(next);
        }
        job
    }

    /// A chunk left the window (taken, or dropped): its bytes no longer count.
    fn release(&mut self, chunk: u32) {
        let size = self.sizes.remove(&chunk).unwrap_or(0);
        self.ahead_bytes = self.ahead_bytes.saturating_sub(size);
    }

    fn discard(&mut self, chunk: u32) {
        if self.queued.remove(chunk) {
            // Never submitted: passed over when it comes to the front.
        } else if self.ready.remove(&chunk).is_some() {
            self.release(chunk);
        } else if self.sizes.contains_key(&chunk) {
            self.discarded.insert(chunk);
        }
        self.fill();
    }

    fn get(&mut self, chunk: u32) -> Result<LoadedChunk, Changed> {
        if self.queued.remove(chunk) {
            // Not submitted yet: load it here (passed over when it comes to the front).
            return direct(&self.bag, chunk);
        }
        loop {
            if let Some(l) = self.ready.remove(&chunk) {
                self.release(chunk);
                self.fill();
                return match l {
                    Within::Done(r) => r,
                    Within::Larger => direct(&self.bag, chunk),
                };
            }
            if self.in_flight == 0 {
                return direct(&self.bag, chunk);
            }
            match self.done.recv() {
                Ok(loaded) => {
                    self.in_flight -= 1;
                    for (c, l) in loaded {
                        if self.discarded.remove(&c) {
                            self.release(c);
                        } else {
                            self.ready.insert(c, l);
                        }
                    }
                    self.fill();
                }
                Err(_) => return direct(&self.bag, chunk),
            }
        }
    }
}

/// A set of chunk indices below a bound, one bit each (made in a millisecond for a million
/// chunks, where a hash set takes a tenth of a second).
struct ChunkSet(Vec<u64>);

impl ChunkSet {
    /// The set of `chunks`, indices below `len`.
    fn of(len: usize, chunks: &[u32]) -> ChunkSet {
        let mut set = ChunkSet(vec![0; len.div_ceil(64)]);
        for &c in chunks {
            if let Some(word) = set.0.get_mut(c as usize / 64) {
                *word |= 1 << (c % 64);
            }
        }
        set
    }

    fn contains(&self, c: u32) -> bool {
        self.0
            .get(c as usize / 64)
            .is_some_and(|w| w & (1 << (c % 64)) != 0)
    }

    /// Removes `c`; true if it was in the set.
    fn remove(&mut self, c: u32) -> bool {
        let Some(word) = self.0.get_mut(c as usize / 64) else {
            return false;
        };
        let bit = 1 << (c % 64);
        let was = *word & bit != 0;
        *word &= !bit;
        was
    }
}

impl Drop for Prefetcher {
    fn drop(&mut self) {
        self.jobs = None;
        // Workers finish their current job and exit; dropping the receiver makes any
        // pending send fail, which also ends them.
        for w in self.workers.drain(..) {
            let _ = w.join();
        }
    }
}

#[cfg(test)]
#[path = "prefetch_tests.rs"]
mod tests;
