//! Streaming the entries of an interval: one cursor per topic group, located by binary search,
//! merged by time.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::time::RosTime;

use super::{Index, IndexError, IndexedTopic, RawEntry};

/// The entries of an interval, in time order.
pub struct IndexMessages<'i> {
    index: &'i Index,
    end: u64,
    /// Per group: (next entry, end of the group's range).
    cursors: Vec<(u64, u64)>,
    heap: BinaryHeap<Reverse<(RawEntry, usize)>>,
    error: Option<IndexError>,
}

impl<'i> IndexMessages<'i> {
    pub(super) fn new(
        index: &'i Index,
        groups: &[&IndexedTopic],
        start: RosTime,
        end: RosTime,
    ) -> Self {
        let mut me = IndexMessages {
            index,
            end: end.as_nanos(),
            cursors: Vec::with_capacity(groups.len()),
            heap: BinaryHeap::new(),
            error: None,
        };
        for t in groups {
            if t.count == 0 || t.end < start.as_nanos() || t.start > me.end {
                continue;
            }
            let first = index.locate(t, start);
            me.cursors.push((first, t.first + t.count));
            let slot = me.cursors.len() - 1;
            me.advance(slot);
        }
        me
    }

    /// Pushes the next entry of cursor `slot` if it is still inside the interval.
    fn advance(&mut self, slot: usize) {
        let Some((next, end)) = self.cursors.get_mut(slot) else {
            return;
        };
        if *next >= *end {
            return;
        }
        match self.index.entry(*next) {
            Ok(e) if e.time <= self.end => {
                *next += 1;
                self.heap.push(Reverse((e, slot)));
            }
            Ok(_) => *next = *end,
            Err(err) => {
                *next = *end;
                self.error = Some(err);
            }
        }
    }
}

impl Iterator for IndexMessages<'_> {
    type Item = Result<RawEntry, IndexError>;

    fn next(&mut self) -> Option<Self::Item> {
        if let Some(e) = self.error.take() {
            return Some(Err(e));
        }
        let Reverse((entry, slot)) = self.heap.pop()?;
        self.advance(slot);
        Some(Ok(entry))
    }
}
