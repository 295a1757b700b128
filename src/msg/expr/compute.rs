//! Compiling computations: numbers, fields, `+ - * /` and the functions (`norm`, `abs`,
//! `sqrt`, `atan2`, `yaw`/`roll`/`pitch`, `len`, `diff`, `rate`) into a [`Value`], checked
//! against the message type with errors pointing at the column.

use super::compile::{Compiler, Operand, describe, is_integer, message_at, parse_number};
use super::error::{ExprError, ExprErrorKind};
use super::lexer::ArithOp;
use super::num::Num;
use super::parser::{Ast, Func};
use super::value::{Axis, Field, Value};
use crate::msg::MsgType;
use crate::msg::path::{Leaf, ParsedPath};

/// The functions of the language, as the error for an unknown one lists them.
pub const FUNCTIONS: [&str; 10] = [
    "abs", "atan2", "diff", "len", "norm", "pitch", "rate", "roll", "sqrt", "yaw",
];

impl Compiler<'_> {
    /// The computation `ast` stands for, and whether it is an integer (Python's `int`).
    pub(super) fn value(&self, ast: &Ast) -> Result<(Value, bool), ExprError> {
        Ok(match ast {
            Ast::Num(n, column) => {
                let num = parse_number(n)
                    .ok_or_else(|| self.err(*column, ExprErrorKind::Number(n.clone())))?;
                (Value::Const(num), matches!(num, Num::Int(_)))
            }
            Ast::Neg(inner, _) => match self.value(inner)? {
                (Value::Const(Num::Int(i)), int) => (Value::Const(Num::Int(-i)), int),
                (Value::Const(Num::Float(f)), int) => (Value::Const(Num::Float(-f)), int),
                (v, int) => (Value::Neg(Box::new(v)), int),
            },
            Ast::Str(_, column) => {
                return Err(self.mismatch(
                    *column,
                    "a \"string\" cannot be computed with: compare a string field with it (==, ~, =~, in)".into(),
                ));
            }
            Ast::Word(w, _) if matches!(w.as_str(), "true" | "True") => {
                (Value::Const(Num::Int(1)), true)
            }
            Ast::Word(w, _) if matches!(w.as_str(), "false" | "False") => {
                (Value::Const(Num::Int(0)), true)
            }
            Ast::Word(w, column) => match self.as_division(ast) {
                Some(division) => self.value(&division)?,
                None => self.word(w, *column)?,
            },
            Ast::Arith { op, lhs, rhs, .. } => {
                let (a, ai) = self.value(lhs)?;
                let (b, bi) = self.value(rhs)?;
                (
                    Value::Arith(*op, Box::new(a), Box::new(b)),
                    ai && bi && *op != ArithOp::Div,
                )
            }
            Ast::Call { name, column, args } => self.call(name, *column, args)?,
            Ast::Or(_) | Ast::And(_) | Ast::Not(..) | Ast::Compare { .. } | Ast::In { .. } => {
                return Err(
                    self.mismatch(ast.start(), "a condition where a number is expected".into())
                );
            }
        })
    }

    /// A word as a number: a numeric field, else a constant of the message's type.
    fn word(&self, word: &str, column: usize) -> Result<(Value, bool), ExprError> {
        if word == "topic" && self.ty.field("topic").is_none() {
            return Err(self.mismatch(
                column,
                "topic is the topic's name, a string: compare it with a \"string\"".into(),
            ));
        }
        match self.field(word, column, false) {
            Ok(f) => {
                let int = f.int;
                Ok((Value::Field(f), int))
            }
            Err(path_error) => {
                let operand = Operand {
                    func: Func::None,
                    path: word.to_string(),
                    column,
                    start: column,
                };
                match self.constant(word, &operand, column) {
                    Ok(super::compile::Literal::Num(n)) => match parse_number(&n) {
                        Some(num) => Ok((Value::Const(num), matches!(num, Num::Int(_)))),
                        None => Err(path_error),
                    },
                    Ok(super::compile::Literal::Bool(b)) => {
                        Ok((Value::Const(Num::Int(i128::from(b))), true))
                    }
                    // A name in capitals was meant as a constant.
                    Err(e) if !word.chars().any(|c| c.is_ascii_lowercase()) => Err(e),
                    _ => Err(path_error),
                }
            }
        }
    }

    /// `a/b` written without spaces, when it is no path of the type but each part is a
    /// number: the division (`pose/position/x`, a path, stays one).
    pub(super) fn as_division(&self, ast: &Ast) -> Option<Ast> {
        let Ast::Word(w, column) = ast else {
            return None;
        };
        let (text, _) = self.strip_m(w, *column);
        if !w.get(1..).is_some_and(|rest| rest.contains('/')) {
            return None;
        }
        let resolves = |t: &str| {
            ParsedPath::parse(t)
                .ok()
                .filter(|p| !p.segments().is_empty())
                .and_then(|p| p.resolve(self.ty).ok())
        };
        if resolves(text).is_some() {
            return None;
        }
        let mut parts = Vec::new();
        let mut at = *column;
        for part in w.split('/') {
            let (stripped, _) = self.strip_m(part, at);
            let numeric = resolves(stripped).is_some_and(|r| r.leaf().is_plottable());
            if !numeric {
                return None;
            }
            parts.push(Ast::Word(part.to_string(), at));
            at += part.chars().count() + 1;
        }
        let mut parts = parts.into_iter();
        let first = parts.next()?;
        Some(parts.fold(first, |lhs, rhs| Ast::Arith {
            op: ArithOp::Div,
            column: rhs.start().saturating_sub(1),
            lhs: Box::new(lhs),
            rhs: Box::new(rhs),
        }))
    }

    /// The numeric field `text` (at `column`) as a leaf of a computation (`len`: its length).
    fn field(&self, text: &str, column: usize, len: bool) -> Result<Field, ExprError> {
        let (text, column) = self.strip_m(text, column);
        let parsed =
            ParsedPath::parse(text).map_err(|e| ExprError::from_path(self.text, column, &e))?;
        if parsed.segments().is_empty() {
            return Err(self.mismatch(column, "expected a field after 'm.'".into()));
        }
        let path = parsed
            .resolve(self.ty)
            .map_err(|e| ExprError::from_path(self.text, column, &e))?;
        if path.has_wildcard() {
            return Err(self.mismatch(
                column,
                format!(
                    "{text}: [*] (any element) cannot be computed with; pick one element ([0]), or compare {text} alone"
                ),
            ));
        }
        let leaf = path.leaf();
        match (len, leaf) {
            (false, Leaf::Number | Leaf::Bool | Leaf::Time)
            | (true, Leaf::Array | Leaf::String) => {}
            (true, _) => {
                return Err(self.mismatch(
                    column,
                    format!(
                        "len() takes an array or a string; {text} is {}",
                        describe(leaf)
                    ),
                ));
            }
            (false, Leaf::String) => {
                return Err(self.mismatch(
                    column,
                    format!("{text} is a string, which cannot be computed with: compare it with a \"string\""),
                ));
            }
            (false, Leaf::Array) => {
                return Err(self.mismatch(
                    column,
                    format!("{text} is an array: pick an element ({text}[0]) or take len({text})"),
                ));
            }
            (false, Leaf::Message) => {
                let hint = message_at(self.ty, parsed.segments())
                    .map(|t| {
                        if has_numbers(t, &["x", "y", "z", "w"]) {
                            format!(" (or take norm({text}), yaw({text}))")
                        } else if has_numbers(t, &["x", "y"]) {
                            format!(" (or take norm({text}))")
                        } else {
                            String::new()
                        }
                    })
                    .unwrap_or_default();
                return Err(self.mismatch(
                    column,
                    format!("{text} is a message: name one of its fields{hint}"),
                ));
            }
        }
        Ok(Field {
            int: len || is_integer(self.ty, parsed.segments()),
            path,
            len,
            slot: self.slot(),
        })
    }

    fn call(&self, name: &str, column: usize, args: &[Ast]) -> Result<(Value, bool), ExprError> {
        let want = |n: usize, what: &str| {
            if args.len() == n {
                Ok(())
            } else {
                Err(self.mismatch(
                    column,
                    format!("{name}() takes {what}; given {}", count(args.len())),
                ))
            }
        };
        let one = |what: &str| -> Result<(Value, bool), ExprError> {
            want(1, what)?;
            match args.first() {
                Some(a) => self.value(a),
                None => Err(self.mismatch(column, format!("{name}() takes {what}"))),
            }
        };
        Ok(match name {
            "abs" => {
                let (v, int) = one("one number")?;
                (Value::Abs(Box::new(v)), int)
            }
            "sqrt" => (Value::Sqrt(Box::new(one("one number")?.0)), false),
            "atan2" => {
                want(2, "two numbers (y, x)")?;
                let [y, x] = args else {
                    return Err(self.mismatch(column, "atan2() takes (y, x)".into()));
                };
                (
                    Value::Atan2(Box::new(self.value(y)?.0), Box::new(self.value(x)?.0)),
                    false,
                )
            }
            "len" => {
                want(1, "one array or string field")?;
                let Some(Ast::Word(w, c)) = args.first() else {
                    return Err(self.mismatch(
                        args.first().map_or(column, Ast::start),
                        "len() takes a field (an array or a string)".into(),
                    ));
                };
                (Value::Field(self.field(w, *c, true)?), true)
            }
            "norm" => (self.norm(column, args)?, false),
            "yaw" | "roll" | "pitch" => {
                want(1, "one quaternion (a message with x, y, z, w)")?;
                let axis = match name {
                    "yaw" => Axis::Yaw,
                    "roll" => Axis::Roll,
                    _ => Axis::Pitch,
                };
                let arg = args.first();
                let Some(Ast::Word(w, c)) = arg else {
                    return Err(self.mismatch(
                        arg.map_or(column, Ast::start),
                        format!("{name}() takes a quaternion field (pose.orientation)"),
                    ));
                };
                let q = self.components(name, w, *c, &["x", "y", "z", "w"], 4)?;
                let [qx, qy, qz, qw] = <[Field; 4]>::try_from(q).map_err(|_| {
                    self.mismatch(*c, format!("{name}() takes a quaternion (x, y, z, w)"))
                })?;
                (Value::Euler(axis, Box::new([qx, qy, qz, qw])), false)
            }
            "diff" | "rate" => {
                let (inner, int) = one("one number")?;
                let index = self.diffs.get();
                self.diffs.set(index + 1);
                let rate = name == "rate";
                (
                    Value::Diff {
                        inner: Box::new(inner),
                        index,
                        rate,
                        int,
                    },
                    int && !rate,
                )
            }
            _ => {
                return Err(self.err(
                    column,
                    ExprErrorKind::UnknownFunction {
                        name: name.to_string(),
                        available: FUNCTIONS.iter().map(|f| (*f).to_string()).collect(),
                    },
                ));
            }
        })
    }

    /// `norm(v)` of a message (its x, y and z when it has one; w too for a quaternion), or
    /// `norm(a, b, …)` of numbers.
    fn norm(&self, column: usize, args: &[Ast]) -> Result<Value, ExprError> {
        if let [Ast::Word(w, c)] = args {
            let (text, _) = self.strip_m(w, *c);
            let message = ParsedPath::parse(text)
                .ok()
                .filter(|p| !p.segments().is_empty())
                .and_then(|p| {
                    p.resolve(self.ty)
                        .ok()
                        .filter(|r| r.leaf() == Leaf::Message)
                        .and(message_at(self.ty, p.segments()))
                });
            if message.is_some() {
                let fields = self.components("norm", w, *c, &["x", "y", "z", "w"], 2)?;
                return Ok(Value::Norm(fields.into_iter().map(Value::Field).collect()));
            }
        }
        if args.is_empty() {
            return Err(self.mismatch(
                column,
                "norm() takes a vector (a message with x, y[, z]) or numbers: norm(twist.linear), norm(a, b)".into(),
            ));
        }
        Ok(Value::Norm(
            args.iter()
                .map(|a| self.value(a).map(|(v, _)| v))
                .collect::<Result<_, _>>()?,
        ))
    }

    /// The numeric fields `names` of the message at `text` (at `column`), in that order, as
    /// far as the message has them; at least `need` of them (the first ones) must be there.
    fn components(
        &self,
        func: &str,
        text: &str,
        column: usize,
        names: &[&str],
        need: usize,
    ) -> Result<Vec<Field>, ExprError> {
        let (stripped, scolumn) = self.strip_m(text, column);
        let parsed = ParsedPath::parse(stripped)
            .map_err(|e| ExprError::from_path(self.text, scolumn, &e))?;
        let resolved = parsed
            .resolve(self.ty)
            .map_err(|e| ExprError::from_path(self.text, scolumn, &e))?;
        let what = if need == 4 {
            "a quaternion (a message with numeric fields x, y, z, w)"
        } else {
            "a vector (a message with numeric fields x, y and maybe z)"
        };
        let ty = match (resolved.leaf(), message_at(self.ty, parsed.segments())) {
            (Leaf::Message, Some(t)) if !parsed.segments().is_empty() => t,
            (leaf, _) => {
                return Err(self.mismatch(
                    column,
                    format!("{func}() takes {what}; {stripped} is {}", describe(leaf)),
                ));
            }
        };
        let mut out = Vec::new();
        for (i, n) in names.iter().enumerate() {
            if !has_numbers(ty, &[n]) {
                if i < need {
                    return Err(self.mismatch(
                        column,
                        format!(
                            "{func}() takes {what}; {stripped} is a {} (no numeric field '{n}')",
                            ty.name()
                        ),
                    ));
                }
                break;
            }
            out.push(self.field(&format!("{stripped}.{n}"), scolumn, false)?);
        }
        Ok(out)
    }
}

/// True when `ty` has every one of `names` as a single numeric field.
fn has_numbers(ty: &MsgType, names: &[&str]) -> bool {
    names.iter().all(|n| {
        ty.field(n).is_some_and(|(_, f)| {
            f.ty().array() == crate::msg::ArrayKind::Single
                && matches!(f.ty().elem(), crate::msg::Elem::Prim(p) if !matches!(p, crate::msg::Primitive::String))
        })
    })
}

fn count(n: usize) -> String {
    match n {
        0 => "no argument".into(),
        1 => "1 argument".into(),
        n => format!("{n} arguments"),
    }
}
