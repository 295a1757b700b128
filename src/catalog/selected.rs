//! The connections a [`Selection`] reads, bag by bag.

use crate::bag::Connection;

use super::{Catalog, Selection, topic_matches};

impl Catalog {
    /// The connections `selection` reads (every connection of a selected topic, whatever the
    /// time range), as (bag index, connection), bag by bag.
    pub fn selected_connections<'c>(
        &'c self,
        selection: &'c Selection,
    ) -> impl Iterator<Item = (usize, &'c Connection)> + 'c {
        self.bags().iter().enumerate().flat_map(move |(i, bag)| {
            bag.connections()
                .iter()
                .filter(|c| {
                    selection.topics.is_empty()
                        || selection.topics.iter().any(|t| topic_matches(t, &c.topic))
                })
                .map(move |c| (i, c))
        })
    }
}
