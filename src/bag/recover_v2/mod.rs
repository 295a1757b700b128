//! Reading a 2.0 bag without a usable index: a crashed or still-running recording
//! (`index_pos` 0), a truncated copy, or a file whose index does not check out.
//!
//! The file is walked record by record. Each chunk's own index data records (written after
//! every chunk, so present even in a crash snapshot) give its messages without decompressing
//! it; a chunk is decompressed and walked only when its index data is missing (cut-off or
//! unterminated last chunk) or when it holds the first use of a connection whose record we
//! have not seen (connection records live inside chunks). Damaged stretches are skipped to the
//! next plausible record and reported as losses.
//!
//! The end of a recording: an uncompressed chunk the recorder has not closed (size 0) is read
//! up to its last whole record; a compressed one (size 0, or a size past the end of the file)
//! is never decoded from part of its bytes. In a recording still being written
//! ([`Settings::live`]: a `.active` file) a record cut off by the end of the file, or the
//! compressed chunk being written, is noted as [`Unfinished`], not lost; in a closed bag the
//! same bytes are a loss.
//!
//! The chunks that must be decompressed are handed to a pool of workers as the walk finds
//! them ([`pipeline`]), so decompression uses every core while the walk reads on; with
//! [`Settings::partial`] set, the bag as found so far is handed out while the walk runs
//! ([`partial`]).

use std::sync::Arc;

use crate::format::{
    ChunkHeader, ChunkInfo, Compression, ConnectionRecord, IndexData, Op, read_head, read_record,
};

use super::chunk::ChunkState;
use super::extent::{MAX_HEADER, cut_off};
use super::open::table::ConnTable;
use super::opened::Opened;
use super::recovery::{Loss, ProgressFn, RecoveryProgress, Unfinished, Writing};
use super::resync::{find_next_record_in, find_next_record_where};
use super::source::{Changed, Source};
use super::window::Window;

mod assemble;
#[cfg(test)]
mod live_tests;
mod partial;
mod pipeline;
mod state;

use partial::Prefix;
use pipeline::{Pool, Queue, Stage};
use state::{Found, Walk, tell};
pub(crate) use state::{PartialSink, Settings};

/// Why a scan ended without a bag.
#[derive(Debug)]
pub(crate) enum Stopped {
    /// The file changed under the scan.
    Changed(Changed),
    /// The partial results' callback asked to stop.
    Cancelled,
}

/// Scans the 2.0 bag in `source` starting at byte `start` (after the bag header). Chunks are
/// decompressed (in parallel, within `budget`, while the walk goes on) only to be walked,
/// and dropped after. Returns the bag and how many chunk info records (index section) the
/// walk met.
pub(crate) fn recover(
    source: &Arc<Source>,
    start: usize,
    reason: String,
    settings: &Settings<'_>,
) -> Result<(Opened, usize), Stopped> {
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
        changed: None,
        live: settings.live,
        limit: settings.limit,
        unfinished: None,
    };
    let mut queue = Queue::default();
    let mut prefix = settings.partial.map(|_| Prefix::new(&reason));
    let finished = std::thread::scope(|scope| {
        let mut pool = Pool::start(scope, source, settings);
        let finished = walk.run(&mut win, start, settings.progress, &mut |w, pos| {
            w.feed(&pool, &mut queue, Stage::Walking);
            match (&mut prefix, settings.partial) {
                (Some(p), Some(f)) => p.offer(w, queue.settled, (pos, w.len()), f),
                _ => true,
            }
        });
        if finished {
            // The last chunks found go to the workers too; then every result is waited for.
            walk.feed(&pool, &mut queue, Stage::Flush);
            pool.close();
            walk.feed(&pool, &mut queue, Stage::Wait);
        }
        finished
    });
    if let Some(c) = win.changed().or(walk.changed.take()) {
        return Err(Stopped::Changed(c));
    }
    if !finished {
        return Err(Stopped::Cancelled);
    }
    let chunk_infos = walk.chunk_infos;
    walk.build(source, settings, reason, prefix)
        .map(|opened| (opened, chunk_infos))
        .map_err(Stopped::Changed)
}

/// True when `path` names a recording still being written: `rosbag record` writes
/// `X.bag.active` and renames it to `X.bag` once it has closed it.
pub(crate) fn still_recording(path: &std::path::Path) -> bool {
    path.as_os_str().as_encoded_bytes().ends_with(b".active")
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

    /// A record at `pos` the walk cannot take: in a live recording, when it is cut off by the
    /// end of the file (see [`Walk::being_written`]), it is the record being written (noted
    /// as unfinished; the walk ends); otherwise damage, skipped as [`Walk::skip_damage`] does.
    fn cannot_take(&mut self, win: &mut Window<'_>, pos: usize, reason: String) -> Option<usize> {
        if self.being_written(win, pos) {
            return None;
        }
        self.skip_damage(win, pos, reason)
    }

    /// True (and noted as unfinished) when the walk is over a live recording and the record at
    /// `pos` is cut off by the end of the file (the follower's rule, [`cut_off`]) with no
    /// record in its data: the writer is writing it. (Its header's own fields can look like a
    /// record: they are not searched.)
    fn being_written(&mut self, win: &mut Window<'_>, pos: usize) -> bool {
        if !self.live {
            return false;
        }
        let v = win.view(pos as u64, 8 + u64::from(MAX_HEADER));
        let rest = v.buf.get(v.at..).unwrap_or_default();
        let Some(data) = cut_off(rest, pos as u64, self.len, self.limit) else {
            return false;
        };
        let data = usize::try_from(data).unwrap_or(usize::MAX);
        if data < self.len_usize() && find_next_record_in(win, data).is_some() {
            return false;
        }
        self.unfinished = Some(Unfinished {
            offset: pos as u64,
            bytes: self.len.saturating_sub(pos as u64),
            what: Writing::Record,
        });
        true
    }

    /// A compressed chunk at `pos` whose data (from `data_start`) is not all in the file: its
    /// header says size 0 (the recorder has not closed it) or a size past the end. It is never
    /// decoded from part of its bytes (that gives junk). Its end is the next record that
    /// cannot be a copy inside its data (lz4 keeps literal runs of the chunk's own message
    /// and connection records), else the end of the file: there, in a live recording, it is
    /// the chunk the recorder is writing; otherwise its messages are lost.
    fn incomplete_compressed(
        &mut self,
        win: &mut Window<'_>,
        pos: usize,
        data_start: usize,
        compression: Compression,
        why: &str,
    ) -> Option<usize> {
        let next = find_next_record_where(win, data_start, |op| {
            matches!(
                op,
                Op::Chunk | Op::IndexData | Op::ChunkInfo | Op::BagHeader
            )
        });
        if next.is_none() && self.live {
            self.unfinished = Some(Unfinished {
                offset: pos as u64,
                bytes: self.len.saturating_sub(pos as u64),
                what: Writing::Chunk {
                    compression,
                    newest: None,
                },
            });
            return None;
        }
        let end = next.unwrap_or(self.len_usize());
        self.lose(
            pos as u64,
            end.saturating_sub(pos) as u64,
            format!(
                "{why}: a compressed chunk is not decoded from part of its data, so its messages are lost"
            ),
        );
        next
    }

    /// Walks the file from `start`, calling `between` between records with the position
    /// reached; returns false when `between` asked to stop.
    fn run(
        &mut self,
        win: &mut Window<'_>,
        start: usize,
        progress: Option<&ProgressFn>,
        between: &mut dyn FnMut(&mut Walk, u64) -> bool,
    ) -> bool {
        let mut pos = start;
        let mut told = 0;
        let scanning = |done, total| RecoveryProgress::Scanning { done, total };
        while pos < self.len_usize() && win.changed().is_none() && self.changed.is_none() {
            tell(progress, &mut told, pos as u64, self.len(), scanning);
            if !between(self, pos as u64) {
                return false;
            }
            let v = win.head(pos as u64);
            let head = match read_head(v.buf, v.at, v.base) {
                Ok(h) => h,
                Err(e) => match self.cannot_take(win, pos, e.to_string()) {
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
                        self.cannot_take(win, pos, "a record is cut off or damaged".into())
                    }
                }
                Ok(Ok(Op::IndexData)) => {
                    // Index data not directly after a chunk (ours are consumed by `chunk`).
                    let v = win.record(pos as u64);
                    match IndexData::read(v.buf, v.at, v.base) {
                        Ok(idx) => Some(usize::try_from(idx.end).unwrap_or(usize::MAX)),
                        Err(e) => {
                            let e = e.to_string();
                            self.cannot_take(win, pos, e)
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
                            self.cannot_take(win, pos, e)
                        }
                    }
                }
                Ok(_) if record_end <= self.len_usize() => Some(record_end),
                Ok(_) => {
                    if !self.being_written(win, pos) {
                        self.lose(
                            pos as u64,
                            self.len() - pos as u64,
                            "the file ends inside a record".into(),
                        );
                    }
                    None
                }
                Err(e) => {
                    let e = e.to_string();
                    self.cannot_take(win, pos, e)
                }
            };
            match next {
                Some(n) if n > pos => pos = n,
                _ => break,
            }
        }
        tell(progress, &mut told, self.len(), self.len(), scanning);
        true
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
        let data_start = usize::try_from(data_offset).unwrap_or(usize::MAX);
        if data_len == 0 && header.size == 0 {
            // A chunk the recorder never closed: its records (or compressed bytes) follow.
            found.state = ChunkState::Open;
            if header.compression == Compression::None {
                // Read up to its last whole record, as the follower reads it.
                return Some(self.top_level_run(win, data_start, Some(found)));
            }
            let why = format!(
                "the recorder never finished this {} chunk (its header says size 0)",
                header.compression
            );
            return self.incomplete_compressed(win, pos, data_start, header.compression, &why);
        }
        if head_end > len && self.live {
            // The writer is writing this chunk's data: an uncompressed one is read up to its
            // last whole record (what follows is the record being written); a compressed one
            // is read once it is whole.
            found.state = ChunkState::Truncated;
            if header.compression == Compression::None {
                return Some(self.top_level_run(win, data_start, Some(found)));
            }
            let why = format!(
                "the {} chunk at byte {pos} claims {data_len} bytes, past the end of the file",
                header.compression
            );
            return self.incomplete_compressed(win, pos, data_start, header.compression, &why);
        }
        if head_end > len && header.compression != Compression::None {
            // A compressed chunk cut short is not decoded from part of its data.
            self.lose(
                len,
                head_end - len,
                format!(
                    "the file ends inside the {} chunk at byte {pos}: {} of its {} bytes are missing, and a compressed chunk is not decoded from part of its data, so its messages are lost",
                    header.compression,
                    head_end - len,
                    data_len
                ),
            );
            return None;
        }
        if head_end > len {
            found.state = ChunkState::Truncated;
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
}
