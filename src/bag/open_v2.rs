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
use super::table::ConnTable;

/// Why the index cannot be used; the caller scans the file instead.
pub(crate) type Fallback = String;

/// Reads the index of a 2.0 bag whose bag header is `header` (ending at `after_header`).
pub(crate) fn open_indexed(buf: &[u8], header: &BagHeader) -> Result<Opened, Fallback> {
    let len = buf.len() as u64;
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
    let mut pos = index_pos;
    while pos < len {
        let at = usize::try_from(pos).map_err(|_| "offset overflow".to_string())?;
        let head = read_head(buf, at, 0)
            .map_err(|e| format!("index section damaged: {e} (at byte {pos})"))?;
        match head.op() {
            Ok(Ok(Op::Connection)) => {
                let rec = read_record(buf, at, 0)
                    .and_then(|r| ConnectionRecord::from_record(&r).map(|c| (c, r.end())))
                    .map_err(|e| {
                        format!("index section damaged: {e} (at byte {})", e.file_offset())
                    })?;
                let (c, end) = rec;
                table.insert(c.conn, c.topic, c.header, pos, &mut warnings);
                pos = end;
            }
            Ok(Ok(Op::ChunkInfo)) => {
                let info = ChunkInfo::read(buf, at, 0).map_err(|e| {
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
    let chunks = chunks_from_infos(buf, &infos, &map)?;
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

fn chunks_from_infos(
    buf: &[u8],
    infos: &[ChunkInfo],
    map: &HashMap<u32, ConnId>,
) -> Result<Vec<Chunk>, Fallback> {
    let len = buf.len() as u64;
    let mut seen = HashMap::with_capacity(infos.len());
    let mut chunks = Vec::with_capacity(infos.len());
    for (i, info) in infos.iter().enumerate() {
        if let Some(prev) = seen.insert(info.chunk_pos, i) {
            return Err(format!(
                "chunk info records {prev} and {i} both point to byte {}",
                info.chunk_pos
            ));
        }
        let at = usize::try_from(info.chunk_pos)
            .ok()
            .filter(|&p| (p as u64) < len)
            .ok_or_else(|| {
                format!(
                    "a chunk info points to byte {} beyond the end of the file",
                    info.chunk_pos
                )
            })?;
        let head = read_head(buf, at, 0).map_err(|e| {
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
            let conn = map.get(&file_id).ok_or_else(|| {
                format!(
                    "the chunk info at byte {} names connection {file_id}, which has no connection record",
                    info.offset
                )
            })?;
            counts.push((*conn, n));
        }
        chunks.push(Chunk {
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
        });
    }
    Ok(chunks)
}
