//! [`Value`] → payload bytes: the exact inverse of [`decode`](super::decode), for writers.

use super::error::{EncodeError, EncodeErrorKind, PathSegment};
use super::primitive::Primitive;
use super::schema::Schema;
use super::types::{ArrayKind, Elem, Field, MsgType};
use super::value::Value;

type Result<T> = std::result::Result<T, EncodeError>;

/// Serializes a message value with `schema`. The value must have the schema's shape: a message
/// of the top-level type whose fields hold values of the declared types (a `uint8[]`/`char[]`
/// field takes [`Value::Bytes`] or an array of [`Value::U8`]; other builtin arrays take a
/// [`Value::PrimArray`] of their type or an array of scalars).
pub fn encode(schema: &Schema, value: &Value<'_>) -> Result<Vec<u8>> {
    let mut out = Vec::with_capacity(schema.root().min_size());
    encode_into(schema, value, &mut out)?;
    Ok(out)
}

/// [`encode`], appending to `out`. On error `out` may hold a partial message.
pub fn encode_into(schema: &Schema, value: &Value<'_>, out: &mut Vec<u8>) -> Result<()> {
    encode_message(schema.root(), value, out)
}

fn mismatch(expected: &str, value: &Value<'_>) -> EncodeError {
    EncodeError::new(EncodeErrorKind::TypeMismatch {
        expected: expected.to_string(),
        found: value.kind_name(),
    })
}

fn encode_message(ty: &MsgType, value: &Value<'_>, out: &mut Vec<u8>) -> Result<()> {
    let Value::Message(m) = value else {
        return Err(mismatch(&ty.name, value));
    };
    if m.ty().name != ty.name || m.fields.len() != ty.fields.len() {
        return Err(EncodeError::new(EncodeErrorKind::MessageMismatch {
            expected: ty.name.clone(),
            fields: ty.fields.len(),
            found: m.ty().name.clone(),
            found_fields: m.fields.len(),
        }));
    }
    for (field, v) in ty.fields.iter().zip(m.fields.iter()) {
        encode_field(field, v, out)
            .map_err(|e| e.within(PathSegment::Field(field.name.clone())))?;
    }
    Ok(())
}

fn write_len(len: usize, out: &mut Vec<u8>) -> Result<()> {
    let len = u32::try_from(len).map_err(|_| EncodeError::new(EncodeErrorKind::TooLong { len }))?;
    out.extend_from_slice(&len.to_le_bytes());
    Ok(())
}

fn write_count(array: ArrayKind, len: usize, out: &mut Vec<u8>) -> Result<()> {
    match array {
        ArrayKind::Fixed(n) if n != len => Err(EncodeError::new(EncodeErrorKind::FixedLength {
            expected: n,
            found: len,
        })),
        ArrayKind::Fixed(_) | ArrayKind::Single => Ok(()),
        ArrayKind::Variable => write_len(len, out),
    }
}

fn encode_field(field: &Field, value: &Value<'_>, out: &mut Vec<u8>) -> Result<()> {
    let array = field.ty.array;
    if array == ArrayKind::Single {
        return encode_elem(&field.ty.elem, value, out);
    }
    match value {
        Value::Bytes(bytes) if field.ty.is_bytes() => {
            write_count(array, bytes.len(), out)?;
            out.extend_from_slice(bytes);
            Ok(())
        }
        Value::PrimArray(items) => match &field.ty.elem {
            Elem::Prim(p) if same_kind(items.elem(), *p) => {
                write_count(array, items.len(), out)?;
                out.extend_from_slice(items.wire_bytes());
                Ok(())
            }
            _ => Err(mismatch(&field.type_text, value)),
        },
        Value::Array(items) => {
            write_count(array, items.len(), out)?;
            for (i, item) in items.iter().enumerate() {
                encode_elem(&field.ty.elem, item, out)
                    .map_err(|e| e.within(PathSegment::Index(i)))?;
            }
            Ok(())
        }
        other => Err(mismatch(&field.type_text, other)),
    }
}

/// `byte` and `int8` (and `char` and `uint8`) are one kind of value.
fn same_kind(a: Primitive, b: Primitive) -> bool {
    let canonical = |p| match p {
        Primitive::Byte => Primitive::Int8,
        Primitive::Char => Primitive::UInt8,
        p => p,
    };
    canonical(a) == canonical(b)
}

fn encode_elem(elem: &Elem, value: &Value<'_>, out: &mut Vec<u8>) -> Result<()> {
    match elem {
        Elem::Prim(p) => encode_prim(*p, value, out),
        Elem::Msg(ty) => encode_message(ty, value, out),
    }
}

fn encode_prim(p: Primitive, value: &Value<'_>, out: &mut Vec<u8>) -> Result<()> {
    if let (Primitive::String, Value::String(s)) = (p, value) {
        write_len(s.len(), out)?;
        out.extend_from_slice(s);
        return Ok(());
    }
    value
        .as_scalar()
        .and_then(|scalar| scalar.write(p, out))
        .ok_or_else(|| mismatch(p.name(), value))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::msg::{Message, decode};
    use std::borrow::Cow;
    use std::sync::Arc;

    #[test]
    fn encodes_what_it_decodes_and_reports_mismatches() {
        let s = Schema::from_definition("t/T", "string s\nuint8[] b\nint32[2] f\n").unwrap();
        let payload = [1, 0, 0, 0, b'x', 2, 0, 0, 0, 9, 8, 1, 0, 0, 0, 2, 0, 0, 0];
        let d = decode(&s, &payload).unwrap();
        let v = d.to_value();
        assert_eq!(encode(&s, &v).unwrap(), payload);

        let ty = Arc::clone(s.root());
        let bad = Value::Message(Message::new(
            Arc::clone(&ty),
            vec![
                Value::String(Cow::Borrowed(b"x")),
                Value::Array(vec![Value::U8(1)]),
                Value::Array(vec![Value::I32(1)]),
            ],
        ));
        let e = encode(&s, &bad).unwrap_err();
        assert_eq!(e.to_string(), "f: fixed array needs 2 elements, found 1");
        let bad = Value::Message(Message::new(
            ty,
            vec![
                Value::String(Cow::Borrowed(b"x")),
                Value::Array(vec![Value::U8(1), Value::I8(2)]),
                Value::Array(vec![Value::I32(1), Value::I32(1)]),
            ],
        ));
        let e = encode(&s, &bad).unwrap_err();
        assert_eq!(e.to_string(), "b[1]: expected uint8, found int8");
        assert!(encode(&s, &Value::I8(1)).is_err());
    }
}
