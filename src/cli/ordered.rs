//! Work on several threads with the results in input order: how `export` and `echo` format text
//! on every core while their output stays byte-identical to a run on one thread.
//!
//! The calling thread reads the items (reading a bag is cheap next to formatting it) and cuts
//! them into batches; workers turn each batch into a result; the calling thread hands the
//! results to the sink in input order. At most two batches per worker are in flight (sent and
//! not yet given to the sink), so memory stays bounded however fast the items come.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::mpsc;

/// How large a batch grows before it is sent to a worker.
#[derive(Clone, Copy, Debug)]
pub struct BatchLimit {
    /// At most this many items.
    pub items: usize,
    /// At most about this many bytes (by the caller's weight; the item that crosses it is
    /// the last of its batch).
    pub bytes: usize,
}

impl Default for BatchLimit {
    fn default() -> Self {
        BatchLimit {
            items: 512,
            bytes: 1 << 20,
        }
    }
}

/// The number of workers to use: the machine's cores, at least one.
pub fn workers() -> usize {
    std::thread::available_parallelism().map_or(1, std::num::NonZero::get)
}

/// Maps `items` in batches on `threads` workers, each with its own state from `init`, and
/// gives the results to `sink` in input order. `sink` returning `false` stops: no further
/// batch is sent, and results still in flight are dropped.
pub fn ordered_map<T, S, R>(
    items: impl Iterator<Item = T>,
    threads: usize,
    limit: BatchLimit,
    weight: impl Fn(&T) -> usize,
    init: impl Fn() -> S + Sync,
    work: impl Fn(&mut S, Vec<T>) -> R + Sync,
    mut sink: impl FnMut(R) -> bool,
) where
    T: Send,
    R: Send,
{
    let threads = threads.max(1);
    let in_flight = threads * 2;
    let mut items = items.fuse();
    let (job_tx, job_rx) = mpsc::sync_channel::<(u64, Vec<T>)>(in_flight);
    let job_rx = Mutex::new(job_rx);
    let (result_tx, result_rx) = mpsc::channel::<(u64, R)>();
    std::thread::scope(|scope| {
        for _ in 0..threads {
            let (job_rx, result_tx, init, work) = (&job_rx, result_tx.clone(), &init, &work);
            scope.spawn(move || {
                let mut state = init();
                loop {
                    // The lock is held while waiting: the next job goes to whichever worker
                    // waits first.
                    let job = match job_rx.lock() {
                        Ok(rx) => rx.recv(),
                        Err(_) => return,
                    };
                    let Ok((seq, batch)) = job else { return };
                    if result_tx.send((seq, work(&mut state, batch))).is_err() {
                        return;
                    }
                }
            });
        }
        drop(result_tx);
        let (mut sent, mut given) = (0u64, 0u64);
        let mut waiting = BTreeMap::new();
        let mut stopped = false;
        loop {
            while !stopped && sent - given < in_flight as u64 {
                let batch = next_batch(&mut items, limit, &weight);
                if batch.is_empty() || job_tx.send((sent, batch)).is_err() {
                    break;
                }
                sent += 1;
            }
            if given == sent {
                break;
            }
            let Ok((seq, result)) = result_rx.recv() else {
                break;
            };
            waiting.insert(seq, result);
            while let Some(result) = waiting.remove(&given) {
                given += 1;
                if !stopped && !sink(result) {
                    stopped = true;
                }
            }
        }
        drop(job_tx);
    });
}

fn next_batch<T>(
    items: &mut impl Iterator<Item = T>,
    limit: BatchLimit,
    weight: &impl Fn(&T) -> usize,
) -> Vec<T> {
    let mut batch = Vec::new();
    let mut bytes = 0usize;
    while batch.len() < limit.items.max(1) && bytes < limit.bytes {
        let Some(item) = items.next() else { break };
        bytes = bytes.saturating_add(weight(&item));
        batch.push(item);
    }
    batch
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(n: u64, threads: usize, limit: BatchLimit) -> Vec<u64> {
        let mut out = Vec::new();
        ordered_map(
            0..n,
            threads,
            limit,
            |_| 1,
            || 0u64,
            |calls, batch: Vec<u64>| {
                *calls += 1;
                // Uneven work so that batches finish out of order.
                if batch.first().is_some_and(|x| x % 3 == 0) {
                    std::thread::sleep(std::time::Duration::from_millis(2));
                }
                batch.iter().map(|x| x * 2).collect::<Vec<_>>()
            },
            |r| {
                out.extend(r);
                true
            },
        );
        out
    }

    #[test]
    fn results_come_in_input_order() {
        let want: Vec<u64> = (0..1000).map(|x| x * 2).collect();
        for threads in [1, 2, 5] {
            let limit = BatchLimit {
                items: 7,
                bytes: usize::MAX,
            };
            assert_eq!(run(1000, threads, limit), want, "{threads} threads");
        }
        assert!(run(0, 3, BatchLimit::default()).is_empty());
    }

    #[test]
    fn batches_close_at_the_byte_limit() {
        let limit = BatchLimit {
            items: 100,
            bytes: 10,
        };
        let mut items = [4usize, 4, 4, 4, 20, 1].into_iter();
        let sizes: Vec<usize> = std::iter::from_fn(|| {
            let b = next_batch(&mut items, limit, &|x: &usize| *x);
            (!b.is_empty()).then_some(b.len())
        })
        .collect();
        assert_eq!(sizes, [3, 2, 1]);
    }

    #[test]
    fn a_sink_that_stops_gets_nothing_more() {
        let mut got = Vec::new();
        let limit = BatchLimit {
            items: 1,
            bytes: usize::MAX,
        };
        ordered_map(
            0..10_000u32,
            2,
            limit,
            |_| 1,
            || (),
            |(), b: Vec<u32>| b,
            |r| {
                got.extend(r);
                got.len() < 5
            },
        );
        assert_eq!(got, [0, 1, 2, 3, 4]);
    }
}
