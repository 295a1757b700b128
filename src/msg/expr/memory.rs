//! What `diff()` and `rate()` remember of a topic's previous message.

use super::num::missing;

/// What `diff()` and `rate()` remember of a topic's previous message: one per topic (per
/// stream of messages evaluated in receive-time order), starting empty.
#[derive(Debug, Clone, Default)]
pub struct Memory {
    /// The value each `diff()`/`rate()` argument had at the previous message (gathered form).
    previous: Vec<f64>,
    /// The values at the message being evaluated (swapped into `previous` at its end).
    current: Vec<f64>,
    /// Its receive time, nanoseconds since the epoch.
    previous_ns: Option<i64>,
}

impl Memory {
    /// A memory of nothing: the next message is the topic's first.
    pub fn new() -> Memory {
        Memory::default()
    }

    /// Forgets the previous message (a new stream, a jump in time, a message lost).
    pub fn clear(&mut self) {
        self.previous.clear();
        self.previous_ns = None;
    }

    /// The receive time of the message remembered, if any.
    pub fn previous_ns(&self) -> Option<i64> {
        self.previous_ns
    }

    /// Remembers `value` as argument `index`'s value at this message; its value at the
    /// previous message, if there was one.
    pub(super) fn swap_in(&mut self, index: usize, value: f64) -> Option<f64> {
        if self.current.len() <= index {
            self.current.resize(index + 1, missing());
        }
        if let Some(slot) = self.current.get_mut(index) {
            *slot = value;
        }
        self.previous_ns?;
        Some(self.previous.get(index).copied().unwrap_or_else(missing))
    }

    /// The message evaluated (received at `time_ns`) becomes the previous one.
    pub(super) fn commit(&mut self, time_ns: i64) {
        std::mem::swap(&mut self.previous, &mut self.current);
        self.previous_ns = Some(time_ns);
    }
}
