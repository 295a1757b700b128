//! Syntax tree + message type → a [`Node`] tree ready to evaluate: paths resolved to field
//! positions, constants replaced by their values, operators checked against the field types.

use std::sync::Arc;

use regex::bytes::Regex;

use super::error::{ExprError, ExprErrorKind};
use super::lexer::CmpOp;
use super::parser::{Ast, Func, Literal, Operand};
use super::shared::{ExactNeedle, FoldedNeedle, Shared};
use crate::msg::path::{Leaf, ParsedPath, ResolvedPath, Segment, Step};
use crate::msg::{ConstValue, Elem, MsgType};

/// A number to compare: integers exactly, floats as `f64` (as Python compares them).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Num {
    Int(i128),
    Float(f64),
}

/// A compiled expression node.
#[derive(Debug, Clone)]
pub(super) enum Node {
    Const(bool),
    Or(Vec<Node>),
    And(Vec<Node>),
    Not(Box<Node>),
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
}

/// What an operand gives once its function is applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Number,
    String,
}

impl Compiler<'_> {
    fn err(&self, column: usize, kind: ExprErrorKind) -> ExprError {
        ExprError::new(self.text, column, kind)
    }

    fn mismatch(&self, column: usize, what: String) -> ExprError {
        self.err(column, ExprErrorKind::Mismatch(what))
    }

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
            Ast::Not(inner) => Node::Not(Box::new(self.node(inner)?)),
            Ast::Text(s) => Node::AnyText(self.shared.folded(s)),
            Ast::In { needle, operand } => {
                let (path, kind) = self.operand(operand)?;
                if kind != Kind::String {
                    return Err(self.mismatch(
                        operand.start,
                        format!("'in' looks inside strings; {} is a number", operand.path),
                    ));
                }
                Node::Contains {
                    path,
                    needle: self.shared.exact(needle),
                }
            }
            Ast::Truthy(operand) => {
                if let Some(b) = self.topic_test(operand, None) {
                    return Ok(Node::Const(b));
                }
                let (path, _) = self.operand(operand)?;
                Node::Truthy {
                    path,
                    func: operand.func,
                }
            }
            Ast::Compare {
                operand,
                op,
                op_column,
                value,
                value_column,
            } => {
                if let Some(b) = self.topic_test(operand, Some((*op, value))) {
                    return Ok(Node::Const(b));
                }
                let (path, kind) = self.operand(operand)?;
                self.compare(path, operand, kind, *op, *op_column, value, *value_column)?
            }
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
    fn strip_m<'t>(&self, text: &'t str, column: usize) -> (&'t str, usize) {
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
        value: &Literal,
        value_column: usize,
    ) -> Result<Node, ExprError> {
        if path.leaf() == Leaf::Array && operand.func == Func::None {
            return Err(self.mismatch(
                operand.start,
                format!(
                    "{} is an array: compare one element ({0}[0]), any element ({0}[*]) or len({0})",
                    operand.path
                ),
            ));
        }
        let value = match value {
            Literal::Name(name) => self.constant(name, operand, value_column)?,
            other => other.clone(),
        };
        let name = &operand.path;
        match (kind, op, value) {
            (Kind::Number, CmpOp::Like | CmpOp::Regex, _) => Err(self.mismatch(
                op_column,
                format!("'{}' works on strings; {name} is a number", op.text()),
            )),
            (Kind::Number, _, Literal::Num(n)) => Ok(Node::Num {
                path,
                func: operand.func,
                op,
                rhs: parse_number(&n)
                    .ok_or_else(|| self.err(value_column, ExprErrorKind::Number(n.clone())))?,
            }),
            (Kind::Number, _, Literal::Bool(b)) => Ok(Node::Num {
                path,
                func: operand.func,
                op,
                rhs: Num::Int(i128::from(b)),
            }),
            (Kind::Number, _, _) => Err(self.mismatch(
                value_column,
                format!("{name} is a number: compare it with a number, true/false or a constant"),
            )),
            (Kind::String, CmpOp::Like, Literal::Str(s)) => Ok(Node::Like {
                path,
                needle: self.shared.folded(&s),
            }),
            (Kind::String, CmpOp::Regex, Literal::Str(s)) => {
                let re = self
                    .shared
                    .regex(&s)
                    .map_err(|why| self.err(value_column, ExprErrorKind::Regex(why)))?;
                Ok(Node::Regex { path, re })
            }
            (Kind::String, _, Literal::Str(s)) => Ok(Node::Str {
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
    fn constant(&self, name: &str, operand: &Operand, column: usize) -> Result<Literal, ExprError> {
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
fn message_at<'t>(ty: &'t MsgType, segments: &[Segment]) -> Option<&'t MsgType> {
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

fn describe(leaf: Leaf) -> &'static str {
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
            (Node::Like { needle: a, .. }, Node::Like { needle: b, .. })
            | (Node::AnyText(a), Node::AnyText(b)) => Arc::ptr_eq(a, b),
            (Node::Regex { re: a, .. }, Node::Regex { re: b, .. }) => Arc::ptr_eq(a, b),
            (Node::Contains { needle: a, .. }, Node::Contains { needle: b, .. }) => {
                Arc::ptr_eq(a, b)
            }
            (Node::Const(_), Node::Const(_))
            | (Node::Num { .. }, Node::Num { .. })
            | (Node::Str { .. }, Node::Str { .. })
            | (Node::Truthy { .. }, Node::Truthy { .. }) => true,
            _ => false,
        }
    }
}
