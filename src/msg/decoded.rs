//! A decoded message as one flat list of nodes (pre-order), with views to walk it.
//!
//! Decoding a small message into a tree of boxed [`Value`]s costs one allocation per nested
//! message and a recursive drop; most of the time of an `Imu` went there. A [`Decoded`]
//! message is the payload plus one vector of small, plain nodes: scalars hold their value,
//! strings and arrays of builtins hold where their bytes are in the payload, nested messages
//! and arrays hold how many nodes follow that belong to them. One allocation per message,
//! nothing to drop per node, and [`Decoded::into_owned`] is one copy of the payload.
//!
//! Walk it with [`Decoded::root`] → [`MessageRef`] → [`ValueRef`]; [`Decoded::to_value`]
//! builds the [`Value`] tree (what `msg::encode` takes).

use std::borrow::Cow;
use std::sync::Arc;

use super::prim_array::PrimArray;
use super::primitive::Primitive;
use super::scalar::{Scalar, with_scalars};
use super::types::{Elem, FieldType, MsgType};
use super::value::{Message, Value};
use crate::time::{RosDuration, RosTime};

/// Where a string's or an array's bytes are in the payload.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Span {
    pub(crate) at: u32,
    pub(crate) len: u32,
}

with_scalars! {
    convert
    /// One node of a decoded message.
    #[derive(Debug, Clone, Copy, PartialEq)]
    pub(crate) enum Node {
        /// A `string`: where its bytes are.
        String(Span),
        /// A `uint8`/`char` array: where its bytes are.
        Bytes(Span),
        /// An array of another fixed-size builtin: where its wire bytes are.
        Prims(Primitive, Span),
        /// An array of strings or messages: `count` elements in the `span` nodes that follow.
        Array { count: u32, span: u32 },
        /// A nested message: its fields are the `span` nodes that follow.
        Message { span: u32 },
    }
}

/// How a decoded message refers to its root type.
#[derive(Debug, Clone)]
enum Root<'a> {
    Borrowed(&'a Arc<MsgType>),
    Shared(Arc<MsgType>),
}

/// One decoded message: the payload and its nodes.
#[derive(Debug, Clone)]
pub struct Decoded<'a> {
    ty: Root<'a>,
    /// The bytes the nodes' spans point into: the payload, or (CDR) a copy of it with its
    /// arrays made little-endian and decoded `wstring` texts appended after `wire_len`.
    payload: Cow<'a, [u8]>,
    /// The length of the payload itself within `payload`.
    wire_len: usize,
    nodes: Vec<Node>,
}

impl<'a> Decoded<'a> {
    pub(crate) fn new(ty: &'a Arc<MsgType>, payload: &'a [u8], nodes: Vec<Node>) -> Self {
        Decoded {
            ty: Root::Borrowed(ty),
            payload: Cow::Borrowed(payload),
            wire_len: payload.len(),
            nodes,
        }
    }

    /// A message whose spans point into `buffer` rather than the payload: a little-endian
    /// copy of a big-endian CDR payload, or a payload followed by the UTF-8 texts of its
    /// `wstring`s. `wire_len` is the payload's length (the start of what was appended).
    pub(crate) fn with_buffer(
        ty: &'a Arc<MsgType>,
        buffer: Vec<u8>,
        wire_len: usize,
        nodes: Vec<Node>,
    ) -> Self {
        Decoded {
            ty: Root::Borrowed(ty),
            wire_len: wire_len.min(buffer.len()),
            payload: Cow::Owned(buffer),
            nodes,
        }
    }

    /// A message of its own type `ty` (a JSON message without a schema) whose spans point
    /// into `buffer`: the payload (`wire_len` bytes), then what decoding appended.
    pub(crate) fn with_own_type(
        ty: Arc<MsgType>,
        buffer: Vec<u8>,
        wire_len: usize,
        nodes: Vec<Node>,
    ) -> Decoded<'static> {
        Decoded {
            ty: Root::Shared(ty),
            wire_len: wire_len.min(buffer.len()),
            payload: Cow::Owned(buffer),
            nodes,
        }
    }

    /// The root message.
    pub fn root(&self) -> MessageRef<'_> {
        MessageRef {
            ty: self.ty(),
            payload: &self.payload,
            nodes: &self.nodes,
        }
    }

    /// The root message as a value.
    pub fn value(&self) -> ValueRef<'_> {
        ValueRef::Message(self.root())
    }

    /// The root message type.
    pub fn ty(&self) -> &MsgType {
        match &self.ty {
            Root::Borrowed(ty) => ty,
            Root::Shared(ty) => ty,
        }
    }

    /// The payload the message was decoded from; for a big-endian CDR payload, a copy whose
    /// arrays of numbers are little-endian (what the values are read from).
    pub fn payload(&self) -> &[u8] {
        self.payload.get(..self.wire_len).unwrap_or(&self.payload)
    }

    /// Detaches the message from the payload (one copy) and the schema (shares the type).
    pub fn into_owned(self) -> Decoded<'static> {
        Decoded {
            ty: Root::Shared(match self.ty {
                Root::Shared(ty) => ty,
                Root::Borrowed(ty) => Arc::clone(ty),
            }),
            payload: Cow::Owned(self.payload.into_owned()),
            wire_len: self.wire_len,
            nodes: self.nodes,
        }
    }

    /// The message as a [`Value`] tree.
    pub fn to_value(&self) -> Value<'_> {
        Value::Message(self.root().to_message())
    }
}

/// A message inside a [`Decoded`]: its type and its fields' nodes.
#[derive(Debug, Clone, Copy)]
pub struct MessageRef<'d> {
    ty: &'d MsgType,
    payload: &'d [u8],
    nodes: &'d [Node],
}

impl<'d> MessageRef<'d> {
    /// The message type.
    pub fn ty(&self) -> &'d MsgType {
        self.ty
    }

    /// `(field name, value)` pairs in definition order.
    pub fn iter(&self) -> impl Iterator<Item = (&'d str, ValueRef<'d>)> + use<'d> {
        let payload = self.payload;
        let mut nodes = self.nodes;
        self.ty.fields.iter().filter_map(move |f| {
            let (value, rest) = view(f.ty(), payload, nodes)?;
            nodes = rest;
            Some((f.name(), value))
        })
    }

    /// The field values in definition order.
    pub fn values(&self) -> impl Iterator<Item = ValueRef<'d>> + use<'d> {
        self.iter().map(|(_, v)| v)
    }

    /// The value of the field called `name`.
    pub fn get(&self, name: &str) -> Option<ValueRef<'d>> {
        self.iter().find(|(n, _)| *n == name).map(|(_, v)| v)
    }

    fn to_message(self) -> Message<'d> {
        Message::with_borrowed_type(self.ty, self.values().map(ValueRef::to_value).collect())
    }
}

/// An array of strings or messages inside a [`Decoded`].
#[derive(Debug, Clone, Copy)]
pub struct ArrayRef<'d> {
    ty: &'d FieldType,
    payload: &'d [u8],
    nodes: &'d [Node],
    count: usize,
}

impl<'d> ArrayRef<'d> {
    /// Number of elements.
    pub fn len(&self) -> usize {
        self.count
    }

    /// True when there are no elements.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// The elements.
    pub fn iter(&self) -> impl Iterator<Item = ValueRef<'d>> + use<'d> {
        let (ty, payload) = (self.ty, self.payload);
        let mut nodes = self.nodes;
        (0..self.count).map_while(move |_| {
            let (value, rest) = view_one(ty, payload, nodes)?;
            nodes = rest;
            Some(value)
        })
    }
}

with_scalars! {
    convert
    /// One value inside a [`Decoded`], borrowed from it.
    #[derive(Debug, Clone)]
    pub enum ValueRef<'d> {
        /// `string`: the raw bytes, which may not be valid UTF-8.
        String(&'d [u8]),
        /// `uint8[]`, `char[]` and their fixed-length forms.
        Bytes(&'d [u8]),
        /// An array of another fixed-size builtin type.
        PrimArray(PrimArray<'d>),
        /// An array of strings or messages.
        Array(ArrayRef<'d>),
        /// A nested message.
        Message(MessageRef<'d>),
    }
}

impl ValueRef<'static> {
    /// A scalar [`Value`] (an element of a [`PrimArray`]) as a `ValueRef`; `None` for
    /// strings, arrays and messages.
    pub fn scalar(v: &Value<'_>) -> Option<ValueRef<'static>> {
        v.as_scalar().map(ValueRef::from)
    }
}

impl PrimArray<'_> {
    /// The elements as [`ValueRef`] scalars.
    pub fn refs(&self) -> impl Iterator<Item = ValueRef<'static>> + '_ {
        self.scalars().map(ValueRef::from)
    }
}

impl<'d> ValueRef<'d> {
    /// The value as a [`Value`] tree borrowing the payload.
    pub fn to_value(self) -> Value<'d> {
        match self {
            ValueRef::Bool(v) => Value::Bool(v),
            ValueRef::I8(v) => Value::I8(v),
            ValueRef::U8(v) => Value::U8(v),
            ValueRef::I16(v) => Value::I16(v),
            ValueRef::U16(v) => Value::U16(v),
            ValueRef::I32(v) => Value::I32(v),
            ValueRef::U32(v) => Value::U32(v),
            ValueRef::I64(v) => Value::I64(v),
            ValueRef::U64(v) => Value::U64(v),
            ValueRef::F32(v) => Value::F32(v),
            ValueRef::F64(v) => Value::F64(v),
            ValueRef::String(v) => Value::String(Cow::Borrowed(v)),
            ValueRef::Time(v) => Value::Time(v),
            ValueRef::Duration(v) => Value::Duration(v),
            ValueRef::Bytes(v) => Value::Bytes(Cow::Borrowed(v)),
            ValueRef::PrimArray(v) => Value::PrimArray(v),
            ValueRef::Array(a) => Value::Array(a.iter().map(ValueRef::to_value).collect()),
            ValueRef::Message(m) => Value::Message(m.to_message()),
        }
    }
}

/// The value of a field of type `ty` at the front of `nodes`, and the nodes after it.
fn view<'d>(
    ty: &'d FieldType,
    payload: &'d [u8],
    nodes: &'d [Node],
) -> Option<(ValueRef<'d>, &'d [Node])> {
    let (first, rest) = nodes.split_first()?;
    if let Node::Array { count, span } = *first {
        let (items, rest) = rest.split_at_checked(span as usize)?;
        let array = ArrayRef {
            ty,
            payload,
            nodes: items,
            count: count as usize,
        };
        return Some((ValueRef::Array(array), rest));
    }
    view_one(ty, payload, nodes)
}

/// One element of type `ty` (a single value, or an element of an array of `ty`).
fn view_one<'d>(
    ty: &'d FieldType,
    payload: &'d [u8],
    nodes: &'d [Node],
) -> Option<(ValueRef<'d>, &'d [Node])> {
    let (first, rest) = nodes.split_first()?;
    let bytes = |s: Span| payload.get(s.at as usize..(s.at as usize).checked_add(s.len as usize)?);
    let value = match *first {
        Node::String(s) => ValueRef::String(bytes(s)?),
        Node::Bytes(s) => ValueRef::Bytes(bytes(s)?),
        Node::Prims(p, s) => {
            ValueRef::PrimArray(PrimArray::from_wire(p, Cow::Borrowed(bytes(s)?))?)
        }
        Node::Message { span } => {
            let Elem::Msg(sub) = ty.elem() else {
                return None;
            };
            let (fields, rest) = rest.split_at_checked(span as usize)?;
            let m = MessageRef {
                ty: sub,
                payload,
                nodes: fields,
            };
            return Some((ValueRef::Message(m), rest));
        }
        Node::Array { .. } => return None,
        scalar => ValueRef::from(scalar.as_scalar()?),
    };
    Some((value, rest))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nodes_stay_small_and_plain() {
        assert_eq!(std::mem::size_of::<Node>(), 16);
        assert!(!std::mem::needs_drop::<Node>());
    }
}
