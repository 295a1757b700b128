//! An open bag: the file (read with positioned reads), its connections and chunks, lazily read
//! per-chunk index data, a cache of decompressed chunks, and time-ordered iteration.
//!
//! ```no_run
//! use bagscope::bag::{Bag, Query};
//! let bag = Bag::open("run.bag")?;
//! for c in bag.connections() {
//!     println!("{} {} {}", c.topic, c.datatype, c.message_count);
//! }
//! for msg in bag.messages(&Query::all()) {
//!     let msg = msg?;
//!     println!("{} {} bytes", msg.entry.time, msg.data.len());
//! }
//! # Ok::<(), bagscope::bag::BagError>(())
//! ```
//!
//! [`writer::BagWriter`] writes V2.0 bags; [`rewrite::rewrite`] copies (some of) a bag's
//! messages into one.
//!
//! Opening an indexed 2.0 bag reads only the bag header, the index section and each chunk's
//! record header. Unindexed, truncated or damaged 2.0 bags, 1.2 bags and older layouts are
//! scanned (see [`Recovery`]).
//!
//! Two wings: `open/` (the openers) and `read/` (what an open bag reads later: chunk record
//! headers, message lists, chunk data, the time-ordered merge); the [`Bag`] handle itself and
//! its settings, [`OpenOptions`], are `handle.rs`. Files inside `bag/` import each other by
//! their own paths, not through this file's re-exports; doc links and tests of the files the
//! handle itself uses name the public paths (`crate::bag::Bag`), so that no two files use
//! each other.

mod budget;
mod bytes;
mod chunk;
mod compression_stats;
mod connection;
mod counts;
pub mod definitions;
mod error;
mod extent;
pub mod follow;
mod handle;
pub mod inputs;
pub mod mcap;
mod open;
mod opened;
mod parallel;
mod query;
mod read;
mod recover_v2;
mod recovery;
mod resync;
pub mod rewrite;
pub mod ros2;
mod slots;
mod source;
pub mod stats_cache;
mod summary;
mod totals;
mod unread;
mod window;
pub mod writer;

pub use budget::{Budget, DEFAULT_DECODE_BUDGET, Permit};
pub use bytes::Bytes;
pub use chunk::{Chunk, ChunkLayout, ChunkState, IndexEntry};
pub use compression_stats::CompressionStats;
pub use connection::{ConnId, Connection};
pub use counts::Counts;
pub use definitions::{DefinitionSource, NoDefinitions};
pub use error::{BagError, BagErrorKind, Warning};
pub use handle::{
    Bag, DEFAULT_LAZY_HEADS_FROM, Message, OpenOptions, PARTIAL_EVERY, PartialFn, PartialScan,
};
pub use parallel::{default_threads, parallel_map};
pub use query::Query;
pub use read::entries_pass::EntriesPass;
pub use read::heads::{ChunkHead, HeadState};
pub use read::iter::Messages;
pub use recovery::{Loss, ProgressFn, Recovery, RecoveryProgress, Unfinished, Writing};
pub use source::{Changed, FileStamp, Source, open_regular};
pub use summary::TopicSummary;
pub use unread::Unread;
