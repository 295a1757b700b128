//! Evaluating a compiled expression on one decoded message: values are read in place from
//! the payload (strings compared as bytes where they lie), nothing is allocated.

use super::compile::{Node, Num, cmp_bytes};
use super::lexer::CmpOp;
use super::parser::Func;
use crate::msg::{MessageRef, ValueRef};

impl Node {
    /// True when the message satisfies the node. A path with `[*]` is satisfied by any
    /// element; an index past the end of an array names no value, and a comparison with no
    /// value is false.
    pub(super) fn eval(&self, msg: MessageRef<'_>) -> bool {
        match self {
            Node::Const(b) => *b,
            Node::Or(items) => items.iter().any(|n| n.eval(msg)),
            Node::And(items) => items.iter().all(|n| n.eval(msg)),
            Node::Not(inner) => !inner.eval(msg),
            Node::Num {
                path,
                func,
                op,
                rhs,
            } => path.any(msg, |v| {
                number(&v, *func).is_some_and(|x| cmp_num(x, *op, *rhs))
            }),
            Node::Str { path, op, rhs } => {
                path.any(msg, |v| string(&v).is_some_and(|s| cmp_bytes(s, *op, rhs)))
            }
            Node::Like { path, needle } => {
                path.any(msg, |v| string(&v).is_some_and(|s| needle.is_in(s)))
            }
            Node::Regex { path, re } => {
                path.any(msg, |v| string(&v).is_some_and(|s| re.is_match(s)))
            }
            Node::Contains { path, needle } => {
                path.any(msg, |v| string(&v).is_some_and(|s| needle.is_in(s)))
            }
            Node::Truthy { path, func } => path.any(msg, |v| match (func, &v) {
                (Func::None, ValueRef::String(s)) => !s.is_empty(),
                (Func::None, _) => number(&v, Func::Len)
                    .or_else(|| number(&v, Func::None))
                    .is_some_and(|x| x != Num::Int(0) && x != Num::Float(0.0)),
                _ => number(&v, *func).is_some_and(|x| x != Num::Int(0) && x != Num::Float(0.0)),
            }),
            Node::AnyText(needle) => any_string(&ValueRef::Message(msg), &mut |s| needle.is_in(s)),
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
        (_, ValueRef::Time(_) | ValueRef::Duration(_)) => Num::Float(crate::msg::path::to_f64(v)?),
        _ => return None,
    };
    Some(match (func, x) {
        (Func::Abs, Num::Int(i)) => Num::Int(i.abs()),
        (Func::Abs, Num::Float(f)) => Num::Float(f.abs()),
        _ => x,
    })
}

#[allow(clippy::cast_precision_loss)]
fn as_f64(n: Num) -> f64 {
    match n {
        Num::Int(i) => i as f64,
        Num::Float(f) => f,
    }
}

/// `a op b`: integers exactly, otherwise as floats (NaN compares unequal to everything).
fn cmp_num(a: Num, op: CmpOp, b: Num) -> bool {
    let ord = match (a, b) {
        (Num::Int(x), Num::Int(y)) => Some(x.cmp(&y)),
        _ => as_f64(a).partial_cmp(&as_f64(b)),
    };
    match (op, ord) {
        (CmpOp::Ne, None) => true,
        (_, None) | (CmpOp::Like | CmpOp::Regex, Some(_)) => false,
        (CmpOp::Eq, Some(o)) => o.is_eq(),
        (CmpOp::Ne, Some(o)) => o.is_ne(),
        (CmpOp::Lt, Some(o)) => o.is_lt(),
        (CmpOp::Le, Some(o)) => o.is_le(),
        (CmpOp::Gt, Some(o)) => o.is_gt(),
        (CmpOp::Ge, Some(o)) => o.is_ge(),
    }
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
