//! Decompressing the chunks the walk must look into while the walk goes on: the walk (one
//! thread, large sequential reads) hands each such chunk to a pool of workers as soon as it
//! is found, and takes their results in file order, so that connections are added in the
//! same order whatever worker finishes first.

use std::collections::HashSet;
use std::sync::mpsc::{Receiver, SyncSender, TryRecvError, sync_channel};
use std::sync::{Arc, Mutex};

use crate::format::FormatError;

use super::super::chunk::{Chunk, ChunkState};
use super::super::read::entries::{ChunkScan, Origin, scan_records};
use super::super::read::heads::ChunkHead;
use super::super::read::load::load_chunk;
use super::super::source::{Changed, Source};
use super::state::{Found, Settings, Walk};
use crate::time::RosTime;

/// What decompressing and walking one chunk gave: the load error (if any) and the walk.
pub(super) type Walked = (Option<FormatError>, ChunkScan);

/// A chunk to decompress and walk: its position in the walk's list, and where it is.
struct Job {
    index: usize,
    chunk: Chunk,
    head: ChunkHead,
}

/// Chunks are handed out in batches of at least this many compressed bytes…
const BATCH_BYTES: u64 = 1 << 20;
/// …or this many chunks (tiny chunks: one hand-over per chunk would cost more than the
/// chunk)…
const BATCH_CHUNKS: usize = 256;
/// …or once the first chunk of the batch has waited this long (the partial results wait
/// for them).
const BATCH_WAIT: std::time::Duration = std::time::Duration::from_millis(20);

/// How far the walk is, for [`Walk::feed`].
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Stage {
    /// Walking: chunks are handed out in batches.
    Walking,
    /// The walk is done: the last batch goes out.
    Flush,
    /// Every chunk is handed out: wait for all the results.
    Wait,
}

/// Chunks handed to workers whose results have not yet been taken.
#[derive(Default)]
pub(super) struct Queue {
    /// Chunks of the list already looked at (handed out or not).
    fed: usize,
    /// Chunks handed out, by position in the list.
    sent: HashSet<usize>,
    /// Chunks waiting to be handed out together, their compressed bytes, since when.
    batch: Vec<Job>,
    batch_bytes: u64,
    batch_since: Option<std::time::Instant>,
    /// Results not yet settled, by position.
    done: std::collections::HashMap<usize, Result<Walked, Changed>>,
    /// Connection ids seen in index data so far.
    mentioned: HashSet<u32>,
    /// Chunks settled (taken in file order).
    pub settled: usize,
}

/// Where chunks are decompressed: on `threads` workers, or on the walking thread itself.
pub(super) struct Pool<'a> {
    jobs: Option<SyncSender<Vec<Job>>>,
    results: Option<Receiver<(usize, Result<Walked, Changed>)>>,
    source: &'a Arc<Source>,
    settings: &'a Settings<'a>,
}

/// Decompresses and walks one chunk (held against the budget meanwhile, dropped after).
pub(super) fn walk_one(
    source: &Arc<Source>,
    settings: &Settings<'_>,
    chunk: &Chunk,
    head: &ChunkHead,
) -> Result<Walked, Changed> {
    let loaded = load_chunk(source, chunk, head, settings.limit, settings.budget)?;
    let scan = scan_records(&loaded.bytes, Origin::of(chunk, head));
    Ok((loaded.error, scan))
}

impl<'a> Pool<'a> {
    /// Starts `settings.threads` workers in `scope` (none for one thread: the walking
    /// thread then decompresses each chunk itself).
    pub fn start<'s>(
        scope: &'s std::thread::Scope<'s, '_>,
        source: &'a Arc<Source>,
        settings: &'a Settings<'a>,
    ) -> Pool<'a>
    where
        'a: 's,
    {
        let threads = settings.threads.max(1);
        if threads == 1 {
            return Pool {
                jobs: None,
                results: None,
                source,
                settings,
            };
        }
        // A few chunks queued per worker: the walk runs ahead of them by that much at most.
        let (jobs, queue) = sync_channel::<Vec<Job>>(threads * 2);
        let (done, results) = std::sync::mpsc::channel();
        let queue = Arc::new(Mutex::new(queue));
        for _ in 0..threads {
            let queue = Arc::clone(&queue);
            let done = done.clone();
            scope.spawn(move || {
                'jobs: loop {
                    let batch = match queue.lock() {
                        Ok(q) => match q.recv() {
                            Ok(batch) => batch,
                            Err(_) => break,
                        },
                        Err(_) => break,
                    };
                    for job in batch {
                        let walked = walk_one(source, settings, &job.chunk, &job.head);
                        if done.send((job.index, walked)).is_err() {
                            break 'jobs;
                        }
                    }
                }
            });
        }
        Pool {
            jobs: Some(jobs),
            results: Some(results),
            source,
            settings,
        }
    }

    /// Adds chunk `index` to the batch to hand out.
    fn add(queue: &mut Queue, index: usize, f: &Found) {
        let chunk = f.to_chunk(0, (RosTime::MIN, RosTime::MIN), Vec::new());
        let head = f.to_head();
        queue.sent.insert(index);
        queue.batch_bytes += f.data_len;
        queue
            .batch_since
            .get_or_insert_with(std::time::Instant::now);
        queue.batch.push(Job { index, chunk, head });
    }

    /// Hands the batch out when it is big enough, has waited long enough, or `now`.
    fn send(&self, queue: &mut Queue, now: bool) {
        let due = queue.batch_bytes >= BATCH_BYTES
            || queue.batch.len() >= BATCH_CHUNKS
            || queue.batch_since.is_some_and(|t| t.elapsed() >= BATCH_WAIT);
        if queue.batch.is_empty() || !(now || due) {
            return;
        }
        let batch = std::mem::take(&mut queue.batch);
        queue.batch_bytes = 0;
        queue.batch_since = None;
        // Without workers (one thread, or none left: cannot happen while the scope lives),
        // the chunks are walked here.
        let unsent = match &self.jobs {
            Some(jobs) => jobs.send(batch).err().map(|e| e.0),
            None => Some(batch),
        };
        for job in unsent.unwrap_or_default() {
            let w = walk_one(self.source, self.settings, &job.chunk, &job.head);
            queue.done.insert(job.index, w);
        }
    }

    /// Takes the results that arrived, blocking for all outstanding ones when `all`.
    fn collect(&self, queue: &mut Queue, all: bool) {
        let Some(results) = &self.results else { return };
        loop {
            let outstanding = queue.sent.len() > queue.done.len();
            let next = if all && outstanding {
                results.recv().map_err(|_| TryRecvError::Disconnected)
            } else {
                results.try_recv()
            };
            match next {
                Ok((i, w)) => {
                    queue.done.insert(i, w);
                }
                Err(_) => return,
            }
        }
    }

    /// No more chunks: lets the workers end once the queue is empty.
    pub fn close(&mut self) {
        self.jobs = None;
    }
}

impl Walk {
    /// Hands out the chunks found since the last call that must be decompressed (their index
    /// data is missing, or they hold the first use of a connection not yet known), takes the
    /// results that arrived, and settles the chunks whose turn has come, in file order
    /// (see [`Stage`]). Returns the chunks settled so far.
    pub(super) fn feed(&mut self, pool: &Pool<'_>, queue: &mut Queue, stage: Stage) -> usize {
        while queue.fed < self.found.len() {
            let i = queue.fed;
            queue.fed += 1;
            let Some(f) = self.found.get(i) else { break };
            let mut send = f.state != ChunkState::Complete || f.index.is_empty();
            for (id, _) in &f.index {
                if queue.mentioned.insert(*id) && !self.table.contains(*id) {
                    send = true;
                }
            }
            if send {
                Pool::add(queue, i, f);
            }
        }
        pool.send(queue, stage != Stage::Walking);
        pool.collect(queue, stage == Stage::Wait);
        while queue.settled < self.found.len() {
            let i = queue.settled;
            if queue.sent.contains(&i) {
                let Some(w) = queue.done.remove(&i) else {
                    break;
                };
                queue.sent.remove(&i);
                match w {
                    Ok(w) => self.settle(i, w),
                    Err(c) => {
                        self.changed.get_or_insert(c);
                    }
                }
            }
            queue.settled += 1;
        }
        queue.settled
    }
}
