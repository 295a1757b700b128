//! The builtin field types of ROS1 messages and their wire sizes (ROS 2 types use the same
//! set: its `byte` is `UInt8`, its `wstring` a `String` field marked wide, and it has no
//! `time`/`duration`).

use std::fmt;

/// A builtin field type (ROS1's; a ROS 2 builtin maps onto one of them).
///
/// `byte` and `char` are the deprecated aliases of `int8` and `uint8`. They are kept apart
/// because their spelling enters the md5sum text and `char[]` renders differently from
/// `uint8[]` in `rostopic echo`; on the wire they are one byte like their targets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Primitive {
    /// `bool`: one byte, non-zero is true.
    Bool,
    /// `int8`.
    Int8,
    /// `uint8`.
    UInt8,
    /// `int16`.
    Int16,
    /// `uint16`.
    UInt16,
    /// `int32`.
    Int32,
    /// `uint32`.
    UInt32,
    /// `int64`.
    Int64,
    /// `uint64`.
    UInt64,
    /// `float32`.
    Float32,
    /// `float64`.
    Float64,
    /// `string`: `len:u32` then that many bytes (not necessarily UTF-8).
    String,
    /// `time`: `sec:u32, nsec:u32`.
    Time,
    /// `duration`: `sec:i32, nsec:i32`.
    Duration,
    /// `byte`: deprecated alias of `int8`.
    Byte,
    /// `char`: deprecated alias of `uint8`.
    Char,
}

impl Primitive {
    /// Every builtin type, in the order genmsg lists them.
    pub const ALL: [Primitive; 16] = [
        Primitive::Int8,
        Primitive::UInt8,
        Primitive::Int16,
        Primitive::UInt16,
        Primitive::Int32,
        Primitive::UInt32,
        Primitive::Int64,
        Primitive::UInt64,
        Primitive::Float32,
        Primitive::Float64,
        Primitive::String,
        Primitive::Bool,
        Primitive::Char,
        Primitive::Byte,
        Primitive::Time,
        Primitive::Duration,
    ];

    /// The type as spelled in a `.msg` file.
    pub const fn name(self) -> &'static str {
        match self {
            Primitive::Bool => "bool",
            Primitive::Int8 => "int8",
            Primitive::UInt8 => "uint8",
            Primitive::Int16 => "int16",
            Primitive::UInt16 => "uint16",
            Primitive::Int32 => "int32",
            Primitive::UInt32 => "uint32",
            Primitive::Int64 => "int64",
            Primitive::UInt64 => "uint64",
            Primitive::Float32 => "float32",
            Primitive::Float64 => "float64",
            Primitive::String => "string",
            Primitive::Time => "time",
            Primitive::Duration => "duration",
            Primitive::Byte => "byte",
            Primitive::Char => "char",
        }
    }

    /// Looks a builtin type up by its `.msg` spelling.
    pub fn from_name(name: &str) -> Option<Primitive> {
        Primitive::ALL.into_iter().find(|p| p.name() == name)
    }

    /// Bytes on the wire, or `None` for `string` (variable length).
    pub const fn fixed_size(self) -> Option<usize> {
        match self {
            Primitive::Bool
            | Primitive::Int8
            | Primitive::UInt8
            | Primitive::Byte
            | Primitive::Char => Some(1),
            Primitive::Int16 | Primitive::UInt16 => Some(2),
            Primitive::Int32 | Primitive::UInt32 | Primitive::Float32 => Some(4),
            Primitive::Int64
            | Primitive::UInt64
            | Primitive::Float64
            | Primitive::Time
            | Primitive::Duration => Some(8),
            Primitive::String => None,
        }
    }

    /// The fewest bytes a value of this type occupies (a `string` needs its length prefix).
    pub const fn min_size(self) -> usize {
        match self.fixed_size() {
            Some(n) => n,
            None => 4,
        }
    }

    /// True for `uint8` and `char`, whose arrays are byte blobs (borrowed when decoding,
    /// base64 in JSON).
    pub const fn is_byte(self) -> bool {
        matches!(self, Primitive::UInt8 | Primitive::Char)
    }

    /// True for the types a constant may have (every builtin but `time` and `duration`).
    pub const fn can_be_constant(self) -> bool {
        !matches!(self, Primitive::Time | Primitive::Duration)
    }
}

impl fmt::Display for Primitive {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for p in Primitive::ALL {
            assert_eq!(Primitive::from_name(p.name()), Some(p));
        }
        assert_eq!(Primitive::from_name("Header"), None);
        assert_eq!(Primitive::Char.fixed_size(), Some(1));
        assert_eq!(Primitive::String.min_size(), 4);
    }
}
