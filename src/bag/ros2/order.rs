//! A bounded reorder window ([`Reorder`]): rows read in table order (row id) that are
//! *nearly* in time order — a recorder inserts messages as it receives them, several
//! subscriptions at once, so their receive times jitter by a few milliseconds — come out in
//! (timestamp, row id) order, holding at most [`Window`] bytes and rows. A row that is
//! earlier than one already handed out is beyond the window: [`Reorder::push`] says so, and
//! the caller reads the table in time order another way (an index, or SQLite's sorter).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::error::Ros2Error;

/// How much the window may hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    /// Bytes of message data held at most (a single larger message is held alone).
    pub bytes: usize,
    /// Rows held at most.
    pub rows: usize,
}

impl Default for Window {
    /// 16 MiB and 65 536 rows: a few hundred milliseconds of camera images, or seconds of
    /// small messages.
    fn default() -> Self {
        Window {
            bytes: 16 << 20,
            rows: 1 << 16,
        }
    }
}

/// One row waiting in the window.
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Row {
    /// Receive time (ns).
    pub time: u64,
    /// Row id: ties in time keep the table's order.
    pub rowid: i64,
    /// The topic's index in the MCAP being written.
    pub topic: usize,
    /// The message's bytes.
    pub data: Vec<u8>,
}

/// The row was earlier than one already handed out: the table is out of order by more
/// than the window holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BeyondWindow {
    /// The row's time.
    pub time: u64,
    /// The latest time handed out before it.
    pub after: u64,
}

/// Rows in, rows out in (time, row id) order; see the module documentation.
#[derive(Debug)]
pub struct Reorder {
    window: Window,
    heap: BinaryHeap<Reverse<Row>>,
    held: usize,
    /// The most bytes held at once (for tests and measurements).
    peak: usize,
    /// The key of the last row handed out.
    last: Option<(u64, i64)>,
}

impl Reorder {
    /// An empty window of `window`'s size.
    pub fn new(window: Window) -> Self {
        Reorder {
            window,
            heap: BinaryHeap::new(),
            held: 0,
            peak: 0,
            last: None,
        }
    }

    /// Takes `row` (rows must come in increasing row id) and hands `out` every row that
    /// must leave to keep the window within its size, earliest first.
    pub fn push(
        &mut self,
        row: Row,
        out: &mut impl FnMut(Row) -> Result<(), Ros2Error>,
    ) -> Result<Result<(), BeyondWindow>, Ros2Error> {
        if let Some((after, rowid)) = self.last {
            if (row.time, row.rowid) < (after, rowid) {
                return Ok(Err(BeyondWindow {
                    time: row.time,
                    after,
                }));
            }
        }
        // Make room first, so that the window never holds more than its size (but for a
        // single row larger than it).
        while !self.heap.is_empty()
            && (self.held + row.data.len() > self.window.bytes
                || self.heap.len() + 1 > self.window.rows)
        {
            self.pop(out)?;
        }
        // The new row may be earlier than what just left: beyond the window too.
        if let Some((after, rowid)) = self.last {
            if (row.time, row.rowid) < (after, rowid) {
                return Ok(Err(BeyondWindow {
                    time: row.time,
                    after,
                }));
            }
        }
        self.held += row.data.len();
        self.peak = self.peak.max(self.held);
        self.heap.push(Reverse(row));
        Ok(Ok(()))
    }

    /// Hands out every row left, in order.
    pub fn finish(
        mut self,
        out: &mut impl FnMut(Row) -> Result<(), Ros2Error>,
    ) -> Result<usize, Ros2Error> {
        while !self.heap.is_empty() {
            self.pop(out)?;
        }
        Ok(self.peak)
    }

    /// The most bytes of message data held at once so far.
    pub fn peak(&self) -> usize {
        self.peak
    }

    fn pop(&mut self, out: &mut impl FnMut(Row) -> Result<(), Ros2Error>) -> Result<(), Ros2Error> {
        if let Some(Reverse(row)) = self.heap.pop() {
            self.held -= row.data.len();
            self.last = Some((row.time, row.rowid));
            out(row)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(time: u64, rowid: i64, len: usize) -> Row {
        Row {
            time,
            rowid,
            topic: 0,
            data: vec![0; len],
        }
    }

    /// Pushes rows with the given times (row ids in order); the times handed out, or the
    /// first row beyond the window.
    #[allow(clippy::cast_possible_wrap)]
    fn run(window: Window, times: &[u64], len: usize) -> (Result<Vec<u64>, BeyondWindow>, usize) {
        let mut r = Reorder::new(window);
        let mut seen = Vec::new();
        let mut out = |row: Row| {
            seen.push(row.time);
            Ok(())
        };
        for (i, &t) in times.iter().enumerate() {
            if let Err(b) = r.push(row(t, i as i64, len), &mut out).unwrap() {
                return (Err(b), r.peak());
            }
        }
        let peak = r.finish(&mut out).unwrap();
        (Ok(seen), peak)
    }

    #[test]
    fn jitter_within_the_window_comes_out_sorted() {
        let times = [10, 12, 11, 13, 15, 14, 16, 20, 17, 18, 19, 21];
        let (out, _) = run(
            Window {
                bytes: 400,
                rows: 4,
            },
            &times,
            100,
        );
        let mut sorted = times.to_vec();
        sorted.sort_unstable();
        assert_eq!(out.unwrap(), sorted);
    }

    #[test]
    fn ties_keep_the_table_order() {
        let mut r = Reorder::new(Window::default());
        let mut ids = Vec::new();
        let mut out = |row: Row| {
            ids.push(row.rowid);
            Ok(())
        };
        for (id, t) in [(1, 5), (2, 3), (3, 5), (4, 3)] {
            r.push(row(t, id, 1), &mut out).unwrap().unwrap();
        }
        r.finish(&mut out).unwrap();
        assert_eq!(ids, [2, 4, 1, 3]);
    }

    #[test]
    fn disorder_beyond_the_window_is_reported() {
        // The window holds 3 rows; a row 5 rows late cannot be placed.
        let times = [10, 11, 12, 13, 14, 15, 9];
        let (out, _) = run(
            Window {
                bytes: 1 << 20,
                rows: 3,
            },
            &times,
            1,
        );
        assert_eq!(out, Err(BeyondWindow { time: 9, after: 12 }));
    }

    #[test]
    fn the_window_never_holds_more_than_its_size() {
        // 10 000 rows of 1 000 bytes in reverse order within blocks of 50: a 16 KiB window
        // holds at most 16 of them, whatever comes, and hands out every row.
        let times: Vec<u64> = (0..10_000u64)
            .map(|i| (i / 50) * 50 + (49 - i % 50))
            .collect();
        let window = Window {
            bytes: 16 << 10,
            rows: 1 << 20,
        };
        let (out, peak) = run(window, &times, 1000);
        assert!(peak <= window.bytes, "{peak}");
        // Blocks of 50 reversed are beyond a 16-row window.
        assert!(out.is_err());
        // In order: every row handed out, the window's bound kept.
        let times: Vec<u64> = (0..10_000).collect();
        let (out, peak) = run(window, &times, 1000);
        assert_eq!(out.unwrap().len(), 10_000);
        assert!(peak <= window.bytes, "{peak}");
        // A row larger than the window is held alone.
        let (out, peak) = run(window, &[1, 2, 3], 100_000);
        assert_eq!(out.unwrap(), [1, 2, 3]);
        assert_eq!(peak, 100_000);
    }
}
