//! Where the CDR walk (`cdr.rs`) puts what it reads: the nodes of a decoded message and the
//! UTF-8 texts of its `wstring`s ([`Build`]), or nothing when only checking ([`Check`]).

use super::reader::{Result, span_at};
use crate::msg::decoded::{Node, Span};
use crate::msg::error::{DecodeError, DecodeErrorKind};

/// Where the walk puts what it reads: nodes ([`Build`]) or nowhere ([`Check`]).
pub(super) trait Sink {
    fn len(&self) -> usize;
    fn push(&mut self, node: Node);
    /// Sets the composite node at `at` to cover the nodes pushed after it.
    fn close(&mut self, at: usize, node: impl FnOnce(u32) -> Node) -> Result<()>;
    /// The node of a `wstring` whose characters are `units` (`width` bytes each).
    fn wide(&mut self, units: &[u8], width: usize, big: bool) -> Result<Node>;
}

/// Builds the nodes; `wstring` texts go to `extra`, which the payload copy will end with.
pub(super) struct Build {
    pub(super) nodes: Vec<Node>,
    pub(super) extra: Vec<u8>,
    /// The payload's length: where `extra` starts in the copy.
    pub(super) base: usize,
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

/// Builds nothing (the CDR `validate`).
pub(super) struct Check;

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
