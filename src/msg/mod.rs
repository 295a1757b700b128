//! Message definitions → decoded values.
//!
//! Pure and independent of bags: parse a connection's `message_definition` into a compiled
//! [`Schema`], decode payload bytes into a flat [`Decoded`] message (walked with [`ValueRef`]
//! views), encode [`Value`] trees back, and render decoded messages ([`render`]) as JSON
//! ([`json`]), `rostopic echo` YAML ([`yaml`]), `rostopic echo -p` CSV ([`csv`]) or one-line
//! summaries for the UI ([`summary`]). Definitions that bags do not carry
//! (before V1.2) come from the [`Registry`]: the bundled common packages plus `--msg-path`.
//! Service types (`.srv`) compile into a [`ServiceSchema`] with the service md5sum.
//! ROS 2 definitions (`ros2msg`, `ros2idl`) compile with [`Schema::for_ros2`] into schemas
//! whose payloads are CDR ([`Wire::Cdr`]); they decode into the same [`Decoded`] values. JSON
//! messages (MCAP `json`) decode into them too ([`Schema::for_json`], [`Wire::Json`]).

mod bundled;
mod bundled_ros2;
mod constant;
mod decode;
mod decoded;
mod encode;
mod error;
pub mod expr;
mod field_constants;
pub mod idl;
mod json_msg;
mod md5;
mod parse;
pub mod path;
mod prim_array;
mod primitive;
mod registry;
pub mod render;
mod ros2_parse;
mod ros2_schema;
mod scalar;
mod schema;
mod service;
mod stamp;
mod type_name;
mod types;
mod value;
mod wire;

pub use constant::{ConstValue, Constant};
pub use decode::{MAX_ZERO_SIZE_ELEMENTS, decode, validate, values_allowed};
pub use decoded::{ArrayRef, Decoded, MessageRef, ValueRef};
pub use encode::{encode, encode_into};
pub use error::{
    DecodeError, DecodeErrorKind, EncodeError, EncodeErrorKind, FieldPath, MsgError, PathSegment,
    SyntaxError,
};
pub use field_constants::field_constants;
pub use md5::EMPTY_MD5;
pub use prim_array::PrimArray;
pub use primitive::Primitive;
pub use registry::Registry;
pub(crate) use render::pyrepr;
pub use render::{csv, json, summary, yaml};
pub use schema::{MAX_DEPTH, Schema};
pub use service::ServiceSchema;
pub use stamp::{TimeKind, TimeMessage, time_kind, time_type, time_value};
pub use type_name::ros1_name;
pub use types::{ArrayKind, Elem, Field, FieldType, MsgType};
pub use value::{Message, Value};
pub use wire::{SchemaEncoding, Wire};

#[cfg(test)]
mod tests {
    /// `msg` is pure: besides itself it may only use `crate::time` (and the terminal-safe
    /// character set of `crate::printable`, a leaf).
    #[test]
    fn imports_only_time_from_the_crate() {
        let mut dirs = vec![std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/msg")];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    dirs.push(path);
                    continue;
                }
                let text = std::fs::read_to_string(&path).unwrap();
                for (i, line) in text.lines().enumerate() {
                    let mut rest = line;
                    while let Some(at) = rest.find("crate::") {
                        let after = &rest[at + "crate::".len()..];
                        assert!(
                            after.starts_with("time")
                                || after.starts_with("printable")
                                || after.starts_with("msg")
                                || after.starts_with('"'),
                            "{}:{}: {line}",
                            path.display(),
                            i + 1
                        );
                        rest = after;
                    }
                }
            }
        }
    }
}
