//! How a bag is opened: [`OpenOptions`] (cache and decode budgets, threads, recovery
//! callbacks, when chunk record headers are read lazily).

use crate::format::compression::DEFAULT_MAX_CHUNK_SIZE;

use super::budget::DEFAULT_DECODE_BUDGET;
use super::parallel::default_threads;
use super::partial_scan::PartialFn;
use super::recovery::ProgressFn;

/// The chunk count from which an indexed bag's chunk record headers are read after opening
/// (1024 chunks of the default 768 KiB: 768 MiB).
pub const DEFAULT_LAZY_HEADS_FROM: usize = 1024;

/// Settings for opening a bag.
#[derive(Clone, Debug)]
pub struct OpenOptions {
    /// Largest uncompressed chunk accepted (bytes).
    pub max_chunk_size: u64,
    /// Budget of the decompressed-chunk cache used for random access (bytes).
    pub cache_bytes: usize,
    /// Threads for decompression during recovery scans and parallel iteration.
    pub threads: usize,
    /// Bytes of decompressed chunk data that the threads may hold together (see
    /// [`Budget`]); a single chunk larger than this is decoded alone.
    pub decode_budget: u64,
    /// Told how a recovery scan advances (bags without a usable index), if set.
    pub progress: Option<ProgressFn>,
    /// Handed partial results while a recovery scan runs (bags without a usable index), if
    /// set: the bag as found so far, to show before the scan is done.
    pub partial: Option<PartialFn>,
    /// Indexed bags of at least this many chunks are opened from their index section alone:
    /// their chunk record headers are read later (see [`Bag::head`], [`Bag::read_heads`]).
    /// Those of smaller bags are read and checked while opening.
    pub lazy_heads_from: usize,
}

impl Default for OpenOptions {
    fn default() -> Self {
        OpenOptions {
            max_chunk_size: DEFAULT_MAX_CHUNK_SIZE,
            cache_bytes: 64 << 20,
            threads: default_threads(),
            decode_budget: DEFAULT_DECODE_BUDGET,
            progress: None,
            partial: None,
            lazy_heads_from: DEFAULT_LAZY_HEADS_FROM,
        }
    }
}
