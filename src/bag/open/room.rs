//! Room at the end of a vector, cut into parts that several threads fill at once: items are
//! written where they belong (no list of their own per thread, copied over afterwards), and
//! the fresh pages they land on are faulted in by all the threads instead of one. At a
//! million chunks the chunk list is 48 MB of fresh memory; on a virtual machine faulting it
//! in costs ~3 µs a page, 12–27 ms on one thread.
//!
//! The only unsafe step is the vector's new length, and it counts only places a [`Room`]
//! wrote: rooms are made here alone, written front to back, and checked to be the ones
//! handed out before their items are kept.

#![allow(unsafe_code)]

use std::mem::MaybeUninit;

/// A part of the room past a vector's items, filled front to back.
pub(crate) struct Room<'a, T> {
    slots: &'a mut [MaybeUninit<T>],
    filled: usize,
}

impl<T> Room<'_, T> {
    /// Puts `item` in the next free place; false (and `item` dropped) when the part is full.
    pub fn push(&mut self, item: T) -> bool {
        match self.slots.get_mut(self.filled) {
            Some(slot) => {
                slot.write(item);
                self.filled += 1;
                true
            }
            None => false,
        }
    }

    /// Items put in so far.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.filled
    }

    /// True when every place of the part holds an item.
    #[cfg(test)]
    pub fn is_full(&self) -> bool {
        self.filled == self.slots.len()
    }
}

/// Makes room for `lens.iter().sum()` more items in `vec`, cut into parts of `lens` places
/// in order, and hands the parts to `fill`, which must hand them back (in any state) with its
/// result. `vec` then keeps the items of the parts from the first up to the first part not
/// full, and that part's items; the items put in parts after it are forgotten (never dropped:
/// meant for items that own nothing). A part not handed back ends what is kept there too.
pub(crate) fn with_rooms<T, R>(
    vec: &mut Vec<T>,
    lens: &[usize],
    fill: impl for<'r> FnOnce(Vec<Room<'r, T>>) -> (Vec<Room<'r, T>>, R),
) -> R {
    let total = lens.iter().sum::<usize>();
    vec.reserve(total);
    let len = vec.len();
    // Where each part starts, to know a part handed back for the one handed out.
    let mut handed = Vec::with_capacity(lens.len());
    let (rooms, result) = {
        let mut spare = vec
            .spare_capacity_mut()
            .get_mut(..total)
            .unwrap_or_default();
        let mut rooms = Vec::with_capacity(lens.len());
        for &n in lens {
            let n = n.min(spare.len());
            let (part, rest) = std::mem::take(&mut spare).split_at_mut(n);
            spare = rest;
            handed.push((part.as_ptr(), part.len()));
            rooms.push(Room {
                slots: part,
                filled: 0,
            });
        }
        let (back, result) = fill(rooms);
        let back: Vec<_> = back
            .iter()
            .map(|r| (r.slots.as_ptr(), r.slots.len(), r.filled))
            .collect();
        (back, result)
    };
    let mut kept = 0;
    for (k, &(at, size)) in handed.iter().enumerate() {
        let Some(&(_, _, filled)) = rooms.get(k).filter(|r| r.0 == at && r.1 == size) else {
            break;
        };
        // A room never holds more than its places.
        kept += filled.min(size);
        if filled < size {
            break;
        }
    }
    // SAFETY: the first `kept` places past the old length were written: they are the places
    // of whole parts handed out in order (each checked to be the part handed out at its
    // place, by address and size, so no other memory is counted), and of the first part not
    // full, the `filled` places its `Room` wrote front to back. They are inside the capacity
    // reserved above.
    unsafe {
        vec.set_len(len + kept);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_vector_keeps_the_parts_filled_up_to_the_first_not_full() {
        let mut v = vec![1u64, 2];
        let sums = with_rooms(&mut v, &[3, 2, 4], |mut rooms| {
            std::thread::scope(|s| {
                for (k, room) in rooms.iter_mut().enumerate() {
                    s.spawn(move || {
                        // The second part stops one short; the third fills, but is dropped.
                        let n = if k == 1 { 1 } else { 10 };
                        for i in 0..n {
                            if !room.push(100 * k as u64 + i) {
                                break;
                            }
                        }
                    });
                }
            });
            let sum: usize = rooms.iter().map(Room::len).sum();
            (rooms, sum)
        });
        assert_eq!(sums, 3 + 1 + 4);
        assert_eq!(v, vec![1, 2, 0, 1, 2, 100]);
        // All parts full: all kept.
        with_rooms(&mut v, &[1, 1], |mut rooms| {
            for r in &mut rooms {
                assert!(r.push(7));
                assert!(r.is_full() && !r.push(8));
            }
            (rooms, ())
        });
        assert_eq!(v, vec![1, 2, 0, 1, 2, 100, 7, 7]);
    }

    #[test]
    fn parts_not_handed_back_in_place_keep_nothing_from_there() {
        let mut v: Vec<String> = Vec::new();
        with_rooms(&mut v, &[1, 1], |mut rooms| {
            for r in &mut rooms {
                r.push("x".to_string());
            }
            rooms.swap(0, 1);
            (rooms, ())
        });
        assert!(v.is_empty());
        with_rooms(&mut v, &[2, 2], |mut rooms| {
            for r in &mut rooms {
                r.push("y".to_string());
                r.push("z".to_string());
            }
            rooms.truncate(1);
            (rooms, ())
        });
        assert_eq!(v, ["y", "z"]);
    }
}
