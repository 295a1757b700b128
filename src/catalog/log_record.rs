//! One log message read field by field: every field of a ROS1 `rosgraph_msgs/Log` (or the
//! old `roslib/Log`, laid out alike) or a ROS 2 `rcl_interfaces/msg/Log` borrowed from a
//! decoded message, for `bagscope log` (which prints them all) and for the compact lines of
//! [`super::log`]. Which of the two a message is comes from its type name ([`LogKind`]).
//!
//! A field the message's definition lacks reads as empty (or 0): a bag with an odd
//! definition of the type still gives lines.

use crate::msg::{MessageRef, ValueRef, ros1_name, time_value};
use crate::time::RosTime;

/// Which log message type a message is: they number their levels differently and ROS 2's
/// has no header (its `stamp` is a field of its own) and no `topics`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum LogKind {
    /// ROS1 `rosgraph_msgs/Log` (or `roslib/Log`): levels 1, 2, 4, 8, 16; node names with a
    /// leading `/`.
    #[default]
    Ros1,
    /// ROS 2 `rcl_interfaces/msg/Log`: levels 10, 20, 30, 40, 50; `name` is the logger's name
    /// (`talker`, `ns.talker` for the node `/ns/talker`), without a leading `/`.
    Ros2,
}

impl LogKind {
    /// The kind of log message type `datatype` is (either spelling of a ROS 2 name), if it is
    /// one.
    pub fn of(datatype: &str) -> Option<LogKind> {
        match &*ros1_name(datatype) {
            "rosgraph_msgs/Log" | "roslib/Log" => Some(LogKind::Ros1),
            "rcl_interfaces/Log" => Some(LogKind::Ros2),
            _ => None,
        }
    }
}

/// The fields of one log message, borrowed from its decoded form. Strings are the raw bytes
/// (they may not be UTF-8).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LogRecord<'d> {
    /// Which log type the message is (by its type name; ROS1 for any other name).
    pub kind: LogKind,
    /// `header.seq` (ROS1; 0 for ROS 2).
    pub seq: u32,
    /// `header.stamp` (ROS1) or `stamp` (ROS 2): when the node logged it (by its clock); 0
    /// when the message has none (or a ROS 2 stamp before 1970).
    pub stamp: RosTime,
    /// `header.frame_id` (ROS1; empty for ROS 2).
    pub frame_id: &'d [u8],
    /// `level` as written (1, 2, 4, 8, 16 for DEBUG … FATAL in ROS1; 10 … 50 in ROS 2).
    pub level: i64,
    /// `name`: the node (ROS1) or logger (ROS 2).
    pub name: &'d [u8],
    /// `msg`: the text.
    pub msg: &'d [u8],
    /// `file`.
    pub file: &'d [u8],
    /// `function`.
    pub function: &'d [u8],
    /// `line`.
    pub line: u32,
    /// `topics`: the topics the node publishes (ROS1; empty for ROS 2).
    pub topics: Vec<&'d [u8]>,
}

impl<'d> LogRecord<'d> {
    /// The fields of `m`, a decoded log message (of a type [`LogKind::of`] knows; another
    /// is read as ROS1's).
    pub fn read(m: &MessageRef<'d>) -> LogRecord<'d> {
        let kind = LogKind::of(m.ty().name()).unwrap_or_default();
        let header = match m.get("header") {
            Some(ValueRef::Message(h)) => Some(h),
            _ => None,
        };
        let stamp = match kind {
            LogKind::Ros1 => header.as_ref().and_then(|h| h.get("stamp")),
            LogKind::Ros2 => m.get("stamp"),
        };
        let stamp = stamp.as_ref().and_then(time_value).unwrap_or_default();
        let topics = match m.get("topics") {
            Some(ValueRef::Array(a)) => a
                .iter()
                .filter_map(|v| match v {
                    ValueRef::String(s) => Some(s),
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        };
        LogRecord {
            kind,
            seq: header
                .as_ref()
                .and_then(|h| int_field(h, "seq"))
                .and_then(|n| u32::try_from(n).ok())
                .unwrap_or(0),
            stamp,
            frame_id: header
                .as_ref()
                .map_or(&[][..], |h| bytes_field(h, "frame_id")),
            level: int_field(m, "level").unwrap_or(0),
            name: bytes_field(m, "name"),
            msg: bytes_field(m, "msg"),
            file: bytes_field(m, "file"),
            function: bytes_field(m, "function"),
            line: int_field(m, "line")
                .and_then(|n| u32::try_from(n).ok())
                .unwrap_or(0),
            topics,
        }
    }

    /// `file:line (function)`, or what of it the message has (empty when none); text that
    /// is not UTF-8 lossily.
    pub fn origin(&self) -> String {
        let mut out = String::from_utf8_lossy(self.file).into_owned();
        if !out.is_empty() && self.line > 0 {
            out.push(':');
            out.push_str(&self.line.to_string());
        }
        if !self.function.is_empty() {
            if !out.is_empty() {
                out.push(' ');
            }
            out.push('(');
            out.push_str(&String::from_utf8_lossy(self.function));
            out.push(')');
        }
        out
    }
}

/// The bytes of string field `name` of `m` (empty when it has none).
fn bytes_field<'d>(m: &MessageRef<'d>, name: &str) -> &'d [u8] {
    match m.get(name) {
        Some(ValueRef::String(b)) => b,
        _ => &[],
    }
}

/// Integer field `name` of `m`, whatever its width.
fn int_field(m: &MessageRef<'_>, name: &str) -> Option<i64> {
    match m.get(name)? {
        ValueRef::I8(v) => Some(i64::from(v)),
        ValueRef::U8(v) => Some(i64::from(v)),
        ValueRef::I16(v) => Some(i64::from(v)),
        ValueRef::U16(v) => Some(i64::from(v)),
        ValueRef::I32(v) => Some(i64::from(v)),
        ValueRef::U32(v) => Some(i64::from(v)),
        ValueRef::I64(v) => Some(v),
        ValueRef::U64(v) => i64::try_from(v).ok(),
        _ => None,
    }
}
