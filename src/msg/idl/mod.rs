//! ROS 2 IDL (`ros2idl` schemas: the `.idl` files rosidl generates, one after another, each
//! after a line of 80 `=` and `IDL: pkg/msg/Type`) → the equivalent `ros2msg` texts, which
//! the ROS 2 compiler reads. (Contract stub: the IDL helper fills it.)

use super::error::MsgError;

/// One message type of an IDL schema, written as `ros2msg` text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct MsgSection {
    /// `pkg/msg/Type`.
    pub name: String,
    /// The type as a ROS 2 `.msg` text (fields with bounds, constants, defaults).
    pub text: String,
}

/// Translates an IDL schema for `datatype` into `ros2msg` sections, the main type first.
/// Constructs that have no `.msg` equivalent are an error naming the construct and line.
pub(crate) fn to_msg_sections(datatype: &str, idl: &str) -> Result<Vec<MsgSection>, MsgError> {
    let _ = idl;
    Err(MsgError::NotInRegistry {
        datatype: datatype.to_string(),
    })
}
