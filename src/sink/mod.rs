//! Writing a selection of messages of many bags into formats other than a bag: MCAP (one
//! file, the raw ROS1 bytes) and Parquet (a directory of columnar files, decoded values).
//!
//! One driver ([`drive`]) walks the catalog's messages in receive-time order and hands each to
//! a [`MessageSink`]; a sink knows only its format. Memory stays bounded by the sink's own
//! buffers (an MCAP chunk; a Parquet row group per open file), whatever the size of the bags.

mod drive;
mod error;
mod finished;
pub mod mcap;
pub mod parquet;

pub use drive::{Driven, Predicate, drive};
pub use error::SinkError;
pub use finished::Finished;

use std::path::Path;

use crate::bag::Connection;
use crate::time::RosTime;

/// One message handed to a sink.
#[derive(Clone, Copy, Debug)]
pub struct SinkMessage<'a> {
    /// Index of the bag in the catalog.
    pub bag: usize,
    /// The bag's path.
    pub bag_path: &'a Path,
    /// The bag's first message time (for partitions by date).
    pub bag_start: Option<RosTime>,
    /// The connection the message came on.
    pub conn: &'a Connection,
    /// Receive time in the bag.
    pub time: RosTime,
    /// The serialized message, as stored in the bag (ROS1) or MCAP file (its channel's
    /// encoding).
    pub data: &'a [u8],
    /// What the MCAP file the message comes from says of itself (channel metadata), if it
    /// comes from one.
    pub mcap: Option<&'a crate::bag::mcap::McapInfo>,
}

/// A format that messages are written to.
pub trait MessageSink {
    /// Writes one message (messages come in receive-time order).
    fn write(&mut self, message: &SinkMessage<'_>) -> Result<(), SinkError>;
    /// Completes the output (atomically: until then nothing is at the target) and says what
    /// was written and what was left out.
    fn finish(self: Box<Self>) -> Result<Finished, SinkError>;
}
