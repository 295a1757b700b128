//! CDR (XCDR1) payloads → [`Decoded`]: the same values as the ROS1 walk, read as ROS 2's
//! rmw (Fast-CDR, Cyclone) and rosbags write them.
//!
//! - A 4-byte encapsulation header: `00 01` little-endian, `00 00` big-endian plain CDR, then
//!   two option bytes (ignored). Parameter lists and XCDR2 are [`DecodeErrorKind::Encapsulation`].
//! - Every primitive is aligned to its size (8-byte types to 8) counted from the end of the
//!   header; nested messages are inline (alignment is per primitive, not per struct); padding
//!   bytes are skipped whatever they hold.
//! - Strings: a `u32` length including the NUL, then the bytes (length 0 reads as empty; a
//!   missing NUL is tolerated, as Fast-CDR does). Sequences: a `u32` count, then the elements,
//!   aligned only when there is one (a writer adds no padding for an empty sequence). Fixed
//!   arrays have no count. Bounded types are their unbounded forms, a count over the bound is
//!   [`DecodeErrorKind::OverBound`]. A type without fields is one dummy byte.
//! - `wstring`: a `u32` count of characters (no NUL), then UTF-16 units of 2 bytes (Fast-CDR 2,
//!   ROS 2 Iron and later; Cyclone) or 4 bytes (Fast-CDR 1, Humble and older). Two or more
//!   characters tell the widths apart (no character is NUL); for one character the 2-byte
//!   reading is tried first (unless it would read a NUL) and the 4-byte one when the message
//!   does not read. (A one-character little-endian 4-byte `wstring` followed by a 1- or 2-byte
//!   field can read both ways; the 2-byte reading wins.) Decoded to
//!   UTF-8 text (lone surrogates become U+FFFD) appended to a copy of the payload.
//! - After the last field, fewer than 4 bytes that end the payload on a 4-byte boundary are
//!   padding (Fast-DDS pads payloads so); anything else is [`DecodeErrorKind::TrailingBytes`]
//!   — a definition that does not consume the message is not its definition.
//! - Big-endian payloads: scalars are converted while reading; arrays of numbers (spans) are
//!   swapped in a copy of the payload, so renderers read them little-endian as ever.
//!
//! Every read is bounds-checked, counts are checked against the bytes left before anything is
//! built, the node count is capped by [`values_allowed`], and errors carry the payload offset
//! and the field path.

use super::reader::{Result, span_at, values_allowed};
use crate::msg::decoded::{Decoded, Node, Span};
use crate::msg::error::{DecodeError, DecodeErrorKind, PathSegment};
use crate::msg::primitive::Primitive;
use crate::msg::schema::Schema;
use crate::msg::types::{CdrOp, MsgType};
use crate::time::{RosDuration, RosTime};

/// The encapsulation header's size; alignment counts from its end.
const HEADER: usize = 4;

/// Decodes one CDR payload of `schema` (see [`super::decode`]).
pub(super) fn decode<'a>(schema: &'a Schema, bytes: &'a [u8]) -> Result<Decoded<'a>> {
    let big = encapsulation(bytes)?;
    let root = schema.root();
    let run = |wchar1: usize| -> Result<Build> {
        let mut out = Build {
            nodes: Vec::with_capacity(schema.node_guess()),
            extra: Vec::new(),
            base: bytes.len(),
        };
        let max = values_allowed(bytes.len());
        if big {
            body(root, &mut Cdr::<true>::new(bytes, wchar1), &mut out, max)?;
        } else {
            body(root, &mut Cdr::<false>::new(bytes, wchar1), &mut out, max)?;
        }
        Ok(out)
    };
    let out = match run(2) {
        Err(e) if root.cdr_wide => run(4).map_err(|_| e)?,
        other => other?,
    };
    let Build { nodes, extra, .. } = out;
    if nodes.len() > nodes.capacity() / 2 {
        schema.saw_nodes(nodes.len());
    }
    if !big && extra.is_empty() {
        return Ok(Decoded::new(root, bytes, nodes));
    }
    let mut buffer = Vec::with_capacity(bytes.len() + extra.len());
    buffer.extend_from_slice(bytes);
    if big {
        swap_arrays(&mut buffer, &nodes);
    }
    buffer.extend_from_slice(&extra);
    Ok(Decoded::with_buffer(root, buffer, bytes.len(), nodes))
}

/// Checks one CDR payload of `schema` without building values (see [`super::validate`]).
pub(super) fn validate(schema: &Schema, bytes: &[u8]) -> Result<()> {
    let big = encapsulation(bytes)?;
    let root = schema.root();
    let run = |wchar1: usize| {
        if big {
            body(
                root,
                &mut Cdr::<true>::new(bytes, wchar1),
                &mut Check,
                usize::MAX,
            )
        } else {
            body(
                root,
                &mut Cdr::<false>::new(bytes, wchar1),
                &mut Check,
                usize::MAX,
            )
        }
    };
    match run(2) {
        Err(e) if root.cdr_wide => run(4).map_err(|_| e),
        other => other,
    }
}

/// Reads the encapsulation header: `Ok(true)` for big-endian, `Ok(false)` for little-endian.
fn encapsulation(bytes: &[u8]) -> Result<bool> {
    let Some(&[a, b, _, _]) = bytes.first_chunk::<HEADER>() else {
        return Err(DecodeError::new(
            0,
            DecodeErrorKind::Truncated {
                needed: HEADER as u64,
                available: bytes.len() as u64,
            },
        ));
    };
    let id = u16::from_be_bytes([a, b]);
    let name = match id {
        0x0000 => return Ok(true),
        0x0001 => return Ok(false),
        0x0002 => "PL_CDR_BE (parameter list)",
        0x0003 => "PL_CDR_LE (parameter list)",
        0x0006 => "CDR2_BE (XCDR2)",
        0x0007 => "CDR2_LE (XCDR2)",
        0x0008 => "D_CDR2_BE (delimited XCDR2)",
        0x0009 => "D_CDR2_LE (delimited XCDR2)",
        0x000a => "PL_CDR2_BE (XCDR2 parameter list)",
        0x000b => "PL_CDR2_LE (XCDR2 parameter list)",
        _ => "unknown",
    };
    Err(DecodeError::new(
        0,
        DecodeErrorKind::Encapsulation { id, name },
    ))
}

/// Swaps the elements of every array of numbers in `buffer` (a copy of a big-endian payload)
/// to little-endian.
fn swap_arrays(buffer: &mut [u8], nodes: &[Node]) {
    for node in nodes {
        if let Node::Prims(p, span) = *node {
            let unit = align_of(p);
            let (at, len) = (span.at as usize, span.len as usize);
            if unit > 1 {
                if let Some(bytes) = buffer.get_mut(at..at.saturating_add(len)) {
                    bytes.chunks_exact_mut(unit).for_each(<[u8]>::reverse);
                }
            }
        }
    }
}

/// The alignment (and byte-swap unit) of a fixed-size builtin.
fn align_of(p: Primitive) -> usize {
    match p {
        Primitive::Time | Primitive::Duration => 4,
        _ => p.min_size(),
    }
}

/// Where the walk puts what it reads: nodes ([`Build`]) or nowhere ([`Check`]).
trait Sink {
    fn len(&self) -> usize;
    fn push(&mut self, node: Node);
    /// Sets the composite node at `at` to cover the nodes pushed after it.
    fn close(&mut self, at: usize, node: impl FnOnce(u32) -> Node) -> Result<()>;
    /// The node of a `wstring` whose characters are `units` (`width` bytes each).
    fn wide(&mut self, units: &[u8], width: usize, big: bool) -> Result<Node>;
}

/// Builds the nodes; `wstring` texts go to `extra`, which the payload copy will end with.
struct Build {
    nodes: Vec<Node>,
    extra: Vec<u8>,
    /// The payload's length: where `extra` starts in the copy.
    base: usize,
}

impl Sink for Build {
    #[inline]
    fn len(&self) -> usize {
        self.nodes.len()
    }

    #[inline]
    fn push(&mut self, node: Node) {
        self.nodes.push(node);
    }

    #[inline]
    fn close(&mut self, at: usize, node: impl FnOnce(u32) -> Node) -> Result<()> {
        let span = self.nodes.len().saturating_sub(at + 1);
        let span = u32::try_from(span).map_err(|_| {
            DecodeError::new(
                0,
                DecodeErrorKind::TooManyValues {
                    limit: u64::from(u32::MAX),
                    bytes: self.base as u64,
                },
            )
        })?;
        if let Some(slot) = self.nodes.get_mut(at) {
            *slot = node(span);
        }
        Ok(())
    }

    fn wide(&mut self, units: &[u8], width: usize, big: bool) -> Result<Node> {
        let start = self.base + self.extra.len();
        let mut pending: Vec<u16> = Vec::with_capacity(units.len() / width.max(1));
        let flush = |pending: &mut Vec<u16>, extra: &mut Vec<u8>| {
            let mut buf = [0u8; 4];
            for c in char::decode_utf16(pending.drain(..)) {
                let c = c.unwrap_or(char::REPLACEMENT_CHARACTER);
                extra.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            }
        };
        for unit in units.chunks_exact(width.max(1)) {
            let value = match (unit, big) {
                (&[a, b], false) => u32::from(u16::from_le_bytes([a, b])),
                (&[a, b], true) => u32::from(u16::from_be_bytes([a, b])),
                (&[a, b, c, d], false) => u32::from_le_bytes([a, b, c, d]),
                (&[a, b, c, d], true) => u32::from_be_bytes([a, b, c, d]),
                _ => u32::from(char::REPLACEMENT_CHARACTER),
            };
            if let Ok(unit) = u16::try_from(value) {
                pending.push(unit);
            } else {
                // A UTF-32 code point (a non-ROS writer's wchar_t).
                flush(&mut pending, &mut self.extra);
                let c = char::from_u32(value).unwrap_or(char::REPLACEMENT_CHARACTER);
                let mut buf = [0u8; 4];
                self.extra
                    .extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            }
        }
        flush(&mut pending, &mut self.extra);
        Ok(Node::String(span_at(
            start,
            self.base + self.extra.len() - start,
        )?))
    }
}

/// Builds nothing ([`validate`]).
struct Check;

impl Sink for Check {
    #[inline]
    fn len(&self) -> usize {
        0
    }

    #[inline]
    fn push(&mut self, _: Node) {}

    #[inline]
    fn close(&mut self, _: usize, _: impl FnOnce(u32) -> Node) -> Result<()> {
        Ok(())
    }

    fn wide(&mut self, _: &[u8], _: usize, _: bool) -> Result<Node> {
        Ok(Node::String(Span { at: 0, len: 0 }))
    }
}

/// A position in a CDR payload of byte order `BE`; every read checked.
struct Cdr<'a, const BE: bool> {
    data: &'a [u8],
    pos: usize,
    /// Bytes per character of a one-character `wstring` (2 or 4; see the module notes).
    wchar1: usize,
}

/// Reads a number of type `$t` (aligned to its size) in the payload's byte order.
macro_rules! num {
    ($r:expr, $t:ty) => {{
        let b = $r.fixed::<{ std::mem::size_of::<$t>() }>()?;
        if BE {
            <$t>::from_be_bytes(b)
        } else {
            <$t>::from_le_bytes(b)
        }
    }};
}

impl<'a, const BE: bool> Cdr<'a, BE> {
    fn new(data: &'a [u8], wchar1: usize) -> Self {
        Cdr {
            data,
            pos: HEADER,
            wchar1,
        }
    }

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

    /// Skips the padding before a value of alignment `n` (a power of two).
    #[inline]
    fn align(&mut self, n: usize) -> Result<()> {
        let pad = self.pos.wrapping_sub(HEADER).wrapping_neg() & (n - 1);
        if pad > self.remaining() {
            return Err(self.truncated(pad));
        }
        self.pos += pad;
        Ok(())
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

    /// `N` bytes aligned to `N`.
    #[inline]
    fn fixed<const N: usize>(&mut self) -> Result<[u8; N]> {
        self.align(N)?;
        match self.data.get(self.pos..).and_then(<[u8]>::first_chunk::<N>) {
            Some(bytes) => {
                self.pos += N;
                Ok(*bytes)
            }
            None => Err(self.truncated(N)),
        }
    }

    #[inline]
    fn span(&mut self, n: usize) -> Result<Span> {
        let at = self.pos;
        let bytes = self.take(n)?;
        span_at(at, bytes.len())
    }

    /// An array's element count (`Some(n)` for `T[n]`, from the payload for a sequence),
    /// checked against the bound and against what is left for elements of `min` bytes.
    #[inline]
    fn count(&mut self, fixed: Option<usize>, bound: Option<usize>, min: usize) -> Result<usize> {
        let count = match fixed {
            Some(n) => n,
            None => num!(self, u32) as usize,
        };
        let at = if fixed.is_some() {
            self.pos
        } else {
            self.pos - 4
        };
        if let Some(bound) = bound.filter(|b| count > *b) {
            return Err(over_bound(at, count, bound));
        }
        let needed = count.checked_mul(min);
        if needed.is_some_and(|n| n <= self.remaining()) {
            Ok(count)
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

    #[inline]
    fn prim(&mut self, p: Primitive) -> Result<Node> {
        Ok(match p {
            Primitive::Bool => {
                let [b] = self.fixed::<1>()?;
                Node::Bool(b != 0)
            }
            Primitive::Int8 | Primitive::Byte => Node::I8(num!(self, i8)),
            Primitive::UInt8 | Primitive::Char => Node::U8(num!(self, u8)),
            Primitive::Int16 => Node::I16(num!(self, i16)),
            Primitive::UInt16 => Node::U16(num!(self, u16)),
            Primitive::Int32 => Node::I32(num!(self, i32)),
            Primitive::UInt32 => Node::U32(num!(self, u32)),
            Primitive::Int64 => Node::I64(num!(self, i64)),
            Primitive::UInt64 => Node::U64(num!(self, u64)),
            Primitive::Float32 => Node::F32(num!(self, f32)),
            Primitive::Float64 => Node::F64(num!(self, f64)),
            Primitive::String => Node::String(self.string(None)?),
            Primitive::Time => {
                let sec = num!(self, u32);
                Node::Time(RosTime::new(sec, num!(self, u32)))
            }
            Primitive::Duration => {
                let sec = num!(self, i32);
                Node::Duration(RosDuration {
                    sec,
                    nsec: num!(self, i32),
                })
            }
        })
    }

    /// A string's text (without its NUL), checked against `bound`.
    #[inline]
    fn string(&mut self, bound: Option<usize>) -> Result<Span> {
        let len = num!(self, u32) as usize;
        let at = self.pos - 4;
        if len > self.remaining() {
            return Err(DecodeError::new(
                at,
                DecodeErrorKind::Truncated {
                    needed: len as u64,
                    available: self.remaining() as u64,
                },
            ));
        }
        let start = self.pos;
        let bytes = self.take(len)?;
        let text = match bytes.split_last() {
            Some((0, text)) => text.len(),
            _ => bytes.len(),
        };
        if let Some(bound) = bound.filter(|b| text > *b) {
            return Err(over_bound(at, text, bound));
        }
        span_at(start, text)
    }

    /// A `wstring` (see the module notes for the character width).
    fn wstring(&mut self, bound: Option<usize>, out: &mut impl Sink) -> Result<Node> {
        let count = num!(self, u32) as usize;
        let at = self.pos - 4;
        if let Some(bound) = bound.filter(|b| count > *b) {
            return Err(over_bound(at, count, bound));
        }
        let width = match count {
            0 => return out.wide(&[], 2, BE),
            // A 2-byte NUL is the high half of a 4-byte character (no character is NUL).
            1 if self.wchar1 == 2 && self.data.get(self.pos..self.pos + 2) == Some(&[0, 0]) => 4,
            1 => self.wchar1,
            _ => self.wide_width(count),
        };
        self.align(width)?;
        let size = count.saturating_mul(width);
        if size > self.remaining() {
            return Err(DecodeError::new(
                at,
                DecodeErrorKind::Truncated {
                    needed: size as u64,
                    available: self.remaining() as u64,
                },
            ));
        }
        let units = self.take(size)?;
        out.wide(units, width, BE)
    }

    /// 4 when the next `count` (≥ 2) 4-byte units all hold a non-NUL character below
    /// U+10000 in their low half (impossible for 2-byte units: no character is NUL), else 2.
    fn wide_width(&self, count: usize) -> usize {
        let Some(bytes) = count
            .checked_mul(4)
            .and_then(|n| self.data.get(self.pos..self.pos.checked_add(n)?))
        else {
            return 2;
        };
        let four = bytes.chunks_exact(4).all(|u| {
            let (first, second) = u.split_at(2);
            let (high, low) = if BE { (first, second) } else { (second, first) };
            high == [0, 0] && low != [0, 0]
        });
        if four { 4 } else { 2 }
    }
}

#[cold]
fn over_bound(at: usize, count: usize, bound: usize) -> DecodeError {
    DecodeError::new(
        at,
        DecodeErrorKind::OverBound {
            count: count as u64,
            bound: bound as u64,
        },
    )
}

#[cold]
fn field_error(ty: &MsgType, index: usize, e: DecodeError) -> DecodeError {
    let name = ty
        .fields
        .get(index)
        .map(|f| f.name.clone())
        .unwrap_or_default();
    e.within(PathSegment::Field(name))
}

/// The whole message: the root's fields, then only padding may follow.
fn body<const BE: bool>(
    root: &MsgType,
    r: &mut Cdr<'_, BE>,
    out: &mut impl Sink,
    max_nodes: usize,
) -> Result<()> {
    // A type without fields written as the header alone: nothing is lost by reading it.
    if root.cdr.is_empty() && r.remaining() == 0 {
        return Ok(());
    }
    fields(root, r, out, max_nodes)?;
    let left = r.remaining();
    if left == 0 || (left < 4 && r.data.len() % 4 == 0) {
        return Ok(());
    }
    Err(DecodeError::new(
        r.pos,
        DecodeErrorKind::TrailingBytes { count: left as u64 },
    ))
}

fn fields<const BE: bool>(
    ty: &MsgType,
    r: &mut Cdr<'_, BE>,
    out: &mut impl Sink,
    max_nodes: usize,
) -> Result<()> {
    if ty.cdr.is_empty() {
        // The dummy member of a type without fields.
        return r.fixed::<1>().map(|_| ());
    }
    if ty.all_f64 {
        let start = r.pos;
        let size = ty.cdr.len() * 8;
        if r.align(8).is_ok() && r.remaining() >= size {
            for b in r.take(size)?.chunks_exact(8) {
                let b = b.first_chunk().copied().unwrap_or_default();
                out.push(Node::F64(if BE {
                    f64::from_be_bytes(b)
                } else {
                    f64::from_le_bytes(b)
                }));
            }
            return Ok(());
        }
        // Cut short: the field-by-field walk says where.
        r.pos = start;
    }
    for (i, op) in ty.cdr.iter().enumerate() {
        if let Err(e) = field(op, r, out, max_nodes) {
            return Err(field_error(ty, i, e));
        }
    }
    Ok(())
}

#[inline]
fn field<const BE: bool>(
    op: &CdrOp,
    r: &mut Cdr<'_, BE>,
    out: &mut impl Sink,
    max_nodes: usize,
) -> Result<()> {
    match op {
        CdrOp::Prim(p) => {
            let node = r.prim(*p)?;
            out.push(node);
        }
        CdrOp::Str(t) => {
            let node = if t.wide {
                r.wstring(t.str_bound, out)?
            } else {
                Node::String(r.string(t.str_bound)?)
            };
            out.push(node);
        }
        CdrOp::Msg(sub) => message(sub, r, out, max_nodes)?,
        CdrOp::Bytes(len, t) => {
            let count = r.count(*len, t.seq_bound, 1)?;
            let span = r.span(count)?;
            out.push(Node::Bytes(span));
        }
        CdrOp::Prims(p, len, t) => {
            let size = p.min_size();
            let count = r.count(*len, t.seq_bound, size)?;
            if count > 0 {
                r.align(align_of(*p))?;
            }
            let span = r.span(count * size)?;
            out.push(Node::Prims(*p, span));
        }
        CdrOp::Strs(len, t) => {
            let count = r.count(*len, t.seq_bound, 4)?;
            let at = out.len();
            out.push(Node::Array { count: 0, span: 0 });
            for i in 0..count {
                let node = if t.wide {
                    r.wstring(t.str_bound, out)
                } else {
                    r.string(t.str_bound).map(Node::String)
                };
                out.push(node.map_err(|e| e.within(PathSegment::Index(i)))?);
            }
            close_array(out, at, count)?;
        }
        CdrOp::Msgs(sub, len, t) => {
            let count = r.count(*len, t.seq_bound, sub.cdr_min_size)?;
            let at = out.len();
            out.push(Node::Array { count: 0, span: 0 });
            for i in 0..count {
                message(sub, r, out, max_nodes).map_err(|e| e.within(PathSegment::Index(i)))?;
            }
            close_array(out, at, count)?;
        }
    }
    Ok(())
}

#[inline]
fn close_array(out: &mut impl Sink, at: usize, count: usize) -> Result<()> {
    // `count` was checked against the payload's bytes, which a record length bounds.
    let count = u32::try_from(count).unwrap_or(u32::MAX);
    out.close(at, |span| Node::Array { count, span })
}

#[inline]
fn message<const BE: bool>(
    ty: &MsgType,
    r: &mut Cdr<'_, BE>,
    out: &mut impl Sink,
    max_nodes: usize,
) -> Result<()> {
    if out.len() > max_nodes {
        return Err(DecodeError::new(
            r.pos,
            DecodeErrorKind::TooManyValues {
                limit: max_nodes as u64,
                bytes: r.data.len() as u64,
            },
        ));
    }
    let at = out.len();
    out.push(Node::Message { span: 0 });
    fields(ty, r, out, max_nodes)?;
    out.close(at, |span| Node::Message { span })
}

#[cfg(test)]
#[path = "cdr_tests.rs"]
mod tests;
