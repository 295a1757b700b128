//! Record op codes and the names of record kinds used in errors.

use std::fmt;

/// The `op` byte of a record header.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    /// 0x01: message definition (1.2 only).
    MessageDefinition,
    /// 0x02: message data.
    MessageData,
    /// 0x03: bag header.
    BagHeader,
    /// 0x04: index data.
    IndexData,
    /// 0x05: chunk (2.0).
    Chunk,
    /// 0x06: chunk info (2.0).
    ChunkInfo,
    /// 0x07: connection (2.0).
    Connection,
}

impl Op {
    /// Maps an op byte to a known op.
    pub fn from_byte(b: u8) -> Option<Op> {
        Some(match b {
            0x01 => Op::MessageDefinition,
            0x02 => Op::MessageData,
            0x03 => Op::BagHeader,
            0x04 => Op::IndexData,
            0x05 => Op::Chunk,
            0x06 => Op::ChunkInfo,
            0x07 => Op::Connection,
            _ => return None,
        })
    }

    /// The op byte.
    pub fn byte(self) -> u8 {
        match self {
            Op::MessageDefinition => 0x01,
            Op::MessageData => 0x02,
            Op::BagHeader => 0x03,
            Op::IndexData => 0x04,
            Op::Chunk => 0x05,
            Op::ChunkInfo => 0x06,
            Op::Connection => 0x07,
        }
    }

    /// The record kind this op introduces.
    pub fn kind(self) -> RecordKind {
        match self {
            Op::MessageDefinition => RecordKind::MessageDefinition,
            Op::MessageData => RecordKind::MessageData,
            Op::BagHeader => RecordKind::BagHeader,
            Op::IndexData => RecordKind::IndexData,
            Op::Chunk => RecordKind::Chunk,
            Op::ChunkInfo => RecordKind::ChunkInfo,
            Op::Connection => RecordKind::Connection,
        }
    }
}

/// What was being read when an error occurred; shown in error messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RecordKind {
    /// The version line at the start of the file.
    VersionLine,
    /// A record whose kind is not known yet.
    Record,
    /// Message definition record (1.2).
    MessageDefinition,
    /// Message data record.
    MessageData,
    /// Bag header record.
    BagHeader,
    /// Index data record.
    IndexData,
    /// Chunk record.
    Chunk,
    /// Chunk info record.
    ChunkInfo,
    /// Connection record.
    Connection,
    /// The connection header inside a connection record's data.
    ConnectionHeader,
    /// A message of a pre-1.2 bag (text lines + binary payload).
    LegacyMessage,
    /// The topic table of a 1.0 bag.
    LegacyTopicTable,
    /// An MCAP record, by opcode.
    Mcap(u8),
}

impl fmt::Display for RecordKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            RecordKind::VersionLine => "version line",
            RecordKind::Record => "record",
            RecordKind::MessageDefinition => "message definition record",
            RecordKind::MessageData => "message data record",
            RecordKind::BagHeader => "bag header record",
            RecordKind::IndexData => "index data record",
            RecordKind::Chunk => "chunk record",
            RecordKind::ChunkInfo => "chunk info record",
            RecordKind::Connection => "connection record",
            RecordKind::ConnectionHeader => "connection header",
            RecordKind::LegacyMessage => "message",
            RecordKind::LegacyTopicTable => "topic table",
            RecordKind::Mcap(op) => {
                return write!(f, "MCAP {} record", super::mcap::op::name(*op));
            }
        })
    }
}
