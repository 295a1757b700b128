//! A chunk's messages per connection, without a heap allocation per chunk when read from an
//! index: the counts of every chunk info of a bag live in one shared table, and each chunk
//! holds its range of it. Chunks built one message at a time (recovery, following a growing
//! recording) own their list.

use std::ops::Deref;
use std::sync::Arc;

use super::connection::ConnId;

/// `(connection, messages)` pairs of one chunk; reads as a slice.
#[derive(Clone)]
pub struct Counts(Repr);

#[derive(Clone)]
enum Repr {
    /// A list of its own (recovery scans, followed recordings, old layouts).
    Owned(Vec<(ConnId, u32)>),
    /// `table[start..start + len]`, the table shared by all chunks of a bag.
    Shared {
        table: Arc<[(ConnId, u32)]>,
        start: u32,
        len: u32,
    },
}

impl Counts {
    /// The `len` pairs of `table` from `start` (an empty list when that range is not in
    /// `table`).
    pub fn shared(table: &Arc<[(ConnId, u32)]>, start: usize, len: usize) -> Counts {
        match (u32::try_from(start), u32::try_from(len)) {
            (Ok(s), Ok(l)) if start.checked_add(len).is_some_and(|e| e <= table.len()) => {
                Counts(Repr::Shared {
                    table: Arc::clone(table),
                    start: s,
                    len: l,
                })
            }
            _ => Counts::default(),
        }
    }

    /// Adds one message of `conn` (a shared list becomes a list of its own first).
    pub fn add_one(&mut self, conn: ConnId) {
        let mut list = match std::mem::replace(&mut self.0, Repr::Owned(Vec::new())) {
            Repr::Owned(v) => v,
            shared @ Repr::Shared { .. } => Counts(shared).to_vec(),
        };
        match list.iter_mut().find(|(c, _)| *c == conn) {
            Some((_, n)) => *n = n.saturating_add(1),
            None => list.push((conn, 1)),
        }
        self.0 = Repr::Owned(list);
    }
}

impl Default for Counts {
    fn default() -> Self {
        Counts(Repr::Owned(Vec::new()))
    }
}

impl Deref for Counts {
    type Target = [(ConnId, u32)];

    fn deref(&self) -> &[(ConnId, u32)] {
        match &self.0 {
            Repr::Owned(v) => v,
            Repr::Shared { table, start, len } => {
                let s = *start as usize;
                s.checked_add(*len as usize)
                    .and_then(|e| table.get(s..e))
                    .unwrap_or_default()
            }
        }
    }
}

impl From<Vec<(ConnId, u32)>> for Counts {
    fn from(v: Vec<(ConnId, u32)>) -> Self {
        Counts(Repr::Owned(v))
    }
}

impl FromIterator<(ConnId, u32)> for Counts {
    fn from_iter<I: IntoIterator<Item = (ConnId, u32)>>(iter: I) -> Self {
        Counts(Repr::Owned(iter.into_iter().collect()))
    }
}

impl<'a> IntoIterator for &'a Counts {
    type Item = &'a (ConnId, u32);
    type IntoIter = std::slice::Iter<'a, (ConnId, u32)>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl PartialEq for Counts {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl Eq for Counts {}

impl std::fmt::Debug for Counts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_ranges_read_as_slices_and_copy_on_write() {
        let table: Arc<[(ConnId, u32)]> = Arc::from(vec![(0, 5), (1, 2), (2, 7)]);
        let mut c = Counts::shared(&table, 1, 2);
        assert_eq!(&*c, &[(1, 2), (2, 7)]);
        assert_eq!(c, Counts::from(vec![(1, 2), (2, 7)]));
        c.add_one(2);
        c.add_one(4);
        assert_eq!(&*c, &[(1, 2), (2, 8), (4, 1)]);
        // The table is untouched.
        assert_eq!(&*Counts::shared(&table, 1, 2), &[(1, 2), (2, 7)]);
        // Out of range: empty, never a panic.
        assert!(Counts::shared(&table, 2, 5).is_empty());
        assert!(Counts::shared(&table, usize::MAX, 2).is_empty());
    }

    #[test]
    fn no_larger_than_a_vec() {
        assert!(std::mem::size_of::<Counts>() <= 32);
    }
}
