//! A byte budget shared by everything that decompresses chunks of one bag at the same time
//! (the parallel iterator's workers, `verify`'s workers, the recovery walk), so that a few
//! kilobytes of compressed data claiming a gigabyte each cannot multiply by the number of
//! cores.
//!
//! A holder waits until its bytes fit beside the others'; a request larger than the whole
//! budget is granted when nothing else is held (it then runs alone). Permits are only held by
//! code that does not wait for anything else meanwhile (decompressing, then walking or
//! checking the chunk), so waiting cannot deadlock. At any moment the bytes held are at most
//! `max(total, largest single request)`.

use std::sync::{Arc, Condvar, Mutex, PoisonError};

/// The default budget: 512 MiB of decompressed chunk data in flight per bag.
pub const DEFAULT_DECODE_BUDGET: u64 = 512 << 20;

/// Bytes of decompressed data that may be in flight together.
#[derive(Debug)]
pub struct Budget {
    total: u64,
    used: Mutex<u64>,
    freed: Condvar,
}

impl Budget {
    /// A budget of `total` bytes.
    pub fn new(total: u64) -> Arc<Budget> {
        Arc::new(Budget {
            total,
            used: Mutex::new(0),
            freed: Condvar::new(),
        })
    }

    /// The budget's size.
    pub fn total(&self) -> u64 {
        self.total
    }

    /// Bytes held right now.
    pub fn used(&self) -> u64 {
        *self.used.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Waits until `bytes` fit beside what is held (or nothing is held), then holds them.
    pub fn acquire(self: &Arc<Self>, bytes: u64) -> Permit {
        let mut used = self.used.lock().unwrap_or_else(PoisonError::into_inner);
        while *used > 0 && used.saturating_add(bytes) > self.total {
            used = self
                .freed
                .wait(used)
                .unwrap_or_else(PoisonError::into_inner);
        }
        *used = used.saturating_add(bytes);
        Permit {
            budget: Arc::clone(self),
            bytes,
        }
    }
}

/// Bytes held from a [`Budget`]; given back when dropped.
#[derive(Debug)]
pub struct Permit {
    budget: Arc<Budget>,
    bytes: u64,
}

impl Permit {
    /// The bytes held.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }
}

impl Drop for Permit {
    fn drop(&mut self) {
        let mut used = self
            .budget
            .used
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        *used = used.saturating_sub(self.bytes);
        self.budget.freed.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holds_at_most_the_total_or_one_large_request() {
        let b = Budget::new(100);
        let a = b.acquire(60);
        assert_eq!(b.used(), 60);
        let b2 = Arc::clone(&b);
        let waiter = std::thread::spawn(move || {
            let p = b2.acquire(50);
            p.bytes()
        });
        std::thread::sleep(std::time::Duration::from_millis(50));
        assert_eq!(b.used(), 60, "the second request waits");
        drop(a);
        assert_eq!(waiter.join().unwrap(), 50);
        assert_eq!(b.used(), 0);
        // Larger than the whole budget: granted alone.
        let big = b.acquire(1000);
        assert_eq!(b.used(), 1000);
        drop(big);
        assert_eq!(b.used(), 0);
    }
}
