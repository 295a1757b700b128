//! Decoded messages as text: JSON ([`json`]), `rostopic echo` YAML ([`yaml`], with the PyYAML
//! emitter rules of `pyyaml` and Python's `repr` of `pyrepr`), `rostopic echo -p` CSV
//! ([`csv`]) and one-line summaries for the UI ([`summary`]).
//!
//! Renderers only read [`Decoded`](crate::msg::Decoded) messages through the `msg` re-exports;
//! nothing in the read or write side of `msg` depends on them.

pub mod csv;
pub mod definition;
pub mod json;
pub mod preview;
pub(crate) mod pyrepr;
mod pyyaml;
pub mod summary;
pub mod yaml;
pub mod yaml_ros2;

use std::fmt::{self, Write};

use crate::msg::ValueRef;

/// Writes a `bool` or an integer the way every renderer does (Rust's `Display`: `true`, `-3`);
/// `None` (nothing written) for any other value.
pub(crate) fn write_bool_or_integer<W: Write + ?Sized>(
    out: &mut W,
    value: &ValueRef<'_>,
) -> Option<fmt::Result> {
    Some(match value {
        ValueRef::Bool(v) => write!(out, "{v}"),
        ValueRef::I8(v) => write!(out, "{v}"),
        ValueRef::U8(v) => write!(out, "{v}"),
        ValueRef::I16(v) => write!(out, "{v}"),
        ValueRef::U16(v) => write!(out, "{v}"),
        ValueRef::I32(v) => write!(out, "{v}"),
        ValueRef::U32(v) => write!(out, "{v}"),
        ValueRef::I64(v) => write!(out, "{v}"),
        ValueRef::U64(v) => write!(out, "{v}"),
        _ => return None,
    })
}
