//! The bag as found so far, handed out while the walk runs: the chunks settled so far (in
//! file order, see [`pipeline`](super::pipeline)) are assembled once each as they settle, so
//! a snapshot only copies the lists (no chunk is assembled twice unless a connection found
//! later changes the numbering of the connections).

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::super::chunk::{Chunk, IndexEntry};
use super::super::connection::ConnId;
use super::super::handle::PARTIAL_EVERY;
use super::super::opened::Opened;
use super::super::read::heads::{ChunkHead, Heads};
use super::super::recovery::Recovery;
use super::super::totals::count_and_total;
use super::state::{PartialSink, Walk};

/// Chunks in the first snapshot at the latest (it goes out earlier after [`FIRST_WAIT`]).
const FIRST_CHUNKS: usize = 8;

/// How long the first snapshot waits for [`FIRST_CHUNKS`] chunks.
const FIRST_WAIT: Duration = Duration::from_millis(100);

/// At most this share of the walk's time goes into building snapshots: the time between two
/// is at least this many times the time the last one took.
const COST_FACTOR: u32 = 10;

/// The chunks settled so far, assembled, and when to hand out the next snapshot.
pub(super) struct Prefix {
    reason: String,
    chunks: Vec<Chunk>,
    heads: Vec<ChunkHead>,
    entries: Vec<Arc<[IndexEntry]>>,
    /// Whether each chunk was assembled from its walk (else from its index data records).
    walked: Vec<bool>,
    /// Chunks assembled while some of their messages' connections were not known.
    incomplete: Vec<usize>,
    /// File id → dense id, for the connections known when it was computed.
    map: HashMap<u32, ConnId>,
    started: Instant,
    last: Option<Instant>,
    /// Chunks in the last snapshot.
    sent: usize,
    /// The time between two snapshots.
    every: Duration,
}

impl Prefix {
    /// Nothing assembled yet; `reason` is why the bag is scanned.
    pub fn new(reason: &str) -> Prefix {
        Prefix {
            reason: reason.to_string(),
            chunks: Vec::new(),
            heads: Vec::new(),
            entries: Vec::new(),
            walked: Vec::new(),
            incomplete: Vec::new(),
            map: HashMap::new(),
            started: Instant::now(),
            last: None,
            sent: 0,
            every: PARTIAL_EVERY,
        }
    }

    /// Assembles the chunks settled up to `settled` and, when one is due, hands `sink` a
    /// snapshot with `(done, total)` bytes walked. Returns what `sink` said (true: go on).
    pub fn offer(
        &mut self,
        walk: &Walk,
        settled: usize,
        (done, total): (u64, u64),
        sink: &PartialSink<'_>,
    ) -> bool {
        let grown = settled > self.sent;
        let due = match self.last {
            None => {
                settled >= FIRST_CHUNKS || (settled > 0 && self.started.elapsed() >= FIRST_WAIT)
            }
            Some(t) => t.elapsed() >= self.every,
        };
        if !grown || !due {
            return true;
        }
        let began = Instant::now();
        self.catch_up(walk, settled);
        let opened = self.snapshot(walk);
        self.sent = settled;
        let go_on = sink(opened, done, total);
        // Building and handing out the snapshot (the sink makes the bag) is what it cost.
        self.every = PARTIAL_EVERY.max(began.elapsed() * COST_FACTOR);
        self.last = Some(Instant::now());
        go_on
    }

    /// Assembles the chunks `self.chunks.len()..settled`, after renumbering what was
    /// assembled when connections were found since.
    fn catch_up(&mut self, walk: &Walk, settled: usize) {
        if walk.table.len() != self.map.len() {
            let map = walk.table.dense_ids();
            let renumbered = self.map.iter().any(|(id, c)| map.get(id) != Some(c));
            self.map = map;
            let redo: Vec<usize> = if renumbered {
                (0..self.chunks.len()).collect()
            } else {
                std::mem::take(&mut self.incomplete)
            };
            self.incomplete.clear();
            for i in redo {
                self.assemble(walk, i);
            }
        }
        for i in self.chunks.len()..settled {
            self.assemble(walk, i);
        }
    }

    /// Assembles chunk `i` (in place, or at the end of the list).
    fn assemble(&mut self, walk: &Walk, i: usize) {
        let Some(f) = walk.found.get(i) else { return };
        let index = u32::try_from(i).unwrap_or(u32::MAX);
        let mut unknown = HashMap::new();
        let (chunk, entries) = f.assemble(index, &self.map, &mut unknown);
        if !unknown.is_empty() {
            self.incomplete.push(i);
        }
        let entries: Arc<[IndexEntry]> = Arc::from(entries);
        let walked = f.scan.is_some();
        if let (Some(c), Some(e), Some(w)) = (
            self.chunks.get_mut(i),
            self.entries.get_mut(i),
            self.walked.get_mut(i),
        ) {
            *c = chunk;
            *e = entries;
            *w = walked;
        } else {
            self.chunks.push(chunk);
            self.heads.push(f.to_head());
            self.entries.push(entries);
            self.walked.push(walked);
        }
    }

    /// Everything assembled, brought up to the finished walk (every chunk settled, every
    /// connection found), for the bag the scan ends in.
    pub fn finish(mut self, walk: &Walk) -> Assembled {
        self.catch_up(walk, walk.found.len());
        Assembled {
            chunks: self.chunks,
            entries: self.entries,
            walked: self.walked,
            incomplete: self.incomplete.into_iter().collect(),
        }
    }

    /// The bag as assembled so far, with every loss and warning found so far.
    fn snapshot(&self, walk: &Walk) -> Opened {
        let (mut connections, conn_map) = walk.table.cloned(&self.map);
        let totals = count_and_total(&mut connections, &self.chunks);
        let complete = Chunk::complete_count(&self.chunks) as u64;
        let mut losses = walk.losses.clone();
        losses.sort_by_key(|l| l.offset);
        Opened {
            connections,
            conn_map,
            chunks: self.chunks.clone(),
            heads: Heads::known(self.heads.iter().copied()),
            entries: self.entries.iter().cloned().map(Some).collect(),
            warnings: walk.warnings.clone(),
            recovery: Some(Recovery {
                reason: self.reason.clone(),
                complete_chunks: complete,
                partial_chunks: self.chunks.len() as u64 - complete,
                losses,
                scanned: None,
                // Known once the walk reaches the end of the file.
                unfinished: None,
            }),
            totals: Some(totals),
            mcap: None,
        }
    }
}

/// The chunks a partial scan assembled as they settled, taken over by the bag the scan ends
/// in: their entries are the ones the partial bags handed out (shared, not made and held a
/// second time).
pub(super) struct Assembled {
    chunks: Vec<Chunk>,
    entries: Vec<Arc<[IndexEntry]>>,
    walked: Vec<bool>,
    incomplete: HashSet<usize>,
}

impl Assembled {
    /// Chunk `i` and its entries, as assembling it now would give them: `None` when it was
    /// assembled from its index data and has been walked since (`walked` says whether it has
    /// been now), or when some of its messages' connections are unknown (the caller counts
    /// them).
    pub fn get(&self, i: usize, walked: bool) -> Option<(Chunk, Arc<[IndexEntry]>)> {
        if self.incomplete.contains(&i) || self.walked.get(i) != Some(&walked) {
            return None;
        }
        Some((
            self.chunks.get(i)?.clone(),
            Arc::clone(self.entries.get(i)?),
        ))
    }
}
