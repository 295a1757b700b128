//! A chunk's messages per connection, without a heap allocation per chunk when read from an
//! index: the counts of every chunk info of a bag live in one shared table, and each chunk
//! holds its range of it. Chunks built one message at a time (recovery, following a growing
//! recording) own their list.
//!
//! A chunk does not point at the shared table itself but at a [`TableHandle`] onto it, and
//! each thread attaching chunks makes a handle of its own: the reference count a chunk's
//! clone touches is then its thread's alone. With one count for every chunk of a bag, two
//! threads attaching a million chunks bounced its cache line between the cores: 17 ms of
//! `info`'s 119 at a million chunks (a build without the attach took 102 ms).

use std::ops::Deref;
use std::sync::Arc;

use super::connection::ConnId;

/// `(connection, messages)` pairs of one chunk; reads as a slice.
///
/// 16 bytes: a range of a shared table (an `Arc` of one thin pointer), so a million chunks
/// read from an index hold no list each. A list of its own is the same thing over a table
/// holding only it.
#[derive(Clone, Default)]
pub struct Counts {
    /// The table: a handle on the bag's (shared by its chunks) or the chunk's own list; none
    /// for an empty list (no reference count touched to make one).
    table: Option<Arc<Table>>,
    /// First pair of the range.
    start: u32,
    /// Pairs in the range.
    len: u32,
}

/// What a [`Counts`] reads its pairs from.
enum Table {
    /// The pairs themselves: a chunk's own list, or a table only this handle holds.
    Own(Vec<(ConnId, u32)>),
    /// A table other handles hold too.
    Shared(Arc<Vec<(ConnId, u32)>>),
}

impl Table {
    fn pairs(&self) -> &[(ConnId, u32)] {
        match self {
            Table::Own(v) => v,
            Table::Shared(v) => v,
        }
    }
}

/// A handle on a table of counts that chunks point into: one per thread making such chunks
/// (see the module's documentation).
#[derive(Clone)]
pub(crate) struct TableHandle(Arc<Table>);

impl TableHandle {
    /// A new handle on `table`.
    pub fn new(table: &Arc<Vec<(ConnId, u32)>>) -> TableHandle {
        TableHandle(Arc::new(Table::Shared(Arc::clone(table))))
    }

    /// A handle on `table`, which nothing else holds.
    pub fn own(table: Vec<(ConnId, u32)>) -> TableHandle {
        TableHandle(Arc::new(Table::Own(table)))
    }
}

impl Counts {
    /// The `len` pairs of the table `handle` is on, from `start` (an empty list when that
    /// range is not in the table).
    pub(crate) fn shared(handle: &TableHandle, start: usize, len: usize) -> Counts {
        let table_len = handle.0.pairs().len();
        match (u32::try_from(start), u32::try_from(len)) {
            (Ok(s), Ok(l)) if start.checked_add(len).is_some_and(|e| e <= table_len) => Counts {
                table: Some(Arc::clone(&handle.0)),
                start: s,
                len: l,
            },
            _ => Counts::default(),
        }
    }

    /// The range `start..start + len` of a table not complete yet: reads as empty until
    /// [`Counts::attach`] points it into the table (chunks are made while the table of a
    /// bag's chunk infos is still being filled).
    pub(crate) fn range(start: usize, len: usize) -> Counts {
        match (u32::try_from(start), u32::try_from(len)) {
            (Ok(start), Ok(len)) => Counts {
                table: None,
                start,
                len,
            },
            _ => Counts::default(),
        }
    }

    /// `(start, len)` of the range in its table.
    pub(crate) fn span(&self) -> (usize, usize) {
        (self.start as usize, self.len as usize)
    }

    /// Points a range made by [`Counts::range`] into the table `handle` is on (an empty list
    /// when that range is not in the table).
    pub(crate) fn attach(&mut self, handle: &TableHandle) {
        let (start, len) = self.span();
        *self = Counts::shared(handle, start, len);
    }

    /// Adds one message of `conn` (a range of a shared table becomes a list of its own first).
    pub fn add_one(&mut self, conn: ConnId) {
        let table_len = self.table.as_ref().map_or(0, |t| t.pairs().len());
        let whole = self.start == 0 && self.len as usize == table_len;
        // A list only this chunk holds is changed where it is; anything else is copied first.
        let alone = whole
            && matches!(
                self.table.as_mut().and_then(Arc::get_mut),
                Some(Table::Own(_))
            );
        if !alone {
            self.table = Some(Arc::new(Table::Own(self.to_vec())));
            self.start = 0;
        }
        let Some(Table::Own(own)) = self.table.as_mut().and_then(Arc::get_mut) else {
            // Not reached: the list was found to be this chunk's alone, or was just made.
            return;
        };
        match own.iter_mut().find(|(c, _)| *c == conn) {
            Some((_, n)) => *n = n.saturating_add(1),
            None => own.push((conn, 1)),
        }
        self.len = u32::try_from(own.len()).unwrap_or(u32::MAX);
    }
}

impl Deref for Counts {
    type Target = [(ConnId, u32)];

    fn deref(&self) -> &[(ConnId, u32)] {
        let s = self.start as usize;
        s.checked_add(self.len as usize)
            .and_then(|e| self.table.as_ref()?.pairs().get(s..e))
            .unwrap_or_default()
    }
}

impl From<Vec<(ConnId, u32)>> for Counts {
    fn from(v: Vec<(ConnId, u32)>) -> Self {
        // A list longer than `u32::MAX` pairs cannot come from a bag (connection ids are u32
        // and each appears once); it reads as its first `u32::MAX` pairs.
        let len = u32::try_from(v.len()).unwrap_or(u32::MAX);
        Counts {
            table: Some(Arc::new(Table::Own(v))),
            start: 0,
            len,
        }
    }
}

impl FromIterator<(ConnId, u32)> for Counts {
    fn from_iter<I: IntoIterator<Item = (ConnId, u32)>>(iter: I) -> Self {
        Counts::from(iter.into_iter().collect::<Vec<_>>())
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
        let table = TableHandle::new(&Arc::new(vec![(0, 5), (1, 2), (2, 7)]));
        let mut c = Counts::shared(&table, 1, 2);
        assert_eq!(&*c, &[(1, 2), (2, 7)]);
        assert_eq!(c, Counts::from(vec![(1, 2), (2, 7)]));
        c.add_one(2);
        c.add_one(4);
        assert_eq!(&*c, &[(1, 2), (2, 8), (4, 1)]);
        // The table is untouched.
        assert_eq!(&*Counts::shared(&table, 1, 2), &[(1, 2), (2, 7)]);
        // A whole shared table held by one chunk alone is still copied, never changed.
        let whole = Arc::new(vec![(3, 1)]);
        let mut w = Counts::shared(&TableHandle::new(&whole), 0, 1);
        w.add_one(3);
        assert_eq!(&*w, &[(3, 2)]);
        assert_eq!(*whole, vec![(3, 1)]);
        // A list of its own is changed where it is (one allocation for any number of adds).
        let mut own = Counts::from(vec![(1, 1)]);
        own.add_one(1);
        let at = own.as_ptr();
        own.add_one(1);
        assert_eq!(&*own, &[(1, 3)]);
        assert_eq!(own.as_ptr(), at);
        // Copies of a chunk's list are their own: adding to one leaves the other.
        let copy = own.clone();
        own.add_one(5);
        assert_eq!(&*copy, &[(1, 3)]);
        assert_eq!(&*own, &[(1, 3), (5, 1)]);
        // A range made before its table reads as empty until attached.
        let mut r = Counts::range(1, 2);
        assert!(r.is_empty());
        assert_eq!(r.span(), (1, 2));
        r.attach(&table);
        assert_eq!(&*r, &[(1, 2), (2, 7)]);
        let mut r = Counts::range(2, 2);
        r.attach(&table);
        assert!(r.is_empty());
        // Out of range: empty, never a panic.
        assert!(Counts::shared(&table, 2, 5).is_empty());
        assert!(Counts::shared(&table, usize::MAX, 2).is_empty());
    }

    #[test]
    fn sixteen_bytes() {
        assert!(std::mem::size_of::<Counts>() <= 16);
    }
}
