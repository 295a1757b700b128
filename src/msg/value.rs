//! The value tree: what the encoder takes and writers build. Decoding produces the flat
//! [`Decoded`](super::Decoded) form instead; [`Decoded::to_value`](super::Decoded::to_value)
//! turns one into a tree. The accessors of [`PrimArray`] elements as values live here too.
//!
//! A [`Value`] may borrow strings and byte arrays from a payload (lifetime `'a`), so a 6 MB
//! image costs no copy; [`Value::into_owned`] detaches it (`Value<'static>`)
//! for sending to another thread. Nested messages carry their compiled [`MsgType`], so field
//! names are reachable for rendering without allocating a name per field.

use std::borrow::Cow;
use std::sync::Arc;

use super::prim_array::PrimArray;
use super::primitive::Primitive;
use super::scalar::{Scalar, with_scalars};
use super::types::{Elem, MsgType};
use crate::time::{RosDuration, RosTime};

with_scalars! {
    convert
    /// One decoded value.
    #[derive(Debug, Clone)]
    pub enum Value<'a> {
        /// `string`: the raw bytes, which may not be valid UTF-8.
        String(Cow<'a, [u8]>),
        /// `uint8[]`, `uint8[N]`, `char[]`, `char[N]`: the bytes, borrowed from the payload.
        Bytes(Cow<'a, [u8]>),
        /// An array of another fixed-size builtin type (`float64[9]`, `int32[]`, `time[]`…),
        /// unboxed.
        PrimArray(PrimArray<'a>),
        /// An array of strings or messages.
        Array(Vec<Value<'a>>),
        /// A nested (or the top-level) message.
        Message(Message<'a>),
    }
}

/// A decoded message: its type and one value per field, in definition order.
#[derive(Debug, Clone)]
pub struct Message<'a> {
    pub(crate) ty: TypeRef<'a>,
    pub(crate) fields: Box<[Value<'a>]>,
}

/// How a message value refers to its type: the decoder borrows nested types from the schema
/// (no reference-count traffic per message); owned values share them.
#[derive(Debug, Clone)]
pub(crate) enum TypeRef<'a> {
    Borrowed(&'a MsgType),
    Shared(Arc<MsgType>),
}

impl TypeRef<'_> {
    fn get(&self) -> &MsgType {
        match self {
            TypeRef::Borrowed(ty) => ty,
            TypeRef::Shared(ty) => ty,
        }
    }
}

impl<'a> Message<'a> {
    /// Builds a message value; `fields` must follow `ty`'s field order (checked by
    /// `msg::encode`, not here).
    pub fn new(ty: Arc<MsgType>, fields: Vec<Value<'a>>) -> Self {
        Message {
            ty: TypeRef::Shared(ty),
            fields: fields.into_boxed_slice(),
        }
    }

    /// Like [`Message::new`], borrowing the type (as the decoder does for nested messages).
    pub fn with_borrowed_type(ty: &'a MsgType, fields: Vec<Value<'a>>) -> Self {
        Message {
            ty: TypeRef::Borrowed(ty),
            fields: fields.into_boxed_slice(),
        }
    }

    /// The message type.
    pub fn ty(&self) -> &MsgType {
        self.ty.get()
    }

    /// The field values, in definition order.
    pub fn values(&self) -> &[Value<'a>] {
        &self.fields
    }

    /// Mutable access to the field values.
    pub fn values_mut(&mut self) -> &mut [Value<'a>] {
        &mut self.fields
    }

    /// `(field name, value)` pairs in definition order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &Value<'a>)> {
        self.ty()
            .fields
            .iter()
            .map(|f| f.name.as_str())
            .zip(self.fields.iter())
    }

    /// The value of the field called `name`.
    pub fn get(&self, name: &str) -> Option<&Value<'a>> {
        let (index, _) = self.ty().field(name)?;
        self.fields.get(index)
    }

    /// Detaches the message from the payload and the schema it borrows.
    pub fn into_owned(self) -> Message<'static> {
        self.into_owned_with(None)
    }

    /// `hint` is the shared type the parent's field declares, which a borrowed type is.
    fn into_owned_with(self, hint: Option<&Arc<MsgType>>) -> Message<'static> {
        let ty = match self.ty {
            TypeRef::Shared(ty) => ty,
            TypeRef::Borrowed(ty) => match hint {
                Some(shared) if std::ptr::eq(Arc::as_ptr(shared), ty) => Arc::clone(shared),
                _ => Arc::new(ty.clone()),
            },
        };
        let fields = ty
            .fields
            .iter()
            .zip(self.fields.into_vec())
            .map(|(field, value)| {
                let hint = match &field.ty.elem {
                    Elem::Msg(sub) => Some(sub),
                    Elem::Prim(_) => None,
                };
                value.into_owned_with(hint)
            })
            .collect();
        Message {
            ty: TypeRef::Shared(ty),
            fields,
        }
    }
}

fn same_type(a: &MsgType, b: &MsgType) -> bool {
    std::ptr::eq(a, b) || (a.name == b.name && a.md5sum == b.md5sum)
}

/// Messages are equal when they have the same type name and md5sum and equal fields.
impl PartialEq for Message<'_> {
    fn eq(&self, other: &Self) -> bool {
        same_type(self.ty(), other.ty()) && self.fields == other.fields
    }
}

/// Structural equality; floats compare as floats (`NaN != NaN`, `0.0 == -0.0`). Use
/// [`Value::bitwise_eq`] to compare floats by their bits.
impl PartialEq for Value<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.eq_with(other, &|a, b| a == b, &|a, b| a == b)
    }
}

impl<'a> Value<'a> {
    fn eq_with(
        &self,
        other: &Value<'_>,
        f32_eq: &dyn Fn(f32, f32) -> bool,
        f64_eq: &dyn Fn(f64, f64) -> bool,
    ) -> bool {
        use Value as V;
        match (self, other) {
            (V::Bool(a), V::Bool(b)) => a == b,
            (V::I8(a), V::I8(b)) => a == b,
            (V::U8(a), V::U8(b)) => a == b,
            (V::I16(a), V::I16(b)) => a == b,
            (V::U16(a), V::U16(b)) => a == b,
            (V::I32(a), V::I32(b)) => a == b,
            (V::U32(a), V::U32(b)) => a == b,
            (V::I64(a), V::I64(b)) => a == b,
            (V::U64(a), V::U64(b)) => a == b,
            (V::F32(a), V::F32(b)) => f32_eq(*a, *b),
            (V::F64(a), V::F64(b)) => f64_eq(*a, *b),
            (V::String(a), V::String(b)) | (V::Bytes(a), V::Bytes(b)) => a == b,
            // Raw fields, not total nanoseconds: a value is what is on the wire.
            (V::Time(a), V::Time(b)) => a.sec == b.sec && a.nsec == b.nsec,
            (V::Duration(a), V::Duration(b)) => a == b,
            (V::PrimArray(a), V::PrimArray(b)) => {
                a.elem() == b.elem()
                    && a.len() == b.len()
                    && a.iter()
                        .zip(b.iter())
                        .all(|(x, y)| x.eq_with(&y, f32_eq, f64_eq))
            }
            (V::Array(a), V::Array(b)) => {
                a.len() == b.len()
                    && a.iter()
                        .zip(b.iter())
                        .all(|(x, y)| x.eq_with(y, f32_eq, f64_eq))
            }
            (V::Message(a), V::Message(b)) => {
                same_type(a.ty(), b.ty())
                    && a.fields.len() == b.fields.len()
                    && a.fields
                        .iter()
                        .zip(b.fields.iter())
                        .all(|(x, y)| x.eq_with(y, f32_eq, f64_eq))
            }
            _ => false,
        }
    }

    /// Equality with floats compared bit for bit (so `NaN` equals the same `NaN` and
    /// `-0.0 != 0.0`): "the same bytes would be encoded".
    pub fn bitwise_eq(&self, other: &Value<'_>) -> bool {
        self.eq_with(other, &|a, b| a.to_bits() == b.to_bits(), &|a, b| {
            a.to_bits() == b.to_bits()
        })
    }

    /// Detaches the value from the payload (copies strings and byte arrays) and from the
    /// schema it borrows nested types from (shares them instead).
    pub fn into_owned(self) -> Value<'static> {
        self.into_owned_with(None)
    }

    fn into_owned_with(self, hint: Option<&Arc<MsgType>>) -> Value<'static> {
        match self {
            Value::Bool(v) => Value::Bool(v),
            Value::I8(v) => Value::I8(v),
            Value::U8(v) => Value::U8(v),
            Value::I16(v) => Value::I16(v),
            Value::U16(v) => Value::U16(v),
            Value::I32(v) => Value::I32(v),
            Value::U32(v) => Value::U32(v),
            Value::I64(v) => Value::I64(v),
            Value::U64(v) => Value::U64(v),
            Value::F32(v) => Value::F32(v),
            Value::F64(v) => Value::F64(v),
            Value::String(v) => Value::String(Cow::Owned(v.into_owned())),
            Value::Time(v) => Value::Time(v),
            Value::Duration(v) => Value::Duration(v),
            Value::Bytes(v) => Value::Bytes(Cow::Owned(v.into_owned())),
            Value::PrimArray(v) => Value::PrimArray(v.into_owned()),
            Value::Array(v) => Value::Array(
                v.into_iter()
                    .map(|item| item.into_owned_with(hint))
                    .collect(),
            ),
            Value::Message(m) => Value::Message(m.into_owned_with(hint)),
        }
    }

    /// A copy detached from the payload.
    pub fn to_owned_value(&self) -> Value<'static> {
        self.clone().into_owned()
    }

    /// The message, if this is one.
    pub fn as_message(&self) -> Option<&Message<'a>> {
        match self {
            Value::Message(m) => Some(m),
            _ => None,
        }
    }

    /// The field `name` of a message value.
    pub fn get(&self, name: &str) -> Option<&Value<'a>> {
        self.as_message()?.get(name)
    }

    /// The value at a dotted path such as `pose.position.x` or `transforms.3.header`
    /// (array elements by index). Elements of unboxed arrays come back owned.
    pub fn at_path(&self, path: &str) -> Option<Cow<'_, Value<'a>>> {
        let mut cur = self;
        let mut steps = path.split('.').filter(|s| !s.is_empty()).peekable();
        while let Some(step) = steps.next() {
            cur = match cur {
                Value::Message(m) => m.get(step)?,
                Value::Array(items) => items.get(step.parse::<usize>().ok()?)?,
                Value::PrimArray(items) if steps.peek().is_none() => {
                    return items.get(step.parse().ok()?).map(Cow::Owned);
                }
                Value::Bytes(bytes) if steps.peek().is_none() => {
                    return bytes
                        .get(step.parse::<usize>().ok()?)
                        .map(|b| Cow::Owned(Value::U8(*b)));
                }
                _ => return None,
            };
        }
        Some(Cow::Borrowed(cur))
    }

    /// The number of elements of an array value (byte arrays included).
    pub fn array_len(&self) -> Option<usize> {
        match self {
            Value::Bytes(b) => Some(b.len()),
            Value::PrimArray(a) => Some(a.len()),
            Value::Array(a) => Some(a.len()),
            _ => None,
        }
    }

    /// The string's text with invalid UTF-8 replaced by U+FFFD, if this is a string.
    pub fn as_str_lossy(&self) -> Option<Cow<'_, str>> {
        match self {
            Value::String(bytes) => Some(String::from_utf8_lossy(bytes)),
            _ => None,
        }
    }

    /// The value as `f64` if it is a number (integers may round).
    pub fn as_f64(&self) -> Option<f64> {
        Some(match *self {
            Value::I8(v) => f64::from(v),
            Value::U8(v) => f64::from(v),
            Value::I16(v) => f64::from(v),
            Value::U16(v) => f64::from(v),
            Value::I32(v) => f64::from(v),
            Value::U32(v) => f64::from(v),
            Value::I64(v) => v as f64,
            Value::U64(v) => v as f64,
            Value::F32(v) => f64::from(v),
            Value::F64(v) => v,
            _ => return None,
        })
    }

    /// A short name of the value's kind, for error messages.
    pub fn kind_name(&self) -> &'static str {
        match self {
            Value::Bool(_) => "bool",
            Value::I8(_) => "int8",
            Value::U8(_) => "uint8",
            Value::I16(_) => "int16",
            Value::U16(_) => "uint16",
            Value::I32(_) => "int32",
            Value::U32(_) => "uint32",
            Value::I64(_) => "int64",
            Value::U64(_) => "uint64",
            Value::F32(_) => "float32",
            Value::F64(_) => "float64",
            Value::String(_) => "string",
            Value::Time(_) => "time",
            Value::Duration(_) => "duration",
            Value::Bytes(_) => "byte array",
            Value::PrimArray(_) | Value::Array(_) => "array",
            Value::Message(_) => "message",
        }
    }
}

impl PrimArray<'_> {
    /// An owned array of `elem` holding `values`; `None` when a value is not of that type.
    pub fn from_values<'v>(
        elem: Primitive,
        values: impl IntoIterator<Item = Value<'v>>,
    ) -> Option<PrimArray<'static>> {
        PrimArray::from_scalars(elem, values.into_iter().map(|v| v.as_scalar()))
    }

    /// Element `i` as a scalar [`Value`].
    pub fn get(&self, i: usize) -> Option<Value<'static>> {
        self.scalar(i).map(Value::from)
    }

    /// The elements as scalar [`Value`]s.
    pub fn iter(&self) -> impl Iterator<Item = Value<'static>> + '_ {
        self.scalars().map(Value::from)
    }

    /// The elements as `f64` when the array holds numbers (64-bit integers may round).
    pub fn to_f64s(&self) -> Option<Vec<f64>> {
        self.iter().map(|v| v.as_f64()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn value_stays_small() {
        assert!(std::mem::size_of::<Value<'_>>() <= 40);
    }

    #[test]
    fn float_equalities() {
        let nan = Value::F64(f64::NAN);
        assert_ne!(nan, nan.clone());
        assert!(nan.bitwise_eq(&nan.clone()));
        assert_eq!(Value::F32(0.0), Value::F32(-0.0));
        assert!(!Value::F32(0.0).bitwise_eq(&Value::F32(-0.0)));
        assert_ne!(
            Value::Time(RosTime::new(1, 0)),
            Value::Time(RosTime::new(0, 1_000_000_000))
        );
    }

    #[test]
    fn values_and_schemas_cross_threads() {
        fn send_sync<T: Send + Sync>() {}
        send_sync::<Value<'static>>();
        send_sync::<std::sync::Arc<crate::msg::Schema>>();
    }

    #[test]
    fn owned_values_outlive_the_payload() {
        let owned = {
            let payload = vec![1u8, 2, 3];
            Value::Bytes(Cow::Borrowed(&payload)).into_owned()
        };
        assert_eq!(owned, Value::Bytes(Cow::Owned(vec![1, 2, 3])));
    }
}
