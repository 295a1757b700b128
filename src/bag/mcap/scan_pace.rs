//! When a forward scan of an MCAP file hands out the file as found so far (see
//! [`PartialFn`](crate::bag::PartialFn)): the same rule as the recovery scan of a bag — the
//! first soon after the first chunks are read, then at most every
//! [`PARTIAL_EVERY`](crate::bag::PARTIAL_EVERY), and less often when making one takes long (at
//! most a tenth of the scan's time goes into them).

use std::time::{Duration, Instant};

use crate::bag::handle::PARTIAL_EVERY;

/// Chunks in the first snapshot at the latest (it goes out earlier after [`FIRST_WAIT`]).
const FIRST_CHUNKS: usize = 8;

/// How long the first snapshot waits for [`FIRST_CHUNKS`] chunks.
const FIRST_WAIT: Duration = Duration::from_millis(100);

/// The time between two snapshots is at least this many times the time the last one took.
const COST_FACTOR: u32 = 10;

/// When the next snapshot is due.
pub(crate) struct Pace {
    started: Instant,
    last: Option<Instant>,
    /// Chunks in the last snapshot.
    sent: usize,
    every: Duration,
}

impl Pace {
    /// Nothing handed out yet; the scan starts now.
    pub fn new() -> Pace {
        Pace {
            started: Instant::now(),
            last: None,
            sent: 0,
            every: PARTIAL_EVERY,
        }
    }

    /// Whether a snapshot of `chunks` chunks is due (there must be more than in the last).
    pub fn due(&self, chunks: usize) -> bool {
        if chunks <= self.sent {
            return false;
        }
        match self.last {
            None => chunks >= FIRST_CHUNKS || self.started.elapsed() >= FIRST_WAIT,
            Some(t) => t.elapsed() >= self.every,
        }
    }

    /// A snapshot of `chunks` chunks, begun at `began`, was handed out.
    pub fn sent(&mut self, chunks: usize, began: Instant) {
        self.sent = chunks;
        self.every = PARTIAL_EVERY.max(began.elapsed() * COST_FACTOR);
        self.last = Some(Instant::now());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_goes_out_after_the_first_chunks_then_only_when_more_were_found() {
        let mut p = Pace::new();
        assert!(!p.due(0));
        assert!(p.due(FIRST_CHUNKS));
        p.sent(FIRST_CHUNKS, Instant::now());
        assert!(!p.due(FIRST_CHUNKS), "nothing new");
        p.last = Instant::now().checked_sub(PARTIAL_EVERY);
        assert!(p.due(FIRST_CHUNKS + 1));
    }
}
