//! Decoded messages as text: JSON ([`json`]), `rostopic echo` YAML ([`yaml`], with the PyYAML
//! emitter rules of [`pyyaml`] and Python's `repr` of [`pyrepr`]), `rostopic echo -p` CSV
//! ([`csv`]) and one-line summaries for the UI ([`summary`]).
//!
//! Renderers only read [`Decoded`](crate::msg::Decoded) messages through the `msg` re-exports;
//! nothing in the read or write side of `msg` depends on them.

pub mod csv;
pub mod json;
pub(crate) mod pyrepr;
mod pyyaml;
pub mod summary;
pub mod yaml;
