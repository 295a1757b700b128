//! Payload bytes → [`Value`], walking a compiled [`Schema`].
//!
//! Every read is bounds-checked; array counts read from the payload are checked against the
//! bytes left before anything is allocated; `uint8`/`char` arrays and strings are borrowed.
//! On failure the error names the field path and payload offset (the path is assembled while
//! unwinding, so the success path pays nothing for it).

use std::borrow::Cow;
use std::sync::Arc;

use super::error::{DecodeError, DecodeErrorKind, PathSegment};
use super::primitive::Primitive;
use super::schema::{ArrayKind, Elem, Field, MsgType, Schema};
use super::value::{Message, Value};
use crate::time::{RosDuration, RosTime};

/// Elements allowed in an array whose elements occupy no bytes (`std_msgs/Empty[]`), where
/// the remaining payload cannot bound the count.
pub const MAX_ZERO_SIZE_ELEMENTS: usize = 1 << 16;

type Result<T> = std::result::Result<T, DecodeError>;

/// Decodes one message payload. The whole payload must be consumed: trailing bytes are an
/// error, as is a payload that ends early or holds an impossible array length.
pub fn decode<'a>(schema: &Schema, bytes: &'a [u8]) -> Result<Value<'a>> {
    let (value, used) = decode_prefix(schema, bytes)?;
    if used < bytes.len() {
        return Err(DecodeError::new(
            used,
            DecodeErrorKind::TrailingBytes {
                count: (bytes.len() - used) as u64,
            },
        ));
    }
    Ok(value)
}

/// Decodes a message from the start of `bytes`, returning it and the number of bytes used
/// (trailing bytes are left to the caller).
pub fn decode_prefix<'a>(schema: &Schema, bytes: &'a [u8]) -> Result<(Value<'a>, usize)> {
    let mut reader = Reader {
        data: bytes,
        pos: 0,
    };
    let value = decode_message(schema.root(), &mut reader)?;
    Ok((Value::Message(value), reader.pos))
}

struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    #[inline]
    fn remaining(&self) -> usize {
        self.data.len().saturating_sub(self.pos)
    }

    #[inline]
    fn truncated(&self, needed: usize) -> DecodeError {
        DecodeError::new(
            self.pos,
            DecodeErrorKind::Truncated {
                needed: needed as u64,
                available: self.remaining() as u64,
            },
        )
    }

    #[inline]
    fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        match self
            .pos
            .checked_add(n)
            .and_then(|end| self.data.get(self.pos..end))
        {
            Some(bytes) => {
                self.pos += n;
                Ok(bytes)
            }
            None => Err(self.truncated(n)),
        }
    }

    #[inline]
    fn fixed<const N: usize>(&mut self) -> Result<[u8; N]> {
        match self.data.get(self.pos..).and_then(<[u8]>::first_chunk::<N>) {
            Some(bytes) => {
                self.pos += N;
                Ok(*bytes)
            }
            None => Err(self.truncated(N)),
        }
    }

    #[inline]
    fn u32(&mut self) -> Result<u32> {
        self.fixed::<4>().map(u32::from_le_bytes)
    }

    /// Checks that `count` elements of at least `min_size` bytes can fit in what is left.
    /// `at` is the offset to report (where the count was read).
    fn check_count(&self, count: usize, min_size: usize, at: usize) -> Result<()> {
        let needed = count.checked_mul(min_size);
        let fits = match needed {
            Some(0) => count <= MAX_ZERO_SIZE_ELEMENTS,
            Some(n) => n <= self.remaining(),
            None => false,
        };
        if fits {
            Ok(())
        } else {
            Err(DecodeError::new(
                at,
                DecodeErrorKind::ArrayTooLong {
                    count: count as u64,
                    needed: needed.map_or(u64::MAX, |n| n as u64),
                    available: self.remaining() as u64,
                },
            ))
        }
    }

    /// Reads the element count of an array field (from the payload for `T[]`).
    #[inline]
    fn count(&mut self, array: ArrayKind) -> Result<usize> {
        match array {
            ArrayKind::Fixed(n) => Ok(n),
            _ => Ok(self.u32()? as usize),
        }
    }
}

fn decode_message<'a>(ty: &Arc<MsgType>, r: &mut Reader<'a>) -> Result<Message<'a>> {
    let mut fields = Vec::with_capacity(ty.fields.len());
    for field in &ty.fields {
        match decode_field(field, r) {
            Ok(v) => fields.push(v),
            Err(e) => return Err(e.within(PathSegment::Field(field.name.clone()))),
        }
    }
    Ok(Message {
        ty: Arc::clone(ty),
        fields: fields.into_boxed_slice(),
    })
}

#[inline]
fn decode_field<'a>(field: &Field, r: &mut Reader<'a>) -> Result<Value<'a>> {
    let array = field.ty.array;
    match (&field.ty.elem, array) {
        (Elem::Prim(p), ArrayKind::Single) => decode_prim(*p, r),
        (Elem::Msg(ty), ArrayKind::Single) => decode_message(ty, r).map(Value::Message),
        (Elem::Prim(p), _) => {
            let at = r.pos;
            let count = r.count(array)?;
            if p.is_byte() {
                r.check_count(count, 1, at)?;
                return Ok(Value::Bytes(Cow::Borrowed(r.take(count)?)));
            }
            r.check_count(count, p.min_size(), at)?;
            if let Some(size) = p.fixed_size() {
                let bytes = r.take(count * size)?;
                return Ok(Value::Array(prim_array(*p, bytes)));
            }
            let mut items = Vec::with_capacity(count);
            for i in 0..count {
                match decode_prim(*p, r) {
                    Ok(v) => items.push(v),
                    Err(e) => return Err(e.within(PathSegment::Index(i))),
                }
            }
            Ok(Value::Array(items))
        }
        (Elem::Msg(ty), _) => {
            let at = r.pos;
            let count = r.count(array)?;
            r.check_count(count, ty.min_size, at)?;
            let mut items = Vec::with_capacity(count);
            for i in 0..count {
                match decode_message(ty, r) {
                    Ok(m) => items.push(Value::Message(m)),
                    Err(e) => return Err(e.within(PathSegment::Index(i))),
                }
            }
            Ok(Value::Array(items))
        }
    }
}

#[inline]
fn decode_prim<'a>(p: Primitive, r: &mut Reader<'a>) -> Result<Value<'a>> {
    Ok(match p {
        Primitive::Bool => Value::Bool(r.fixed::<1>()?[0] != 0),
        Primitive::Int8 | Primitive::Byte => Value::I8(i8::from_le_bytes(r.fixed()?)),
        Primitive::UInt8 | Primitive::Char => Value::U8(u8::from_le_bytes(r.fixed()?)),
        Primitive::Int16 => Value::I16(i16::from_le_bytes(r.fixed()?)),
        Primitive::UInt16 => Value::U16(u16::from_le_bytes(r.fixed()?)),
        Primitive::Int32 => Value::I32(i32::from_le_bytes(r.fixed()?)),
        Primitive::UInt32 => Value::U32(u32::from_le_bytes(r.fixed()?)),
        Primitive::Int64 => Value::I64(i64::from_le_bytes(r.fixed()?)),
        Primitive::UInt64 => Value::U64(u64::from_le_bytes(r.fixed()?)),
        Primitive::Float32 => Value::F32(f32::from_le_bytes(r.fixed()?)),
        Primitive::Float64 => Value::F64(f64::from_le_bytes(r.fixed()?)),
        Primitive::String => {
            let at = r.pos;
            let len = r.u32()? as usize;
            if len > r.remaining() {
                r.pos = at;
                return Err(DecodeError::new(
                    at,
                    DecodeErrorKind::Truncated {
                        needed: len as u64 + 4,
                        available: r.remaining() as u64,
                    },
                ));
            }
            Value::String(Cow::Borrowed(r.take(len)?))
        }
        Primitive::Time => {
            let b: [u8; 8] = r.fixed()?;
            let (sec, nsec) = split8(b);
            Value::Time(RosTime::new(
                u32::from_le_bytes(sec),
                u32::from_le_bytes(nsec),
            ))
        }
        Primitive::Duration => {
            let b: [u8; 8] = r.fixed()?;
            let (sec, nsec) = split8(b);
            Value::Duration(RosDuration {
                sec: i32::from_le_bytes(sec),
                nsec: i32::from_le_bytes(nsec),
            })
        }
    })
}

#[inline]
fn split8(b: [u8; 8]) -> ([u8; 4], [u8; 4]) {
    let [a0, a1, a2, a3, b0, b1, b2, b3] = b;
    ([a0, a1, a2, a3], [b0, b1, b2, b3])
}

/// Decodes `bytes.len() / size` fixed-size primitives in one pass over an already
/// bounds-checked slice.
fn prim_array(p: Primitive, bytes: &[u8]) -> Vec<Value<'static>> {
    macro_rules! each {
        ($n:literal, $variant:ident, $t:ty) => {
            bytes
                .chunks_exact($n)
                .map(|c| {
                    Value::$variant(<$t>::from_le_bytes(
                        c.first_chunk::<$n>().copied().unwrap_or_default(),
                    ))
                })
                .collect()
        };
    }
    match p {
        Primitive::Bool => bytes.iter().map(|&b| Value::Bool(b != 0)).collect(),
        Primitive::Int8 | Primitive::Byte => bytes
            .iter()
            .map(|&b| Value::I8(i8::from_le_bytes([b])))
            .collect(),
        Primitive::UInt8 | Primitive::Char => bytes.iter().map(|&b| Value::U8(b)).collect(),
        Primitive::Int16 => each!(2, I16, i16),
        Primitive::UInt16 => each!(2, U16, u16),
        Primitive::Int32 => each!(4, I32, i32),
        Primitive::UInt32 => each!(4, U32, u32),
        Primitive::Int64 => each!(8, I64, i64),
        Primitive::UInt64 => each!(8, U64, u64),
        Primitive::Float32 => each!(4, F32, f32),
        Primitive::Float64 => each!(8, F64, f64),
        Primitive::Time => bytes
            .chunks_exact(8)
            .map(|c| {
                let (s, n) = split8(c.first_chunk::<8>().copied().unwrap_or_default());
                Value::Time(RosTime::new(u32::from_le_bytes(s), u32::from_le_bytes(n)))
            })
            .collect(),
        Primitive::Duration => bytes
            .chunks_exact(8)
            .map(|c| {
                let (s, n) = split8(c.first_chunk::<8>().copied().unwrap_or_default());
                Value::Duration(RosDuration {
                    sec: i32::from_le_bytes(s),
                    nsec: i32::from_le_bytes(n),
                })
            })
            .collect(),
        // Strings are not fixed-size; callers never pass them here.
        Primitive::String => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schema(ty: &str, def: &str) -> Arc<Schema> {
        Schema::from_definition(ty, def).unwrap()
    }

    #[test]
    fn decodes_primitives_strings_and_borrowed_bytes() {
        let sch = schema(
            "t/T",
            "bool b\nint16 i\nstring s\nuint8[] data\nchar[2] c\nfloat32[2] f\ntime t\nduration d\n",
        );
        let mut p = vec![
            1u8, 0xfe, 0xff, 2, 0, 0, 0, b'h', b'i', 3, 0, 0, 0, 7, 8, 9, b'a', b'b',
        ];
        p.extend(1.5f32.to_le_bytes());
        p.extend((-0.0f32).to_le_bytes());
        p.extend([1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff]);
        p.extend([0xff, 0xff, 0xff, 0xff, 2, 0, 0, 0]);
        let v = decode(&sch, &p).unwrap();
        let m = v.as_message().unwrap();
        assert_eq!(m.get("b"), Some(&Value::Bool(true)));
        assert_eq!(m.get("i"), Some(&Value::I16(-2)));
        assert_eq!(
            m.get("s").and_then(Value::as_str_lossy).as_deref(),
            Some("hi")
        );
        match m.get("data") {
            Some(Value::Bytes(Cow::Borrowed(b))) => {
                assert_eq!(*b, &[7, 8, 9]);
                assert!(std::ptr::eq(b.as_ptr(), p[13..].as_ptr()));
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(
            m.get("f"),
            Some(&Value::Array(vec![Value::F32(1.5), Value::F32(-0.0)]))
        );
        assert_eq!(m.get("t"), Some(&Value::Time(RosTime::new(1, u32::MAX))));
        assert_eq!(
            m.get("d"),
            Some(&Value::Duration(RosDuration { sec: -1, nsec: 2 }))
        );
    }

    #[test]
    fn errors_name_path_and_offset() {
        let sep = "=".repeat(80);
        let s = schema(
            "t/T",
            &format!("Item[] items\n{sep}\nMSG: t/Item\nstring name\nfloat64 x\n"),
        );
        // Two items; the second one's x is cut short.
        let mut p = vec![2, 0, 0, 0, 6, 0, 0, 0, b'a', b'b', b'c', b'd', b'e', b'f'];
        p.extend(1.0f64.to_le_bytes());
        p.extend([0, 0, 0, 0, 1, 2, 3]);
        let e = decode(&s, &p).unwrap_err();
        assert_eq!(e.path().to_string(), "items[1].x");
        assert_eq!(e.offset(), 26);
        assert_eq!(
            e.to_string(),
            "items[1].x at payload byte 26: needs 8 bytes but only 3 remain"
        );
        // A corrupt count is refused before allocating.
        let e = decode(&s, &[0xff, 0xff, 0xff, 0x7f, 0, 0]).unwrap_err();
        assert!(matches!(
            e.kind(),
            DecodeErrorKind::ArrayTooLong {
                count: 0x7fff_ffff,
                ..
            }
        ));
        assert_eq!(e.path().to_string(), "items");
        // A string longer than the payload.
        let e = decode(&s, &[1, 0, 0, 0, 200, 0, 0, 0, b'a', 0, 0, 0, 0, 0, 0, 0]).unwrap_err();
        assert_eq!(e.path().to_string(), "items[0].name");
        assert_eq!(e.offset(), 4);
        // Trailing bytes.
        let e = decode(&s, &[0, 0, 0, 0, 9]).unwrap_err();
        assert_eq!(e.kind(), &DecodeErrorKind::TrailingBytes { count: 1 });
        assert!(e.path().is_root());
    }

    #[test]
    fn zero_size_elements_are_capped() {
        let sep = "=".repeat(80);
        let s = schema("t/T", &format!("E[] e\n{sep}\nMSG: t/E\n"));
        let v = decode(&s, &[3, 0, 0, 0]).unwrap();
        assert!(matches!(v.get("e"), Some(Value::Array(a)) if a.len() == 3));
        assert!(decode(&s, &[0xff, 0xff, 0xff, 0xff]).is_err());
    }

    #[test]
    fn huge_fixed_arrays_are_refused() {
        let s = schema("t/T", "float64[4000000000] x\n");
        assert!(matches!(
            decode(&s, &[0; 16]).unwrap_err().kind(),
            DecodeErrorKind::ArrayTooLong { .. }
        ));
    }
}
