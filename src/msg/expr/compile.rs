//! Syntax tree + message type → a [`Node`] tree ready to evaluate: paths resolved to field
//! positions, constants replaced by their values, operators checked against the field types.
//! Comparisons of a field (or `len`/`abs` of one) with a value keep their own nodes ([`Cond`]:
//! exact integers, `[*]` for any element); everything computed becomes a [`Value`] (see
//! `value.rs`). Every leaf gets a slot among the numbers [`Filter::gather`](super::Filter)
//! collects, every `diff`/`rate` a place in the topic's memory.

use std::cell::Cell;
use std::sync::Arc;

use regex::bytes::Regex;

use super::error::{ExprError, ExprErrorKind};
use super::lexer::CmpOp;
use super::num::Num;
use super::parser::{Ast, Func};
use super::shared::{ExactNeedle, FoldedNeedle, Shared};
use super::value::Value;
use crate::msg::path::{Leaf, ParsedPath, ResolvedPath, Segment, Step};
use crate::msg::{ConstValue, Elem, MsgType, Primitive};

/// A field path, maybe inside `len()` or `abs()`, in the forms that test every element.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Operand {
    pub(super) func: Func,
    pub(super) path: String,
    /// Column of the path text.
    pub(super) column: usize,
    /// Column of the operand (the function name, or the path).
    pub(super) start: usize,
}

/// A value to compare a field with.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Literal {
    Num(String),
    Str(String),
    Bool(bool),
}

/// A compiled expression node.
#[derive(Debug, Clone)]
pub(super) enum Node {
    Const(bool),
    Or(Vec<Node>),
    And(Vec<Node>),
    Not(Box<Node>),
    /// A test of a field, evaluated on the message; `slot`: where its truth is gathered.
    Leaf {
        cond: Cond,
        slot: usize,
    },
    /// A comparison of computed values.
    Cmp {
        lhs: Value,
        op: CmpOp,
        rhs: Value,
    },
    /// A computed value used as a condition: true when non-zero.
    NonZero(Value),
}

/// A test of one field against a value (any element for `[*]`).
#[derive(Debug, Clone)]
pub(super) enum Cond {
    Num {
        path: ResolvedPath,
        func: Func,
        op: CmpOp,
        rhs: Num,
    },
    Str {
        path: ResolvedPath,
        op: CmpOp,
        rhs: Box<[u8]>,
    },
    /// Case-insensitive substring (ASCII).
    Like {
        path: ResolvedPath,
        needle: Arc<FoldedNeedle>,
    },
    /// Shared by every filter compiled from the expression.
    Regex {
        path: ResolvedPath,
        re: Arc<Regex>,
    },
    /// Case-sensitive substring (Python's `in`).
    Contains {
        path: ResolvedPath,
        needle: Arc<ExactNeedle>,
    },
    Truthy {
        path: ResolvedPath,
        func: Func,
    },
    /// Any string field holds the needle, ignoring ASCII case.
    AnyText(Arc<FoldedNeedle>),
}

pub(super) struct Compiler<'a> {
    pub(super) text: &'a str,
    pub(super) ty: &'a MsgType,
    pub(super) topic: &'a str,
    /// The expression's searchers, shared by every filter compiled from it.
    pub(super) shared: &'a Shared,
    /// Slots of gathered numbers given out so far.
    pub(super) slots: Cell<usize>,
    /// `diff()`/`rate()` calls compiled so far.
    pub(super) diffs: Cell<usize>,
}

/// What an operand gives once its function is applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Number,
    String,
}

impl Compiler<'_> {
    pub(super) fn err(&self, column: usize, kind: ExprErrorKind) -> ExprError {
        ExprError::new(self.text, column, kind)
    }

    pub(super) fn mismatch(&self, column: usize, what: String) -> ExprError {
        self.err(column, ExprErrorKind::Mismatch(what))
    }

    /// A new slot among the gathered numbers.
    pub(super) fn slot(&self) -> usize {
        let n = self.slots.get();
        self.slots.set(n + 1);
        n
    }

    fn leaf(&self, cond: Cond) -> Node {
        Node::Leaf {
            cond,
            slot: self.slot(),
        }
    }

    /// The condition `ast` stands for.
    pub(super) fn node(&self, ast: &Ast) -> Result<Node, ExprError> {
        Ok(match ast {
            Ast::Or(items) => Node::Or(
                items
                    .iter()
                    .map(|a| self.node(a))
                    .collect::<Result<_, _>>()?,
            ),
            Ast::And(items) => Node::And(
                items
                    .iter()
                    .map(|a| self.node(a))
                    .collect::<Result<_, _>>()?,
            ),
            Ast::Not(inner, _) => Node::Not(Box::new(self.node(inner)?)),
            Ast::Str(s, _) => self.leaf(Cond::AnyText(self.shared.folded(s))),
            Ast::In {
                needle, operand, ..
            } => {
                let Some(operand) = legacy_operand(operand) else {
                    return Err(self.mismatch(
                        operand.start(),
                        "'in' looks inside a string field: \"text\" in FIELD".into(),
                    ));
                };
                let (path, kind) = self.operand(&operand)?;
                if kind != Kind::String {
                    return Err(self.mismatch(
                        operand.start,
                        format!("'in' looks inside strings; {} is a number", operand.path),
                    ));
                }
                self.leaf(Cond::Contains {
                    path,
                    needle: self.shared.exact(needle),
                })
            }
            Ast::Word(w, _) if matches!(w.as_str(), "true" | "True") => Node::Const(true),
            Ast::Word(w, _) if matches!(w.as_str(), "false" | "False") => Node::Const(false),
            Ast::Compare {
                lhs,
                op,
                op_column,
                rhs,
            } => self.comparison(lhs, *op, *op_column, rhs)?,
            other => match legacy_operand(other).filter(|_| self.as_division(other).is_none()) {
                Some(operand) => {
                    if let Some(b) = self.topic_test(&operand, None) {
                        return Ok(Node::Const(b));
                    }
                    let (path, _) = self.operand(&operand)?;
                    self.leaf(Cond::Truthy {
                        path,
                        func: operand.func,
                    })
                }
                None => Node::NonZero(self.value(other)?.0),
            },
        })
    }

    /// `lhs op rhs`: a field (or `len`/`abs` of one) against a value keeps the forms that
    /// test every element of `[*]` and compare integers exactly; the rest is computed.
    fn comparison(
        &self,
        lhs: &Ast,
        op: CmpOp,
        op_column: usize,
        rhs: &Ast,
    ) -> Result<Node, ExprError> {
        if let Some(operand) = legacy_operand(lhs).filter(|_| self.as_division(lhs).is_none()) {
            if let Some(literal) = self.literal(rhs, &operand)? {
                if let Some(b) = self.topic_test(&operand, Some((op, &literal))) {
                    return Ok(Node::Const(b));
                }
                let (path, kind) = self.operand(&operand)?;
                let cond =
                    self.compare(path, &operand, kind, op, op_column, literal, rhs.start())?;
                return Ok(self.leaf(cond));
            }
        }
        if matches!(op, CmpOp::Like | CmpOp::Regex) {
            return Err(self.mismatch(
                op_column,
                format!("'{}' compares a string field with a \"string\"", op.text()),
            ));
        }
        let (lhs, _) = self.value(lhs)?;
        let (rhs, _) = self.value(rhs)?;
        Ok(Node::Cmp { lhs, op, rhs })
    }

    /// `rhs` as a value to compare field `operand` with: a number, a string, true/false or
    /// a constant of the type; `None` when it is a computation (or another field).
    fn literal(&self, rhs: &Ast, operand: &Operand) -> Result<Option<Literal>, ExprError> {
        Ok(match rhs {
            Ast::Num(n, _) => Some(Literal::Num(n.clone())),
            Ast::Neg(inner, _) => match inner.as_ref() {
                Ast::Num(n, _) => Some(Literal::Num(format!("-{n}"))),
                _ => None,
            },
            Ast::Str(s, _) => Some(Literal::Str(s.clone())),
            Ast::Word(w, _) if matches!(w.as_str(), "true" | "True") => Some(Literal::Bool(true)),
            Ast::Word(w, _) if matches!(w.as_str(), "false" | "False") => {
                Some(Literal::Bool(false))
            }
            Ast::Word(w, column) => match self.constant(w, operand, *column) {
                Ok(literal) => Some(literal),
                // Not a constant: another field (`x > y`), unless it is no field either.
                Err(e) => {
                    let (text, _) = self.strip_m(w, *column);
                    let is_field = ParsedPath::parse(text)
                        .ok()
                        .filter(|p| !p.segments().is_empty())
                        .is_some_and(|p| p.resolve(self.ty).is_ok());
                    if is_field || (w.chars().any(|c| c.is_ascii_lowercase()) && !w.contains('.')) {
                        None
                    } else {
                        return Err(e);
                    }
                }
            },
            _ => None,
        })
    }

    /// `topic == "/x"` (as `rosbag filter` allows) when the type has no field `topic`:
    /// decided here, for the topic being compiled for.
    fn topic_test(&self, operand: &Operand, cmp: Option<(CmpOp, &Literal)>) -> Option<bool> {
        if operand.func != Func::None || operand.path != "topic" || self.ty.field("topic").is_some()
        {
            return None;
        }
        let topic = self.topic.as_bytes();
        match cmp {
            None => Some(!topic.is_empty()),
            Some((op, Literal::Str(s))) => match op {
                CmpOp::Like => Some(self.shared.folded(s).is_in(topic)),
                CmpOp::Regex => None,
                op => Some(cmp_bytes(topic, op, s.as_bytes())),
            },
            Some(_) => None,
        }
    }

    /// The resolved path of an operand (`m.` stripped) and what it gives.
    fn operand(&self, operand: &Operand) -> Result<(ResolvedPath, Kind), ExprError> {
        let (text, column) = self.strip_m(&operand.path, operand.column);
        let parsed =
            ParsedPath::parse(text).map_err(|e| ExprError::from_path(self.text, column, &e))?;
        if parsed.segments().is_empty() {
            return Err(self.mismatch(column, "expected a field after 'm.'".into()));
        }
        let path = parsed
            .resolve(self.ty)
            .map_err(|e| ExprError::from_path(self.text, column, &e))?;
        let leaf = path.leaf();
        let kind = match (operand.func, leaf) {
            (Func::Len, Leaf::Array | Leaf::String)
            | (Func::Abs, Leaf::Number | Leaf::Bool | Leaf::Time)
            | (Func::None, Leaf::Number | Leaf::Bool | Leaf::Time | Leaf::Array) => Kind::Number,
            (Func::Len, _) => {
                return Err(self.mismatch(
                    operand.start,
                    format!(
                        "len() takes an array or a string; {text} is {}",
                        describe(leaf)
                    ),
                ));
            }
            (Func::Abs, _) => {
                return Err(self.mismatch(
                    operand.start,
                    format!("abs() takes a number; {text} is {}", describe(leaf)),
                ));
            }
            (Func::None, Leaf::String) => Kind::String,
            (Func::None, Leaf::Message) => {
                return Err(self.mismatch(
                    column,
                    format!("{text} is a message: name one of its fields"),
                ));
            }
        };
        Ok((path, kind))
    }

    /// `m.x` → `x` (the `m` of `rosbag filter`), unless the type has a field `m`.
    pub(super) fn strip_m<'t>(&self, text: &'t str, column: usize) -> (&'t str, usize) {
        if self.ty.field("m").is_none() {
            if let Some(rest) = text.strip_prefix("m.") {
                return (rest, column + 2);
            }
            if text == "m" {
                return ("", column + 1);
            }
        }
        (text, column)
    }

    #[allow(clippy::too_many_arguments)]
    fn compare(
        &self,
        path: ResolvedPath,
        operand: &Operand,
        kind: Kind,
        op: CmpOp,
        op_column: usize,
        value: Literal,
        value_column: usize,
    ) -> Result<Cond, ExprError> {
        if path.leaf() == Leaf::Array && operand.func == Func::None {
            return Err(self.mismatch(
                operand.start,
                format!(
                    "{} is an array: compare one element ({0}[0]), any element ({0}[*]) or len({0})",
                    operand.path
                ),
            ));
        }
        let name = &operand.path;
        match (kind, op, value) {
            (Kind::Number, CmpOp::Like | CmpOp::Regex, _) => Err(self.mismatch(
                op_column,
                format!("'{}' works on strings; {name} is a number", op.text()),
            )),
            (Kind::Number, _, Literal::Num(n)) => Ok(Cond::Num {
                path,
                func: operand.func,
                op,
                rhs: parse_number(&n)
                    .ok_or_else(|| self.err(value_column, ExprErrorKind::Number(n.clone())))?,
            }),
            (Kind::Number, _, Literal::Bool(b)) => Ok(Cond::Num {
                path,
                func: operand.func,
                op,
                rhs: Num::Int(i128::from(b)),
            }),
            (Kind::Number, _, _) => Err(self.mismatch(
                value_column,
                format!("{name} is a number: compare it with a number, true/false or a constant"),
            )),
            (Kind::String, CmpOp::Like, Literal::Str(s)) => Ok(Cond::Like {
                path,
                needle: self.shared.folded(&s),
            }),
            (Kind::String, CmpOp::Regex, Literal::Str(s)) => {
                let re = self
                    .shared
                    .regex(&s)
                    .map_err(|why| self.err(value_column, ExprErrorKind::Regex(why)))?;
                Ok(Cond::Regex { path, re })
            }
            (Kind::String, _, Literal::Str(s)) => Ok(Cond::Str {
                path,
                op,
                rhs: s.into_bytes().into(),
            }),
            (Kind::String, _, _) => Err(self.mismatch(
                value_column,
                format!("{name} is a string: compare it with a \"string\""),
            )),
        }
    }

    /// The value of constant `name` (`WARN`, `m.WARN`, `status.STATUS_FIX`): looked up in
    /// the type the path named, else in the type holding the operand's field, then the
    /// message's own type.
    pub(super) fn constant(
        &self,
        name: &str,
        operand: &Operand,
        column: usize,
    ) -> Result<Literal, ExprError> {
        let (text, column) = self.strip_m(name, column);
        let (prefix, bare) = match text.rsplit_once('.') {
            Some((p, b)) => (Some(p), b),
            None => (None, text),
        };
        let mut places: Vec<&MsgType> = Vec::new();
        if let Some(p) = prefix {
            let parsed =
                ParsedPath::parse(p).map_err(|e| ExprError::from_path(self.text, column, &e))?;
            let Some(t) = message_at(self.ty, parsed.segments()) else {
                return Err(self.mismatch(
                    column,
                    format!("{p} is not a message of {}", self.ty.name()),
                ));
            };
            places.push(t);
        } else {
            let (path, _) = self.strip_m(&operand.path, operand.column);
            if let Ok(parsed) = ParsedPath::parse(path) {
                let segs = parsed.segments();
                let last_field = segs
                    .iter()
                    .rposition(|s| matches!(s.step, Step::Field(_)))
                    .unwrap_or(0);
                if let Some(t) = segs.get(..last_field).and_then(|s| message_at(self.ty, s)) {
                    places.push(t);
                }
            }
            if !places.iter().any(|t| std::ptr::eq(*t, self.ty)) {
                places.push(self.ty);
            }
        }
        for t in &places {
            if let Some(c) = t.constants().iter().find(|c| c.name() == bare) {
                return Ok(match c.value() {
                    ConstValue::Bool(b) => Literal::Bool(*b),
                    ConstValue::Int(i) => Literal::Num(i.to_string()),
                    ConstValue::UInt(u) => Literal::Num(u.to_string()),
                    ConstValue::Float(f) => Literal::Num(format!("{f:?}")),
                    ConstValue::String(s) => Literal::Str(s.clone()),
                });
            }
        }
        let first = places.first().copied().unwrap_or(self.ty);
        Err(self.err(
            column,
            ExprErrorKind::UnknownConstant {
                name: bare.to_string(),
                datatype: first.name().to_string(),
                available: first
                    .constants()
                    .iter()
                    .map(|c| c.name().to_string())
                    .collect(),
            },
        ))
    }
}

/// The message type `segments` (fields and indexes) lead to from `ty`; `None` when they end
/// elsewhere.
pub(super) fn message_at<'t>(ty: &'t MsgType, segments: &[Segment]) -> Option<&'t MsgType> {
    let mut at = ty;
    for s in segments {
        if let Step::Field(name) = &s.step {
            let (_, f) = at.field(name)?;
            match f.ty().elem() {
                Elem::Msg(m) => at = m,
                Elem::Prim(_) => return None,
            }
        }
    }
    Some(at)
}

pub(super) fn describe(leaf: Leaf) -> &'static str {
    match leaf {
        Leaf::Number => "a number",
        Leaf::Bool => "a bool",
        Leaf::Time => "a time",
        Leaf::String => "a string",
        Leaf::Array => "an array",
        Leaf::Message => "a message",
    }
}

/// A number as Python reads it: integers (decimal, `0x`, `_` separators) exactly, the rest as
/// floats.
pub(super) fn parse_number(text: &str) -> Option<Num> {
    let t = text.replace('_', "");
    let (neg, body) = match t.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, t.strip_prefix('+').unwrap_or(&t)),
    };
    let int = if let Some(hex) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        Some(i128::from_str_radix(hex, 16).ok()?)
    } else if !body.is_empty() && body.bytes().all(|b| b.is_ascii_digit()) {
        body.parse::<i128>().ok()
    } else {
        None
    };
    if let Some(i) = int {
        return Some(Num::Int(if neg { -i } else { i }));
    }
    if !body
        .bytes()
        .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'-' | b'+'))
    {
        return None;
    }
    let f: f64 = body.parse().ok()?;
    Some(Num::Float(if neg { -f } else { f }))
}

/// `a op b` on bytes (lexicographic, as Python compares str by code point for UTF-8).
pub(super) fn cmp_bytes(a: &[u8], op: CmpOp, b: &[u8]) -> bool {
    let o = a.cmp(b);
    match op {
        CmpOp::Eq => o.is_eq(),
        CmpOp::Ne => o.is_ne(),
        CmpOp::Lt => o.is_lt(),
        CmpOp::Le => o.is_le(),
        CmpOp::Gt => o.is_gt(),
        CmpOp::Ge => o.is_ge(),
        CmpOp::Like | CmpOp::Regex => false,
    }
}

impl Node {
    /// True when the searchers of `self` are the same allocations as those at the same
    /// places in `other` (and the trees have the same shape).
    pub(super) fn shares_searchers_with(&self, other: &Node) -> bool {
        match (self, other) {
            (Node::Or(a), Node::Or(b)) | (Node::And(a), Node::And(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.shares_searchers_with(y))
            }
            (Node::Not(a), Node::Not(b)) => a.shares_searchers_with(b),
            (Node::Leaf { cond: a, .. }, Node::Leaf { cond: b, .. }) => match (a, b) {
                (Cond::Like { needle: a, .. }, Cond::Like { needle: b, .. })
                | (Cond::AnyText(a), Cond::AnyText(b)) => Arc::ptr_eq(a, b),
                (Cond::Regex { re: a, .. }, Cond::Regex { re: b, .. }) => Arc::ptr_eq(a, b),
                (Cond::Contains { needle: a, .. }, Cond::Contains { needle: b, .. }) => {
                    Arc::ptr_eq(a, b)
                }
                (Cond::Num { .. }, Cond::Num { .. })
                | (Cond::Str { .. }, Cond::Str { .. })
                | (Cond::Truthy { .. }, Cond::Truthy { .. }) => true,
                _ => false,
            },
            (Node::Const(_), Node::Const(_))
            | (Node::Cmp { .. }, Node::Cmp { .. })
            | (Node::NonZero(_), Node::NonZero(_)) => true,
            _ => false,
        }
    }
}

/// The field (maybe inside `len()`/`abs()`) `ast` names, when it is one.
pub(super) fn legacy_operand(ast: &Ast) -> Option<Operand> {
    match ast {
        Ast::Word(w, column) => Some(Operand {
            func: Func::None,
            path: w.clone(),
            column: *column,
            start: *column,
        }),
        Ast::Call { name, column, args } => {
            let func = match name.as_str() {
                "len" => Func::Len,
                "abs" => Func::Abs,
                _ => return None,
            };
            match args.as_slice() {
                [Ast::Word(p, c)] => Some(Operand {
                    func,
                    path: p.clone(),
                    column: *c,
                    start: *column,
                }),
                _ => None,
            }
        }
        _ => None,
    }
}

/// True when the value at the end of `segments` from `ty` is an integer (or a bool): Python
/// computes with it as an `int`.
pub(super) fn is_integer(ty: &MsgType, segments: &[Segment]) -> bool {
    let mut at = ty;
    let mut prim = None;
    for s in segments {
        let Step::Field(name) = &s.step else {
            continue;
        };
        match prim {
            Some(Primitive::Time | Primitive::Duration) => {
                // `.secs` / `.nsecs` of a time.
                return true;
            }
            Some(_) => return false,
            None => {}
        }
        let Some((_, f)) = at.field(name) else {
            return false;
        };
        match f.ty().elem() {
            Elem::Msg(m) => at = m,
            Elem::Prim(p) => prim = Some(*p),
        }
    }
    !matches!(
        prim,
        None | Some(
            Primitive::Float32
                | Primitive::Float64
                | Primitive::Time
                | Primitive::Duration
                | Primitive::String
        )
    )
}
