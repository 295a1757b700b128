//! After the walk: decompressing the chunks that must be walked, and turning what was found
//! into the bag's connections, chunks and entries.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use crate::format::Compression;
use crate::time::RosTime;

use super::super::chunk::{Chunk, ChunkLayout, ChunkState, IndexEntry};
use super::super::connection::ConnId;
use super::super::opened::Opened;
use super::super::parallel::parallel_map;
use super::super::read::heads::{ChunkHead, Heads};
use super::super::recovery::{Loss, Recovery, RecoveryProgress, Writing};
use super::super::source::{Changed, Source};
use super::super::totals::count_and_total;
use super::partial::Prefix;
use super::pipeline::{Walked, walk_one};
use super::state::{Found, Settings, Walk, tell};

impl Found {
    /// The chunk as the bag lists it: at `index`, spanning `times`, with `counts` messages
    /// per connection.
    pub(super) fn to_chunk(
        &self,
        index: u32,
        times: (RosTime, RosTime),
        counts: Vec<(ConnId, u32)>,
    ) -> Chunk {
        Chunk {
            index,
            pos: self.pos,
            layout: ChunkLayout::V2,
            state: self.state,
            start: times.0,
            end: times.1,
            counts: counts.into(),
        }
    }

    /// What its record header says (as found by the scan).
    pub(super) fn to_head(&self) -> ChunkHead {
        ChunkHead {
            data_offset: self.data_offset,
            compressed_size: self.data_len,
            uncompressed_size: self.declared_size,
            compression: self.compression,
            index_data_pos: None,
        }
    }

    /// The chunk at `index` with its entries, from its walk or else its index data records;
    /// messages of connections not in `map` are counted in `unknown` instead.
    pub(super) fn assemble(
        &self,
        index: u32,
        map: &HashMap<u32, ConnId>,
        unknown: &mut HashMap<u32, u64>,
    ) -> (Chunk, Vec<IndexEntry>) {
        let mut entries = Vec::new();
        let raw: Vec<(RosTime, u32, u64)> = match &self.scan {
            Some(scan) => scan.messages.clone(),
            None => self
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
        let start = entries.iter().map(|e| e.time).min().unwrap_or_default();
        let end = entries.iter().map(|e| e.time).max().unwrap_or_default();
        (self.to_chunk(index, (start, end), counts), entries)
    }
}

impl Walk {
    /// Turns what the walk found into connections, chunks and entries.
    pub(super) fn build(
        mut self,
        source: &Arc<Source>,
        load: &Settings<'_>,
        reason: String,
        prefix: Option<Prefix>,
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
        self.walk_for_connections(source, load)?;
        // A partial scan assembled the chunks as they settled and handed them out: those are
        // taken as they are (their entries shared with the partial bags), not made again.
        let assembled = prefix.map(|p| p.finish(&self));
        let table = std::mem::take(&mut self.table);
        let (mut connections, map) = table.finish();
        let mut chunks = Vec::with_capacity(self.found.len());
        let heads = Heads::known(self.found.iter().map(Found::to_head));
        let mut all_entries = Vec::with_capacity(self.found.len());
        let mut unknown: HashMap<u32, u64> = HashMap::new();
        let (mut complete, mut partial) = (0u64, 0u64);
        for (i, f) in self.found.iter().enumerate() {
            let index = u32::try_from(i).unwrap_or(u32::MAX);
            let taken = assembled.as_ref().and_then(|a| a.get(i, f.scan.is_some()));
            let (chunk, entries) = taken.unwrap_or_else(|| {
                let (chunk, entries) = f.assemble(index, &map, &mut unknown);
                (chunk, Arc::from(entries))
            });
            match f.state {
                ChunkState::Complete => complete += 1,
                _ => partial += 1,
            }
            chunks.push(chunk);
            all_entries.push(Some(entries));
        }
        for (id, n) in unknown {
            self.losses.push(Loss {
                offset: 0,
                bytes: 0,
                messages: Some(n),
                reason: format!("no connection record was found for connection {id}"),
            });
        }
        let totals = count_and_total(&mut connections, &chunks);
        self.losses.sort_by_key(|l| l.offset);
        if let Some(Writing::Chunk { newest, .. }) = self.unfinished.as_mut().map(|u| &mut u.what) {
            *newest = chunks
                .iter()
                .filter(|c| c.message_count() > 0)
                .map(|c| c.end)
                .max();
        }
        Ok(Opened {
            connections,
            conn_map: map,
            chunks,
            heads,
            entries: all_entries,
            warnings: self.warnings,
            recovery: Some(Recovery {
                reason,
                complete_chunks: complete,
                partial_chunks: partial,
                losses: self.losses,
                scanned: None,
                unfinished: self.unfinished,
            }),
            totals: Some(totals),
            mcap: None,
        })
    }

    /// Walks the first chunk using a connection whose record we have not seen (the record
    /// sits in that chunk), until every connection used has its record or no chunk is left.
    /// Each round walks at least one more chunk.
    fn walk_for_connections(
        &mut self,
        source: &Arc<Source>,
        load: &Settings<'_>,
    ) -> Result<(), Changed> {
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
                return Ok(());
            }
            self.walk_chunks(source, load, &wanted)?;
        }
    }

    /// Decompresses and walks the chunks `which` (in parallel), adding their connections.
    fn walk_chunks(
        &mut self,
        source: &Arc<Source>,
        load: &Settings<'_>,
        which: &[usize],
    ) -> Result<(), Changed> {
        let todo: Vec<(usize, &Found)> = which
            .iter()
            .filter_map(|&i| Some((i, self.found.get(i)?)))
            .filter(|(_, f)| f.scan.is_none())
            .collect();
        let total = todo.len() as u64;
        let done = std::sync::atomic::AtomicU64::new(0);
        let told = std::sync::Mutex::new(0u64);
        let decoding = |done, total| RecoveryProgress::Decoding { done, total };
        let results = parallel_map(&todo, load.threads, |&(i, f)| {
            let chunk = f.to_chunk(0, (RosTime::MIN, RosTime::MIN), Vec::new());
            let walked = walk_one(source, load, &chunk, &f.to_head())?;
            let n = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
            if let Ok(mut last) = told.lock() {
                tell(load.progress, &mut last, n, total, decoding);
            }
            Ok((i, walked))
        });
        for result in results {
            let (i, walked) = result?;
            self.settle(i, walked);
        }
        Ok(())
    }

    /// Takes what decompressing and walking chunk `i` found: its losses, its connections.
    pub(super) fn settle(&mut self, i: usize, (error, scan): Walked) {
        let Some(f) = self.found.get_mut(i) else {
            return;
        };
        if let (Some(e), ChunkState::Open | ChunkState::Truncated) = (&error, f.state) {
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
}
