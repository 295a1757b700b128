//! Finding where records start again after damage: the next `op=` field preceded by a header
//! that parses, holds a known op and whose data fits the file.

use crate::format::{Op, read_head};

use super::window::Window;

/// How far before an `op` field a record may start when resynchronising.
const RESYNC_LOOKBACK: usize = 512;

/// The largest record header the windowed resynchronisation accepts.
const MAX_RESYNC_HEADER: u64 = 64 << 10;

/// [`find_next_record`] through a window: searches the file a window at a time (each window
/// overlapping the last by the pattern's length), checking candidates with a view of their
/// own.
pub(super) fn find_next_record_in(win: &mut Window<'_>, from: usize) -> Option<usize> {
    find_next_record_where(win, from, |_| true)
}

/// [`find_next_record_in`] taking only records whose op `accept` allows (after a compressed
/// chunk whose end is unknown, records that its literal runs may copy are not taken).
pub(super) fn find_next_record_where(
    win: &mut Window<'_>,
    from: usize,
    accept: fn(Op) -> bool,
) -> Option<usize> {
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
            if plausible_at(v.buf, v.at, v.base, hit, file_len)
                && read_head(v.buf, v.at, v.base)
                    .is_ok_and(|h| matches!(h.op(), Ok(Ok(op)) if accept(op)))
            {
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
