//! The time-ordered merge of several bags' message streams.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::bag::{BagError, Message, Messages};
use crate::time::RosTime;

use super::Catalog;

/// A message and the bag it comes from.
#[derive(Clone, Debug)]
pub struct CatalogMessage {
    /// Index of the bag in the catalog.
    pub bag: usize,
    /// The message.
    pub message: Message,
}

/// Iterator over the selected messages of every bag, in receive-time order.
pub struct CatalogMessages {
    catalog: Catalog,
    streams: Vec<(usize, Messages)>,
    heads: BinaryHeap<Reverse<(RosTime, usize, usize)>>,
    pending: Vec<Option<Message>>,
    errors: std::collections::VecDeque<BagError>,
    started: bool,
}

impl CatalogMessages {
    pub(super) fn new(catalog: Catalog, streams: Vec<(usize, Messages)>) -> Self {
        let n = streams.len();
        CatalogMessages {
            catalog,
            streams,
            heads: BinaryHeap::new(),
            pending: (0..n).map(|_| None).collect(),
            errors: std::collections::VecDeque::new(),
            started: false,
        }
    }

    /// The catalog being read.
    pub fn catalog(&self) -> &Catalog {
        &self.catalog
    }

    /// Pulls the next message of stream `s` into the heap (errors are queued).
    fn refill(&mut self, s: usize) {
        let Some((bag, stream)) = self.streams.get_mut(s) else {
            return;
        };
        for item in stream.by_ref() {
            match item {
                Ok(m) => {
                    self.heads.push(Reverse((m.entry.time, *bag, s)));
                    if let Some(slot) = self.pending.get_mut(s) {
                        *slot = Some(m);
                    }
                    return;
                }
                Err(e) => self.errors.push_back(e),
            }
        }
    }
}

impl Iterator for CatalogMessages {
    type Item = Result<CatalogMessage, BagError>;

    fn next(&mut self) -> Option<Self::Item> {
        if !self.started {
            self.started = true;
            for s in 0..self.streams.len() {
                self.refill(s);
            }
        }
        if let Some(e) = self.errors.pop_front() {
            return Some(Err(e));
        }
        let Reverse((_, bag, s)) = self.heads.pop()?;
        let message = self.pending.get_mut(s).and_then(Option::take)?;
        self.refill(s);
        Some(Ok(CatalogMessage { bag, message }))
    }
}
