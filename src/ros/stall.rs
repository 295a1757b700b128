//! How long lossless publishing may be held up by subscribers that do not keep up: one
//! budget for a whole run (a bagserver request), shared by every subscriber of every topic,
//! so that forty subscribers that never read cost what one does, not forty times as much.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// A subscriber is waited for without charge while it takes at least one step (a message,
/// or 64 KiB of one) every `PACE` (320 KiB/s); the time beyond is charged to the run's
/// budget. Generous, so that a subscriber that keeps up but is descheduled for a moment on a
/// loaded machine is still waited for.
pub const PACE: Duration = Duration::from_millis(200);

/// The waiting one run of lossless publishing may spend on subscribers that do not keep up.
///
/// * A subscriber that takes nothing for [`StallBudget::stall`] (counted from the last
///   thing it took, so subscribers that stopped together are noticed together) is marked
///   slow: never waited for again, it loses its oldest messages instead.
/// * Time spent waiting for a subscriber is charged to the budget, less [`PACE`] for each
///   step it took meanwhile: a subscriber that reads as fast as messages come is waited for
///   freely (`rate max` goes as fast as the connections take the messages).
/// * Once the budget is spent, the run waits only for subscribers that keep that pace:
///   the others' full queues lose their oldest messages (counted), and the answer does not
///   wait for their queues to drain.
#[derive(Debug)]
pub struct StallBudget {
    stall: Duration,
    allowance: Duration,
    spent: AtomicU64,
}

fn nanos(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

impl StallBudget {
    /// A subscriber taking nothing for `stall` is marked slow; `allowance` is the waiting
    /// charged in all.
    pub fn new(stall: Duration, allowance: Duration) -> StallBudget {
        StallBudget {
            stall,
            allowance,
            spent: AtomicU64::new(0),
        }
    }

    /// How long a subscriber may take nothing before it is marked slow.
    pub fn stall(&self) -> Duration {
        self.stall
    }

    /// The waiting charged so far.
    pub fn spent(&self) -> Duration {
        Duration::from_nanos(self.spent.load(Ordering::SeqCst))
    }

    /// The waiting left.
    pub fn left(&self) -> Duration {
        self.allowance.saturating_sub(self.spent())
    }

    /// Charges `waited`, less [`PACE`] for each of the `steps` the subscriber took meanwhile.
    pub(crate) fn charge(&self, waited: Duration, steps: u64) {
        let free = PACE.saturating_mul(u32::try_from(steps).unwrap_or(u32::MAX));
        let charged = nanos(waited.saturating_sub(free));
        if charged > 0 {
            let _ = self
                .spent
                .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |s| {
                    Some(s.saturating_add(charged))
                });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn charges_what_is_not_progress() {
        let b = StallBudget::new(Duration::from_secs(1), Duration::from_secs(1));
        b.charge(Duration::from_millis(300), 0);
        assert_eq!(b.spent(), Duration::from_millis(300));
        // Ten steps in 400 ms: 200 ms each is free.
        b.charge(Duration::from_millis(400), 10);
        assert_eq!(b.spent(), Duration::from_millis(300));
        b.charge(Duration::from_millis(1200), 2);
        assert_eq!(b.spent(), Duration::from_millis(1100));
        assert_eq!(b.left(), Duration::ZERO);
    }
}
