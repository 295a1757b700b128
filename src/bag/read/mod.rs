//! The readers of an open bag: chunk record headers read lazily ([`heads`], [`lazy`]),
//! per-chunk message lists from index data or by walking records ([`entries`], read ahead
//! for small chunks in [`entries_ahead`], read for one pass and not kept in
//! [`entries_pass`]), decompressed chunks ([`load`], the [`cache`] for
//! random access, [`prefetch`] for full scans) and the time-ordered merge ([`iter`]).

pub(crate) mod cache;
pub(crate) mod entries;
pub(crate) mod entries_ahead;
pub(crate) mod entries_pass;
pub(crate) mod heads;
pub(crate) mod iter;
mod lazy;
pub(crate) mod load;
pub(crate) mod prefetch;
