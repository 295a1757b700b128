//! Computed numbers and the two-stage evaluation that `diff()` and `rate()` need.
//!
//! A [`Quantity`] is an expression compiled as a number per message (`norm(twist.linear)`,
//! `pose.position.x * 2`, `rate(header.seq)`): what a plot series, an exported column or a
//! side of a comparison computes. `diff(x)` and `rate(x)` depend on the topic's previous
//! message, so they are evaluated in two stages:
//!
//! 1. [`Quantity::gather`] (and [`Filter::gather`]) reads what the expression needs from one
//!    decoded message into exactly `width()` numbers. This stage has no state: readers call
//!    it on worker threads, chunk by chunk, in any order, and keep the numbers.
//! 2. [`Quantity::finish`] (and [`Filter::finish`]) turns those numbers into the value, fed
//!    **in receive-time order, per topic**, with the topic's [`Memory`] of its previous
//!    message.
//!
//! A reader that already walks a topic's messages in time order calls `eval` (both stages
//! at once). When `is_stateful()` is false, `finish` needs no order and the memory is not
//! used: parallel readers may evaluate each message where they decode it.

use super::compile::Node;
use super::{Expr, ExprError, Filter, MessageRef, MsgType};
use crate::msg::path::ResolvedPath;

/// What `diff()` and `rate()` remember of a topic's previous message: one per topic (per
/// stream of messages evaluated in receive-time order), starting empty.
#[derive(Debug, Clone, Default)]
pub struct Memory {
    /// The gathered numbers of the previous message.
    previous: Vec<f64>,
    /// Its receive time, nanoseconds since the epoch.
    previous_ns: Option<i64>,
}

impl Memory {
    /// A memory of nothing: the next message is the topic's first.
    pub fn new() -> Memory {
        Memory::default()
    }

    /// Forgets the previous message (a new stream, a jump in time).
    pub fn clear(&mut self) {
        self.previous.clear();
        self.previous_ns = None;
    }

    /// The receive time of the message remembered, if any.
    pub fn previous_ns(&self) -> Option<i64> {
        self.previous_ns
    }
}

/// An expression compiled as a number per message of one type.
#[derive(Debug, Clone)]
pub struct Quantity {
    path: ResolvedPath,
    text: String,
}

impl Expr {
    /// Compiles the expression as a number per message of type `ty` published on `topic`:
    /// a field path (`pose.position.x`), or a computation over fields. An expression that
    /// is a condition (`x > 1`), names a string, or is not a number is an error pointing at
    /// its column.
    pub fn compile_quantity(&self, ty: &MsgType, topic: &str) -> Result<Quantity, ExprError> {
        let filter = self.compile(ty, topic)?;
        match filter.node {
            Node::Truthy { path, .. } if path.leaf().is_plottable() => Ok(Quantity {
                path,
                text: self.text.clone(),
            }),
            _ => Err(ExprError::new(
                &self.text,
                1,
                super::ExprErrorKind::Mismatch(
                    "expected a number (a field or a computation)".into(),
                ),
            )),
        }
    }
}

impl Quantity {
    /// The expression's text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// True when it uses `diff()` or `rate()`: [`Quantity::finish`] must then see the topic's
    /// messages in receive-time order.
    pub fn is_stateful(&self) -> bool {
        false
    }

    /// How many numbers [`Quantity::gather`] appends per message.
    pub fn width(&self) -> usize {
        1
    }

    /// Stage 1: appends exactly [`Quantity::width`] numbers read from `msg` to `out` (NaN
    /// where a field has no value).
    pub fn gather(&self, msg: MessageRef<'_>, out: &mut Vec<f64>) {
        out.push(self.path.get_f64(msg).unwrap_or(f64::NAN));
    }

    /// Stage 2: the value of the message whose gathered numbers are `gathered`, received at
    /// `time_ns`, given the topic's `memory` (updated to remember this message). `None`
    /// when there is no value (a field without value, the first message for `diff`).
    pub fn finish(&self, gathered: &[f64], time_ns: i64, memory: &mut Memory) -> Option<f64> {
        let _ = (time_ns, memory);
        gathered.first().copied().filter(|v| !v.is_nan())
    }

    /// Both stages for one message, for readers that walk the topic in time order.
    pub fn eval(&self, msg: MessageRef<'_>, time_ns: i64, memory: &mut Memory) -> Option<f64> {
        let mut g = Vec::with_capacity(self.width());
        self.gather(msg, &mut g);
        self.finish(&g, time_ns, memory)
    }
}

impl Filter {
    /// True when the condition uses `diff()` or `rate()`: [`Filter::finish`] must then see
    /// the topic's messages in receive-time order ([`Filter::matches`] alone cannot decide).
    pub fn is_stateful(&self) -> bool {
        false
    }

    /// How many numbers [`Filter::gather`] appends per message.
    pub fn width(&self) -> usize {
        1
    }

    /// Stage 1: appends exactly [`Filter::width`] numbers read from `msg` to `out`.
    pub fn gather(&self, msg: MessageRef<'_>, out: &mut Vec<f64>) {
        out.push(if self.matches(msg) { 1.0 } else { 0.0 });
    }

    /// Stage 2: whether the message whose gathered numbers are `gathered`, received at
    /// `time_ns`, satisfies the condition, given the topic's `memory` (updated).
    pub fn finish(&self, gathered: &[f64], time_ns: i64, memory: &mut Memory) -> bool {
        let _ = (time_ns, memory);
        gathered.first().is_some_and(|v| *v != 0.0)
    }

    /// Both stages for one message, for readers that walk the topic in time order.
    pub fn eval(&self, msg: MessageRef<'_>, time_ns: i64, memory: &mut Memory) -> bool {
        let mut g = Vec::with_capacity(self.width());
        self.gather(msg, &mut g);
        self.finish(&g, time_ns, memory)
    }
}
