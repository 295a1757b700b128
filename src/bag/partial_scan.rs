//! What a recovery scan hands out while it runs: [`PartialScan`], the bag as found so far,
//! through a [`PartialFn`] set in [`OpenOptions::partial`](super::options::OpenOptions::partial).

use std::fmt;

use super::handle::Bag;

/// What a recovery scan has found so far (see [`PartialFn`]): a bag of the chunks and
/// connections found up to some point of the file, with the losses and warnings found so far.
/// Its counts are partial: the scan goes on.
#[derive(Clone, Debug)]
pub struct PartialScan {
    /// The bag as found so far (its [`Bag::recovery`](Bag::recovery) lists the losses
    /// found so far).
    pub bag: Bag,
    /// Bytes of the file walked.
    pub done: u64,
    /// The file's size.
    pub total: u64,
}

/// A callback handed partial results of a recovery scan while it runs: the first soon after
/// the first chunks are read, then at most every [`PARTIAL_EVERY`] (less often when building
/// a snapshot takes long), from the thread that opens the bag. Returning false cancels the
/// scan: opening then fails with [`BagErrorKind::Cancelled`](super::error::BagErrorKind::Cancelled).
/// The finished bag is what opening returns. Set in
/// [`OpenOptions::partial`](super::options::OpenOptions::partial); indexed bags never call it.
#[derive(Clone)]
pub struct PartialFn(pub std::sync::Arc<dyn Fn(PartialScan) -> bool + Send + Sync>);

impl fmt::Debug for PartialFn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("PartialFn")
    }
}

/// The shortest time between two partial results of a recovery scan (see [`PartialFn`]).
pub const PARTIAL_EVERY: std::time::Duration = std::time::Duration::from_millis(250);
