//! A connection of one bag of a catalog: the key every per-connection question uses.

use crate::bag::ConnId;

/// One connection of one bag: the bag's index in the catalog and the connection's id in that
/// bag. Ordered by bag, then connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BagConn {
    /// Bag index in the catalog.
    pub bag: usize,
    /// Connection in that bag.
    pub conn: ConnId,
}

impl BagConn {
    /// Connection `conn` of bag `bag`.
    pub fn new(bag: usize, conn: ConnId) -> Self {
        BagConn { bag, conn }
    }

    /// True when `set` holds this connection (`None` holds every connection).
    pub fn is_in(self, set: Option<&[BagConn]>) -> bool {
        set.is_none_or(|s| s.contains(&self))
    }
}
