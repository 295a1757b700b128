//! What an opener hands to [`crate::bag::Bag`]: connections, chunks, entries already known,
//! warnings and the recovery report.

use std::collections::HashMap;
use std::sync::Arc;

use super::chunk::{Chunk, IndexEntry};
use super::connection::{ConnId, Connection};
use super::error::Warning;
use super::mcap::McapInfo;
use super::read::heads::Heads;
use super::recovery::Recovery;
use super::totals::Totals;

/// The result of opening a bag of any version.
#[derive(Debug, Default)]
pub(crate) struct Opened {
    /// Connections in file-id order.
    pub connections: Vec<Connection>,
    /// File connection id → dense id.
    pub conn_map: HashMap<u32, ConnId>,
    /// Chunks (or whole-file pseudo-chunks).
    pub chunks: Vec<Chunk>,
    /// Their record headers, one slot per chunk (possibly not read yet).
    pub heads: Heads,
    /// Entries already known per chunk (recovery scans and old layouts); `None` (or no item:
    /// the list may be shorter than `chunks`, empty for an indexed bag) = read lazily from the
    /// chunk's index data records.
    pub entries: Vec<Option<Arc<[IndexEntry]>>>,
    /// Things noticed.
    pub warnings: Vec<Warning>,
    /// Set when the bag was not opened from a complete index.
    pub recovery: Option<Recovery>,
    /// The totals over `chunks`, when the opener summed them on its way (else summed when
    /// the bag is assembled).
    pub totals: Option<Totals>,
    /// What an MCAP file holds besides messages (`None` for bags).
    pub mcap: Option<Arc<McapInfo>>,
}
