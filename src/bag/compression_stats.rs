//! [`CompressionStats`]: how much of a bag's chunk data each compression method holds.

use crate::format::Compression;

/// Chunk statistics for one compression method.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CompressionStats {
    /// The method.
    pub compression: Compression,
    /// Number of chunks.
    pub chunks: u64,
    /// Sum of compressed data sizes.
    pub compressed: u64,
    /// Sum of declared uncompressed sizes.
    pub uncompressed: u64,
}
