//! Huge pages for the few large arrays of a bag of very many chunks (its chunk list, counts
//! table and chunk head slots: tens of MB at a million chunks). Filled one 4 KiB page at a
//! time, they take one page fault per page, and on a virtual machine a fault costs
//! microseconds: a tenth of `info`'s time at a million chunks. Backed by 2 MiB pages they
//! take a few dozen. Where transparent huge pages are off (or not Linux) this does nothing.

#![allow(unsafe_code)]

/// Arrays smaller than this are left alone (no whole huge page inside).
const WORTH: usize = 4 << 20;
/// The huge page size of x86-64 and most arm64 kernels.
const HUGE: usize = 2 << 20;

/// Asks the system to back the 2 MiB-aligned part of `bytes` bytes at `start` with huge
/// pages when first touched.
fn advise(start: usize, bytes: usize) {
    if bytes < WORTH {
        return;
    }
    let (Some(from), Some(to)) = (
        start.checked_next_multiple_of(HUGE),
        start.checked_add(bytes).map(|e| e & !(HUGE - 1)),
    ) else {
        return;
    };
    if to <= from {
        return;
    }
    #[cfg(target_os = "linux")]
    // SAFETY: `madvise` with `MADV_HUGEPAGE` only gives advice on how to back a range of our
    // own allocation (the caller's array, whose capacity covers `start..start + bytes`); it
    // does not change what the memory holds, move it or free it. It can fail (huge pages
    // off): then nothing changed, and nothing needs it to succeed.
    unsafe {
        libc::madvise(from as *mut libc::c_void, to - from, libc::MADV_HUGEPAGE);
    }
}

/// [`advise`] for the whole capacity of `v` (call it before filling `v`).
pub(crate) fn for_vec<T>(v: &Vec<T>) {
    advise(
        v.as_ptr() as usize,
        v.capacity().saturating_mul(std::mem::size_of::<T>()),
    );
}

/// [`advise`] for the slice `v` (call it before writing to `v`).
pub(crate) fn for_slice<T>(v: &[T]) {
    advise(v.as_ptr() as usize, std::mem::size_of_val(v));
}
