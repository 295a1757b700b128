//! The chunks of a catalog and their per-connection message counts, from chunk infos alone
//! (no index data is read, nothing is decompressed): the one scan behind topic spans, the
//! explorer's histogram and message windows.

use crate::bag::{Bag, Chunk};

use super::{BagConn, Catalog};

/// One chunk of one bag of a catalog.
#[derive(Clone, Copy, Debug)]
pub struct BagChunk<'a> {
    /// Bag index in the catalog.
    pub bag: usize,
    /// That bag.
    pub source: &'a Bag,
    /// The chunk.
    pub chunk: &'a Chunk,
}

impl<'a> BagChunk<'a> {
    /// The connections with messages in this chunk, with their counts (as its chunk info says).
    pub fn counts(&self) -> impl Iterator<Item = (BagConn, u32)> + 'a {
        let bag = self.bag;
        self.chunk
            .counts
            .iter()
            .filter(|&&(_, n)| n > 0)
            .map(move |&(conn, n)| (BagConn::new(bag, conn), n))
    }

    /// Messages of this chunk on the connections of `set` (every connection when `None`).
    pub fn count_of(&self, set: Option<&[BagConn]>) -> u64 {
        self.counts()
            .filter(|&(key, _)| key.is_in(set))
            .map(|(_, n)| u64::from(n))
            .sum()
    }
}

impl Catalog {
    /// Every chunk of every bag, in bag order, then chunk order.
    pub fn chunks(&self) -> impl Iterator<Item = BagChunk<'_>> {
        self.bags().iter().enumerate().flat_map(|(bag, source)| {
            source
                .chunks()
                .iter()
                .map(move |chunk| BagChunk { bag, source, chunk })
        })
    }

    /// The chunks holding messages of the connections of `set` (every connection when
    /// `None`), with how many they hold, in the order of [`Catalog::chunks`].
    pub fn chunks_holding<'a>(
        &'a self,
        set: Option<&'a [BagConn]>,
    ) -> impl Iterator<Item = (BagChunk<'a>, u64)> + 'a {
        self.chunks()
            .map(move |c| (c, c.count_of(set)))
            .filter(|&(_, n)| n > 0)
    }
}
