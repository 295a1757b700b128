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

mod cdr;
mod cdr_sink;
mod reader;
#[cfg(test)]
mod tests;

pub use self::reader::{MAX_ZERO_SIZE_ELEMENTS, values_allowed};
use self::reader::{Reader, Result};
use super::decoded::{Decoded, Node};
use super::error::{DecodeError, DecodeErrorKind, PathSegment};
use super::primitive::Primitive;
use super::schema::Schema;
use super::types::{MsgType, Op};
use super::wire::Wire;
use crate::time::{RosDuration, RosTime};

/// Decodes one message payload into a [`Decoded`] message. The whole payload must be
/// consumed: trailing bytes are an error, as is a payload that ends early or holds an
/// impossible array length. A schema whose [`wire`](Schema::wire) is CDR reads the payload
/// as CDR (a 4-byte encapsulation header, alignment, padding to a 4-byte boundary allowed
/// after the message; see `docs/ros2.md`); a JSON schema's payload is JSON text (see
/// `docs/mcap.md`, "JSON messages").
///
/// The message borrows `bytes` and the schema's types; [`Decoded::into_owned`] detaches it.
pub fn decode<'a>(schema: &'a Schema, bytes: &'a [u8]) -> Result<Decoded<'a>> {
    match schema.wire() {
        Wire::Cdr => return cdr::decode(schema, bytes),
        Wire::Json => return super::json_msg::decode(schema, bytes),
        Wire::Ros1 => {}
    }
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
    match schema.wire() {
        Wire::Cdr => return cdr::validate(schema, bytes),
        Wire::Json => return super::json_msg::decode(schema, bytes).map(|_| ()),
        Wire::Ros1 => {}
    }
    let mut reader = Reader {
        data: bytes,
        pos: 0,
    };
    validate_fields(schema.root(), &mut reader)?;
    check_trailing(bytes, reader.pos)
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
