//! A parsed JSON message + its type → the nodes of a [`Decoded`](crate::msg::Decoded)
//! message, the same nodes the ROS1 and CDR walks build: scalars hold their value, strings
//! are spans of a buffer (the payload followed by the unescaped texts), sequences of numbers
//! and booleans are little-endian arrays in that buffer, sequences of strings and objects are
//! counted runs of nodes.
//!
//! The message must match its type exactly: every property present, no other property, each
//! value of its field's kind (an integer field takes an integer, or a number without a
//! fraction such as `3.0`; a number field takes any number). Anything else is a
//! [`DecodeErrorKind::Json`] naming the field and the payload offset of the value; nothing is
//! guessed or left out.

use std::collections::HashMap;

use super::parse::{Json, Kind};
use super::types::{FLOAT, INT, UINT};
use crate::msg::decoded::{Node, Span};
use crate::msg::error::{DecodeError, DecodeErrorKind, PathSegment};
use crate::msg::primitive::Primitive;
use crate::msg::types::{ArrayKind, Elem, FieldType, MsgType};

/// Objects with more members than this find properties through a hash map.
const LINEAR_MEMBERS: usize = 16;

/// A [`DecodeErrorKind::Json`] at payload offset `at`.
pub(super) fn mismatch(at: usize, what: impl Into<String>) -> DecodeError {
    DecodeError::new(at, DecodeErrorKind::Json { what: what.into() })
}

/// A field path segment for property `key` (escaped: error texts reach terminals).
pub(super) fn segment(key: &str) -> PathSegment {
    PathSegment::Field(crate::printable::escape(key).into_owned())
}

/// The nodes being built and the texts appended after the payload.
pub(super) struct Build {
    pub(super) nodes: Vec<Node>,
    pub(super) extra: Vec<u8>,
    /// The payload's length: where `extra` starts in the buffer.
    base: usize,
}

impl Build {
    pub(super) fn new(payload_len: usize, node_guess: usize) -> Self {
        Build {
            nodes: Vec::with_capacity(node_guess),
            extra: Vec::new(),
            base: payload_len,
        }
    }

    /// The buffer the spans point into: `payload` then the appended texts.
    pub(super) fn buffer(&self, payload: &[u8]) -> Vec<u8> {
        let mut buffer = Vec::with_capacity(payload.len().saturating_add(self.extra.len()));
        buffer.extend_from_slice(payload);
        buffer.extend_from_slice(&self.extra);
        buffer
    }

    /// The span of what was appended to `extra` since `start` (an offset in `extra`).
    fn span_since(&self, start: usize, at: usize) -> Result<Span, DecodeError> {
        let from = self.base.saturating_add(start);
        let len = self.extra.len().saturating_sub(start);
        match (u32::try_from(from), u32::try_from(len)) {
            (Ok(at), Ok(len)) if u32::try_from(from.saturating_add(len as usize)).is_ok() => {
                Ok(Span { at, len })
            }
            _ => Err(DecodeError::new(
                at,
                DecodeErrorKind::TooManyValues {
                    limit: u64::from(u32::MAX),
                    bytes: self.base as u64,
                },
            )),
        }
    }

    /// Sets the composite node at `index` to cover the nodes pushed after it.
    fn close(
        &mut self,
        index: usize,
        at: usize,
        node: impl FnOnce(u32) -> Node,
    ) -> Result<(), DecodeError> {
        let span = self.nodes.len().saturating_sub(index + 1);
        let span = u32::try_from(span).map_err(|_| {
            DecodeError::new(
                at,
                DecodeErrorKind::TooManyValues {
                    limit: u64::from(u32::MAX),
                    bytes: self.base as u64,
                },
            )
        })?;
        if let Some(slot) = self.nodes.get_mut(index) {
            *slot = node(span);
        }
        Ok(())
    }

    /// The nodes of the fields of `value`, an object of type `ty` (the root message has no
    /// node of its own).
    pub(super) fn fields(&mut self, ty: &MsgType, value: &Json) -> Result<(), DecodeError> {
        let Kind::Object(members) = &value.kind else {
            return Err(mismatch(
                value.at,
                format!("expected an object, found {}", value.kind.what()),
            ));
        };
        let index: Option<HashMap<&str, usize>> = (members.len() > LINEAR_MEMBERS).then(|| {
            members
                .iter()
                .enumerate()
                .map(|(i, (k, _))| (k.as_str(), i))
                .collect()
        });
        for f in &ty.fields {
            let found = match &index {
                Some(ix) => ix.get(f.name.as_str()).and_then(|&i| members.get(i)),
                None => members.iter().find(|(k, _)| *k == f.name),
            };
            let Some((_, v)) = found else {
                return Err(mismatch(
                    value.at,
                    "the property is missing (the schema has it; decoded values have no 'absent')",
                )
                .within(segment(&f.name)));
            };
            self.field(&f.ty, v)
                .map_err(|e| e.within(segment(&f.name)))?;
        }
        // Keys are unique and every field was found: more members means one the type lacks.
        if members.len() != ty.fields.len() {
            if let Some((k, v)) = members.iter().find(|(k, _)| ty.field(k).is_none()) {
                return Err(mismatch(v.at, "the property is not in the schema").within(segment(k)));
            }
        }
        Ok(())
    }

    fn field(&mut self, ty: &FieldType, value: &Json) -> Result<(), DecodeError> {
        if ty.array == ArrayKind::Single {
            return self.one(&ty.elem, value);
        }
        let Kind::Array(items) = &value.kind else {
            return Err(mismatch(
                value.at,
                format!("expected an array, found {}", value.kind.what()),
            ));
        };
        match &ty.elem {
            Elem::Prim(p) if *p != Primitive::String => {
                let start = self.extra.len();
                for (i, item) in items.iter().enumerate() {
                    let node = scalar(*p, item).map_err(|e| e.within(PathSegment::Index(i)))?;
                    push_le(&mut self.extra, node);
                }
                let span = self.span_since(start, value.at)?;
                self.nodes.push(Node::Prims(*p, span));
            }
            elem => {
                let count = u32::try_from(items.len())
                    .map_err(|_| mismatch(value.at, "an array of more than 2^32 elements"))?;
                let at = self.nodes.len();
                self.nodes.push(Node::Array { count: 0, span: 0 });
                for (i, item) in items.iter().enumerate() {
                    self.one(elem, item)
                        .map_err(|e| e.within(PathSegment::Index(i)))?;
                }
                self.close(at, value.at, |span| Node::Array { count, span })?;
            }
        }
        Ok(())
    }

    fn one(&mut self, elem: &Elem, value: &Json) -> Result<(), DecodeError> {
        match elem {
            Elem::Prim(Primitive::String) => {
                let Kind::Str(s) = &value.kind else {
                    return Err(expected("a string", value));
                };
                let start = self.extra.len();
                self.extra.extend_from_slice(s.as_bytes());
                let span = self.span_since(start, value.at)?;
                self.nodes.push(Node::String(span));
            }
            Elem::Prim(p) => {
                let node = scalar(*p, value)?;
                self.nodes.push(node);
            }
            Elem::Msg(sub) => {
                let at = self.nodes.len();
                self.nodes.push(Node::Message { span: 0 });
                self.fields(sub, value)?;
                self.close(at, value.at, |span| Node::Message { span })?;
            }
        }
        Ok(())
    }
}

fn expected(what: &str, value: &Json) -> DecodeError {
    let found = match value.kind {
        Kind::Null => "null (decoded values have no null)",
        ref other => other.what(),
    };
    mismatch(value.at, format!("expected {what}, found {found}"))
}

/// The scalar node of `value` in a field of primitive `p`.
fn scalar(p: Primitive, value: &Json) -> Result<Node, DecodeError> {
    // The bounds of i64 as f64: -2^63 is exact, 2^63 is the first value above.
    const I64_LOW: f64 = -9_223_372_036_854_775_808.0;
    const I64_HIGH: f64 = 9_223_372_036_854_775_808.0;
    Ok(match (p, &value.kind) {
        (INT, Kind::Int(i)) => Node::I64(*i),
        (INT, Kind::Float(f)) if f.fract() == 0.0 && (I64_LOW..I64_HIGH).contains(f) => {
            Node::I64(whole_to_i64(*f))
        }
        (INT, Kind::UInt(u)) => {
            return Err(mismatch(
                value.at,
                format!("the integer {u} does not fit int64"),
            ));
        }
        (INT, _) => return Err(expected("an integer", value)),
        (UINT, Kind::UInt(u)) => Node::U64(*u),
        (UINT, Kind::Int(i)) if *i >= 0 => Node::U64(i.unsigned_abs()),
        (UINT, _) => return Err(expected("a non-negative integer", value)),
        (FLOAT, Kind::Int(i)) => Node::F64(*i as f64),
        (FLOAT, Kind::UInt(u)) => Node::F64(*u as f64),
        (FLOAT, Kind::Float(f)) => Node::F64(*f),
        (FLOAT, _) => return Err(expected("a number", value)),
        (Primitive::Bool, Kind::Bool(b)) => Node::Bool(*b),
        (Primitive::Bool, _) => return Err(expected("a boolean", value)),
        (other, _) => {
            return Err(mismatch(
                value.at,
                format!("{} is not a JSON field type", other.name()),
            ));
        }
    })
}

/// `f`, a whole number within the range of `i64`, as an `i64` (exact).
#[allow(
    clippy::cast_possible_truncation,
    reason = "the caller checked that f is whole and within i64"
)]
fn whole_to_i64(f: f64) -> i64 {
    f as i64
}

/// Appends the little-endian bytes of a scalar node (an element of a number array).
fn push_le(out: &mut Vec<u8>, node: Node) {
    match node {
        Node::Bool(b) => out.push(u8::from(b)),
        Node::I64(v) => out.extend_from_slice(&v.to_le_bytes()),
        Node::U64(v) => out.extend_from_slice(&v.to_le_bytes()),
        Node::F64(v) => out.extend_from_slice(&v.to_le_bytes()),
        _ => {}
    }
}
