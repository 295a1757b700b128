//! The chunks by time of a recording still being written, carried from one snapshot to the
//! next. A recording's chunks are written in time order and, once closed, never change: a
//! new snapshot keeps the sorted lists of the closed chunks, drops the chunks that were still
//! open, and appends the chunks from there on, sorted; only the run sums over the appended
//! part are summed again. Work proportional to the chunks added since, plus a copy of the
//! lists (a few bytes a chunk), instead of sorting and summing every chunk of the recording
//! again. When the new chunks do not sort after the kept ones (a chunk starting before an
//! older one), the lists are built anew.

use std::collections::HashMap;
use std::sync::Arc;

use super::{BagTimes, FAN, Lists, Runs, by_start, level_zero, levels_over, tail_from};
use crate::bag::{Bag, Chunk, ConnId};

impl BagTimes {
    /// The chunks by time of `bag`, a later snapshot of the recording `self` was built for,
    /// whose chunks from `stable` on may still change. Its chunks before the stable ones of
    /// `self` must be those `self` was built over, unchanged.
    #[must_use]
    pub fn grow(&self, bag: &Bag, stable: usize) -> BagTimes {
        let chunks = bag.chunks();
        let stable = stable.min(chunks.len());
        if stable < self.stable {
            return BagTimes::growing(bag, stable);
        }
        let lists = Lists::new(bag, by_start(chunks, self.stable..chunks.len()));
        let Some(all) = self.all.extend(lists.order, lists.totals, chunks, stable) else {
            return BagTimes::growing(bag, stable);
        };
        let mut added: HashMap<ConnId, (Vec<u32>, Vec<u32>)> = lists
            .by_conn
            .into_iter()
            .map(|(id, is, ns)| (id, (is, ns)))
            .collect();
        let mut by_conn = HashMap::with_capacity(self.by_conn.len().max(added.len()));
        for (&id, runs) in &self.by_conn {
            let (is, ns) = added.remove(&id).unwrap_or_default();
            let grown = if is.is_empty() && runs.tail == Some(0) {
                Arc::clone(runs)
            } else {
                match runs.extend(is, ns, chunks, stable) {
                    Some(r) => Arc::new(r),
                    None => return BagTimes::growing(bag, stable),
                }
            };
            by_conn.insert(id, grown);
        }
        // Connections whose first messages came since.
        for (id, (is, ns)) in added {
            by_conn.insert(id, Arc::new(Runs::new(is, ns, chunks, stable)));
        }
        BagTimes {
            all,
            by_conn,
            stable,
        }
    }
}

impl Runs {
    /// These runs without the chunks that could still change, and with the chunks `add`
    /// (sorted by start time, with their `counts`) after them; chunks from `stable` on may
    /// still change. `None` when the runs must be built anew: the chunks that could change
    /// were not the last ones, or a chunk added starts before the last one kept.
    fn extend(
        &self,
        add: Vec<u32>,
        counts: Vec<u32>,
        chunks: &[Chunk],
        stable: usize,
    ) -> Option<Runs> {
        let keep = self.chunks.len().checked_sub(self.tail?)?;
        let start = |i: &u32| chunks.get(*i as usize).map(|c| c.start);
        let last_kept = keep.checked_sub(1).and_then(|k| self.chunks.get(k));
        if let (Some(last), Some(first)) = (last_kept, add.first()) {
            if start(first)? < start(last)? {
                return None;
            }
        }
        let mut order = Vec::with_capacity(keep + add.len());
        order.extend_from_slice(self.chunks.get(..keep)?);
        order.extend(add);
        let mut all_counts = Vec::with_capacity(order.len());
        all_counts.extend_from_slice(self.counts.get(..keep)?);
        all_counts.extend(counts);
        // The level-0 runs over kept chunks only are kept; the rest are summed again.
        let first_changed = keep / FAN;
        let mut level: Vec<super::Run> = self
            .levels
            .first()
            .map(|l| l.iter().take(first_changed).copied().collect())
            .unwrap_or_default();
        let kept_runs = level.len();
        let from = kept_runs * FAN;
        level.extend(level_zero(
            order.get(from..).unwrap_or_default(),
            all_counts.get(from..).unwrap_or_default(),
            chunks,
        ));
        Some(Runs {
            levels: levels_over(level, Some(&self.levels), kept_runs),
            tail: tail_from(&order, keep, stable),
            chunks: order,
            counts: all_counts,
        })
    }
}
