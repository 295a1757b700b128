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

use std::cell::Cell;

use super::compile::Compiler;
use super::eval::{Direct, Gathered};
use super::memory::Memory;
use super::num::{Num, as_f64, missing};
use super::parser::Ast;
use super::value::{Step, Value};
use super::{Expr, ExprError, Filter, MessageRef, MsgType};

/// An expression compiled as a number per message of one type.
#[derive(Debug, Clone)]
pub struct Quantity {
    value: Value,
    int: bool,
    text: String,
    width: usize,
    stateful: bool,
}

impl Expr {
    /// Compiles the expression as a number per message of type `ty` published on `topic`:
    /// a field path (`pose.position.x`), or a computation over fields. An expression that
    /// is a condition (`x > 1`), names a string, or is not a number is an error pointing at
    /// its column.
    pub fn compile_quantity(&self, ty: &MsgType, topic: &str) -> Result<Quantity, ExprError> {
        let compiler = Compiler {
            text: &self.text,
            ty,
            topic,
            shared: &self.shared,
            slots: Cell::new(0),
            diffs: Cell::new(0),
        };
        if matches!(
            self.ast,
            Ast::Or(_) | Ast::And(_) | Ast::Not(..) | Ast::Compare { .. } | Ast::In { .. }
        ) {
            return Err(compiler.mismatch(
                self.ast.start(),
                "expected a number (a field or a computation), not a condition".into(),
            ));
        }
        let (value, int) = compiler.value(&self.ast)?;
        Ok(Quantity {
            value,
            int,
            text: self.text.clone(),
            width: compiler.slots.get(),
            stateful: compiler.diffs.get() > 0,
        })
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
        self.stateful
    }

    /// True when the value is an integer (Python's `int`: integer fields and numbers through
    /// `+ - *`, `abs`, `diff`); [`Quantity::finish_num`] then gives [`Num::Int`].
    pub fn is_integer(&self) -> bool {
        self.int
    }

    /// How many numbers [`Quantity::gather`] appends per message.
    pub fn width(&self) -> usize {
        self.width
    }

    /// Stage 1: appends exactly [`Quantity::width`] numbers read from `msg` to `out` (a NaN
    /// with a payload of its own where a field has no value).
    pub fn gather(&self, msg: MessageRef<'_>, out: &mut Vec<f64>) {
        let base = out.len();
        out.resize(base + self.width, missing());
        if let Some(slots) = out.get_mut(base..) {
            self.value.gather(&Direct(msg), slots);
        }
    }

    /// Stage 2: the value of the message whose gathered numbers are `gathered`, received at
    /// `time_ns`, given the topic's `memory` (updated to remember this message). `None`
    /// when there is no value (a field without value, the first message for `diff`).
    pub fn finish(&self, gathered: &[f64], time_ns: i64, memory: &mut Memory) -> Option<f64> {
        self.finish_num(gathered, time_ns, memory).map(as_f64)
    }

    /// [`Quantity::finish`] keeping integers exact.
    pub fn finish_num(&self, gathered: &[f64], time_ns: i64, memory: &mut Memory) -> Option<Num> {
        self.run(&Gathered(gathered), time_ns, memory)
    }

    /// Both stages for one message, for readers that walk the topic in time order.
    pub fn eval(&self, msg: MessageRef<'_>, time_ns: i64, memory: &mut Memory) -> Option<f64> {
        self.eval_num(msg, time_ns, memory).map(as_f64)
    }

    /// [`Quantity::eval`] keeping integers exact.
    pub fn eval_num(&self, msg: MessageRef<'_>, time_ns: i64, memory: &mut Memory) -> Option<Num> {
        self.run(&Direct(msg), time_ns, memory)
    }

    fn run<S: super::value::Source>(
        &self,
        src: &S,
        time_ns: i64,
        memory: &mut Memory,
    ) -> Option<Num> {
        if !self.stateful {
            return self.value.eval(src, None);
        }
        let mut step = Step { memory, time_ns };
        let v = self.value.eval(src, Some(&mut step));
        step.memory.commit(time_ns);
        v
    }
}

impl Filter {
    /// True when the condition uses `diff()` or `rate()`: [`Filter::finish`] must then see
    /// the topic's messages in receive-time order ([`Filter::matches`] alone cannot decide:
    /// it evaluates as for a topic's first message).
    pub fn is_stateful(&self) -> bool {
        self.stateful
    }

    /// How many numbers [`Filter::gather`] appends per message.
    pub fn width(&self) -> usize {
        self.width
    }

    /// Stage 1: appends exactly [`Filter::width`] numbers read from `msg` to `out`.
    pub fn gather(&self, msg: MessageRef<'_>, out: &mut Vec<f64>) {
        let base = out.len();
        out.resize(base + self.width, missing());
        if let Some(slots) = out.get_mut(base..) {
            self.node.gather(msg, slots);
        }
    }

    /// Stage 2: whether the message whose gathered numbers are `gathered`, received at
    /// `time_ns`, satisfies the condition, given the topic's `memory` (updated).
    pub fn finish(&self, gathered: &[f64], time_ns: i64, memory: &mut Memory) -> bool {
        self.run(&Gathered(gathered), time_ns, memory)
    }

    /// Both stages for one message, for readers that walk the topic in time order.
    pub fn eval(&self, msg: MessageRef<'_>, time_ns: i64, memory: &mut Memory) -> bool {
        self.run(&Direct(msg), time_ns, memory)
    }

    fn run<S: super::eval::Truths>(&self, src: &S, time_ns: i64, memory: &mut Memory) -> bool {
        if !self.stateful {
            return self.node.eval(src, None);
        }
        let mut step = Step { memory, time_ns };
        let v = self.node.eval(src, Some(&mut step));
        step.memory.commit(time_ns);
        v
    }
}
