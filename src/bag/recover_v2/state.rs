//! What the recovery walk's parts share: the walk's state ([`Walk`], the chunks it found),
//! its [`Settings`] and how it tells progress ([`tell`]). The walk itself is in the module's
//! root, the decompression pipeline in `pipeline.rs`, the partial results in `partial.rs`.

use std::sync::Arc;

use crate::format::Compression;
use crate::time::RosTime;

use super::super::budget::Budget;
use super::super::chunk::ChunkState;
use super::super::error::Warning;
use super::super::open::table::ConnTable;
use super::super::opened::Opened;
use super::super::read::entries::ChunkScan;
use super::super::recovery::{Loss, ProgressFn, RecoveryProgress, Unfinished};
use super::super::source::Changed;

/// A chunk found by the walk.
#[derive(Debug)]
pub(super) struct Found {
    pub(super) pos: u64,
    pub(super) compression: Compression,
    pub(super) declared_size: u64,
    pub(super) data_offset: u64,
    pub(super) data_len: u64,
    pub(super) state: ChunkState,
    /// `(file connection id, entries)` from the index data records after the chunk.
    pub(super) index: Vec<(u32, Vec<(RosTime, u32)>)>,
    /// What walking its records found, once it was decompressed and walked.
    pub(super) scan: Option<ChunkScan>,
}

/// The walk's state.
pub(super) struct Walk {
    /// Size of the file when it was opened.
    pub(super) len: u64,
    pub(super) table: ConnTable,
    pub(super) found: Vec<Found>,
    pub(super) losses: Vec<Loss>,
    pub(super) warnings: Vec<Warning>,
    pub(super) chunk_infos: usize,
    /// Set when a chunk read by a worker came back short (the file changed).
    pub(super) changed: Option<Changed>,
    /// True for a recording still being written (see [`Settings::live`]).
    pub(super) live: bool,
    /// Largest chunk accepted (a record claiming more data is damage).
    pub(super) limit: u64,
    /// The end of the file the writer has not finished (live recordings only).
    pub(super) unfinished: Option<Unfinished>,
}

/// How to decompress the chunks the walk must look into, and whom to tell how it advances.
pub(crate) struct Settings<'a> {
    /// Largest uncompressed chunk accepted.
    pub limit: u64,
    /// Decompression threads.
    pub threads: usize,
    /// The bag's decode budget.
    pub budget: &'a Arc<Budget>,
    /// Told how the scan advances.
    pub progress: Option<&'a ProgressFn>,
    /// True when the file is a recording still being written (its name ends in `.active`,
    /// see [`still_recording`], and its bag header's index position is 0): what its writer
    /// has not finished at the end of the file is noted as unfinished, not lost.
    pub live: bool,
    /// Handed the bag as found so far, with the bytes walked and the file's size, while the
    /// scan runs (see [`PartialFn`](crate::bag::PartialFn)); false stops the scan.
    pub partial: Option<&'a PartialSink<'a>>,
}

/// Takes a partial result of the scan (see [`Settings::partial`]).
pub(crate) type PartialSink<'a> = dyn Fn(Opened, u64, u64) -> bool + Sync + 'a;

/// Calls `progress` when `done` crossed another 1/256 of `total` since `last` (and at the end).
pub(super) fn tell(
    progress: Option<&ProgressFn>,
    last: &mut u64,
    done: u64,
    total: u64,
    what: fn(u64, u64) -> RecoveryProgress,
) {
    let Some(p) = progress else { return };
    let step = (total / 256).max(1);
    if done >= total || done >= last.saturating_add(step) {
        *last = done;
        (p.0)(what(done, total));
    }
}
