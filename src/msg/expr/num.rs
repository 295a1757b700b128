//! Numbers of the expression language and their arithmetic, as Python computes them:
//! integers exact (`i128`), floats as `f64`; and the gathered form of a number (one `f64`,
//! with a NaN of its own for "no value").

use super::lexer::{ArithOp, CmpOp};

/// A number: integers exactly (Python's `int`), floats as `f64`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Num {
    /// An integer.
    Int(i128),
    /// A float.
    Float(f64),
}

/// The bits of the NaN that marks a gathered number as "no value" (a quiet NaN with a
/// payload; NaNs read from messages are stored as the canonical NaN, so they stay values).
const MISSING_BITS: u64 = 0x7ff8_0000_0000_0b5e;

/// The gathered form of "no value".
pub(super) fn missing() -> f64 {
    f64::from_bits(MISSING_BITS)
}

/// A number (or none) as one gathered `f64`: integers as floats (exact up to 2^53).
#[allow(clippy::cast_precision_loss)]
pub(super) fn encode(n: Option<Num>) -> f64 {
    match n {
        None => missing(),
        Some(Num::Int(i)) => i as f64,
        Some(Num::Float(f)) if f.is_nan() => f64::NAN,
        Some(Num::Float(f)) => f,
    }
}

/// The number a gathered `f64` stands for (`int`: it was an integer).
#[allow(clippy::cast_possible_truncation)]
pub(super) fn decode(x: f64, int: bool) -> Option<Num> {
    if x.to_bits() == MISSING_BITS {
        None
    } else if int {
        Some(Num::Int(x as i128))
    } else {
        Some(Num::Float(x))
    }
}

#[allow(clippy::cast_precision_loss)]
pub(super) fn as_f64(n: Num) -> f64 {
    match n {
        Num::Int(i) => i as f64,
        Num::Float(f) => f,
    }
}

/// `a op b` as Python computes it; `None` for a division by zero.
pub(super) fn arith(op: ArithOp, a: Num, b: Num) -> Option<Num> {
    if let (Num::Int(x), Num::Int(y)) = (a, b) {
        let exact = match op {
            ArithOp::Add => x.checked_add(y),
            ArithOp::Sub => x.checked_sub(y),
            ArithOp::Mul => x.checked_mul(y),
            ArithOp::Div => None,
        };
        if let Some(i) = exact {
            return Some(Num::Int(i));
        }
    }
    let (x, y) = (as_f64(a), as_f64(b));
    Some(Num::Float(match op {
        ArithOp::Add => x + y,
        ArithOp::Sub => x - y,
        ArithOp::Mul => x * y,
        ArithOp::Div if y == 0.0 => return None,
        ArithOp::Div => x / y,
    }))
}

/// `a op b`: integers exactly, otherwise as floats (NaN compares unequal to everything).
pub(super) fn cmp_num(a: Num, op: CmpOp, b: Num) -> bool {
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
