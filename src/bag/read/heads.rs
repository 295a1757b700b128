//! What each chunk record's header says (where its data is, how long, how compressed), kept
//! apart from the chunk infos so that a bag can be opened from its index section alone: for a
//! bag of many chunks the headers are read later, in large sequential batches (all of them by
//! [`crate::bag::Bag::read_heads`], or a batch from a chunk on when it is first needed).
//!
//! The values live in one array per field (no allocation, no `Option` per chunk; 17 bytes a
//! chunk), each slot set at most once from any thread.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU8, AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};

use crate::format::{ChunkHeader, Compression, read_head};

use crate::bag::chunk::Chunk;
use crate::bag::parallel::parallel_map;
use crate::bag::source::Source;

/// What a chunk record's header says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChunkHead {
    /// File offset of the chunk's (compressed) data.
    pub data_offset: u64,
    /// Bytes of compressed data present in the file.
    pub compressed_size: u64,
    /// Declared uncompressed size.
    pub uncompressed_size: u64,
    /// Compression method.
    pub compression: Compression,
    /// File offset where the chunk's index data records start (2.0), if known.
    pub index_data_pos: Option<u64>,
}

/// What is known of one chunk's header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HeadState {
    /// Read and checked against the chunk info.
    Known(ChunkHead),
    /// Not read yet.
    Pending,
    /// Read, and not the chunk record the chunk info points to: why.
    Bad(String),
}

/// A slot not read yet: zero, so that the arrays of a bag opened from its index start as
/// zeroed memory the system hands out untouched (not resident until a header is read).
const PENDING: u64 = 0;
const BAD: u64 = 1;
/// Being set by one thread (reads as pending).
const BUSY: u64 = 2;
/// A known `data_offset` is stored plus this.
const KNOWN: u64 = 3;
/// The index data records start right after the data.
const INDEX_AFTER: u8 = 0x80;
/// The index data records start elsewhere (a followed recording): see `Heads::index_at`.
const INDEX_ELSEWHERE: u8 = 0x40;
/// A size does not fit 32 bits (the whole-file pseudo-chunk of a big old bag): see
/// `Heads::wide`.
const WIDE: u8 = 0x20;

/// The chunk headers of a bag, one slot per chunk.
#[derive(Default)]
pub(crate) struct Heads {
    /// `data_offset` + [`KNOWN`], or [`PENDING`] / [`BUSY`] / [`BAD`]; set last, with `Release`.
    offset: Box<[AtomicU64]>,
    /// `compressed_size` (a chunk record's data length is a `u32`), unless flagged [`WIDE`].
    compressed: Box<[AtomicU32]>,
    /// `uncompressed_size` (a `u32` in the chunk record header), unless flagged [`WIDE`].
    size: Box<[AtomicU32]>,
    /// Compression code, and [`INDEX_AFTER`] or [`INDEX_ELSEWHERE`].
    flags: Box<[AtomicU8]>,
    /// Where the index data of the chunks flagged [`INDEX_ELSEWHERE`] starts (rare).
    index_at: Mutex<HashMap<u32, u64>>,
    /// `(compressed_size, uncompressed_size)` of the chunks flagged [`WIDE`] (rare).
    wide: Mutex<HashMap<u32, (u64, u64)>>,
    pending: AtomicUsize,
    bad: Mutex<HashMap<u32, String>>,
    /// Held by [`read_all`]: a second caller waits for the first to finish instead of
    /// reading the same batches again.
    reading_all: Mutex<()>,
}

impl std::fmt::Debug for Heads {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Heads")
            .field("chunks", &self.offset.len())
            .field("pending", &self.pending())
            .finish_non_exhaustive()
    }
}

fn code(c: Compression) -> u8 {
    match c {
        Compression::None => 0,
        Compression::Bz2 => 1,
        Compression::Lz4 => 2,
        Compression::Zstd => 3,
    }
}

fn method(code: u8) -> Compression {
    match code & 0x0f {
        1 => Compression::Bz2,
        2 => Compression::Lz4,
        3 => Compression::Zstd,
        _ => Compression::None,
    }
}

impl Heads {
    /// `n` slots, none read yet.
    pub fn pending_for(n: usize) -> Self {
        Heads {
            // Zeroed allocations: nothing is written (nor made resident) for 1 M chunks.
            offset: bytemuck::zeroed_slice_box(n),
            compressed: bytemuck::zeroed_slice_box(n),
            size: bytemuck::zeroed_slice_box(n),
            flags: bytemuck::zeroed_slice_box(n),
            index_at: Mutex::new(HashMap::new()),
            wide: Mutex::new(HashMap::new()),
            pending: AtomicUsize::new(n),
            bad: Mutex::new(HashMap::new()),
            reading_all: Mutex::new(()),
        }
    }

    /// Slots for heads all known already (stored as they come: no other thread sees the
    /// slots yet, and a followed recording's snapshot makes a million of them).
    pub fn known(heads: impl ExactSizeIterator<Item = ChunkHead>) -> Self {
        let h = Heads::pending_for(heads.len());
        let mut set = 0;
        for (i, head) in heads.enumerate() {
            if let Some(slot) = h.slot_for(i, &head) {
                h.store(i, &head, slot);
                set += 1;
            }
        }
        h.settled(set);
        h
    }

    /// Chunks whose header has not been read yet.
    pub fn pending(&self) -> usize {
        self.pending.load(Ordering::Acquire)
    }

    /// The head of chunk `i` if it is known (never reads).
    pub fn get(&self, i: usize) -> Option<ChunkHead> {
        let offset = self
            .offset
            .get(i)?
            .load(Ordering::Acquire)
            .checked_sub(KNOWN)?;
        let flags = self.flags.get(i)?.load(Ordering::Relaxed);
        let (compressed_size, uncompressed_size) = if flags & WIDE != 0 {
            self.wide
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .get(&u32::try_from(i).ok()?)
                .copied()?
        } else {
            (
                u64::from(self.compressed.get(i)?.load(Ordering::Relaxed)),
                u64::from(self.size.get(i)?.load(Ordering::Relaxed)),
            )
        };
        let index_data_pos = if flags & INDEX_AFTER != 0 {
            Some(offset.saturating_add(compressed_size))
        } else if flags & INDEX_ELSEWHERE != 0 {
            self.index_at
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .get(&u32::try_from(i).ok()?)
                .copied()
        } else {
            None
        };
        Some(ChunkHead {
            data_offset: offset,
            compressed_size,
            uncompressed_size,
            compression: method(flags),
            index_data_pos,
        })
    }

    /// What is known of chunk `i` (a chunk out of range reads as bad).
    pub fn state(&self, i: usize) -> HeadState {
        match self.offset.get(i).map(|o| o.load(Ordering::Acquire)) {
            None => HeadState::Bad(format!("there is no chunk {i}")),
            Some(PENDING | BUSY) => HeadState::Pending,
            Some(BAD) => HeadState::Bad(
                self.bad
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .get(&u32::try_from(i).unwrap_or(u32::MAX))
                    .cloned()
                    .unwrap_or_default(),
            ),
            Some(_) => self.get(i).map_or(HeadState::Pending, HeadState::Known),
        }
    }

    /// Settles pending slot `i` to `offset` (a marker: [`BAD`]); true if it was pending (the
    /// caller counts it off [`Heads::pending`]).
    fn settle(&self, i: usize, offset: u64) -> bool {
        self.offset.get(i).is_some_and(|o| {
            o.compare_exchange(PENDING, offset, Ordering::AcqRel, Ordering::Acquire)
                .is_ok()
        })
    }

    /// Counts `n` slots settled off [`Heads::pending`] (once per batch: one shared counter
    /// updated per chunk from several threads would bounce between their caches).
    fn settled(&self, n: usize) {
        if n > 0 {
            self.pending.fetch_sub(n, Ordering::AcqRel);
        }
    }

    /// Sets the head of chunk `i` if it is pending (the readers set heads a batch at a time).
    #[cfg(test)]
    pub fn set(&self, i: usize, head: ChunkHead) {
        if self.put(i, head) {
            self.settled(1);
        }
    }

    /// Sets the head of chunk `i` if it is pending, without counting the slot off
    /// [`Heads::pending`]; true if it was pending. A data offset of `u64::MAX - 1` or more
    /// cannot be in a file and is not stored.
    fn put(&self, i: usize, head: ChunkHead) -> bool {
        let Some(found) = self.slot_for(i, &head) else {
            return false;
        };
        let slot = found.offset;
        // Claimed with a write, not checked with a read first: a page of zeroed slots read
        // first is mapped to the shared zero page and copied on the write after, which
        // flushes every core's TLB (a tenth of `info`'s time at a million chunks).
        if let Err(mut now) =
            slot.compare_exchange(PENDING, BUSY, Ordering::AcqRel, Ordering::Acquire)
        {
            // Another thread is setting it (from the same bytes): wait the few stores it
            // takes, so that the slot is settled when this returns.
            while now == BUSY {
                std::thread::yield_now();
                now = slot.load(Ordering::Acquire);
            }
            return false;
        }
        self.store(i, &head, found);
        true
    }

    /// Where the head of chunk `i` goes: `None` for a chunk out of range, or a data offset of
    /// `u64::MAX - 1` or more (not in any file; not stored).
    fn slot_for(&self, i: usize, head: &ChunkHead) -> Option<Slot<'_>> {
        Some(Slot {
            offset: self.offset.get(i)?,
            stored: head.data_offset.checked_add(KNOWN)?,
            key: u32::try_from(i).ok()?,
        })
    }

    /// Stores `head` in slot `i`, with what does not fit a slot in the side tables; the data
    /// offset last, with `Release`: whoever reads it sees the rest.
    fn store(
        &self,
        i: usize,
        head: &ChunkHead,
        Slot {
            offset,
            stored,
            key,
        }: Slot<'_>,
    ) {
        let after = head.data_offset.saturating_add(head.compressed_size);
        let index = match head.index_data_pos {
            None => 0,
            Some(p) if p == after => INDEX_AFTER,
            Some(p) => {
                self.index_at
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .insert(key, p);
                INDEX_ELSEWHERE
            }
        };
        let narrow = (
            u32::try_from(head.compressed_size),
            u32::try_from(head.uncompressed_size),
        );
        let (compressed, size, wide) = if let (Ok(c), Ok(s)) = narrow {
            (c, s, 0)
        } else {
            self.wide
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .insert(key, (head.compressed_size, head.uncompressed_size));
            (0, 0, WIDE)
        };
        let flags = code(head.compression) | index | wide;
        if let (Some(c), Some(s), Some(f)) =
            (self.compressed.get(i), self.size.get(i), self.flags.get(i))
        {
            c.store(compressed, Ordering::Relaxed);
            s.store(size, Ordering::Relaxed);
            f.store(flags, Ordering::Relaxed);
        }
        offset.store(stored, Ordering::Release);
    }

    /// Marks chunk `i`'s header as not what its chunk info says, with why.
    pub fn set_bad(&self, i: usize, why: String) {
        let mut bad = self.bad.lock().unwrap_or_else(PoisonError::into_inner);
        if self.settle(i, BAD) {
            self.settled(1);
            bad.insert(u32::try_from(i).unwrap_or(u32::MAX), why);
        }
    }

    /// The first bad header in chunk order, if any: `(chunk, why)`.
    pub fn first_bad(&self) -> Option<(u32, String)> {
        self.all_bad().into_iter().next()
    }

    /// Every bad header found so far, in chunk order: `(chunk, why)`.
    pub fn all_bad(&self) -> Vec<(u32, String)> {
        let bad = self.bad.lock().unwrap_or_else(PoisonError::into_inner);
        let mut list: Vec<(u32, String)> = bad.iter().map(|(i, w)| (*i, w.clone())).collect();
        list.sort_unstable();
        list
    }
}

/// A chunk's slot in [`Heads`], found by [`Heads::slot_for`].
#[derive(Clone, Copy)]
struct Slot<'h> {
    /// Its data offset cell.
    offset: &'h AtomicU64,
    /// What the cell holds once the head is known.
    stored: u64,
    /// The chunk's number as a key of the side tables.
    key: u32,
}

/// Where a chunk record's header is expected to end at most (longer ones take a second read).
const GUESS: usize = 128;

/// Reads the record header at `pos` with one small positioned read (two when the header is
/// unusually long).
fn head_at(source: &Source, pos: u64) -> std::borrow::Cow<'_, [u8]> {
    let first = source.read_at(pos, GUESS);
    let needed = head_len(&first).unwrap_or(GUESS);
    if needed <= first.len() || first.len() < GUESS {
        return first;
    }
    source.read_at(pos, needed)
}

/// Bytes from a record's start through its data length field, from its header length field.
fn head_len(bytes: &[u8]) -> Option<usize> {
    bytes
        .get(..4)
        .and_then(crate::format::cursor::le_u32)
        .map(|h| (h as usize).saturating_add(8))
}

/// Chunks whose records start less than this apart share one read of their headers.
const NEAR: u64 = 32 << 10;
/// Reads of far-apart chunk headers timed before choosing how many threads make the rest.
const PROBE: usize = 64;
/// Longer than a small read from the page cache takes (a few microseconds), shorter than a
/// read from a disk or a network file system.
const CACHED_READ: std::time::Duration = std::time::Duration::from_micros(15);
/// The longest read of chunk headers in one batch.
const BATCH_BYTES: u64 = 4 << 20;

/// Consecutive chunks from `from` (before `to`), in file order and close together, whose
/// headers one read covers: `(first, past the last, bytes from the first chunk's position)`.
/// Chunks far apart (or listed out of order) get a batch each.
fn batches(chunks: &[Chunk], from: usize, to: usize) -> Vec<(usize, usize, usize)> {
    let mut out = Vec::new();
    let mut first = from;
    let to = to.min(chunks.len());
    for i in from + 1..=to {
        let (Some(a), Some(b)) = (chunks.get(first), chunks.get(i - 1)) else {
            break;
        };
        let next = chunks.get(i).filter(|_| i < to).map(|c| c.pos);
        let joins = next.is_some_and(|n| {
            n > b.pos && n - b.pos < NEAR && n - a.pos + GUESS as u64 <= BATCH_BYTES
        });
        if !joins {
            let span = b.pos - a.pos + GUESS as u64;
            out.push((first, i, usize::try_from(span).unwrap_or(GUESS)));
            first = i;
        }
    }
    out
}

/// Reads the pending heads of chunks `from..to` in batches, one after the other, into
/// `bytes` (a buffer reused from call to call: a fresh one would be zeroed and faulted in
/// again for every group of batches).
fn read_batches(
    source: &Source,
    chunks: &[Chunk],
    heads: &Heads,
    batches: &[(usize, usize, usize)],
    bytes: &mut Vec<u8>,
) {
    // The layout of the last chunk record header: the next ones are read by comparing bytes.
    let mut shape = None;
    // Counted off `pending` once for the whole list: one shared counter touched per batch
    // bounces between the cores reading (thousands of far-apart chunks are a batch each).
    let mut settled = 0;
    for &(first, past, span) in batches {
        if (first..past).all(|i| heads.get(i).is_some()) {
            continue;
        }
        let Some(start) = chunks.get(first).map(|c| c.pos) else {
            continue;
        };
        if source.read_exact_into(start, span as u64, bytes).is_err() {
            // The file changed under us: the chunks below fail to check out and the caller
            // reports the change.
            bytes.clear();
        }
        for i in first..past {
            let Some(chunk) = chunks.get(i) else { continue };
            let at = usize::try_from(chunk.pos - start).unwrap_or(usize::MAX);
            let here = bytes.get(at..).unwrap_or_default();
            let whole = head_len(here).is_some_and(|n| n <= here.len());
            let head = if whole {
                check(source.len(), chunk.pos, here, &mut shape)
            } else {
                check(
                    source.len(),
                    chunk.pos,
                    &head_at(source, chunk.pos),
                    &mut shape,
                )
            };
            match head {
                Ok(h) => settled += usize::from(heads.put(i, h)),
                Err(why) => heads.set_bad(i, why),
            }
        }
    }
    heads.settled(settled);
}

/// Reads every pending head, with one read per batch of nearby chunks and, with many chunks,
/// batches on up to `threads` threads.
pub(crate) fn read_all(source: &Source, chunks: &[Chunk], heads: &Heads, threads: usize) {
    if heads.pending() == 0 {
        return;
    }
    let _one = heads
        .reading_all
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if heads.pending() == 0 {
        return;
    }
    let all = batches(chunks, 0, chunks.len());
    let mut batches = &all[..];
    // Chunks far apart are one small read each. Waiting on a disk or a network file system,
    // more reads are kept in flight than there are cores; from the page cache each takes a
    // few microseconds, and threads beyond the cores would only cost their start. Which it is
    // is told by timing the first reads, made here.
    let far_apart = batches.len() * 2 > chunks.len();
    let mut waits = far_apart;
    let mut first = Vec::new();
    if far_apart && chunks.len() >= 512 {
        let (probe, rest) = batches.split_at(PROBE.min(batches.len()));
        let started = std::time::Instant::now();
        read_batches(source, chunks, heads, probe, &mut first);
        waits = started.elapsed() > CACHED_READ * u32::try_from(probe.len()).unwrap_or(u32::MAX);
        batches = rest;
    }
    let threads = if chunks.len() < 512 {
        1
    } else if waits {
        threads.max(1).saturating_mul(4).clamp(8, 32)
    } else {
        threads.max(1)
    };
    let per_group = batches.len().div_ceil(threads * 8).max(1);
    let groups: Vec<&[(usize, usize, usize)]> = batches.chunks(per_group).collect();
    // One buffer per thread at most, passed from group to group.
    let buffers = Mutex::new(vec![first]);
    parallel_map(&groups, threads, |group| {
        let mut bytes = buffers
            .lock()
            .ok()
            .and_then(|mut b| b.pop())
            .unwrap_or_default();
        read_batches(source, chunks, heads, group, &mut bytes);
        if let Ok(mut b) = buffers.lock() {
            b.push(bytes);
        }
    });
}

/// Reads the head of chunk `i`, and with it those of the chunks that follow it closely (one
/// read of up to [`BATCH_BYTES`]): a reader going through the chunks in order makes one read
/// per batch, not one per chunk.
pub(crate) fn read_from(source: &Source, chunks: &[Chunk], heads: &Heads, i: usize) {
    let to = i.saturating_add(4096).min(chunks.len());
    let mut list = batches(chunks, i, to);
    list.truncate(1);
    read_batches(source, chunks, heads, &list, &mut Vec::new());
}

/// Checks the chunk record at `pos` (a chunk info points there), from `bytes` read at `pos`.
fn check(
    len: u64,
    pos: u64,
    bytes: &[u8],
    shape: &mut Option<crate::format::shape::Shape>,
) -> Result<ChunkHead, String> {
    if pos >= len {
        return Err(format!(
            "a chunk info points to byte {pos} beyond the end of the file"
        ));
    }
    if let Some((ch, data_len, data_at)) = ChunkHeader::read_shaped(bytes, shape) {
        let data_offset = pos.saturating_add(data_at as u64);
        let end = data_offset.saturating_add(u64::from(data_len));
        if end <= len {
            return Ok(ChunkHead {
                data_offset,
                compressed_size: u64::from(data_len),
                uncompressed_size: u64::from(ch.size),
                compression: ch.compression,
                index_data_pos: Some(end),
            });
        }
    }
    let not_a_chunk = |e| format!("a chunk info points to byte {pos} which is not a chunk: {e}");
    let head = read_head(bytes, 0, pos).map_err(not_a_chunk)?;
    let ch = ChunkHeader::from_head(&head).map_err(not_a_chunk)?;
    if head.end() > len {
        return Err(format!(
            "the chunk at byte {pos} runs past the end of the file"
        ));
    }
    Ok(ChunkHead {
        data_offset: head.data_offset,
        compressed_size: u64::from(head.data_len),
        uncompressed_size: u64::from(ch.size),
        compression: ch.compression,
        index_data_pos: Some(head.data_offset.saturating_add(u64::from(head.data_len))),
    })
}

#[cfg(test)]
#[path = "heads_tests.rs"]
mod tests;
