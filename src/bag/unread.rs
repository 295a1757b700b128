//! What a reader of messages could not read: every error met while iterating, and the
//! messages each one cost, so that every command reports the same counts.

use std::path::Path;
use std::sync::Arc;

use super::error::BagError;

/// The errors met while reading messages (from [`crate::bag::Messages`] or random access),
/// with the number of messages they cost.
#[derive(Clone, Debug, Default)]
pub struct Unread {
    errors: Vec<BagError>,
}

impl Unread {
    /// Records an error met while reading.
    pub fn note(&mut self, error: BagError) {
        self.errors.push(error);
    }

    /// True when everything selected was read.
    pub fn is_empty(&self) -> bool {
        self.errors.is_empty()
    }

    /// The errors, in the order they were met.
    pub fn errors(&self) -> &[BagError] {
        &self.errors
    }

    /// Messages that could not be read, over all files.
    pub fn messages(&self) -> u64 {
        self.errors.iter().map(BagError::lost_messages).sum()
    }

    /// Messages that could not be read, per file, in the order the files were first met.
    pub fn by_file(&self) -> Vec<(Arc<Path>, u64)> {
        let mut out: Vec<(Arc<Path>, u64)> = Vec::new();
        for e in &self.errors {
            match out.iter_mut().find(|(p, _)| *p == e.path) {
                Some((_, n)) => *n += e.lost_messages(),
                None => out.push((Arc::clone(&e.path), e.lost_messages())),
            }
        }
        out
    }
}
