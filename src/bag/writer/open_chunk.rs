//! The chunk being filled: its uncompressed records, time range, and per-connection index.

use std::collections::HashMap;

use crate::time::RosTime;

/// A chunk's records and index, held in memory until the chunk is closed.
#[derive(Debug, Default)]
pub(super) struct OpenChunk {
    /// Uncompressed connection and message data records.
    pub data: Vec<u8>,
    /// Earliest and latest message time.
    range: Option<(RosTime, RosTime)>,
    /// Per connection, in order of first appearance in this chunk: `(time, offset)` entries
    /// in writing order.
    index: Vec<(u32, Vec<(RosTime, u32)>)>,
    /// Connection id → position in `index`.
    slots: HashMap<u32, usize>,
}

/// A closed chunk, ready to be written.
#[derive(Debug)]
pub(super) struct ClosedChunk {
    /// Uncompressed records.
    pub data: Vec<u8>,
    /// Earliest message time.
    pub start: RosTime,
    /// Latest message time.
    pub end: RosTime,
    /// Per connection in order of first appearance, entries sorted by time (ties keep their
    /// writing order, as the official writer's `insort_right`).
    pub index: Vec<(u32, Vec<(RosTime, u32)>)>,
}

impl OpenChunk {
    /// True when no message was added since the last [`OpenChunk::close`].
    pub fn is_empty(&self) -> bool {
        self.index.is_empty()
    }

    /// Records a message of connection `conn` at `time` whose record starts at `offset`.
    pub fn add(&mut self, conn: u32, time: RosTime, offset: u32) {
        self.range = Some(match self.range {
            None => (time, time),
            Some((s, e)) => (s.min(time), e.max(time)),
        });
        let slot = *self.slots.entry(conn).or_insert_with(|| {
            self.index.push((conn, Vec::new()));
            self.index.len() - 1
        });
        if let Some((_, entries)) = self.index.get_mut(slot) {
            entries.push((time, offset));
        }
    }

    /// Takes the chunk's contents, leaving an empty chunk.
    pub fn close(&mut self) -> ClosedChunk {
        let (start, end) = self.range.take().unwrap_or_default();
        let mut index = std::mem::take(&mut self.index);
        for (_, entries) in &mut index {
            entries.sort_by_key(|&(t, _)| t);
        }
        self.slots.clear();
        let data = std::mem::take(&mut self.data);
        ClosedChunk {
            data,
            start,
            end,
            index,
        }
    }
}

impl OpenChunk {
    /// Gives back the buffer of a written chunk to fill the next one without reallocating.
    pub fn recycle(&mut self, mut buffer: Vec<u8>) {
        if self.data.is_empty() {
            buffer.clear();
            self.data = buffer;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_first_appearance_order_and_sorts_entries_stably() {
        let mut c = OpenChunk::default();
        assert!(c.is_empty());
        c.add(5, RosTime::new(3, 0), 0);
        c.add(2, RosTime::new(1, 0), 10);
        c.add(5, RosTime::new(1, 0), 20);
        c.add(5, RosTime::new(1, 0), 30);
        c.data.extend_from_slice(b"abc");
        let closed = c.close();
        assert!(c.is_empty());
        assert!(c.data.is_empty());
        assert_eq!(closed.data, b"abc");
        assert_eq!(
            (closed.start, closed.end),
            (RosTime::new(1, 0), RosTime::new(3, 0))
        );
        assert_eq!(
            closed.index,
            vec![
                (
                    5,
                    vec![
                        (RosTime::new(1, 0), 20),
                        (RosTime::new(1, 0), 30),
                        (RosTime::new(3, 0), 0)
                    ]
                ),
                (2, vec![(RosTime::new(1, 0), 10)]),
            ]
        );
    }
}
