//! When each message is due: bag time mapped onto the monotonic clock, scaled by the rate,
//! shifted by pauses; and a precise wait (sleep, then yield for the last stretch).

use std::sync::mpsc::{Receiver, RecvTimeoutError, TryRecvError};
use std::time::{Duration, Instant};

use crate::time::RosTime;

/// The mapping between bag time and wall (monotonic) time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Schedule {
    origin: Instant,
    t0: RosTime,
    rate: f64,
}

impl Schedule {
    /// Bag time `t0` is due at `origin`; later times follow at `rate` (2.0: twice as fast).
    pub fn new(origin: Instant, t0: RosTime, rate: f64) -> Self {
        Schedule { origin, t0, rate }
    }

    /// When bag time `t` is due (`t` before the start: at the start).
    pub fn due(&self, t: RosTime) -> Instant {
        let nanos = t.nanos_since(self.t0).max(0) as f64 / self.rate;
        // Saturate far-future times instead of overflowing `Instant`.
        let wall = Duration::from_secs_f64((nanos / 1e9).min(1e9));
        self.origin.checked_add(wall).unwrap_or(self.origin)
    }

    /// The bag time at wall time `now`.
    pub fn bag_time(&self, now: Instant) -> RosTime {
        let elapsed = now.saturating_duration_since(self.origin).as_secs_f64() * self.rate;
        #[allow(clippy::cast_possible_truncation)] // bounded far below i128::MAX
        self.t0.saturating_add_nanos((elapsed * 1e9) as i128)
    }

    /// Moves the schedule later by `d` (after a pause of that length).
    pub fn delay(&mut self, d: Duration) {
        self.origin = self.origin.checked_add(d).unwrap_or(self.origin);
    }

    /// Makes bag time `t` due at `at`, keeping the rate (after a step while paused).
    pub fn rebase(&mut self, t: RosTime, at: Instant) {
        *self = Schedule::new(at, t, self.rate);
    }
}

/// Why [`wait_until`] returned.
#[derive(Debug, PartialEq, Eq)]
pub enum Wake<C> {
    /// The deadline has passed.
    Due,
    /// A control message arrived first.
    Control(C),
}

/// Waits until `deadline`, returning early with the first message on `control`. Sleeps
/// (blocked on the channel) until `spin` before the deadline, then yields in a loop: the
/// wake-up lands within microseconds of the deadline instead of the timer's slack.
pub fn wait_until<C>(deadline: Instant, control: &Receiver<C>, spin: Duration) -> Wake<C> {
    let mut connected = true;
    loop {
        let now = Instant::now();
        if now >= deadline {
            // Even when nothing waits (a message already late, or played as fast as
            // possible), a pending control message is seen.
            if connected {
                if let Ok(c) = control.try_recv() {
                    return Wake::Control(c);
                }
            }
            return Wake::Due;
        }
        let left = deadline - now;
        if left > spin {
            let nap = left.saturating_sub(spin);
            if connected {
                match control.recv_timeout(nap) {
                    Ok(c) => return Wake::Control(c),
                    Err(RecvTimeoutError::Timeout) => {}
                    Err(RecvTimeoutError::Disconnected) => connected = false,
                }
            } else {
                std::thread::sleep(nap);
            }
        } else {
            if connected {
                match control.try_recv() {
                    Ok(c) => return Wake::Control(c),
                    Err(TryRecvError::Empty) => {}
                    Err(TryRecvError::Disconnected) => connected = false,
                }
            }
            std::thread::yield_now();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mapping() {
        let o = Instant::now();
        let t0 = RosTime::new(100, 0);
        let mut s = Schedule::new(o, t0, 2.0);
        assert_eq!(s.due(RosTime::new(101, 0)), o + Duration::from_millis(500));
        assert_eq!(s.due(RosTime::new(99, 0)), o);
        assert_eq!(s.bag_time(o + Duration::from_secs(1)), RosTime::new(102, 0));
        s.delay(Duration::from_secs(3));
        assert_eq!(s.due(RosTime::new(100, 0)), o + Duration::from_secs(3));
        s.rebase(RosTime::new(200, 0), o);
        assert_eq!(s.due(RosTime::new(201, 0)), o + Duration::from_millis(500));
        // Absurd spans saturate instead of panicking.
        let _ = s.due(RosTime::MAX);
    }

    #[test]
    fn waits_and_wakes() {
        let (tx, rx) = std::sync::mpsc::channel::<u8>();
        let start = Instant::now();
        let d = start + Duration::from_millis(20);
        assert_eq!(wait_until(d, &rx, Duration::from_millis(1)), Wake::Due);
        assert!(Instant::now() >= d);
        tx.send(7).unwrap();
        let far = Instant::now() + Duration::from_secs(60);
        assert_eq!(
            wait_until(far, &rx, Duration::from_millis(1)),
            Wake::Control(7)
        );
        // A control message already waiting is seen even when the deadline has passed.
        tx.send(8).unwrap();
        assert_eq!(
            wait_until(Instant::now(), &rx, Duration::ZERO),
            Wake::Control(8)
        );
        drop(tx);
        let d = Instant::now() + Duration::from_millis(5);
        assert_eq!(wait_until(d, &rx, Duration::from_millis(1)), Wake::Due);
    }
}
