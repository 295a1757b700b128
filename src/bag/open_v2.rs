//! Opening an indexed 2.0 bag from its index alone: the bag header and the connection and
//! chunk info records at `index_pos`. Each chunk's record header is read now for a bag of few
//! chunks, later for one of many (see [`super::heads`]). No chunk is decompressed; the work
//! is proportional to the number of chunks, not to the file size.
//!
//! Everything that can be cross-checked is: counts in the bag header, chunk positions, chunk
//! record headers, connection ids in chunk infos. Any inconsistency makes the caller fall back
//! to a recovery scan.

use std::collections::HashMap;
use std::sync::Arc;

use crate::format::{
    BagHeader, ChunkInfoHead, ConnectionRecord, Op, read_head, read_record, record_end,
};

use super::chunk::{Chunk, ChunkLayout, ChunkState};
use super::connection::ConnId;
use super::counts::Counts;
use super::error::Warning;
use super::heads::{Heads, read_all};
use super::opened::Opened;
use super::source::Source;
use super::table::ConnTable;
use super::totals::set_message_counts;

/// The fewest bytes a chunk info record takes (its header's six fields and one count).
const MIN_CHUNK_INFO: usize = 96;

/// Why the index cannot be used; the caller scans the file instead.
pub(crate) type Fallback = String;

/// Reads the index of a 2.0 bag whose bag header is `header`.
pub(crate) fn open_indexed(
    source: &Source,
    header: &BagHeader,
    threads: usize,
    lazy_from: usize,
) -> Result<Opened, Fallback> {
    let len = source.len();
    let index_pos = header.index_pos;
    if let Some(why) = no_index(index_pos, len) {
        return Err(why);
    }
    // Sized once from the chunk count the bag header announces, as far as the section can
    // hold that many records (growing vectors of a million entries costs more than filling
    // them).
    let section_len = usize::try_from(len - index_pos).unwrap_or(usize::MAX);
    let expected = header
        .chunk_count
        .map_or(0, |n| (n as usize).min(section_len / MIN_CHUNK_INFO));
    let index = read_section(source, index_pos, expected, threads)?;
    let Index {
        conns,
        mut warnings,
        mut chunks,
        table,
        shape: _,
    } = index;
    if let Some(n) = header.chunk_count {
        if n as usize != chunks.len() {
            return Err(format!(
                "the bag header announces {n} chunks but the index section holds {} chunk info records",
                chunks.len()
            ));
        }
    }
    if let Some(n) = header.conn_count {
        if n as usize != conns.len() {
            warnings.push(Warning::general(format!(
                "the bag header announces {n} connections but the index section holds {}",
                conns.len()
            )));
        }
    }
    let (mut connections, map) = conns.finish();
    let counts = counts_table(table, &chunks, &map)?;
    check_positions(&chunks, len)?;
    for c in &mut chunks {
        c.counts.attach(&counts);
    }
    let heads = Heads::pending_for(chunks.len());
    if chunks.len() < lazy_from {
        // Few chunks: their headers are read and checked now, and a bag whose chunk infos
        // do not lead to chunk records is scanned instead.
        read_all(source, &chunks, &heads, threads);
        if let Some((_, why)) = heads.first_bad() {
            return Err(why);
        }
    }
    set_message_counts(&mut connections, &chunks);
    Ok(Opened {
        connections,
        conn_map: map,
        chunks,
        heads,
        entries: Vec::new(),
        warnings,
        recovery: None,
    })
}

/// Why a bag of `len` bytes whose header places its index section at `index_pos` has none
/// to read (the file is then scanned), if it has not.
pub(crate) fn no_index(index_pos: u64, len: u64) -> Option<Fallback> {
    if index_pos == 0 {
        return Some("the bag header's index_pos is 0: the recording was not closed (crashed or still in progress)".into());
    }
    (index_pos > len).then(|| {
        format!(
            "the index section should start at byte {index_pos} but the file has only {len} bytes: the file is truncated"
        )
    })
}

/// Reads the index section from `index_pos` to the end of the file: runs of chunk info
/// records on `threads` threads, anything else one record at a time.
fn read_section(
    source: &Source,
    index_pos: u64,
    expected: usize,
    threads: usize,
) -> Result<Index, Fallback> {
    let len = source.len();
    let section_len = usize::try_from(len - index_pos).unwrap_or(usize::MAX);
    let mut index = Index {
        conns: ConnTable::default(),
        shape: None,
        warnings: Vec::new(),
        chunks: Vec::with_capacity(expected),
        table: Vec::with_capacity(expected),
    };
    super::huge_pages::for_vec(&index.chunks);
    super::huge_pages::for_vec(&index.table);
    // The section is read in windows of a few MiB into one buffer; a record that does not
    // parse from a window is parsed again from the rest of the file, so damage reads as it
    // would from the whole section at once. A section too short to hold a run for two threads
    // is read in small windows: fewer fresh pages to fault in, and no run of it could be
    // parsed on several threads anyway.
    let size = if section_len < 2 * PER_THREAD * MIN_CHUNK_INFO {
        SMALL_WINDOW
    } else {
        WINDOW
    };
    let mut window = Window::new(source, size);
    let mut pos = index_pos;
    // Records parsed one at a time before runs are tried again (after a record a run could
    // not take: connection records, damage).
    let mut one_by_one = 0usize;
    while pos < len {
        if threads > 1 && one_by_one == 0 {
            match index.take_run(window.at(pos, AHEAD), pos, threads) {
                Run::Took(next) => {
                    pos = next;
                    continue;
                }
                Run::StoppedAt(at) => {
                    pos = at;
                    one_by_one = SLOW_AFTER_STOP;
                }
                Run::TooShort => one_by_one = SLOW_AFTER_STOP,
            }
            if pos >= len {
                break;
            }
        }
        pos = match index.record_at(window.at(pos, AHEAD), pos) {
            Err(_) if !window.reaches_end() => index.record_at(window.at(pos, section_len), pos)?,
            next => next?,
        };
        one_by_one = one_by_one.saturating_sub(1);
    }
    Ok(index)
}

/// Bytes of the index section read at a time.
const WINDOW: usize = 4 << 20;
/// Bytes of a short index section read at a time.
const SMALL_WINDOW: usize = 256 << 10;
/// The fewest whole records worth parsing on several threads at once.
const MIN_RUN: usize = 256;
/// The fewest records of a run worth another thread.
const PER_THREAD: usize = 4096;
/// Records parsed one at a time after a run stopped (or was too short) before another run.
const SLOW_AFTER_STOP: usize = 64;

/// What [`Index::take_run`] did.
enum Run {
    /// Took every whole record of the buffer; the next record starts here.
    Took(u64),
    /// Took the records before this one, which the one-at-a-time path must read.
    StoppedAt(u64),
    /// Fewer than [`MIN_RUN`] whole records: nothing taken.
    TooShort,
}

/// The chunk info records of a stretch of a run, parsed on one thread of several: chunks
/// numbered, and their counts ranged, from the start of the part's own lists.
struct Part {
    chunks: Vec<Chunk>,
    table: Vec<(u32, u32)>,
    /// False when a record did not parse (it has no chunk in `chunks`).
    whole: bool,
}

/// Parses the chunk info records at `starts` of `buf` (whose first byte is at absolute
/// offset `base`) with the fast parser, appending a chunk per record to `chunks` and its
/// counts to `table` (no list in between: a run on one thread goes straight into the index's
/// lists). Stops at the first record it does not take or that does not end where the next
/// one starts: false then.
fn parse_part(
    buf: &[u8],
    (base, starts, next): (u64, &[usize], usize),
    chunks: &mut Vec<Chunk>,
    table: &mut Vec<(u32, u32)>,
) -> bool {
    let mut shape = None;
    for (k, &at) in starts.iter().enumerate() {
        let following = starts.get(k + 1).copied().unwrap_or(next) as u64;
        let before = table.len();
        let rest = buf.get(at..).unwrap_or_default();
        match ChunkInfoHead::read_shaped(rest, base + at as u64, table, &mut shape) {
            Some(info) if info.end == base + following => {
                let len = table.len() - before;
                chunks.push(chunk_of(&info, chunks.len(), before, len));
            }
            _ => {
                table.truncate(before);
                return false;
            }
        }
    }
    true
}

/// The chunk of chunk info `info`, chunk number `index`, whose counts are
/// `table[start..start + len]`.
fn chunk_of(info: &ChunkInfoHead, index: usize, start: usize, len: usize) -> Chunk {
    Chunk {
        index: u32::try_from(index).unwrap_or(u32::MAX),
        pos: info.chunk_pos,
        layout: ChunkLayout::V2,
        state: ChunkState::Complete,
        start: info.start_time,
        end: info.end_time,
        counts: Counts::range(start, len),
    }
}
/// The window is read again from a record when fewer bytes than this are left in it (a
/// longer record is parsed from the rest of the file).
const AHEAD: usize = 64 << 10;

/// What the index section holds, as it is read.
struct Index {
    conns: ConnTable,
    /// The layout of the last chunk info header read one at a time.
    shape: Option<crate::format::shape::Shape>,
    warnings: Vec<Warning>,
    /// A chunk per chunk info, its counts attached once the table is complete.
    chunks: Vec<Chunk>,
    /// The counts of every chunk info, in order (each chunk holds its range).
    table: Vec<(u32, u32)>,
}

impl Index {
    /// Adds the chunk of a chunk info whose counts were just appended to the table; returns
    /// where the next record starts.
    fn push(&mut self, info: &ChunkInfoHead) -> u64 {
        let start = self.chunks.last().map_or(0, |c| {
            let (start, len) = c.counts.span();
            start + len
        });
        self.add(info, start, self.table.len().saturating_sub(start));
        info.end
    }

    /// Adds the chunk of `info`, whose counts are `table[start..start + len]`.
    fn add(&mut self, info: &ChunkInfoHead, start: usize, len: usize) {
        self.chunks
            .push(chunk_of(info, self.chunks.len(), start, len));
    }

    /// Takes the whole chunk info records at the start of `buf` (at absolute offset `pos`),
    /// parsed on `threads` threads, up to the first one the fast parser does not take (a
    /// connection record, damage: for [`Index::record_at`], which reports it as before).
    fn take_run(&mut self, buf: &[u8], pos: u64, threads: usize) -> Run {
        let mut starts = Vec::new();
        let mut at = 0;
        while let Some(end) = record_end(buf, at) {
            starts.push(at);
            at = end;
        }
        if starts.len() < MIN_RUN {
            return Run::TooShort;
        }
        // A thread parses thousands of records in the time another takes to start.
        let threads = threads.min(starts.len() / PER_THREAD).max(1);
        if threads == 1 {
            let before = self.chunks.len();
            let span = (pos, &starts[..], at);
            if parse_part(buf, span, &mut self.chunks, &mut self.table) {
                return Run::Took(pos + at as u64);
            }
            let stop = starts.get(self.chunks.len() - before).copied();
            return Run::StoppedAt(pos + stop.unwrap_or_default() as u64);
        }
        let per = starts.len().div_ceil(threads);
        let pieces: Vec<(&[usize], usize)> = starts
            .chunks(per)
            .enumerate()
            .map(|(k, piece)| {
                let next = starts.get((k + 1) * per).copied().unwrap_or(at);
                (piece, next)
            })
            .collect();
        let parts = super::parallel::parallel_map(&pieces, threads, |&(piece, next)| {
            let mut part = Part {
                chunks: Vec::with_capacity(piece.len()),
                table: Vec::with_capacity(piece.len()),
                whole: true,
            };
            part.whole = parse_part(buf, (pos, piece, next), &mut part.chunks, &mut part.table);
            part
        });
        for (part, (piece, _)) in parts.into_iter().zip(&pieces) {
            let (first, offset) = (self.chunks.len(), self.table.len());
            self.table.extend_from_slice(&part.table);
            let taken = part.chunks.len();
            self.chunks.extend(part.chunks.into_iter().map(|mut c| {
                c.index = u32::try_from(first + c.index as usize).unwrap_or(u32::MAX);
                let (start, len) = c.counts.span();
                c.counts = Counts::range(offset + start, len);
                c
            }));
            if !part.whole {
                // The record the part stopped at.
                let at = piece.get(taken).copied().unwrap_or_default();
                return Run::StoppedAt(pos + at as u64);
            }
        }
        Run::Took(pos + at as u64)
    }

    /// Takes the record at the start of `buf` (at absolute offset `pos`); returns where the
    /// next one starts. Nothing is kept from a record that fails.
    fn record_at(&mut self, buf: &[u8], pos: u64) -> Result<u64, Fallback> {
        if let Some(info) = ChunkInfoHead::read_shaped(buf, pos, &mut self.table, &mut self.shape) {
            return Ok(self.push(&info));
        }
        let head = read_head(buf, 0, pos)
            .map_err(|e| format!("index section damaged: {e} (at byte {pos})"))?;
        match head.op() {
            Ok(Ok(Op::Connection)) => {
                let (c, end) = read_record(buf, 0, pos)
                    .and_then(|r| ConnectionRecord::from_record(&r).map(|c| (c, r.end())))
                    .map_err(|e| {
                        format!("index section damaged: {e} (at byte {})", e.file_offset())
                    })?;
                self.conns
                    .insert(c.conn, c.topic, c.header, pos, &mut self.warnings);
                Ok(end)
            }
            Ok(Ok(Op::ChunkInfo)) => {
                let info =
                    ChunkInfoHead::read_into(&head, buf, pos, &mut self.table).map_err(|e| {
                        format!("index section damaged: {e} (at byte {})", e.file_offset())
                    })?;
                Ok(self.push(&info))
            }
            Ok(other) => Err(format!(
                "unexpected record (op {}) in the index section at byte {pos}",
                match other {
                    Ok(op) => op.byte(),
                    Err(b) => b,
                }
            )),
            Err(e) => Err(format!("index section damaged: {e} (at byte {pos})")),
        }
    }
}

/// A stretch of the file read into one reused buffer.
struct Window<'s> {
    source: &'s Source,
    start: u64,
    bytes: Vec<u8>,
    /// Bytes read at a time (more when one record needs more).
    size: usize,
}

impl<'s> Window<'s> {
    fn new(source: &'s Source, size: usize) -> Self {
        Window {
            source,
            start: 0,
            bytes: Vec::new(),
            size,
        }
    }

    /// The bytes from `pos`: at least `want` of them unless the file ends first (fewer if it
    /// shrank: then [`Source::changed`] tells).
    fn at(&mut self, pos: u64, want: usize) -> &[u8] {
        let end = self.start + self.bytes.len() as u64;
        let covered =
            pos >= self.start && (pos.saturating_add(want as u64) <= end || self.reaches_end());
        if !covered {
            let len = self.source.len().saturating_sub(pos);
            let take = (want.max(self.size) as u64).min(len);
            self.start = pos;
            // A short read (the file shrank) leaves what was read: parsing fails on what is
            // missing and the caller reports the change.
            let _ = self.source.read_exact_into(pos, take, &mut self.bytes);
        }
        let at = usize::try_from(pos - self.start).unwrap_or(usize::MAX);
        self.bytes.get(at..).unwrap_or_default()
    }

    /// True when the window runs to the end of the file.
    fn reaches_end(&self) -> bool {
        self.start + self.bytes.len() as u64 >= self.source.len()
    }
}

/// The counts table with file connection ids turned into dense ones (an unknown id is a
/// reason to scan the file), shared by all chunks.
fn counts_table(
    mut table: Vec<(u32, u32)>,
    chunks: &[Chunk],
    map: &HashMap<u32, ConnId>,
) -> Result<Arc<Vec<(ConnId, u32)>>, Fallback> {
    // Connection ids are usually small and dense: look them up in a table, not a hash map.
    let max_id = map.keys().copied().max().unwrap_or(0);
    let dense: Option<Vec<Option<ConnId>>> = (max_id < 1 << 20).then(|| {
        let mut t = vec![None; max_id as usize + 1];
        for (&file_id, &id) in map {
            if let Some(slot) = t.get_mut(file_id as usize) {
                *slot = Some(id);
            }
        }
        t
    });
    let lookup = |file_id: u32| match &dense {
        Some(t) => t.get(file_id as usize).copied().flatten(),
        None => map.get(&file_id).copied(),
    };
    for (i, pair) in table.iter_mut().enumerate() {
        pair.0 = lookup(pair.0).ok_or_else(|| {
            // The chunk info whose range holds pair `i`.
            let chunk = chunks.iter().find(|c| {
                let (start, len) = c.counts.span();
                (start..start + len).contains(&i)
            });
            format!(
                "the chunk info of the chunk at byte {} names connection {}, which has no connection record",
                chunk.map_or(0, |c| c.pos),
                pair.0
            )
        })?;
    }
    Ok(Arc::new(table))
}

/// Checks where the chunk infos point: inside the file, no two to the same chunk.
fn check_positions(chunks: &[Chunk], len: u64) -> Result<(), Fallback> {
    // Chunk infos are normally in file order: then no two point to the same chunk.
    let in_order = chunks.windows(2).all(|w| match w {
        [a, b] => a.pos < b.pos,
        _ => true,
    });
    if !in_order {
        let mut positions: Vec<u64> = chunks.iter().map(|c| c.pos).collect();
        positions.sort_unstable();
        if let Some(w) = positions.windows(2).find(|w| w.first() == w.get(1)) {
            return Err(format!(
                "two chunk info records point to the same chunk at byte {}",
                w.first().copied().unwrap_or_default()
            ));
        }
    }
    if let Some(c) = chunks.iter().find(|c| c.pos >= len) {
        return Err(format!(
            "a chunk info points to byte {} beyond the end of the file",
            c.pos
        ));
    }
    Ok(())
}

#[cfg(test)]
#[path = "open_v2_tests.rs"]
mod tests;
