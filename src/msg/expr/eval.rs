//! Evaluating a compiled expression on one decoded message, or on the numbers gathered from
//! it: values are read in place from the payload (strings compared as bytes where they lie),
//! nothing is allocated.

use super::compile::{Cond, Node, cmp_bytes};
use super::num::{Num, cmp_num, decode};
use super::parser::Func;
use super::value::{Field, Source, Step};
use crate::msg::{MessageRef, ValueRef};

/// Leaf numbers read straight from a decoded message.
pub(super) struct Direct<'d>(pub(super) MessageRef<'d>);

impl Source for Direct<'_> {
    fn field(&self, f: &Field) -> Option<Num> {
        let v = f.path.get(self.0)?;
        number(&v, if f.len { Func::Len } else { Func::None })
    }
}

/// Leaf numbers gathered earlier (see [`Node::gather`]).
pub(super) struct Gathered<'g>(pub(super) &'g [f64]);

impl Source for Gathered<'_> {
    fn field(&self, f: &Field) -> Option<Num> {
        decode(*self.0.get(f.slot)?, f.int)
    }
}

/// The truth of a leaf condition: tested on the message, or read from what was gathered.
pub(super) trait Truths: Source {
    fn truth(&self, cond: &Cond, slot: usize) -> bool;
}

impl Truths for Direct<'_> {
    fn truth(&self, cond: &Cond, _slot: usize) -> bool {
        cond.eval(self.0)
    }
}

impl Truths for Gathered<'_> {
    fn truth(&self, _cond: &Cond, slot: usize) -> bool {
        self.0.get(slot).is_some_and(|x| *x != 0.0)
    }
}

impl Node {
    /// True when the message `src` reads from satisfies the node; `step` carries the topic's
    /// memory when messages are evaluated in order (then every part is evaluated, so that
    /// each `diff()` sees every message).
    pub(super) fn eval<S: Truths>(&self, src: &S, mut step: Option<&mut Step<'_>>) -> bool {
        match self {
            Node::Const(b) => *b,
            Node::Or(items) if step.is_some() => {
                let mut any = false;
                for n in items {
                    any |= n.eval(src, step.as_deref_mut());
                }
                any
            }
            Node::And(items) if step.is_some() => {
                let mut all = true;
                for n in items {
                    all &= n.eval(src, step.as_deref_mut());
                }
                all
            }
            Node::Or(items) => items.iter().any(|n| n.eval(src, None)),
            Node::And(items) => items.iter().all(|n| n.eval(src, None)),
            Node::Not(inner) => !inner.eval(src, step),
            Node::Leaf { cond, slot } => src.truth(cond, *slot),
            Node::Cmp { lhs, op, rhs } => {
                let a = lhs.eval(src, step.as_deref_mut());
                let b = rhs.eval(src, step);
                a.zip(b).is_some_and(|(a, b)| cmp_num(a, *op, b))
            }
            Node::NonZero(v) => v
                .eval(src, step)
                .is_some_and(|x| x != Num::Int(0) && x != Num::Float(0.0)),
        }
    }

    /// Writes what the node reads from `msg` into `slots`: each leaf condition's truth (0
    /// or 1) and each number of its computations.
    pub(super) fn gather(&self, msg: MessageRef<'_>, slots: &mut [f64]) {
        match self {
            Node::Const(_) => {}
            Node::Or(items) | Node::And(items) => {
                for n in items {
                    n.gather(msg, slots);
                }
            }
            Node::Not(inner) => inner.gather(msg, slots),
            Node::Leaf { cond, slot } => {
                if let Some(s) = slots.get_mut(*slot) {
                    *s = if cond.eval(msg) { 1.0 } else { 0.0 };
                }
            }
            Node::Cmp { lhs, rhs, .. } => {
                lhs.gather(&Direct(msg), slots);
                rhs.gather(&Direct(msg), slots);
            }
            Node::NonZero(v) => v.gather(&Direct(msg), slots),
        }
    }
}

impl Cond {
    /// True when the message satisfies the test. A path with `[*]` is satisfied by any
    /// element; an index past the end of an array names no value, and a comparison with no
    /// value is false.
    pub(super) fn eval(&self, msg: MessageRef<'_>) -> bool {
        match self {
            Cond::Num {
                path,
                func,
                op,
                rhs,
            } => path.any(msg, |v| {
                number(&v, *func).is_some_and(|x| cmp_num(x, *op, *rhs))
            }),
            Cond::Str { path, op, rhs } => {
                path.any(msg, |v| string(&v).is_some_and(|s| cmp_bytes(s, *op, rhs)))
            }
            Cond::Like { path, needle } => {
                path.any(msg, |v| string(&v).is_some_and(|s| needle.is_in(s)))
            }
            Cond::Regex { path, re } => {
                path.any(msg, |v| string(&v).is_some_and(|s| re.is_match(s)))
            }
            Cond::Contains { path, needle } => {
                path.any(msg, |v| string(&v).is_some_and(|s| needle.is_in(s)))
            }
            Cond::Truthy { path, func } => path.any(msg, |v| match (func, &v) {
                (Func::None, ValueRef::String(s)) => !s.is_empty(),
                (Func::None, _) => number(&v, Func::Len)
                    .or_else(|| number(&v, Func::None))
                    .is_some_and(|x| x != Num::Int(0) && x != Num::Float(0.0)),
                _ => number(&v, *func).is_some_and(|x| x != Num::Int(0) && x != Num::Float(0.0)),
            }),
            Cond::AnyText(needle) => any_string(&ValueRef::Message(msg), &mut |s| needle.is_in(s)),
        }
    }
}

fn string<'d>(v: &ValueRef<'d>) -> Option<&'d [u8]> {
    match *v {
        ValueRef::String(s) => Some(s),
        _ => None,
    }
}

/// The number a value gives under `func`; `None` when it gives none.
fn number(v: &ValueRef<'_>, func: Func) -> Option<Num> {
    let x = match (func, v) {
        (Func::Len, ValueRef::String(s)) => {
            // Python counts characters: count the bytes that start one in UTF-8.
            Num::Int(s.iter().filter(|&&b| b & 0xC0 != 0x80).count() as i128)
        }
        (Func::Len, ValueRef::Bytes(b)) => Num::Int(b.len() as i128),
        (Func::Len, ValueRef::PrimArray(a)) => Num::Int(a.len() as i128),
        (Func::Len, ValueRef::Array(a)) => Num::Int(a.len() as i128),
        (Func::Len, _) => return None,
        (_, ValueRef::Bool(b)) => Num::Int(i128::from(*b)),
        (_, ValueRef::I8(x)) => Num::Int(i128::from(*x)),
        (_, ValueRef::U8(x)) => Num::Int(i128::from(*x)),
        (_, ValueRef::I16(x)) => Num::Int(i128::from(*x)),
        (_, ValueRef::U16(x)) => Num::Int(i128::from(*x)),
        (_, ValueRef::I32(x)) => Num::Int(i128::from(*x)),
        (_, ValueRef::U32(x)) => Num::Int(i128::from(*x)),
        (_, ValueRef::I64(x)) => Num::Int(i128::from(*x)),
        (_, ValueRef::U64(x)) => Num::Int(i128::from(*x)),
        (_, ValueRef::F32(x)) => Num::Float(f64::from(*x)),
        (_, ValueRef::F64(x)) => Num::Float(*x),
        // ROS1 times and ROS 2 `builtin_interfaces/Time`/`Duration` messages: seconds.
        (_, ValueRef::Time(_) | ValueRef::Duration(_) | ValueRef::Message(_)) => {
            Num::Float(crate::msg::path::to_f64(v)?)
        }
        _ => return None,
    };
    Some(match (func, x) {
        (Func::Abs, Num::Int(i)) => Num::Int(i.abs()),
        (Func::Abs, Num::Float(f)) => Num::Float(f.abs()),
        _ => x,
    })
}

/// True when `f` holds for some string inside `v` (fields of messages, elements of arrays).
fn any_string(v: &ValueRef<'_>, f: &mut dyn FnMut(&[u8]) -> bool) -> bool {
    match v {
        ValueRef::String(s) => f(s),
        ValueRef::Message(m) => m.values().any(|v| any_string(&v, f)),
        ValueRef::Array(a) => a.iter().any(|v| any_string(&v, f)),
        _ => false,
    }
}
