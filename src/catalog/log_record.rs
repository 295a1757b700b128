//! One log message read field by field: every field of a `rosgraph_msgs/Log` (or the old
//! `roslib/Log`, laid out alike) borrowed from a decoded message, for `bagscope log` (which
//! prints them all) and for the compact lines of [`super::log`].
//!
//! A field the message's definition lacks reads as empty (or 0): a bag with an odd
//! definition of the type still gives lines.

use crate::msg::{MessageRef, ValueRef};
use crate::time::RosTime;

/// The fields of one log message, borrowed from its decoded form. Strings are the raw bytes
/// (they may not be UTF-8).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LogRecord<'d> {
    /// `header.seq`.
    pub seq: u32,
    /// `header.stamp`: when the node logged it (by its clock).
    pub stamp: RosTime,
    /// `header.frame_id`.
    pub frame_id: &'d [u8],
    /// `level` as written (1, 2, 4, 8, 16 for DEBUG … FATAL).
    pub level: i64,
    /// `name`: the node.
    pub name: &'d [u8],
    /// `msg`: the text.
    pub msg: &'d [u8],
    /// `file`.
    pub file: &'d [u8],
    /// `function`.
    pub function: &'d [u8],
    /// `line`.
    pub line: u32,
    /// `topics`: the topics the node publishes.
    pub topics: Vec<&'d [u8]>,
}

impl<'d> LogRecord<'d> {
    /// The fields of `m`, a decoded log message.
    pub fn read(m: &MessageRef<'d>) -> LogRecord<'d> {
        let header = match m.get("header") {
            Some(ValueRef::Message(h)) => Some(h),
            _ => None,
        };
        let stamp = match header.as_ref().and_then(|h| h.get("stamp")) {
            Some(ValueRef::Time(t)) => t,
            _ => RosTime::default(),
        };
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
