//! Reading a 2.0 bag without a usable index: a crashed or still-running recording
//! (`index_pos` 0), a truncated copy, or a file whose index does not check out.
//!
//! The file is walked record by record. Each chunk's own index data records (written after
//! every chunk, so present even in a crash snapshot) give its messages without decompressing
//! it; a chunk is decompressed and walked only when its index data is missing (cut-off or
//! unterminated last chunk) or when it holds the first use of a connection whose record we
//! have not seen (connection records live inside chunks). Damaged stretches are skipped to the
//! next plausible record and reported as losses.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use crate::format::{
    ChunkHeader, ChunkInfo, Compression, ConnectionRecord, IndexData, Op, read_head, read_record,
};
use crate::time::RosTime;

use super::budget::Budget;
use super::chunk::{Chunk, ChunkLayout, ChunkState, IndexEntry};
use super::connection::ConnId;
use super::entries::{ChunkScan, Origin, scan_records};
use super::error::Warning;
use super::load::load_chunk;
use super::opened::Opened;
use super::parallel::parallel_map;
use super::recovery::{Loss, ProgressFn, Recovery, RecoveryProgress};
use super::source::{Changed, Source};
use super::table::ConnTable;
use super::window::Window;

/// How far before an `op` field a record may start when resynchronising.
const RESYNC_LOOKBACK: usize = 512;

/// The largest record header the windowed resynchronisation accepts.
const MAX_RESYNC_HEADER: u64 = 64 << 10;

/// A chunk found by the walk.
#[derive(Debug)]
struct Found {
    pos: u64,
    compression: Compression,
    declared_size: u64,
    data_offset: u64,
    data_len: u64,
    state: ChunkState,
    /// `(file connection id, entries)` from the index data records after the chunk.
    index: Vec<(u32, Vec<(RosTime, u32)>)>,
    /// What walking its records found, once it was decompressed and walked.
    scan: Option<ChunkScan>,
}

/// The walk's state.
struct Walk {
    /// Size of the file when it was opened.
    len: u64,
    table: ConnTable,
    found: Vec<Found>,
    losses: Vec<Loss>,
    warnings: Vec<Warning>,
    chunk_infos: usize,
}

/// Scans the 2.0 bag in `source` starting at byte `start` (after the bag header). Chunks are
/// decompressed (in parallel, within `budget`) only to be walked, and dropped after.
pub(crate) fn recover(
    source: &Arc<Source>,
    start: usize,
    reason: String,
    settings: &Settings<'_>,
) -> Result<Opened, Changed> {
    // The file is read through a window of positioned reads, never mapped: a file that
    // shrinks under the walk ends it with `Changed`, not SIGBUS.
    let mut win = Window::new(source);
    let mut walk = Walk {
        len: source.len(),
        table: ConnTable::default(),
        found: Vec::new(),
        losses: Vec::new(),
        warnings: Vec::new(),
        chunk_infos: 0,
    };
    walk.run(&mut win, start, settings.progress);
    if let Some(c) = win.changed() {
        return Err(c);
    }
    walk.build(source, settings, reason)
}

/// How to decompress the chunks the walk must look into, and whom to tell how it advances.
pub(crate) struct Settings<'a> {
    /// Largest uncompressed chunk accepted.
    pub limit: u64,
    /// Decompression threads.
    pub threads: usize,
    /// The bag's decode budget.
    pub budget: &'a Arc<Budget>,
    /// Told how the scan advances.
    pub progress: Option<&'a ProgressFn>,
}

/// Calls `progress` when `done` crossed another 1/256 of `total` since `last` (and at the end).
fn tell(
    progress: Option<&ProgressFn>,
    last: &mut u64,
    done: u64,
    total: u64,
    what: fn(u64, u64) -> RecoveryProgress,
) {
    let Some(p) = progress else { return };
    let step = (total / 256).max(1);
    if done >= total || done >= last.saturating_add(step) {
        *last = done;
        (p.0)(what(done, total));
    }
}

impl Walk {
    fn len(&self) -> u64 {
        self.len
    }

    fn len_usize(&self) -> usize {
        usize::try_from(self.len).unwrap_or(usize::MAX)
    }

    fn lose(&mut self, offset: u64, bytes: u64, reason: String) {
        if bytes > 0 {
            self.losses.push(Loss {
                offset,
                bytes,
                messages: None,
                reason,
            });
        }
    }

    /// Skips from a damaged position to the next plausible record, recording the loss.
    fn skip_damage(&mut self, win: &mut Window<'_>, pos: usize, reason: String) -> Option<usize> {
        let next = find_next_record_in(win, pos + 1);
        let end = next.unwrap_or(self.len_usize());
        self.lose(pos as u64, (end - pos) as u64, reason);
        next
    }

    fn run(&mut self, win: &mut Window<'_>, start: usize, progress: Option<&ProgressFn>) {
        let mut pos = start;
        let mut told = 0;
        let scanning = |done, total| RecoveryProgress::Scanning { done, total };
        while pos < self.len_usize() && win.changed().is_none() {
            tell(progress, &mut told, pos as u64, self.len(), scanning);
            let v = win.head(pos as u64);
            let head = match read_head(v.buf, v.at, v.base) {
                Ok(h) => h,
                Err(e) => match self.skip_damage(win, pos, e.to_string()) {
                    Some(n) => {
                        pos = n;
                        continue;
                    }
                    None => break,
                },
            };
            let record_end = usize::try_from(head.end()).unwrap_or(usize::MAX);
            let op = head.op();
            let chunk = match op {
                Ok(Ok(Op::Chunk)) => Some(
                    ChunkHeader::from_head(&head)
                        .map(|h| (h, head.data_offset, head.data_len, head.end()))
                        .map_err(|e| e.to_string()),
                ),
                _ => None,
            };
            let next = match op {
                Ok(Ok(Op::Chunk)) => match chunk {
                    Some(Ok(c)) => self.chunk(win, pos, c),
                    Some(Err(e)) => self.skip_damage(win, pos, e),
                    None => None,
                },
                Ok(Ok(Op::MessageData | Op::Connection)) => {
                    let end = self.top_level_run(win, pos, None);
                    if end > pos {
                        Some(end)
                    } else {
                        self.skip_damage(win, pos, "a record is cut off or damaged".into())
                    }
                }
                Ok(Ok(Op::IndexData)) => {
                    // Index data not directly after a chunk (ours are consumed by `chunk`).
                    let v = win.record(pos as u64);
                    match IndexData::read(v.buf, v.at, v.base) {
                        Ok(idx) => Some(usize::try_from(idx.end).unwrap_or(usize::MAX)),
                        Err(e) => {
                            let e = e.to_string();
                            self.skip_damage(win, pos, e)
                        }
                    }
                }
                Ok(Ok(Op::ChunkInfo)) => {
                    let v = win.record(pos as u64);
                    match ChunkInfo::read(v.buf, v.at, v.base) {
                        Ok(info) => {
                            self.chunk_infos += 1;
                            Some(usize::try_from(info.end).unwrap_or(usize::MAX))
                        }
                        Err(e) => {
                            let e = e.to_string();
                            self.skip_damage(win, pos, e)
                        }
                    }
                }
                Ok(_) if record_end <= self.len_usize() => Some(record_end),
                Ok(_) => {
                    self.lose(
                        pos as u64,
                        self.len() - pos as u64,
                        "the file ends inside a record".into(),
                    );
                    None
                }
                Err(e) => {
                    let e = e.to_string();
                    self.skip_damage(win, pos, e)
                }
            };
            match next {
                Some(n) if n > pos => pos = n,
                _ => break,
            }
        }
        tell(progress, &mut told, self.len(), self.len(), scanning);
    }

    /// Handles a chunk record at `pos`; returns where to continue.
    fn chunk(
        &mut self,
        win: &mut Window<'_>,
        pos: usize,
        (header, data_offset, data_len, head_end): (ChunkHeader, u64, u32, u64),
    ) -> Option<usize> {
        let len = self.len();
        let mut found = Found {
            pos: pos as u64,
            compression: header.compression,
            declared_size: u64::from(header.size),
            data_offset,
            data_len: u64::from(data_len),
            state: ChunkState::Complete,
            index: Vec::new(),
            scan: None,
        };
        if data_len == 0 && header.size == 0 {
            // A chunk the recorder never closed: its records (or compressed bytes) follow.
            found.state = ChunkState::Open;
            let data_start = usize::try_from(data_offset).unwrap_or(usize::MAX);
            if header.compression == Compression::None {
                return Some(self.top_level_run(win, data_start, Some(found)));
            }
            let end = find_next_record_in(win, data_start).unwrap_or(self.len_usize());
            found.data_len = (end as u64).saturating_sub(data_offset);
            self.found.push(found);
            return Some(end);
        }
        if head_end > len {
            found.state = ChunkState::Truncated {
                available: len.saturating_sub(data_offset),
            };
            found.data_len = len.saturating_sub(data_offset);
            self.lose(
                len,
                head_end - len,
                format!(
                    "the file ends inside the chunk at byte {pos}: {} of its {} bytes are missing",
                    head_end - len,
                    data_len
                ),
            );
            self.found.push(found);
            return None;
        }
        // The chunk's index data records follow it. They are trusted only when a whole record
        // of another kind follows them: a file cut inside (or right after) them may have lost
        // some, and then the chunk is walked instead.
        let mut at = usize::try_from(head_end).unwrap_or(usize::MAX);
        let complete_index = loop {
            if at >= self.len_usize() {
                break false;
            }
            let v = win.head(at as u64);
            let Ok(h) = read_head(v.buf, v.at, v.base) else {
                break false;
            };
            if !matches!(h.op(), Ok(Ok(Op::IndexData))) {
                break true;
            }
            let v = win.record(at as u64);
            match IndexData::read(v.buf, v.at, v.base) {
                Ok(idx) if idx.ver == 1 => {
                    found
                        .index
                        .push((idx.conn.unwrap_or(u32::MAX), idx.v1_entries().collect()));
                    at = usize::try_from(idx.end).unwrap_or(usize::MAX);
                }
                _ => break false,
            }
        };
        if !complete_index {
            found.index.clear();
        }
        self.found.push(found);
        Some(at)
    }

    /// Collects a run of connection and message records lying at top level: the body of an
    /// unterminated uncompressed chunk (or the connection records of an index section).
    /// Returns where the run ends.
    fn top_level_run(&mut self, win: &mut Window<'_>, start: usize, open: Option<Found>) -> usize {
        let mut pos = start;
        let mut messages = 0usize;
        while pos < self.len_usize() {
            // A message's data is not needed, only that the file holds all of it.
            let v = win.head(pos as u64);
            let Ok(head) = read_head(v.buf, v.at, v.base) else {
                break;
            };
            if matches!(head.op(), Ok(Ok(Op::MessageData))) {
                if head.end() > self.len() {
                    break;
                }
                messages += 1;
                pos = usize::try_from(head.end()).unwrap_or(usize::MAX);
                continue;
            }
            let v = win.record(pos as u64);
            let Ok(rec) = read_record(v.buf, v.at, v.base) else {
                break;
            };
            match rec.op() {
                Ok(Ok(Op::Connection)) => match ConnectionRecord::from_record(&rec) {
                    Ok(c) => {
                        self.table.insert(
                            c.conn,
                            c.topic,
                            c.header,
                            pos as u64,
                            &mut self.warnings,
                        );
                    }
                    Err(_) => break,
                },
                _ => break,
            }
            pos = usize::try_from(rec.end()).unwrap_or(usize::MAX);
        }
        if messages == 0 && open.is_none() {
            return pos;
        }
        let mut found = open.unwrap_or(Found {
            pos: start as u64,
            compression: Compression::None,
            declared_size: 0,
            data_offset: start as u64,
            data_len: 0,
            state: ChunkState::Open,
            index: Vec::new(),
            scan: None,
        });
        found.data_len = (pos as u64).saturating_sub(found.data_offset);
        found.declared_size = found.data_len;
        self.found.push(found);
        pos
    }

    /// Turns what the walk found into connections, chunks and entries.
    fn build(
        mut self,
        source: &Arc<Source>,
        load: &Settings<'_>,
        reason: String,
    ) -> Result<Opened, Changed> {
        // Chunks whose index data is missing must be decompressed and walked.
        let needs_walk: Vec<usize> = self
            .found
            .iter()
            .enumerate()
            .filter(|(_, f)| f.state != ChunkState::Complete || f.index.is_empty())
            .map(|(i, _)| i)
            .collect();
        self.walk_chunks(source, load, &needs_walk)?;
        // So must the first chunk using a connection whose record we have not seen (the
        // record sits in that chunk). Each round walks at least one more chunk.
        loop {
            let mut wanted = Vec::new();
            let mut seen_ids = HashSet::new();
            for (i, f) in self.found.iter().enumerate() {
                if f.scan.is_none()
                    && f.index
                        .iter()
                        .any(|(id, _)| !self.table.contains(*id) && seen_ids.insert(*id))
                {
                    wanted.push(i);
                }
            }
            if wanted.is_empty() {
                break;
            }
            self.walk_chunks(source, load, &wanted)?;
        }
        let table = std::mem::take(&mut self.table);
        let (mut connections, map) = table.finish();
        let mut chunks = Vec::with_capacity(self.found.len());
        let mut all_entries = Vec::with_capacity(self.found.len());
        let mut unknown: HashMap<u32, u64> = HashMap::new();
        let (mut complete, mut partial) = (0u64, 0u64);
        for (i, f) in self.found.iter().enumerate() {
            let index = u32::try_from(i).unwrap_or(u32::MAX);
            let mut entries = Vec::new();
            let raw: Vec<(RosTime, u32, u64)> = match &f.scan {
                Some(scan) => scan.messages.clone(),
                None => f
                    .index
                    .iter()
                    .flat_map(|(id, es)| es.iter().map(move |&(t, off)| (t, *id, u64::from(off))))
                    .collect(),
            };
            for (time, file_id, offset) in raw {
                match map.get(&file_id) {
                    Some(&conn) => entries.push(IndexEntry {
                        time,
                        conn,
                        chunk: index,
                        offset,
                    }),
                    None => *unknown.entry(file_id).or_default() += 1,
                }
            }
            entries.sort_unstable();
            let mut counts: Vec<(ConnId, u32)> = Vec::new();
            for e in &entries {
                match counts.iter_mut().find(|(c, _)| *c == e.conn) {
                    Some((_, n)) => *n += 1,
                    None => counts.push((e.conn, 1)),
                }
            }
            counts.sort_unstable();
            match f.state {
                ChunkState::Complete => complete += 1,
                _ => partial += 1,
            }
            let start = entries.iter().map(|e| e.time).min().unwrap_or_default();
            let end = entries.iter().map(|e| e.time).max().unwrap_or_default();
            chunks.push(Chunk {
                index,
                pos: f.pos,
                data_offset: f.data_offset,
                compressed_size: f.data_len,
                uncompressed_size: f.declared_size,
                compression: f.compression,
                layout: ChunkLayout::V2,
                state: f.state,
                start,
                end,
                counts,
                index_data_pos: None,
            });
            all_entries.push(Some(Arc::from(entries)));
        }
        for (id, n) in unknown {
            self.losses.push(Loss {
                offset: 0,
                bytes: 0,
                messages: Some(n),
                reason: format!("no connection record was found for connection {id}"),
            });
        }
        let mut per_conn: HashMap<ConnId, u64> = HashMap::new();
        for c in &chunks {
            for &(conn, n) in &c.counts {
                *per_conn.entry(conn).or_default() += u64::from(n);
            }
        }
        for c in &mut connections {
            c.message_count = per_conn.get(&c.id).copied().unwrap_or(0);
        }
        self.losses.sort_by_key(|l| l.offset);
        Ok(Opened {
            connections,
            conn_map: map,
            chunks,
            entries: all_entries,
            warnings: self.warnings,
            recovery: Some(Recovery {
                reason,
                complete_chunks: complete,
                partial_chunks: partial,
                losses: self.losses,
            }),
        })
    }

    /// Decompresses and walks the chunks `which` (in parallel), adding their connections.
    fn walk_chunks(
        &mut self,
        source: &Arc<Source>,
        load: &Settings<'_>,
        which: &[usize],
    ) -> Result<(), Changed> {
        let todo: Vec<&Found> = which
            .iter()
            .filter_map(|&i| self.found.get(i))
            .filter(|f| f.scan.is_none())
            .collect();
        let total = todo.len() as u64;
        let done = std::sync::atomic::AtomicU64::new(0);
        let told = std::sync::Mutex::new(0u64);
        let decoding = |done, total| RecoveryProgress::Decoding { done, total };
        let results = parallel_map(&todo, load.threads, |f| {
            let chunk = Chunk {
                index: 0,
                pos: f.pos,
                data_offset: f.data_offset,
                compressed_size: f.data_len,
                uncompressed_size: f.declared_size,
                compression: f.compression,
                layout: ChunkLayout::V2,
                state: f.state,
                start: RosTime::MIN,
                end: RosTime::MIN,
                counts: Vec::new(),
                index_data_pos: None,
            };
            // The chunk is held against the budget while walked, and dropped after.
            let loaded = load_chunk(source, &chunk, load.limit, load.budget)?;
            let scan = scan_records(&loaded.bytes, Origin::of(&chunk));
            drop(loaded.bytes);
            let n = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
            if let Ok(mut last) = told.lock() {
                tell(load.progress, &mut last, n, total, decoding);
            }
            Ok((f.pos, loaded.error, scan))
        });
        for result in results {
            let (pos, error, scan) = result?;
            let Some(f) = self.found.iter_mut().find(|f| f.pos == pos) else {
                continue;
            };
            if let (Some(e), ChunkState::Open | ChunkState::Truncated { .. }) = (&error, f.state) {
                if f.state == ChunkState::Open {
                    self.losses.push(Loss {
                        offset: f.pos,
                        bytes: f.data_len,
                        messages: None,
                        reason: format!(
                            "the recorder never finished this {} chunk: decoding stopped ({}) after {} messages; the rest of its data was never written",
                            f.compression, e.kind, scan.messages.len()
                        ),
                    });
                }
            } else if let Some(e) = &error {
                let lost = f.index.iter().map(|(_, es)| es.len() as u64).sum::<u64>();
                self.losses.push(Loss {
                    offset: f.pos,
                    bytes: f.data_len,
                    messages: (lost > 0).then_some(lost.saturating_sub(scan.messages.len() as u64)),
                    reason: e.to_string(),
                });
            } else if let Some(e) = &scan.error {
                self.losses.push(Loss {
                    offset: e.file_offset(),
                    bytes: scan.unread,
                    messages: None,
                    reason: e.to_string(),
                });
            }
            for (c, offset) in &scan.connections {
                let at = if f.compression == Compression::None {
                    f.data_offset + offset
                } else {
                    f.pos
                };
                self.table.insert(
                    c.conn,
                    c.topic.clone(),
                    c.header.clone(),
                    at,
                    &mut self.warnings,
                );
            }
            f.scan = Some(scan);
        }
        Ok(())
    }
}

/// [`find_next_record`] through a window: searches the file a window at a time (each window
/// overlapping the last by the pattern's length), checking candidates with a view of their
/// own.
fn find_next_record_in(win: &mut Window<'_>, from: usize) -> Option<usize> {
    const PATTERN: &[u8] = b"\x04\x00\x00\x00op=";
    let len = usize::try_from(win.len()).unwrap_or(usize::MAX);
    let mut search = from;
    while search < len {
        let hit = {
            let v = win.view(search as u64, PATTERN.len() as u64);
            let hay = v.buf.get(v.at..).unwrap_or_default();
            if hay.len() < PATTERN.len() {
                return None;
            }
            let found = hay.windows(PATTERN.len()).position(|w| w == PATTERN);
            if found.is_none() {
                search += hay.len() - (PATTERN.len() - 1);
            }
            found.map(|i| search + i)
        };
        let Some(hit) = hit else { continue };
        let lowest = hit.saturating_sub(RESYNC_LOOKBACK).max(from);
        let mut q = hit.checked_sub(4);
        while let Some(start) = q {
            if start < lowest {
                break;
            }
            let file_len = win.len();
            // Record headers are small: a candidate claiming a larger one is not taken (and
            // does not make us read it).
            let v = win.view(start as u64, 8 + MAX_RESYNC_HEADER);
            if plausible_at(v.buf, v.at, v.base, hit, file_len) {
                return Some(start);
            }
            q = start.checked_sub(1);
        }
        search = hit + 1;
    }
    None
}

/// Finds the first position at or after `from` where a plausible record starts: a header that
/// parses, holds a known op and is followed by a data length that fits the file.
pub(crate) fn find_next_record(buf: &[u8], from: usize) -> Option<usize> {
    const PATTERN: &[u8] = b"\x04\x00\x00\x00op=";
    let mut search = from;
    loop {
        let hay = buf.get(search..)?;
        let hit = search + hay.windows(PATTERN.len()).position(|w| w == PATTERN)?;
        let lowest = hit.saturating_sub(RESYNC_LOOKBACK).max(from);
        // The record starts before the op field: the header length field is at least 4 bytes
        // before it (op first) or further back (other fields first).
        let mut q = hit.checked_sub(4);
        while let Some(start) = q {
            if start < lowest {
                break;
            }
            if plausible_record(buf, start, hit) {
                return Some(start);
            }
            q = start.checked_sub(1);
        }
        search = hit + 1;
    }
}

fn plausible_record(buf: &[u8], start: usize, op_field: usize) -> bool {
    plausible_at(buf, start, 0, op_field, buf.len() as u64)
}

/// True when a plausible record starts at `buf[at]` (absolute offset `base + at`) whose `op`
/// field is at absolute offset `op_field`, in a file of `file_len` bytes.
fn plausible_at(buf: &[u8], at: usize, base: u64, op_field: usize, file_len: u64) -> bool {
    let Ok(head) = read_head(buf, at, base) else {
        return false;
    };
    let start = usize::try_from(base)
        .unwrap_or(usize::MAX)
        .saturating_add(at);
    let header_start = start + 4;
    let header_end = header_start + head.header.bytes().len();
    if op_field < header_start || op_field >= header_end {
        return false;
    }
    match head.op() {
        Ok(Ok(Op::Chunk)) => true,
        Ok(Ok(
            Op::MessageDefinition
            | Op::MessageData
            | Op::Connection
            | Op::IndexData
            | Op::ChunkInfo
            | Op::BagHeader,
        )) => head.end() <= file_len,
        _ => false,
    }
}
