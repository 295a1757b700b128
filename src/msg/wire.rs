//! How a message's bytes are laid out ([`Wire`]) and in which language its definition is
//! written ([`SchemaEncoding`]). A [`Schema`](super::Schema) knows its wire format, so
//! [`decode`](super::decode) reads ROS1, CDR and JSON payloads into the same decoded values.

/// The serialization of message payloads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Wire {
    /// ROS1 (and MCAP `ros1`): little-endian, packed, `u32` lengths.
    #[default]
    Ros1,
    /// OMG CDR / XCDR1 as ROS 2 writes it (MCAP `cdr`): a 4-byte encapsulation header that
    /// gives the byte order, then the fields with natural alignment counted from the end of
    /// that header; strings carry their terminating NUL.
    Cdr,
    /// JSON text (MCAP `json`): one object per message, fields by name (see
    /// `docs/mcap.md`, "JSON messages").
    Json,
}

/// The language a message definition is written in (an MCAP schema's `encoding`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SchemaEncoding {
    /// A ROS1 `.msg` text with `MSG:` sections (`ros1msg`).
    Ros1Msg,
    /// A ROS 2 `.msg` text with `MSG:` sections (`ros2msg`): bounded strings and sequences,
    /// default values, `pkg/msg/Type` names.
    Ros2Msg,
    /// ROS 2 IDL (`ros2idl`): the `.idl` files rosidl generates, separated by `IDL:` lines.
    Ros2Idl,
}

impl SchemaEncoding {
    /// The encoding named by an MCAP schema record (`ros1msg`, `ros2msg`, `ros2idl`), if known.
    pub fn from_name(name: &str) -> Option<SchemaEncoding> {
        match name {
            "ros1msg" => Some(SchemaEncoding::Ros1Msg),
            "ros2msg" => Some(SchemaEncoding::Ros2Msg),
            "ros2idl" => Some(SchemaEncoding::Ros2Idl),
            _ => None,
        }
    }

    /// The MCAP name of the encoding.
    pub fn name(self) -> &'static str {
        match self {
            SchemaEncoding::Ros1Msg => "ros1msg",
            SchemaEncoding::Ros2Msg => "ros2msg",
            SchemaEncoding::Ros2Idl => "ros2idl",
        }
    }
}
