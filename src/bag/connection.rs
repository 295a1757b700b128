//! A connection: one publisher's topic, type and definition, as the bag recorded it.

use crate::format::ConnectionHeader;

/// Index of a connection in [`crate::bag::Bag::connections`] (dense, starting at 0).
pub type ConnId = u32;

/// One connection of a bag. In 2.0 bags this is a connection record; in 1.2 and older bags
/// there is one per topic (and type), made up by the reader.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Connection {
    /// Position in the bag's connection list.
    pub id: ConnId,
    /// Connection id as stored in the file (2.0), or the order of appearance (older bags).
    pub file_id: u32,
    /// Topic (from the record header in 2.0).
    pub topic: String,
    /// Message type, e.g. `sensor_msgs/Imu`.
    pub datatype: String,
    /// md5sum of the type as recorded.
    pub md5sum: String,
    /// The full message definition as recorded; empty for bags older than 1.2 (and for
    /// recorders that left it out).
    pub message_definition: String,
    /// Publishing node, when recorded.
    pub callerid: Option<String>,
    /// Raw `latching` value, when recorded.
    pub latching: Option<String>,
    /// The whole connection header as recorded (for writing it back unchanged).
    pub header: ConnectionHeader,
    /// Messages on this connection (from the index, or counted during recovery).
    pub message_count: u64,
    /// How its messages are serialized: `ros1` for bags, an MCAP channel's message encoding
    /// (`ros1`, `cdr`, `json`, `protobuf`, ...) otherwise.
    pub message_encoding: String,
    /// The language of `message_definition`: `ros1msg` for bags, an MCAP schema's encoding
    /// (`ros1msg`, `ros2msg`, `ros2idl`, ...; empty for a channel without a schema).
    pub schema_encoding: String,
}

impl Connection {
    /// The wire format of its messages when bagscope can decode them: `ros1` → ROS1,
    /// `cdr` → CDR, `json` → JSON; `None` for other encodings (shown as bytes).
    pub fn wire(&self) -> Option<crate::msg::Wire> {
        match self.message_encoding.as_str() {
            "ros1" => Some(crate::msg::Wire::Ros1),
            "cdr" => Some(crate::msg::Wire::Cdr),
            "json" => Some(crate::msg::Wire::Json),
            _ => None,
        }
    }

    /// True when the publisher latched the topic.
    pub fn is_latching(&self) -> bool {
        self.latching.as_deref() == Some("1")
    }
}
