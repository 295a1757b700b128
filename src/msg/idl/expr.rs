//! Constant expressions: array and string bounds, `const` values and `@default` values.
//! [`parse`] reads one (IDL precedence: `| ^ & << >> + - * / %`, unary `- + ~`, literals,
//! scoped names of constants, parentheses); [`eval`] computes its [`Value`].

use super::cursor::{Cursor, ScopedName};
use super::error::{Located, Pos};
use super::lex::Tok;

/// A constant's value.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Value {
    /// An integer (wide enough for every IDL integer type).
    Int(i128),
    /// A floating-point number.
    Float(f64),
    /// `TRUE` or `FALSE`.
    Bool(bool),
    /// A string (adjacent literals joined).
    Str(String),
    /// A character literal.
    Char(char),
}

impl std::fmt::Display for Value {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Value::Int(i) => write!(f, "{i}"),
            Value::Float(x) => write!(f, "{x:?}"),
            Value::Bool(b) => f.write_str(if *b { "TRUE" } else { "FALSE" }),
            Value::Str(_) => f.write_str("a string"),
            Value::Char(c) => write!(f, "'{}'", c.escape_debug()),
        }
    }
}

/// A parsed constant expression.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Expr {
    /// A literal.
    Lit(Value),
    /// A constant named by a scoped name.
    Ref(ScopedName),
    /// `-x`, `+x`, `~x`.
    Unary(char, Box<Expr>, Pos),
    /// `a op b`.
    Binary(&'static str, Box<Expr>, Box<Expr>, Pos),
}

/// Operators by precedence, loosest first.
const LEVELS: [&[&str]; 6] = [
    &["|"],
    &["^"],
    &["&"],
    &["<<", ">>"],
    &["+", "-"],
    &["*", "/", "%"],
];

/// Parses a constant expression at the cursor.
pub(crate) fn parse(c: &mut Cursor<'_>) -> Result<Expr, Located> {
    binary(c, 0)
}

fn op_at(c: &Cursor<'_>, level: usize) -> Option<&'static str> {
    let ops = LEVELS.get(level)?;
    let Tok::Punct(first) = c.peek() else {
        return None;
    };
    ops.iter().copied().find(|op| {
        let mut chars = op.chars();
        let (Some(a), second) = (chars.next(), chars.next()) else {
            return false;
        };
        a == *first
            && second.is_none_or(|b| {
                *c.peek_at(1) == Tok::Punct(b) && c.pos_at(1).col == c.pos().col + 1
            })
    })
}

fn binary(c: &mut Cursor<'_>, level: usize) -> Result<Expr, Located> {
    if level >= LEVELS.len() {
        return unary(c);
    }
    let mut left = binary(c, level + 1)?;
    while let Some(op) = op_at(c, level) {
        let pos = c.pos();
        for _ in 0..op.len() {
            c.bump();
        }
        let right = binary(c, level + 1)?;
        left = Expr::Binary(op, Box::new(left), Box::new(right), pos);
    }
    Ok(left)
}

fn unary(c: &mut Cursor<'_>) -> Result<Expr, Located> {
    c.enter()?;
    let pos = c.pos();
    let result = match c.peek() {
        Tok::Punct(op @ ('-' | '+' | '~')) => {
            c.bump();
            unary(c).map(|e| Expr::Unary(*op, Box::new(e), pos))
        }
        _ => primary(c),
    };
    c.leave();
    result
}

fn primary(c: &mut Cursor<'_>) -> Result<Expr, Located> {
    let pos = c.pos();
    let value =
        match c.peek() {
            Tok::Int(text) => Value::Int(parse_int(text).ok_or_else(|| {
                Located::value(pos, format!("integer literal {text} is too large"))
            })?),
            Tok::Float(text) => Value::Float(
                text.parse::<f64>()
                    .map_err(|_| Located::value(pos, format!("invalid number {text}")))?,
            ),
            Tok::Char(ch) => Value::Char(*ch),
            Tok::Str(_) => {
                let mut s = String::new();
                while let Tok::Str(part) = c.peek() {
                    s.push_str(part);
                    c.bump();
                }
                return Ok(Expr::Lit(Value::Str(s)));
            }
            Tok::Ident(w) if w == "TRUE" || w == "FALSE" => Value::Bool(w == "TRUE"),
            Tok::Ident(_) | Tok::Scope => return c.scoped_name().map(Expr::Ref),
            Tok::Punct('(') => {
                c.bump();
                let e = parse(c)?;
                c.expect_punct(')')?;
                return Ok(e);
            }
            _ => return Err(c.unexpected("a value")),
        };
    c.bump();
    Ok(Expr::Lit(value))
}

/// An integer literal's value: `0x` hex, `0` octal or decimal.
fn parse_int(text: &str) -> Option<i128> {
    if let Some(hex) = text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        i128::from_str_radix(hex, 16).ok()
    } else if text.len() > 1 && text.starts_with('0') {
        i128::from_str_radix(text.get(1..)?, 8).ok()
    } else {
        text.parse().ok()
    }
}

/// Finds the value of the constant a scoped name names.
pub(crate) type Lookup<'a> = dyn Fn(&ScopedName) -> Option<Value> + 'a;

/// Computes `expr`, finding named constants with `lookup`.
pub(crate) fn eval(expr: &Expr, lookup: &Lookup<'_>) -> Result<Value, Located> {
    match expr {
        Expr::Lit(v) => Ok(v.clone()),
        Expr::Ref(name) => lookup(name).ok_or_else(|| {
            Located::value(
                name.pos,
                format!("no constant named {}", name.parts.join("::")),
            )
        }),
        Expr::Unary(op, e, pos) => match (op, eval(e, lookup)?) {
            ('+', v @ (Value::Int(_) | Value::Float(_))) => Ok(v),
            ('-', Value::Int(i)) => i
                .checked_neg()
                .map(Value::Int)
                .ok_or_else(|| Located::value(*pos, "'-' overflows")),
            ('-', Value::Float(f)) => Ok(Value::Float(-f)),
            ('~', Value::Int(i)) => Ok(Value::Int(!i)),
            (op, _) => Err(Located::value(*pos, format!("'{op}' needs a number"))),
        },
        Expr::Binary(op, a, b, pos) => binary_value(op, &eval(a, lookup)?, &eval(b, lookup)?, *pos),
    }
}

#[allow(clippy::cast_precision_loss)]
fn binary_value(op: &str, left: &Value, right: &Value, pos: Pos) -> Result<Value, Located> {
    let overflow = || Located::value(pos, format!("'{op}' overflows or divides by zero"));
    let float = |v: &Value| match v {
        Value::Int(i) => Some(*i as f64),
        Value::Float(f) => Some(*f),
        _ => None,
    };
    if let (Value::Int(lhs), Value::Int(rhs)) = (left, right) {
        let (lhs, rhs) = (*lhs, *rhs);
        let shift = || u32::try_from(rhs).ok().filter(|s| *s < 128);
        let result = match op {
            "+" => lhs.checked_add(rhs),
            "-" => lhs.checked_sub(rhs),
            "*" => lhs.checked_mul(rhs),
            "/" => lhs.checked_div(rhs),
            "%" => lhs.checked_rem(rhs),
            "<<" => shift().and_then(|s| lhs.checked_shl(s)),
            ">>" => shift().and_then(|s| lhs.checked_shr(s)),
            "&" => Some(lhs & rhs),
            "|" => Some(lhs | rhs),
            _ => Some(lhs ^ rhs),
        };
        return result.map(Value::Int).ok_or_else(overflow);
    }
    let (Some(lhs), Some(rhs)) = (float(left), float(right)) else {
        return Err(Located::value(pos, format!("'{op}' needs numbers")));
    };
    match op {
        "+" => Ok(Value::Float(lhs + rhs)),
        "-" => Ok(Value::Float(lhs - rhs)),
        "*" => Ok(Value::Float(lhs * rhs)),
        "/" => Ok(Value::Float(lhs / rhs)),
        _ => Err(Located::value(pos, format!("'{op}' needs integers"))),
    }
}
