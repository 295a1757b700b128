//! Opening an indexed 2.0 bag from its index alone: the bag header, the connection and chunk
//! info records at `index_pos`, and each chunk's record header. No chunk is decompressed; the
//! work is proportional to the number of chunks, not to the file size.
//!
//! Everything that can be cross-checked is: counts in the bag header, chunk positions, chunk
//! record headers, connection ids in chunk infos. Any inconsistency makes the caller fall back
//! to a recovery scan.

use std::collections::HashMap;

use crate::format::{
    BagHeader, ChunkHeader, ChunkInfo, ConnectionRecord, Op, read_head, read_record,
};

use super::chunk::{Chunk, ChunkLayout, ChunkState};
use super::connection::ConnId;
use super::error::Warning;
use super::opened::Opened;
use super::parallel::parallel_map;
use super::source::Source;
use super::table::ConnTable;

/// Why the index cannot be used; the caller scans the file instead.
pub(crate) type Fallback = String;

/// Reads the index of a 2.0 bag whose bag header is `header`.
pub(crate) fn open_indexed(
    source: &Source,
    header: &BagHeader,
    threads: usize,
) -> Result<Opened, Fallback> {
    let len = source.len();
    let index_pos = header.index_pos;
    if index_pos == 0 {
        return Err("the bag header's index_pos is 0: the recording was not closed (crashed or still in progress)".into());
    }
    if index_pos > len {
        return Err(format!(
            "the index section should start at byte {index_pos} but the file has only {len} bytes: the file is truncated"
        ));
    }
    let mut warnings = Vec::new();
    let mut table = ConnTable::default();
    let mut infos = Vec::new();
    let section = source.read_at(
        index_pos,
        usize::try_from(len - index_pos).unwrap_or(usize::MAX),
    );
    let buf: &[u8] = &section;
    let mut pos = index_pos;
    while pos < len {
        let at = usize::try_from(pos - index_pos).map_err(|_| "offset overflow".to_string())?;
        let head = read_head(buf, at, index_pos)
            .map_err(|e| format!("index section damaged: {e} (at byte {pos})"))?;
        match head.op() {
            Ok(Ok(Op::Connection)) => {
                let rec = read_record(buf, at, index_pos)
                    .and_then(|r| ConnectionRecord::from_record(&r).map(|c| (c, r.end())))
                    .map_err(|e| {
                        format!("index section damaged: {e} (at byte {})", e.file_offset())
                    })?;
                let (c, end) = rec;
                table.insert(c.conn, c.topic, c.header, pos, &mut warnings);
                pos = end;
            }
            Ok(Ok(Op::ChunkInfo)) => {
                let info = ChunkInfo::from_head(&head, buf, index_pos).map_err(|e| {
                    format!("index section damaged: {e} (at byte {})", e.file_offset())
                })?;
                pos = info.end;
                infos.push(info);
            }
            Ok(other) => {
                return Err(format!(
                    "unexpected record (op {}) in the index section at byte {pos}",
                    match other {
                        Ok(op) => op.byte(),
                        Err(b) => b,
                    }
                ));
            }
            Err(e) => return Err(format!("index section damaged: {e} (at byte {pos})")),
        }
    }
    if let Some(n) = header.chunk_count {
        if n as usize != infos.len() {
            return Err(format!(
                "the bag header announces {n} chunks but the index section holds {} chunk info records",
                infos.len()
            ));
        }
    }
    if let Some(n) = header.conn_count {
        if n as usize != table.len() {
            warnings.push(Warning::general(format!(
                "the bag header announces {n} connections but the index section holds {}",
                table.len()
            )));
        }
    }
    let (mut connections, map) = table.finish();
    let chunks = chunks_from_infos(source, &infos, &map, threads)?;
    let mut counts: HashMap<ConnId, u64> = HashMap::new();
    for c in &chunks {
        for &(conn, n) in &c.counts {
            *counts.entry(conn).or_default() += u64::from(n);
        }
    }
    for c in &mut connections {
        c.message_count = counts.get(&c.id).copied().unwrap_or(0);
    }
    let entries = vec![None; chunks.len()];
    Ok(Opened {
        connections,
        conn_map: map,
        chunks,
        entries,
        warnings,
        recovery: None,
    })
}

/// Reads the record header at `pos` with one small positioned read (two when the header is
/// unusually long).
fn head_at(source: &Source, pos: u64) -> std::borrow::Cow<'_, [u8]> {
    const GUESS: usize = 128;
    let first = source.read_at(pos, GUESS);
    let needed = first
        .get(..4)
        .and_then(crate::format::cursor::le_u32)
        .map_or(GUESS, |h| (h as usize).saturating_add(8));
    if needed <= first.len() || first.len() < GUESS {
        return first;
    }
    source.read_at(pos, needed)
}

/// Chunk infos handled per thread when reading chunk headers in parallel.
const BLOCK: usize = 256;

fn chunks_from_infos(
    source: &Source,
    infos: &[ChunkInfo],
    map: &HashMap<u32, ConnId>,
    threads: usize,
) -> Result<Vec<Chunk>, Fallback> {
    let mut positions: Vec<u64> = infos.iter().map(|i| i.chunk_pos).collect();
    positions.sort_unstable();
    if let Some(w) = positions.windows(2).find(|w| w.first() == w.get(1)) {
        return Err(format!(
            "two chunk info records point to the same chunk at byte {}",
            w.first().copied().unwrap_or_default()
        ));
    }
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
    // One small positioned read per chunk header; with many chunks, on several threads.
    let blocks: Vec<(usize, &[ChunkInfo])> = infos
        .chunks(BLOCK)
        .enumerate()
        .map(|(b, c)| (b * BLOCK, c))
        .collect();
    let threads = if infos.len() >= 2 * BLOCK { threads } else { 1 };
    let results = parallel_map(&blocks, threads, |&(first, block)| {
        block
            .iter()
            .enumerate()
            .map(|(j, info)| chunk_from_info(source, first + j, info, &lookup))
            .collect::<Result<Vec<Chunk>, Fallback>>()
    });
    let mut chunks = Vec::with_capacity(infos.len());
    for r in results {
        chunks.extend(r?);
    }
    Ok(chunks)
}

/// Reads and checks the chunk record a chunk info points to.
fn chunk_from_info(
    source: &Source,
    i: usize,
    info: &ChunkInfo,
    lookup: &(impl Fn(u32) -> Option<ConnId> + Sync),
) -> Result<Chunk, Fallback> {
    let len = source.len();

    if info.chunk_pos >= len {
        return Err(format!(
            "a chunk info points to byte {} beyond the end of the file",
            info.chunk_pos
        ));
    }
    let bytes = head_at(source, info.chunk_pos);
    let head = read_head(&bytes, 0, info.chunk_pos).map_err(|e| {
        format!(
            "a chunk info points to byte {} which is not a chunk: {e}",
            info.chunk_pos
        )
    })?;
    let ch = ChunkHeader::from_head(&head).map_err(|e| {
        format!(
            "a chunk info points to byte {} which is not a chunk: {e}",
            info.chunk_pos
        )
    })?;
    if head.end() > len {
        return Err(format!(
            "the chunk at byte {} runs past the end of the file",
            info.chunk_pos
        ));
    }
    let mut counts = Vec::with_capacity(info.counts.len());
    for &(file_id, n) in &info.counts {
        let conn = lookup(file_id).ok_or_else(|| {
            format!(
                "the chunk info at byte {} names connection {file_id}, which has no connection record",
                info.offset
            )
        })?;
        counts.push((conn, n));
    }
    Ok(Chunk {
        index: u32::try_from(i).unwrap_or(u32::MAX),
        pos: info.chunk_pos,
        data_offset: head.data_offset,
        compressed_size: u64::from(head.data_len),
        uncompressed_size: u64::from(ch.size),
        compression: ch.compression,
        layout: ChunkLayout::V2,
        state: ChunkState::Complete,
        start: info.start_time,
        end: info.end_time,
        counts,
        index_data_pos: Some(head.end()),
    })
}
