//! Payload bytes → [`Decoded`], walking a compiled [`Schema`]'s decode plan.
//!
//! Every read is bounds-checked; array counts read from the payload are checked against the
//! bytes left before anything is allocated; strings, `uint8`/`char` arrays and other
//! fixed-size builtin arrays are spans of the payload. [`validate`] runs the same checks
//! without building anything, and names the field path and payload offset of a failure (the
//! path is assembled while unwinding, so the success path pays nothing for it). Both walks
//! read through the same checked reader; [`decode`]'s walk knows what went wrong but not in
//! which field, and then asks [`validate`] where.
//!
//! The values a message decodes to are bounded by its size (at most [`values_allowed`]):
//! only nested arrays of messages that occupy no bytes could exceed it.

use super::decoded::{Decoded, Node, Span};
use super::error::{DecodeError, DecodeErrorKind, PathSegment};
use super::primitive::Primitive;
use super::schema::Schema;
use super::types::{MsgType, Op};
use crate::time::{RosDuration, RosTime};

/// Elements allowed in a variable-length array whose elements occupy no bytes
/// (`std_msgs/Empty[]`), where the remaining payload cannot bound the count read from it.
pub const MAX_ZERO_SIZE_ELEMENTS: usize = 1 << 16;

type Result<T> = std::result::Result<T, DecodeError>;

/// Decodes one message payload into a [`Decoded`] message. The whole payload must be
/// consumed: trailing bytes are an error, as is a payload that ends early or holds an
/// impossible array length.
///
/// The message borrows `bytes` and the schema's types; [`Decoded::into_owned`] detaches it.
pub fn decode<'a>(schema: &'a Schema, bytes: &'a [u8]) -> Result<Decoded<'a>> {
    let mut nodes = Vec::with_capacity(schema.node_guess());
    let mut r = Reader {
        data: bytes,
        pos: 0,
    };
    let walked = fields(
        schema.root(),
        &mut r,
        &mut nodes,
        values_allowed(bytes.len()),
    )
    .and_then(|()| check_trailing(bytes, r.pos));
    match walked {
        Ok(()) => {
            if nodes.len() > nodes.capacity() / 2 {
                schema.saw_nodes(nodes.len());
            }
            Ok(Decoded::new(schema.root(), bytes, nodes))
        }
        // The fast walk knows what is wrong but not in which field; the checking walk says
        // where (both apply the same checks). Only the size cap is the fast walk's own.
        Err(fast) => Err(validate(schema, bytes).err().unwrap_or(fast)),
    }
}

/// Checks that `bytes` is exactly one message of `schema` without building values: the same
/// bounds and length checks and errors as [`decode`], no allocation. It does not apply
/// [`decode`]'s cap on the number of values ([`values_allowed`]): a message of nested arrays
/// of empty messages can pass here and fail to decode, so checks that must agree with what
/// can be shown (`verify`) call [`decode`].
pub fn validate(schema: &Schema, bytes: &[u8]) -> Result<()> {
    let mut reader = Reader {
        data: bytes,
        pos: 0,
    };
    validate_fields(schema.root(), &mut reader)?;
    check_trailing(bytes, reader.pos)
}

/// The most values (nodes) a message of `bytes` bytes may decode to: 8 per byte plus room for
/// arrays of empty messages. Every value but a nested message or an empty array takes at least
/// one byte, so real messages stay far below it.
pub fn values_allowed(bytes: usize) -> usize {
    bytes
        .saturating_mul(8)
        .saturating_add(2 * MAX_ZERO_SIZE_ELEMENTS)
}

fn check_trailing(bytes: &[u8], used: usize) -> Result<()> {
    if used < bytes.len() {
        return Err(DecodeError::new(
            used,
            DecodeErrorKind::TrailingBytes {
                count: (bytes.len() - used) as u64,
            },
        ));
    }
    Ok(())
}

/// A position in the payload. Every read is checked; errors name the offset (the field path
/// is added by the caller). Both walks use it: [`decode`] and [`validate`].
struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    #[inline]
    fn remaining(&self) -> usize {
        self.data.len().saturating_sub(self.pos)
    }

    #[cold]
    #[inline(never)]
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

    /// Checks that `count` elements of at least `min_size` bytes can fit in what is left
    /// (a count read from the payload for elements of no bytes: at most
    /// [`MAX_ZERO_SIZE_ELEMENTS`]; a declared length `T[n]` of them is the definition's, and
    /// [`values_allowed`] bounds what decoding it builds). `at` is the offset to report.
    #[inline]
    fn check_count(&self, count: usize, min_size: usize, declared: bool, at: usize) -> Result<()> {
        let needed = count.checked_mul(min_size);
        let fits = match needed {
            Some(0) => declared || count <= MAX_ZERO_SIZE_ELEMENTS,
            Some(n) => n <= self.remaining(),
            None => false,
        };
        if fits {
            Ok(())
        } else {
            Err(self.too_long(count, needed, at))
        }
    }

    #[cold]
    #[inline(never)]
    fn too_long(&self, count: usize, needed: Option<usize>, at: usize) -> DecodeError {
        DecodeError::new(
            at,
            DecodeErrorKind::ArrayTooLong {
                count: count as u64,
                needed: needed.map_or(u64::MAX, |n| n as u64),
                available: self.remaining() as u64,
            },
        )
    }

    /// Reads an array's element count (`Some(n)` for `T[n]`, from the payload for `T[]`) and
    /// checks that many elements of at least `min_size` bytes can fit.
    #[inline]
    fn count(&mut self, fixed: Option<usize>, min_size: usize) -> Result<usize> {
        let at = self.pos;
        let count = match fixed {
            Some(n) => n,
            None => self.u32()? as usize,
        };
        self.check_count(count, min_size, fixed.is_some(), at)?;
        Ok(count)
    }

    /// A string's bytes (length prefix checked against what is left).
    #[inline]
    fn string(&mut self) -> Result<&'a [u8]> {
        let at = self.pos;
        let len = self.u32()? as usize;
        if len > self.remaining() {
            // The length the string declares, against what follows its length field.
            let available = self.remaining() as u64;
            self.pos = at;
            return Err(DecodeError::new(
                at,
                DecodeErrorKind::Truncated {
                    needed: len as u64,
                    available,
                },
            ));
        }
        self.take(len)
    }

    /// Where the next `n` bytes are, as a span of the payload (which is at most 4 GiB, as a
    /// record's data length is a `u32`).
    #[inline]
    fn span(&mut self, n: usize) -> Result<Span> {
        let at = self.pos;
        let bytes = self.take(n)?;
        span_at(at, bytes.len())
    }

    /// Where the next string's bytes are (length prefix checked as [`Reader::string`] does).
    #[inline]
    fn string_span(&mut self) -> Result<Span> {
        let bytes = self.string()?;
        span_at(self.pos - bytes.len(), bytes.len())
    }
}

#[inline]
fn span_at(at: usize, len: usize) -> Result<Span> {
    match (u32::try_from(at), u32::try_from(len)) {
        (Ok(at), Ok(len)) => Ok(Span { at, len }),
        _ => Err(DecodeError::new(
            at,
            DecodeErrorKind::TooManyValues {
                limit: u64::from(u32::MAX),
                bytes: at.saturating_add(len) as u64,
            },
        )),
    }
}

fn field_error(ty: &MsgType, index: usize, e: DecodeError) -> DecodeError {
    let name = ty
        .fields
        .get(index)
        .map(|f| f.name.clone())
        .unwrap_or_default();
    e.within(PathSegment::Field(name))
}

#[inline]
fn split8(b: [u8; 8]) -> ([u8; 4], [u8; 4]) {
    let [a0, a1, a2, a3, b0, b1, b2, b3] = b;
    ([a0, a1, a2, a3], [b0, b1, b2, b3])
}

/// Appends the nodes of the fields of a message of type `ty`; `max_nodes` is
/// [`values_allowed`] for the payload.
fn fields(ty: &MsgType, r: &mut Reader<'_>, out: &mut Vec<Node>, max_nodes: usize) -> Result<()> {
    if ty.all_f64 {
        let bytes = r.take(ty.ops.len().saturating_mul(8))?;
        out.extend(
            bytes
                .chunks_exact(8)
                .map(|b| Node::F64(b.first_chunk().map_or(0.0, |b| f64::from_le_bytes(*b)))),
        );
        return Ok(());
    }
    for op in &ty.ops {
        match op {
            Op::Prim(p) => out.push(prim(*p, r)?),
            Op::Msg(sub) => message(sub, r, out, max_nodes)?,
            Op::Bytes(len) => {
                let count = r.count(*len, 1)?;
                out.push(Node::Bytes(r.span(count)?));
            }
            Op::Prims(p, len) => {
                let size = p.min_size();
                let count = r.count(*len, size)?;
                out.push(Node::Prims(*p, r.span(count * size)?));
            }
            Op::Strings(len) => {
                let count = r.count(*len, 4)?;
                let count32 = u32::try_from(count).map_err(|_| too_many_values(r, max_nodes))?;
                let at = out.len();
                out.push(Node::Array { count: 0, span: 0 });
                for _ in 0..count {
                    out.push(Node::String(r.string_span()?));
                }
                close(out, at, r, max_nodes, |span| Node::Array {
                    count: count32,
                    span,
                })?;
            }
            Op::Msgs(sub, len) => {
                let count = r.count(*len, sub.min_size)?;
                let count32 = u32::try_from(count).map_err(|_| too_many_values(r, max_nodes))?;
                let at = out.len();
                out.push(Node::Array { count: 0, span: 0 });
                for _ in 0..count {
                    message(sub, r, out, max_nodes)?;
                }
                close(out, at, r, max_nodes, |span| Node::Array {
                    count: count32,
                    span,
                })?;
            }
        }
    }
    Ok(())
}

#[inline]
fn message(ty: &MsgType, r: &mut Reader<'_>, out: &mut Vec<Node>, max_nodes: usize) -> Result<()> {
    // Only messages can multiply nodes without consuming bytes (arrays of empty messages):
    // checking here bounds the vector by the limit plus one message's own fields.
    if out.len() > max_nodes {
        return Err(too_many_values(r, max_nodes));
    }
    let at = out.len();
    out.push(Node::Message { span: 0 });
    fields(ty, r, out, max_nodes)?;
    close(out, at, r, max_nodes, |span| Node::Message { span })
}

fn too_many_values(r: &Reader<'_>, max_nodes: usize) -> DecodeError {
    DecodeError::new(
        r.pos,
        DecodeErrorKind::TooManyValues {
            limit: max_nodes as u64,
            bytes: r.data.len() as u64,
        },
    )
}

/// Sets the span of the composite node at `at` to the nodes pushed after it.
#[inline]
fn close(
    out: &mut [Node],
    at: usize,
    r: &Reader<'_>,
    max_nodes: usize,
    node: impl FnOnce(u32) -> Node,
) -> Result<()> {
    let span = u32::try_from(out.len() - at - 1).map_err(|_| too_many_values(r, max_nodes))?;
    if let Some(slot) = out.get_mut(at) {
        *slot = node(span);
    }
    Ok(())
}

#[inline]
fn prim(p: Primitive, r: &mut Reader<'_>) -> Result<Node> {
    Ok(match p {
        Primitive::Bool => {
            let [b] = r.fixed::<1>()?;
            Node::Bool(b != 0)
        }
        Primitive::Int8 | Primitive::Byte => Node::I8(i8::from_le_bytes(r.fixed()?)),
        Primitive::UInt8 | Primitive::Char => Node::U8(u8::from_le_bytes(r.fixed()?)),
        Primitive::Int16 => Node::I16(i16::from_le_bytes(r.fixed()?)),
        Primitive::UInt16 => Node::U16(u16::from_le_bytes(r.fixed()?)),
        Primitive::Int32 => Node::I32(i32::from_le_bytes(r.fixed()?)),
        Primitive::UInt32 => Node::U32(u32::from_le_bytes(r.fixed()?)),
        Primitive::Int64 => Node::I64(i64::from_le_bytes(r.fixed()?)),
        Primitive::UInt64 => Node::U64(u64::from_le_bytes(r.fixed()?)),
        Primitive::Float32 => Node::F32(f32::from_le_bytes(r.fixed()?)),
        Primitive::Float64 => Node::F64(f64::from_le_bytes(r.fixed()?)),
        Primitive::String => Node::String(r.string_span()?),
        Primitive::Time => {
            let (sec, nsec) = split8(r.fixed()?);
            Node::Time(RosTime::new(
                u32::from_le_bytes(sec),
                u32::from_le_bytes(nsec),
            ))
        }
        Primitive::Duration => {
            let (sec, nsec) = split8(r.fixed()?);
            Node::Duration(RosDuration {
                sec: i32::from_le_bytes(sec),
                nsec: i32::from_le_bytes(nsec),
            })
        }
    })
}

fn validate_fields(ty: &MsgType, r: &mut Reader<'_>) -> Result<()> {
    if let Some(size) = ty.fixed_size {
        // Every field fixed-size: one check covers the message (when it fails, the walk
        // below finds the field that is cut short, as `decode` reports it).
        if size <= r.remaining() {
            r.pos += size;
            return Ok(());
        }
    }
    for (i, op) in ty.ops.iter().enumerate() {
        if let Err(e) = validate_op(op, r) {
            return Err(field_error(ty, i, e));
        }
    }
    Ok(())
}

fn validate_op(op: &Op, r: &mut Reader<'_>) -> Result<()> {
    match op {
        Op::Prim(Primitive::String) => r.string().map(|_| ()),
        Op::Prim(p) => r.take(p.min_size()).map(|_| ()),
        Op::Msg(ty) => validate_fields(ty, r),
        Op::Bytes(len) => {
            let count = r.count(*len, 1)?;
            r.take(count).map(|_| ())
        }
        Op::Prims(p, len) => {
            let count = r.count(*len, p.min_size())?;
            r.take(count * p.min_size()).map(|_| ())
        }
        Op::Strings(len) => {
            let count = r.count(*len, 4)?;
            for i in 0..count {
                r.string().map_err(|e| e.within(PathSegment::Index(i)))?;
            }
            Ok(())
        }
        Op::Msgs(ty, len) => {
            let count = r.count(*len, ty.min_size)?;
            if let Some(size) = ty.fixed_size {
                return r.take(count * size).map(|_| ());
            }
            for i in 0..count {
                validate_fields(ty, r).map_err(|e| e.within(PathSegment::Index(i)))?;
            }
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::msg::{PrimArray, Value};
    use std::borrow::Cow;
    use std::sync::Arc;

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
        let decoded = decode(&sch, &p).unwrap();
        let v = decoded.to_value();
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
            Some(&Value::PrimArray(
                PrimArray::from_values(Primitive::Float32, [Value::F32(1.5), Value::F32(-0.0)])
                    .unwrap()
            ))
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
    fn fixed_size_messages_decode_and_fail_like_the_general_walk() {
        let sep = "=".repeat(80);
        let s = schema(
            "t/T",
            &format!(
                "V a\nV[2] b\nuint8 c\n{sep}\nMSG: t/V\nfloat64 x\nint16 y\ntime t\nchar[2] s\nint32[2] i\n"
            ),
        );
        assert_eq!(s.root().fixed_size(), Some(3 * 28 + 1));
        let mut p = Vec::new();
        for k in 0..3u8 {
            p.extend(f64::from(k).to_le_bytes());
            p.extend((-i16::from(k)).to_le_bytes());
            p.extend([k, 0, 0, 0, 1, 0, 0, 0, b'a', b'b']);
            p.extend(7i32.to_le_bytes());
            p.extend((-7i32).to_le_bytes());
        }
        p.push(9);
        let decoded = decode(&s, &p).unwrap();
        let v = decoded.to_value();
        let items = match v.get("b") {
            Some(Value::Array(array)) => array,
            other => panic!("{other:?}"),
        };
        assert_eq!(items.len(), 2);
        assert_eq!(items[1].get("x"), Some(&Value::F64(2.0)));
        assert_eq!(items[1].get("y"), Some(&Value::I16(-2)));
        assert_eq!(items[1].get("t"), Some(&Value::Time(RosTime::new(2, 1))));
        assert!(matches!(items[1].get("s"), Some(Value::Bytes(c)) if c.as_ref() == b"ab"));
        assert!(matches!(items[1].get("i"), Some(Value::PrimArray(a)) if a.len() == 2));
        assert_eq!(v.get("c"), Some(&Value::U8(9)));
        // Cut anywhere: the error names the field and offset as the field walk does.
        for cut in 0..p.len() {
            let e = decode(&s, &p[..cut]).unwrap_err();
            assert_eq!(Err(e), validate(&s, &p[..cut]), "{cut}");
        }
        let e = decode(&s, &p[..p.len() - 6]).unwrap_err();
        assert_eq!(e.path().to_string(), "b");
        assert_eq!(e.offset(), 28);
        assert!(matches!(
            e.kind(),
            DecodeErrorKind::ArrayTooLong { count: 2, .. }
        ));
        let e = decode(&s, &p[..19]).unwrap_err();
        assert_eq!(e.path().to_string(), "a.s");
        assert_eq!(e.offset(), 18);
        let e = decode(&s, &p[..5]).unwrap_err();
        assert_eq!(e.path().to_string(), "a.x");
        assert_eq!(e.offset(), 0);
    }

    #[test]
    fn zero_size_elements_are_capped() {
        let sep = "=".repeat(80);
        let s = schema("t/T", &format!("E[] e\n{sep}\nMSG: t/E\n"));
        let decoded = decode(&s, &[3, 0, 0, 0]).unwrap();
        let v = decoded.to_value();
        assert!(matches!(v.get("e"), Some(Value::Array(a)) if a.len() == 3));
        assert!(decode(&s, &[0xff, 0xff, 0xff, 0xff]).is_err());
    }

    #[test]
    fn nested_arrays_of_empty_messages_are_bounded() {
        let sep = "=".repeat(80);
        let s = schema(
            "t/T",
            &format!("E[65536] a\n{sep}\nMSG: t/E\nF[65536] f\n{sep}\nMSG: t/F\n"),
        );
        // Valid on the wire (no bytes at all), but 2^32 values: refused, quickly.
        assert_eq!(validate(&s, &[]), Ok(()));
        let e = decode(&s, &[]).unwrap_err();
        assert_eq!(
            e.kind(),
            &DecodeErrorKind::TooManyValues {
                limit: values_allowed(0) as u64,
                bytes: 0
            }
        );
        // One level is fine, and a declared length is the definition's (not capped like a
        // count read from the payload): decode and validate agree on it.
        let one = schema("t/T", &format!("F[65537] f\n{sep}\nMSG: t/F\n"));
        assert!(decode(&one, &[]).is_ok());
        let inner = schema(
            "t/T",
            &format!("E[1] a\n{sep}\nMSG: t/E\nF[65537] f\n{sep}\nMSG: t/F\n"),
        );
        assert_eq!(validate(&inner, &[]), Ok(()));
        assert!(decode(&inner, &[]).is_ok());
    }

    #[test]
    fn a_string_too_long_quotes_its_declared_length() {
        let s = schema("t/T", "string s\n");
        // Declares 100 bytes; 3 follow the length field.
        let p = [100u8, 0, 0, 0, b'a', b'b', b'c'];
        for e in [decode(&s, &p).unwrap_err(), validate(&s, &p).unwrap_err()] {
            assert_eq!(
                e.kind(),
                &DecodeErrorKind::Truncated {
                    needed: 100,
                    available: 3
                }
            );
            assert_eq!(
                e.to_string(),
                "s at payload byte 0: needs 100 bytes but only 3 remain"
            );
        }
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
