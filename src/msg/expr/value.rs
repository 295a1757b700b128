//! Computed numbers: the compiled form of `norm(twist.linear) * 2`, `yaw(pose.orientation)`,
//! `rate(header.seq)`, and their evaluation from a [`Source`] of leaf numbers (the decoded
//! message itself, or the numbers gathered from it earlier).
//!
//! Integers stay integers through `+ - *`, negation, `abs` and `diff` (Python's `int`), exact
//! as `i128` (a result that overflows becomes a float); `/`, `sqrt`, `atan2`, `norm`, the
//! angles and `rate` give floats. "No value" (`None`) comes from a field without value (an
//! index past the end), a division by zero, `sqrt` of a negative number, and `diff`/`rate`
//! of a topic's first message; it makes the whole computation valueless.

use super::lexer::ArithOp;
use super::memory::Memory;
use super::num::{Num, arith, as_f64, decode, encode};
use crate::msg::path::ResolvedPath;

/// A number read from the message: one slot of the gathered numbers.
#[derive(Debug, Clone)]
pub(super) struct Field {
    pub(super) path: ResolvedPath,
    /// `len(path)` rather than the value.
    pub(super) len: bool,
    /// An integer (or bool) field: read as Python's `int`.
    pub(super) int: bool,
    /// Its place among the gathered numbers.
    pub(super) slot: usize,
}

/// `roll`, `pitch` or `yaw` of a quaternion.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Axis {
    Roll,
    Pitch,
    Yaw,
}

/// A compiled computation.
#[derive(Debug, Clone)]
pub(super) enum Value {
    Const(Num),
    Field(Field),
    Neg(Box<Value>),
    Arith(ArithOp, Box<Value>, Box<Value>),
    Abs(Box<Value>),
    Sqrt(Box<Value>),
    Atan2(Box<Value>, Box<Value>),
    /// `sqrt(a*a + b*b + …)`: `norm(v)` of a message's x, y(, z) and `norm(a, b, …)`.
    Norm(Vec<Value>),
    /// An angle of the quaternion whose x, y, z, w are the fields.
    Euler(Axis, Box<[Field; 4]>),
    /// `diff(inner)` (`rate: false`) or `rate(inner)`; `index`: its place in the memory;
    /// `int`: the inner value is an integer.
    Diff {
        inner: Box<Value>,
        index: usize,
        rate: bool,
        int: bool,
    },
}

/// Where leaf numbers come from.
pub(super) trait Source {
    /// The number of field `f`; `None` when it has none.
    fn field(&self, f: &Field) -> Option<Num>;
}

/// What `diff()` and `rate()` need while one message is evaluated in order.
pub(super) struct Step<'m> {
    pub(super) memory: &'m mut Memory,
    pub(super) time_ns: i64,
}

/// `numpy.finfo(float).eps * 4.0`, the threshold of `tf.transformations`.
const TF_EPS: f64 = f64::EPSILON * 4.0;

/// The angle `axis` (radians) of quaternion (x, y, z, w), as
/// `tf.transformations.euler_from_quaternion(q, 'sxyz')` computes it: the rotation matrix of
/// the normalised quaternion, then the angles read off it, operation for operation.
#[allow(clippy::many_single_char_names, reason = "tf's names")]
pub(super) fn euler(axis: Axis, q: [f64; 4]) -> f64 {
    let [x, y, z, w] = q;
    let nq = x * x + y * y + z * z + w * w;
    let (m00, m10, m20, m11, m12, m21, m22) = if nq < TF_EPS {
        (1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0)
    } else {
        let s = (2.0 / nq).sqrt();
        let (x, y, z, w) = (x * s, y * s, z * s, w * s);
        (
            1.0 - y * y - z * z,
            x * y + z * w,
            x * z - y * w,
            1.0 - x * x - z * z,
            y * z - x * w,
            y * z + x * w,
            1.0 - x * x - y * y,
        )
    };
    let cy = (m00 * m00 + m10 * m10).sqrt();
    match axis {
        Axis::Pitch => (-m20).atan2(cy),
        Axis::Roll if cy > TF_EPS => m21.atan2(m22),
        Axis::Roll => (-m12).atan2(m11),
        Axis::Yaw if cy > TF_EPS => m10.atan2(m00),
        Axis::Yaw => 0.0,
    }
}

impl Value {
    /// The value for the message `src` reads from; `step` carries the topic's memory when
    /// the messages are evaluated in order (without it, `diff` and `rate` have no value).
    pub(super) fn eval<S: Source + ?Sized>(
        &self,
        src: &S,
        mut step: Option<&mut Step<'_>>,
    ) -> Option<Num> {
        match self {
            Value::Const(n) => Some(*n),
            Value::Field(f) => src.field(f),
            Value::Neg(v) => match v.eval(src, step)? {
                Num::Int(i) => Some(Num::Int(-i)),
                Num::Float(f) => Some(Num::Float(-f)),
            },
            Value::Arith(op, a, b) => {
                // Both sides always (a diff() on the right must see every message).
                let a = a.eval(src, step.as_deref_mut());
                let b = b.eval(src, step);
                arith(*op, a?, b?)
            }
            Value::Abs(v) => match v.eval(src, step)? {
                Num::Int(i) => Some(Num::Int(i.abs())),
                Num::Float(f) => Some(Num::Float(f.abs())),
            },
            Value::Sqrt(v) => {
                let x = as_f64(v.eval(src, step)?);
                (x >= 0.0 || x.is_nan()).then(|| Num::Float(x.sqrt()))
            }
            Value::Atan2(y, x) => {
                let y = y.eval(src, step.as_deref_mut());
                let x = x.eval(src, step);
                Some(Num::Float(as_f64(y?).atan2(as_f64(x?))))
            }
            Value::Norm(items) => {
                let mut sum = 0.0;
                let mut all = true;
                for v in items {
                    match v.eval(src, step.as_deref_mut()) {
                        Some(n) => {
                            let x = as_f64(n);
                            sum += x * x;
                        }
                        None => all = false,
                    }
                }
                all.then(|| Num::Float(sum.sqrt()))
            }
            Value::Euler(axis, q) => {
                let mut xyzw = [0.0; 4];
                for (out, f) in xyzw.iter_mut().zip(q.iter()) {
                    *out = as_f64(src.field(f)?);
                }
                Some(Num::Float(euler(*axis, xyzw)))
            }
            Value::Diff {
                inner,
                index,
                rate,
                int,
            } => {
                let now = inner.eval(src, step.as_deref_mut());
                let step = step?;
                let previous = step.memory.swap_in(*index, encode(now));
                let before = decode(previous?, *int)?;
                let change = arith(ArithOp::Sub, now?, before)?;
                if !rate {
                    return Some(change);
                }
                let dt = step.time_ns.checked_sub(step.memory.previous_ns()?)?;
                if dt == 0 {
                    return None;
                }
                #[allow(clippy::cast_precision_loss)]
                let seconds = dt as f64 / 1e9;
                Some(Num::Float(as_f64(change) / seconds))
            }
        }
    }

    /// Writes the numbers this value reads from `msg` into their slots.
    pub(super) fn gather(&self, src: &dyn Source, slots: &mut [f64]) {
        match self {
            Value::Const(_) => {}
            Value::Field(f) => put(slots, f, src),
            Value::Neg(v) | Value::Abs(v) | Value::Sqrt(v) => v.gather(src, slots),
            Value::Diff { inner, .. } => inner.gather(src, slots),
            Value::Arith(_, a, b) | Value::Atan2(a, b) => {
                a.gather(src, slots);
                b.gather(src, slots);
            }
            Value::Norm(items) => items.iter().for_each(|v| v.gather(src, slots)),
            Value::Euler(_, q) => q.iter().for_each(|f| put(slots, f, src)),
        }
    }
}

fn put(slots: &mut [f64], f: &Field, src: &dyn Source) {
    if let Some(s) = slots.get_mut(f.slot) {
        *s = encode(src.field(f));
    }
}
