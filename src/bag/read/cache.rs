//! A small least-recently-used cache of decompressed chunks, bounded by bytes.

use crate::bag::bytes::Bytes;

/// Decompressed chunks by chunk index, evicting the least recently used beyond a byte budget.
#[derive(Debug)]
pub(crate) struct ChunkCache {
    budget: usize,
    used: usize,
    tick: u64,
    items: Vec<(u32, Bytes, u64)>,
}

impl ChunkCache {
    /// A cache holding at most `budget` bytes (always at least the latest chunk).
    pub fn new(budget: usize) -> Self {
        ChunkCache {
            budget,
            used: 0,
            tick: 0,
            items: Vec::new(),
        }
    }

    /// The chunk's bytes, if cached.
    pub fn get(&mut self, chunk: u32) -> Option<Bytes> {
        self.tick += 1;
        let tick = self.tick;
        self.items
            .iter_mut()
            .find(|(c, _, _)| *c == chunk)
            .map(|(_, b, t)| {
                *t = tick;
                b.clone()
            })
    }

    /// Stores a chunk's bytes, evicting old ones to stay within budget.
    pub fn put(&mut self, chunk: u32, bytes: Bytes) {
        if !bytes.is_owned() {
            // Uncompressed chunks borrow the map: nothing to cache.
            return;
        }
        self.tick += 1;
        if self.items.iter().any(|(c, _, _)| *c == chunk) {
            return;
        }
        self.used += bytes.len();
        self.items.push((chunk, bytes, self.tick));
        while self.used > self.budget && self.items.len() > 1 {
            let Some((i, _)) = self
                .items
                .iter()
                .enumerate()
                .min_by_key(|(_, (_, _, t))| *t)
            else {
                break;
            };
            let (_, b, _) = self.items.swap_remove(i);
            self.used -= b.len();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evicts_least_recently_used_beyond_budget() {
        let mut c = ChunkCache::new(25);
        c.put(1, Bytes::from_vec(vec![0; 10]));
        c.put(2, Bytes::from_vec(vec![0; 10]));
        assert!(c.get(1).is_some());
        c.put(3, Bytes::from_vec(vec![0; 10]));
        assert!(c.get(2).is_none(), "2 was least recently used");
        assert!(c.get(1).is_some());
        assert!(c.get(3).is_some());
        // A single item larger than the budget is still kept.
        c.put(4, Bytes::from_vec(vec![0; 100]));
        assert!(c.get(4).is_some());
    }
}
