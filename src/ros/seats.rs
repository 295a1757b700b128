//! The subscribers a node keeps: capped per address and in total, so that peers that connect
//! and never leave cannot take every file descriptor (or thread). A subscriber beyond a cap
//! is refused with the reason; refusals are reported to whoever watches the node, at most
//! one line every [`REPORT_EVERY`] (with the count of those not reported one by one).

use std::collections::HashMap;
use std::net::{IpAddr, Ipv6Addr};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

/// How often a refused subscriber is reported at most.
pub const REPORT_EVERY: Duration = Duration::from_secs(10);

type Hook = Box<dyn Fn(&str) + Send + Sync>;

#[derive(Default)]
struct Taken {
    total: usize,
    by_peer: HashMap<IpAddr, usize>,
}

#[derive(Default)]
struct Reports {
    hooks: Vec<Hook>,
    last: Option<Instant>,
    unreported: u64,
}

/// The subscriber connections of a node, every topic together.
pub(crate) struct Seats {
    total: usize,
    per_peer: usize,
    taken: Mutex<Taken>,
    refused: AtomicU64,
    reports: Mutex<Reports>,
}

/// One subscriber's place; given back when dropped.
pub(crate) struct Seat {
    seats: Arc<Seats>,
    peer: IpAddr,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The address a cap counts against: IPv4 (also IPv4-mapped IPv6) as is, IPv6 by its /64
/// network (one host usually holds a whole /64).
fn peer_key(ip: IpAddr) -> IpAddr {
    match ip.to_canonical() {
        IpAddr::V6(v6) => {
            let bits = u128::from(v6) & !u128::from(u64::MAX);
            IpAddr::V6(Ipv6Addr::from(bits))
        }
        v4 @ IpAddr::V4(_) => v4,
    }
}

impl Seats {
    /// At most `total` subscribers, `per_peer` from one address (both at least 1).
    pub(crate) fn new(total: usize, per_peer: usize) -> Arc<Seats> {
        Arc::new(Seats {
            total: total.max(1),
            per_peer: per_peer.max(1),
            taken: Mutex::new(Taken::default()),
            refused: AtomicU64::new(0),
            reports: Mutex::new(Reports::default()),
        })
    }

    /// A seat for a subscriber of `topic` from `peer`, or why not (for its `error` header).
    pub(crate) fn take(self: &Arc<Self>, peer: IpAddr, topic: &str) -> Result<Seat, String> {
        let key = peer_key(peer);
        let refusal = {
            let mut t = lock(&self.taken);
            let from_peer = t.by_peer.get(&key).copied().unwrap_or(0);
            if from_peer >= self.per_peer {
                Some(format!(
                    "too many subscribers from {key} (at most {} per address)",
                    self.per_peer
                ))
            } else if t.total >= self.total {
                Some(format!(
                    "too many subscribers (at most {} in all)",
                    self.total
                ))
            } else {
                t.total += 1;
                *t.by_peer.entry(key).or_insert(0) += 1;
                None
            }
        };
        match refusal {
            None => Ok(Seat {
                seats: Arc::clone(self),
                peer: key,
            }),
            Some(why) => {
                self.refused.fetch_add(1, Ordering::Relaxed);
                self.report(&format!(
                    "refused a subscriber of {topic} from {peer}: {why}"
                ));
                Err(why)
            }
        }
    }

    /// Subscribers kept now.
    pub(crate) fn taken(&self) -> usize {
        lock(&self.taken).total
    }

    /// Subscribers refused since the start.
    pub(crate) fn refused(&self) -> u64 {
        self.refused.load(Ordering::Relaxed)
    }

    /// Calls `hook` with a line for refused subscribers (at most one every
    /// [`REPORT_EVERY`]).
    pub(crate) fn on_refusal(&self, hook: impl Fn(&str) + Send + Sync + 'static) {
        lock(&self.reports).hooks.push(Box::new(hook));
    }

    fn report(&self, line: &str) {
        let mut r = lock(&self.reports);
        let now = Instant::now();
        if r.last.is_some_and(|t| now.duration_since(t) < REPORT_EVERY) {
            r.unreported += 1;
            return;
        }
        let line = if r.unreported > 0 {
            format!(
                "{line} ({} more refused in the last {} s)",
                r.unreported,
                REPORT_EVERY.as_secs()
            )
        } else {
            line.to_string()
        };
        r.last = Some(now);
        r.unreported = 0;
        for hook in &r.hooks {
            hook(&line);
        }
    }

    fn give_back(&self, key: IpAddr) {
        let mut t = lock(&self.taken);
        t.total = t.total.saturating_sub(1);
        if let Some(n) = t.by_peer.get_mut(&key) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                t.by_peer.remove(&key);
            }
        }
    }
}

impl Drop for Seat {
    fn drop(&mut self) {
        self.seats.give_back(self.peer);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caps_per_peer_and_in_total() {
        let seats = Seats::new(3, 2);
        let lines = Arc::new(Mutex::new(Vec::<String>::new()));
        {
            let lines = Arc::clone(&lines);
            seats.on_refusal(move |l| lines.lock().unwrap().push(l.to_string()));
        }
        let a: IpAddr = "127.0.0.2".parse().unwrap();
        let b: IpAddr = "127.0.0.3".parse().unwrap();
        let a1 = seats.take(a, "/t").unwrap();
        let _a2 = seats.take(a, "/t").unwrap();
        let why = seats.take(a, "/t").err().unwrap();
        assert!(
            why.contains("from 127.0.0.2 (at most 2 per address)"),
            "{why}"
        );
        let _b1 = seats.take(b, "/t").unwrap();
        let why = seats.take(b, "/u").err().unwrap();
        assert!(why.contains("at most 3 in all"), "{why}");
        assert_eq!((seats.taken(), seats.refused()), (3, 2));
        // A seat given back makes room.
        drop(a1);
        let _a3 = seats.take(a, "/t").unwrap();
        // The first refusal is reported at once, the second within the period is counted.
        let lines = lines.lock().unwrap().clone();
        assert_eq!(lines.len(), 1, "{lines:?}");
        assert!(lines[0].starts_with("refused a subscriber of /t from 127.0.0.2: too many"));
    }

    #[test]
    fn ipv6_counts_by_network() {
        let seats = Seats::new(10, 1);
        let _a = seats.take("2001:db8::1".parse().unwrap(), "/t").unwrap();
        assert!(seats.take("2001:db8::2".parse().unwrap(), "/t").is_err());
        assert!(seats.take("2001:db8:0:1::2".parse().unwrap(), "/t").is_ok());
        // IPv4-mapped addresses count as IPv4.
        let _m = seats
            .take("::ffff:10.0.0.1".parse().unwrap(), "/t")
            .unwrap();
        assert!(seats.take("10.0.0.1".parse().unwrap(), "/t").is_err());
    }
}
