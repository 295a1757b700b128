//! Opening an indexed 2.0 bag from its index alone: the bag header and the connection and
//! chunk info records at `index_pos`. Each chunk's record header is read now for a bag of few
//! chunks, later for one of many (see [`crate::bag::read::heads`]). No chunk is decompressed; the work
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

use crate::bag::chunk::{Chunk, ChunkLayout, ChunkState};
use crate::bag::connection::ConnId;
use crate::bag::counts::Counts;
use crate::bag::error::Warning;
use crate::bag::open::finish_chunks::{Fallback, finish_chunks};
use crate::bag::open::room::{Room, with_rooms};
use crate::bag::open::section_window::{Ahead, Window};
use crate::bag::open::table::ConnTable;
use crate::bag::opened::Opened;
use crate::bag::read::heads::{Heads, read_all};
use crate::bag::source::Source;

/// The fewest bytes a chunk info record takes (its header's six fields and one count).
const MIN_CHUNK_INFO: usize = 96;

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
        starts: _,
        ahead: _,
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
    let tally = finish_chunks(&mut chunks, &counts, len, &connections, threads)?;
    let heads = Heads::pending_for(chunks.len());
    if chunks.len() < lazy_from {
        // Few chunks: their headers are read and checked now, and a bag whose chunk infos
        // do not lead to chunk records is scanned instead.
        read_all(source, &chunks, &heads, threads);
        if let Some((_, why)) = heads.first_bad() {
            return Err(why);
        }
    }
    tally.set_message_counts(&mut connections);
    Ok(Opened {
        connections,
        conn_map: map,
        chunks,
        heads,
        entries: Vec::new(),
        warnings,
        recovery: None,
        totals: Some(tally.totals),
        mcap: None,
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
    let mut index = Index::new(expected);
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
            let (buf, ahead) = window.split(pos, AHEAD);
            match index.take_run(buf, pos, threads, ahead) {
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

/// A stretch of a run parsed on one thread: its records, written in place into its share
/// of the index's lists.
struct Piece<'a, 'c, 't> {
    /// Each record's start in the window and the position of its counts in the part of the
    /// table this run fills (see [`Index::take_run`]).
    starts: &'a [(usize, usize)],
    /// Where the record after the piece starts (the end of the last one), and where the
    /// counts after the piece's go.
    next: (usize, usize),
    /// The index of the piece's first chunk, and the position of its first count in the
    /// whole table.
    first: (usize, usize),
    chunks: Room<'c, Chunk>,
    table: Room<'t, (u32, u32)>,
}

impl Piece<'_, '_, '_> {
    /// Parses the chunk info records of the piece (the window's first byte at absolute offset
    /// `base`) with the fast parser, each into its chunk and counts; returns how many it took,
    /// stopping at the first it does not take or that does not end where the next starts.
    fn parse(&mut self, buf: &[u8], base: u64) -> usize {
        let mut shape = None;
        let origin = self.starts.first().map_or(0, |s| s.1);
        for (k, &(at, pair)) in self.starts.iter().enumerate() {
            let (following, pair_end) = self.starts.get(k + 1).copied().unwrap_or(self.next);
            let rest = buf.get(at..).unwrap_or_default();
            let Some((info, pairs)) =
                ChunkInfoHead::read_shaped_pairs(rest, base + at as u64, &mut shape)
            else {
                return k;
            };
            let n = pairs.len();
            if info.end != base + following as u64 || pair_end.checked_sub(pair) != Some(n) {
                return k;
            }
            if !pairs.into_iter().all(|p| self.table.push(p)) {
                return k;
            }
            let (first_chunk, first_pair) = self.first;
            let chunk = chunk_of(&info, first_chunk + k, first_pair + pair - origin, n);
            if !self.chunks.push(chunk) {
                return k;
            }
        }
        self.starts.len()
    }
}

/// Where `threads` shares of `n` records start (and the last ends): the first, whose thread
/// also reads the next window, half the size of the others.
fn shares(n: usize, threads: usize) -> Vec<usize> {
    let threads = threads.max(1);
    if threads == 1 {
        return vec![0, n];
    }
    // In halves of a share: the first takes one, every other two.
    let halves = 2 * threads - 1;
    let mut cuts = vec![0];
    cuts.extend((0..threads).map(|k| n * (2 * k + 1) / halves));
    cuts
}

/// Parses `pieces` of the window `buf` (at absolute offset `pos`), the first on the calling
/// thread, each other on a thread of its own; the calling thread first reads the window from
/// the position `read_ahead` names. Hands back each piece with how many records it took,
/// in order, up to the first whose thread failed (its records are then read one at a time).
/// The records of the window read ahead are put in `found`.
fn parse_pieces<'a, 'c, 't>(
    pieces: Vec<Piece<'a, 'c, 't>>,
    (buf, pos): (&[u8], u64),
    read_ahead: Option<(Ahead<'_>, u64)>,
    found: &mut Starts,
) -> Vec<(usize, Piece<'a, 'c, 't>)> {
    std::thread::scope(|s| {
        let mut pieces = pieces.into_iter();
        let first = pieces.next();
        let others: Vec<_> = pieces
            .map(|mut p| s.spawn(move || (p.parse(buf, pos), p)))
            .collect();
        if let Some((ahead, next)) = read_ahead {
            found.find(ahead.read(next), next);
        }
        let mut done: Vec<_> = first
            .map(|mut p| (p.parse(buf, pos), p))
            .into_iter()
            .collect();
        done.extend(others.into_iter().map_while(|h| h.join().ok()));
        done
    })
}

/// The `(connection, count)` pairs the data of the record from `at` to `end` of `buf` holds
/// room for: what its count field must say for it to parse.
fn data_pairs(buf: &[u8], at: usize, end: usize) -> usize {
    let header_len = buf
        .get(at..)
        .and_then(|b| b.first_chunk::<4>())
        .map_or(0, |b| u32::from_le_bytes(*b) as usize);
    end.saturating_sub(at)
        .saturating_sub(8)
        .saturating_sub(header_len)
        / 8
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
    /// The records of the window being taken (kept from window to window: fresh memory
    /// costs more than the parse).
    starts: Starts,
    /// The records of the window read ahead, found by the thread that read it.
    ahead: Starts,
}

/// The whole records found in a window.
#[derive(Default)]
struct Starts {
    /// Where the window starts in the file and how many bytes it holds (`None`: nothing
    /// found yet).
    window: Option<(u64, usize)>,
    /// Each record's start in the window and the position of its counts among the window's.
    list: Vec<(usize, usize)>,
    /// The end of the last whole record.
    end: usize,
    /// The `(connection, count)` pairs the records hold.
    pairs: usize,
}

impl Starts {
    /// Finds the whole records of `buf`, the window at absolute offset `pos`.
    fn find(&mut self, buf: &[u8], pos: u64) {
        self.list.clear();
        let (mut at, mut pairs) = (0, 0);
        while let Some(end) = record_end(buf, at) {
            self.list.push((at, pairs));
            pairs += data_pairs(buf, at, end);
            at = end;
        }
        (self.window, self.end, self.pairs) = (Some((pos, buf.len())), at, pairs);
    }
}

impl Index {
    /// Nothing read yet, with room for the chunks and counts of `expected` chunk infos.
    fn new(expected: usize) -> Index {
        Index {
            conns: ConnTable::default(),
            shape: None,
            warnings: Vec::new(),
            chunks: Vec::with_capacity(expected),
            table: Vec::with_capacity(expected),
            starts: Starts::default(),
            ahead: Starts::default(),
        }
    }

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
    ///
    /// Every record's chunk and counts are written in place: the lists grow by room for all
    /// of them (a record's counts take the room its data length leaves, which is what its
    /// count must say for it to parse), each thread fills its share, and what follows a
    /// record not taken is cut off again.
    fn take_run(&mut self, buf: &[u8], pos: u64, threads: usize, ahead: Ahead<'_>) -> Run {
        // The records of a window read ahead were found by the thread that read it.
        if self.ahead.window == Some((pos, buf.len())) {
            std::mem::swap(&mut self.starts, &mut self.ahead);
        } else {
            self.starts.find(buf, pos);
        }
        self.ahead.window = None;
        let starts = std::mem::take(&mut self.starts);
        let run = if starts.list.len() < MIN_RUN {
            Run::TooShort
        } else {
            self.fill(buf, pos, &starts, threads, ahead)
        };
        self.starts = starts;
        run
    }

    /// [`Index::take_run`] once the window's records are `found` (each one's start and where
    /// its counts go, the end of the last one, the counts they hold). The calling thread
    /// reads the window after this one (`ahead`, from the end of the last record) and finds
    /// its records before it parses its share, a smaller one.
    fn fill(
        &mut self,
        buf: &[u8],
        pos: u64,
        found: &Starts,
        threads: usize,
        ahead: Ahead<'_>,
    ) -> Run {
        let (starts, end, pairs) = (&found.list[..], found.end, found.pairs);
        let (first_chunk, first_pair) = (self.chunks.len(), self.table.len());
        // A thread parses thousands of records in the time another takes to start.
        let threads = threads.min(starts.len() / PER_THREAD).max(1);
        let cuts = shares(starts.len(), threads);
        // Each share's records, and where its counts start and end.
        let spans: Vec<(usize, usize, (usize, usize))> = cuts
            .windows(2)
            .filter_map(|w| match *w {
                [from, to] => {
                    let pair = |i: usize| starts.get(i).map_or(pairs, |s| s.1);
                    Some((from, to, (pair(from), pair(to))))
                }
                _ => None,
            })
            .collect();
        let chunk_lens: Vec<usize> = spans.iter().map(|s| s.1 - s.0).collect();
        let pair_lens: Vec<usize> = spans.iter().map(|s| s.2.1 - s.2.0).collect();
        let read_ahead = (threads > 1).then_some((ahead, pos + end as u64));
        let taken = with_rooms(&mut self.table, &pair_lens, |table| {
            let (table, taken) = with_rooms(&mut self.chunks, &chunk_lens, |chunks| {
                let pieces = spans.iter().zip(chunks.into_iter().zip(table)).map(
                    |(&(from, to, (pair, _)), (chunks, table))| Piece {
                        starts: starts.get(from..to).unwrap_or_default(),
                        next: starts.get(to).copied().unwrap_or((end, pairs)),
                        first: (first_chunk + from, first_pair + pair),
                        chunks,
                        table,
                    },
                );
                let mut back = (Vec::new(), Vec::new(), Vec::new());
                let done = parse_pieces(pieces.collect(), (buf, pos), read_ahead, &mut self.ahead);
                for (n, p) in done {
                    back.0.push(p.chunks);
                    back.1.push(p.table);
                    back.2.push(n);
                }
                (back.0, (back.1, back.2))
            });
            (table, taken)
        });
        // The first record a thread did not take, if any.
        let stop = spans.iter().enumerate().find_map(|(k, &(from, to, _))| {
            let n = taken.get(k).copied().unwrap_or_default();
            (n < to - from).then_some(from + n)
        });
        let Some((r, &(at, pair))) = stop.and_then(|r| Some((r, starts.get(r)?))) else {
            return Run::Took(pos + end as u64);
        };
        self.chunks.truncate(first_chunk + r);
        self.table.truncate(first_pair + pair);
        Run::StoppedAt(pos + at as u64)
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

#[cfg(test)]
#[path = "open_v2_tests.rs"]
mod tests;
