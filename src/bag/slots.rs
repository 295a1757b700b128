//! One lazily filled value per chunk, in pages allocated on first use: a bag of a million
//! chunks whose entries are read for a few of them holds a few pages, not a million empty
//! slots.

use std::sync::OnceLock;

/// Slots per page.
const PAGE: usize = 1024;

/// [`PAGE`] slots.
type Page<T> = Box<[OnceLock<T>]>;

/// `len` slots, each set at most once.
pub(crate) struct Slots<T> {
    pages: Box<[OnceLock<Page<T>>]>,
    len: usize,
}

impl<T> Slots<T> {
    /// `len` empty slots.
    pub fn new(len: usize) -> Self {
        Slots {
            pages: (0..len.div_ceil(PAGE)).map(|_| OnceLock::new()).collect(),
            len,
        }
    }

    fn slot(&self, i: usize) -> Option<&OnceLock<T>> {
        if i >= self.len {
            return None;
        }
        self.pages
            .get(i / PAGE)?
            .get_or_init(|| (0..PAGE).map(|_| OnceLock::new()).collect())
            .get(i % PAGE)
    }

    /// The value of slot `i` if it is set (never allocates a page).
    pub fn get(&self, i: usize) -> Option<&T> {
        self.pages.get(i / PAGE)?.get()?.get(i % PAGE)?.get()
    }

    /// The value of slot `i`, computed by `f` the first time (`None` when `i` is out of range).
    pub fn get_or_init(&self, i: usize, f: impl FnOnce() -> T) -> Option<&T> {
        Some(self.slot(i)?.get_or_init(f))
    }

    /// Sets slot `i` if it is empty.
    pub fn set(&self, i: usize, value: T) {
        if let Some(s) = self.slot(i) {
            let _ = s.set(value);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Slots;

    #[test]
    fn pages_appear_on_first_use() {
        let s: Slots<u32> = Slots::new(3000);
        assert_eq!(s.get(2500), None);
        assert_eq!(s.get_or_init(2500, || 7), Some(&7));
        assert_eq!(s.get_or_init(2500, || 9), Some(&7));
        assert_eq!(s.get(2500), Some(&7));
        assert_eq!(s.get(2501), None);
        s.set(0, 1);
        s.set(0, 2);
        assert_eq!(s.get(0), Some(&1));
        assert_eq!(s.get_or_init(3000, || 1), None);
        assert_eq!(s.get(usize::MAX), None);
        assert_eq!(s.pages.iter().filter(|p| p.get().is_some()).count(), 2);
    }
}
