//! The chunks that hold some connections, read in receive-time order in growing parallel
//! batches: how plot series, content search and the log view read a topic in the background.
//!
//! The first batch is small (a first piece arrives within milliseconds), later ones double up
//! to [`MAX_BATCH`] chunks; each batch is read on the bags' threads and handed over in chunk
//! order with the progress so far and the start of the next chunk to read (what readers that
//! need receive-time order wait for, see `series_order`). Setting the cancel flag ends the
//! reading at the next chunk.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::bag::{Bag, ConnId, parallel_map};
use crate::time::RosTime;

use super::{BagConn, Catalog};

/// Chunks in the first batch (at least one per thread).
const FIRST_BATCH: usize = 2;
/// The largest batch.
const MAX_BATCH: usize = 64;

/// One chunk to read.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ChunkJob {
    /// Index of the bag in the catalog.
    pub bag: usize,
    /// Index of the chunk in its bag.
    pub chunk: u32,
    /// The chunk's first receive time.
    pub start: RosTime,
    /// Messages of the wanted connections in the chunk.
    pub messages: u64,
}

/// What one batch read, with the progress so far.
pub(crate) struct Batch<R> {
    /// The results of the chunks read, in chunk order (chunks `read` gave up on are left out).
    pub results: Vec<R>,
    /// Fraction of the wanted messages read so far (1 when there are none).
    pub fraction: f64,
    /// True for the last batch (everything read, or cancelled).
    pub done: bool,
    /// The start of the first chunk still to read (`None` on the last batch): no message
    /// received before it is still to come, however the chunks overlap in time.
    pub next: Option<RosTime>,
}

/// The connections with a plan (to read) and those without (to count as skipped), from the
/// plans of every bag's connections.
pub(crate) fn usable_and_skipped<P>(
    plans: &[HashMap<ConnId, Option<P>>],
) -> (Vec<BagConn>, Vec<BagConn>) {
    let (mut usable, mut skipped) = (Vec::new(), Vec::new());
    for (bag, conns) in plans.iter().enumerate() {
        for (&conn, plan) in conns {
            let key = BagConn::new(bag, conn);
            if plan.is_some() {
                usable.push(key);
            } else {
                skipped.push(key);
            }
        }
    }
    (usable, skipped)
}

/// Messages of `conns` in the chunks that hold them: what reading them all will cover.
pub(crate) fn messages_in(catalog: &Catalog, conns: &[BagConn]) -> u64 {
    catalog.chunks_holding(Some(conns)).map(|(_, n)| n).sum()
}

/// Reads the chunks holding `conns`: `read` runs for each chunk on the bags' threads (`None`
/// leaves it out), `on_batch` gets each batch in order and returns `false` to stop. At least
/// one (possibly empty) batch is always handed over, the last with `done` set.
pub(crate) fn read_batches<R: Send>(
    catalog: &Catalog,
    conns: &[BagConn],
    cancel: &AtomicBool,
    read: impl Fn(&Bag, &ChunkJob) -> Option<R> + Sync,
    on_batch: impl FnMut(Batch<R>) -> bool,
) {
    read_batches_from(catalog, conns, None, cancel, read, on_batch);
}

/// [`read_batches`] over only the chunks that end at or after `from` (all with `None`): how a
/// plot series that grows with a followed recording reads what was appended.
pub(crate) fn read_batches_from<R: Send>(
    catalog: &Catalog,
    conns: &[BagConn],
    from: Option<RosTime>,
    cancel: &AtomicBool,
    read: impl Fn(&Bag, &ChunkJob) -> Option<R> + Sync,
    mut on_batch: impl FnMut(Batch<R>) -> bool,
) {
    let mut jobs: Vec<ChunkJob> = catalog
        .chunks_holding(Some(conns))
        .filter(|(c, _)| from.is_none_or(|t| c.chunk.end >= t))
        .map(|(c, messages)| ChunkJob {
            bag: c.bag,
            chunk: c.chunk.index,
            start: c.chunk.start,
            messages,
        })
        .collect();
    jobs.sort_by_key(|j| (j.start, j.bag, j.chunk));
    let total: u64 = jobs.iter().map(|j| j.messages).sum();
    let threads = catalog
        .bags()
        .iter()
        .map(Bag::threads)
        .max()
        .unwrap_or(1)
        .max(1);
    let mut done_messages = 0u64;
    let mut batch = FIRST_BATCH.max(threads);
    let mut rest: &[ChunkJob] = &jobs;
    loop {
        let (now, later) = rest.split_at(batch.min(rest.len()));
        rest = later;
        let results = parallel_map(now, threads, |job| {
            if cancel.load(Ordering::Relaxed) {
                return None;
            }
            read(catalog.bag(job.bag)?, job)
        });
        let mut kept = Vec::with_capacity(results.len());
        for (job, result) in now.iter().zip(results) {
            if let Some(r) = result {
                done_messages += job.messages;
                kept.push(r);
            }
        }
        let done = rest.is_empty() || cancel.load(Ordering::Relaxed);
        #[allow(clippy::cast_precision_loss)]
        let fraction = if total == 0 {
            1.0
        } else {
            (done_messages as f64 / total as f64).min(1.0)
        };
        let next = if done {
            None
        } else {
            rest.first().map(|j| j.start)
        };
        let go_on = on_batch(Batch {
            results: kept,
            fraction,
            done,
            next,
        });
        if !go_on || done {
            break;
        }
        batch = (batch * 2).min(MAX_BATCH);
    }
}
