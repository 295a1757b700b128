//! Messages read chunk by chunk on worker threads, put back in receive-time order: what
//! `diff()` / `rate()` (a stateful [`crate::msg::expr::Quantity`] or
//! [`crate::msg::expr::Filter`]) and the stretches of a search need, since both depend on the
//! topic's previous message.
//!
//! The workers record, per message, where it is in the order ([`Place`]: receive time, then
//! bag, chunk and position, so that ties are broken the same way every time), its stream (the
//! topic) and what was read ([`Outcome`]: the numbers `gather` appended, or a plain yes/no, or
//! a loss). [`InOrder`] holds them until no chunk still to read can hold an earlier message:
//! chunks are read in order of their start time, so once the next chunk to read starts at
//! `t`, every message before `t` is final ([`InOrder::release`]), whatever the overlap of
//! chunks in time and of bags in a catalog. A message that arrives after a later one of the
//! catalog was released (a chunk whose index claims a later start than its messages have) is
//! still released, at the next call, and counted in [`InOrder::late`].
//!
//! [`finish_in_order`] is the series' use of it: the numbers gathered per message turned into
//! values, per topic in receive-time order, each topic with its own state.

/// Where a message is in the catalog's receive-time order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct Place {
    /// Receive time, nanoseconds since the epoch.
    pub time_ns: i64,
    /// The bag's index in the catalog.
    pub bag: u32,
    /// The chunk's index in its bag.
    pub chunk: u32,
    /// The message's position among the chunk's index entries.
    pub index: u32,
}

/// What a worker made of one message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// Decoded, and the condition holds (a search without state).
    Yes,
    /// Decoded, and the condition does not hold.
    No,
    /// Could not be read or decoded: it ends a stretch, and gives no value.
    Lost,
    /// Decoded: `len` gathered numbers at `at` in the numbers of its [`Gathered`].
    Numbers {
        /// Offset of the first number.
        at: u32,
        /// How many.
        len: u32,
    },
}

/// One message as a worker recorded it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Record {
    /// Where it is in the order.
    pub place: Place,
    /// Its stream (topic), as the reader numbers them.
    pub stream: u32,
    /// Its connection in its bag.
    pub conn: u32,
    /// What was read.
    pub outcome: Outcome,
}

/// The records of one or more chunks and the numbers they gathered.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Gathered {
    /// The messages, in any order.
    pub records: Vec<Record>,
    /// The numbers the records' [`Outcome::Numbers`] point into.
    pub numbers: Vec<f64>,
}

impl Gathered {
    /// Records a decoded message whose numbers `gather` is about to append to `numbers`:
    /// call it, then `gather`, then [`Gathered::close_numbers`].
    pub fn push_numbers(&mut self, place: Place, stream: u32, conn: u32) {
        let at = u32::try_from(self.numbers.len()).unwrap_or(u32::MAX);
        self.records.push(Record {
            place,
            stream,
            conn,
            outcome: Outcome::Numbers { at, len: 0 },
        });
    }

    /// Sets the count of numbers of the record pushed last to what was appended since.
    pub fn close_numbers(&mut self) {
        let end = self.numbers.len();
        if let Some(Record {
            outcome: Outcome::Numbers { at, len },
            ..
        }) = self.records.last_mut()
        {
            *len = u32::try_from(end.saturating_sub(*at as usize)).unwrap_or(0);
        }
    }

    /// Records a message with a plain outcome.
    pub fn push(&mut self, place: Place, stream: u32, conn: u32, outcome: Outcome) {
        self.records.push(Record {
            place,
            stream,
            conn,
            outcome,
        });
    }

    /// The numbers of `outcome` (empty unless it is [`Outcome::Numbers`]).
    pub fn numbers_of(&self, outcome: Outcome) -> &[f64] {
        match outcome {
            Outcome::Numbers { at, len } => {
                let at = at as usize;
                self.numbers.get(at..at + len as usize).unwrap_or_default()
            }
            _ => &[],
        }
    }
}

/// Records waiting until every earlier message of the catalog has been read.
#[derive(Debug, Default)]
pub(crate) struct InOrder {
    pending: Gathered,
    released: Option<Place>,
    late: u64,
}

impl InOrder {
    /// Nothing pending.
    pub fn new() -> Self {
        InOrder::default()
    }

    /// Adds what a worker read from a chunk.
    pub fn add(&mut self, mut chunk: Gathered) {
        let base = u32::try_from(self.pending.numbers.len()).unwrap_or(u32::MAX);
        for r in &mut chunk.records {
            if self.released.is_some_and(|p| r.place < p) {
                self.late += 1;
            }
            if let Outcome::Numbers { at, .. } = &mut r.outcome {
                *at = at.saturating_add(base);
            }
        }
        self.pending.records.append(&mut chunk.records);
        self.pending.numbers.append(&mut chunk.numbers);
    }

    /// Hands `each` record received before `below` (every one with `None`: nothing is left to
    /// read), in receive-time order, with its numbers; keeps the rest.
    pub fn release(&mut self, below: Option<i64>, mut each: impl FnMut(&Record, &[f64])) {
        // Chunks arrive in start order: the records are mostly in runs already sorted.
        self.pending.records.sort_by_key(|r| r.place);
        let cut = below.map_or(self.pending.records.len(), |t| {
            self.pending
                .records
                .partition_point(|r| r.place.time_ns < t)
        });
        let rest = self.pending.records.split_off(cut);
        for r in &self.pending.records {
            each(r, self.pending.numbers_of(r.outcome));
        }
        if let Some(last) = self.pending.records.last() {
            self.released = Some(self.released.map_or(last.place, |p| p.max(last.place)));
        }
        // What stays keeps only its own numbers.
        let mut kept = Gathered {
            records: Vec::with_capacity(rest.len()),
            numbers: Vec::new(),
        };
        for r in rest {
            match r.outcome {
                Outcome::Numbers { .. } => {
                    kept.push_numbers(r.place, r.stream, r.conn);
                    kept.numbers
                        .extend_from_slice(self.pending.numbers_of(r.outcome));
                    kept.close_numbers();
                }
                outcome => kept.push(r.place, r.stream, r.conn, outcome),
            }
        }
        self.pending = kept;
    }

    /// Messages that arrived after a later message of the catalog was released: they were
    /// taken in the order they came, not in receive-time order.
    pub fn late(&self) -> u64 {
        self.late
    }

    /// Records still waiting.
    #[cfg(test)]
    pub fn pending(&self) -> usize {
        self.pending.records.len()
    }
}

/// Releases the records before `below` (all with `None`) from `order` and finishes them, per
/// stream in receive-time order with the stream's state (`states`, grown as streams appear):
/// the `(time, value)` points, in time order, and how many decoded messages gave no value.
/// Lost messages give no point and leave the state as it was.
pub(crate) fn finish_in_order<S: Default>(
    order: &mut InOrder,
    below: Option<i64>,
    states: &mut Vec<S>,
    mut finish: impl FnMut(&Record, &[f64], &mut S) -> Option<f64>,
) -> (Vec<(i64, f64)>, u64) {
    let mut points = Vec::new();
    let mut no_value = 0u64;
    order.release(below, |r, numbers| {
        if !matches!(r.outcome, Outcome::Numbers { .. }) {
            return;
        }
        let s = r.stream as usize;
        if states.len() <= s {
            states.resize_with(s + 1, S::default);
        }
        let Some(state) = states.get_mut(s) else {
            return;
        };
        match finish(r, numbers, state) {
            Some(v) => points.push((r.place.time_ns, v)),
            None => no_value += 1,
        }
    });
    (points, no_value)
}

#[cfg(test)]
#[path = "series_order_tests.rs"]
mod tests;
