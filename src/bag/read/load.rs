//! Getting at a chunk's uncompressed bytes, and at one message inside them.

use std::sync::Arc;

use crate::format::{
    Compression, ErrorKind, FormatError, MessageDataHeader, Op, RecordKind, compression,
    legacy::{read_v10_message, read_v11_message},
    read_record,
    v12::message_time_12,
};
use crate::time::RosTime;

use crate::bag::budget::{Budget, Permit};
use crate::bag::bytes::Bytes;
use crate::bag::chunk::{Chunk, ChunkLayout, ChunkState};
use crate::bag::read::heads::ChunkHead;
use crate::bag::source::{Changed, Source};

/// A chunk's uncompressed bytes, and the problem met while decompressing, if any (the bytes
/// then hold what could be decoded before it). For chunks cut short or never closed an error
/// is expected: what decoded is what there is.
///
/// `permit` holds the chunk's bytes against the bag's decode [`Budget`] until it is dropped:
/// keep it while working on the chunk on a worker thread, drop it before waiting for anything.
#[derive(Debug)]
pub(crate) struct LoadedChunk {
    pub bytes: Bytes,
    pub error: Option<FormatError>,
    pub permit: Option<Permit>,
}

impl LoadedChunk {
    /// Nothing, because of `error`.
    pub(crate) fn failed(error: FormatError) -> Self {
        LoadedChunk {
            error: Some(error),
            ..LoadedChunk::empty()
        }
    }

    fn empty() -> Self {
        LoadedChunk {
            bytes: Bytes::from_vec(Vec::new()),
            error: None,
            permit: None,
        }
    }
}

/// What a chunk may cost a loader that must not wait for the consumer: see
/// [`load_chunk_within`].
pub(crate) enum Within {
    /// Loaded (or the file changed under us).
    Done(Result<LoadedChunk, Changed>),
    /// The chunk decodes to more than its declared size: leave it to the consumer.
    Larger,
}

/// Reads (and decompresses) the data of `chunk`, holding its bytes against `budget` while
/// decoding. A 2.0 chunk is read from the file with one positioned read; the whole-file
/// pseudo-chunk of older layouts is a view of [`Source::whole`]. Output beyond `limit` is an
/// error, as is a file that no longer holds the chunk ([`Changed`]).
pub(crate) fn load_chunk(
    source: &Arc<Source>,
    chunk: &Chunk,
    head: &ChunkHead,
    limit: u64,
    budget: &Arc<Budget>,
) -> Result<LoadedChunk, Changed> {
    load(source, chunk, head, limit, budget, false).map(|l| l.unwrap_or_else(LoadedChunk::empty))
}

/// Like [`load_chunk`] but never decodes past the chunk's declared size: a chunk that would
/// (a lying header, a decompression bomb) is left for [`load_chunk`] on the consumer's side,
/// so that speculative loads ahead of the consumer hold at most what the headers declare.
pub(crate) fn load_chunk_within(
    source: &Arc<Source>,
    chunk: &Chunk,
    head: &ChunkHead,
    limit: u64,
    budget: &Arc<Budget>,
) -> Within {
    match load(source, chunk, head, limit, budget, true) {
        Ok(Some(l)) => Within::Done(Ok(l)),
        Ok(None) => Within::Larger,
        Err(e) => Within::Done(Err(e)),
    }
}

thread_local! {
    /// A buffer for compressed chunk data, reused by each thread.
    static RAW: std::cell::Cell<Vec<u8>> = const { std::cell::Cell::new(Vec::new()) };
}

/// The largest compressed-data buffer a thread keeps for the next chunk.
const MAX_KEPT_RAW: usize = 16 << 20;

/// Growth factor of the decode reservation when a chunk decodes to more than it declared.
const GROWTH: u64 = 4;
/// The smallest decode reservation.
const MIN_RESERVATION: u64 = 64 << 10;

fn load(
    source: &Arc<Source>,
    chunk: &Chunk,
    head: &ChunkHead,
    limit: u64,
    budget: &Arc<Budget>,
    within_declared: bool,
) -> Result<Option<LoadedChunk>, Changed> {
    if !chunk.is_record() {
        // The whole file of an older layout: a view, nothing is copied.
        let start = usize::try_from(head.data_offset).unwrap_or(usize::MAX);
        let end = usize::try_from(head.data_offset.saturating_add(head.compressed_size))
            .unwrap_or(usize::MAX);
        return Ok(Some(LoadedChunk {
            bytes: Bytes::from_source(source, start..end),
            error: None,
            permit: None,
        }));
    }
    // An MCAP chunk holds the records its header declares: what decodes past them is damage,
    // not worth memory (a bomb that declares a few bytes costs a few bytes).
    let cap = limit;
    let limit = if chunk.layout == ChunkLayout::Mcap {
        limit.min(head.uncompressed_size)
    } else {
        limit
    };
    let beyond_declared = |kind: ErrorKind| match kind {
        ErrorKind::TooLarge { .. } if limit < cap => ErrorKind::Decompress {
            method: head.compression.name(),
            reason: format!(
                "the chunk decodes to more than the {} bytes it declares",
                head.uncompressed_size
            ),
        },
        kind => kind,
    };
    if head.compression == Compression::None {
        // Read into memory up to the cap (a chunk found by a recovery walk may claim the rest
        // of the file); what lies beyond it is reported, as for a compressed chunk.
        let take = head.compressed_size.min(source.len()).min(limit);
        let permit = budget.acquire(take);
        let raw = source.read_exact_at(head.data_offset, take)?;
        let error = (take < head.compressed_size).then(|| {
            let kind = beyond_declared(ErrorKind::TooLarge {
                declared: head.compressed_size,
                limit,
            });
            FormatError::new(head.data_offset, RecordKind::Chunk, kind).in_chunk(chunk.pos)
        });
        return Ok(Some(LoadedChunk {
            bytes: Bytes::from_vec(raw.into_owned()),
            error,
            permit: Some(permit),
        }));
    }
    // The compressed bytes and the output are held together: a holder never waits with
    // something held. Compressed data longer than the most any codec needs for `limit`
    // bytes of output cannot decode within it: it is not read.
    let raw_len = head
        .compressed_size
        .min(source.len())
        .min(limit.saturating_add(limit / 32).saturating_add(1 << 20));
    let declared = u32::try_from(head.uncompressed_size).unwrap_or(u32::MAX);
    let guess = if declared > 0 {
        u64::from(declared)
    } else {
        raw_len.saturating_mul(GROWTH)
    };
    let mut want = guess.max(MIN_RESERVATION).min(limit);
    let (out, result, permit) = loop {
        let permit = budget.acquire(raw_len.saturating_add(want));
        // The compressed bytes go to this thread's reused buffer: one allocation per thread,
        // not per chunk.
        let mut raw = RAW.take();
        if let Err(c) = source.read_exact_into(head.data_offset, raw_len, &mut raw) {
            RAW.set(raw);
            return Err(c);
        }
        let mut out = Vec::new();
        let _ = out.try_reserve_exact(usize::try_from(want).unwrap_or(0));
        let result = compression::decompress(head.compression, &raw, declared, want, &mut out);
        if raw.capacity() <= MAX_KEPT_RAW {
            RAW.set(raw);
        } else {
            drop(raw);
        }
        match result {
            Err(ErrorKind::TooLarge { .. }) if want < limit && u64::from(declared) <= want => {
                if within_declared {
                    return Ok(None);
                }
                // More than declared: hold more (waiting with nothing held) and decode again.
                drop(out);
                drop(permit);
                want = want.saturating_mul(GROWTH).min(limit);
            }
            _ => break (out, result, permit),
        }
    };
    let error = match result {
        Ok(()) => None,
        // A cut or unterminated chunk cannot match its declared size.
        Err(ErrorKind::SizeMismatch { .. }) if chunk.state != ChunkState::Complete => None,
        // (A bag chunk may decode to more than it declares; an MCAP chunk may not.)
        Err(ErrorKind::SizeMismatch { declared, actual })
            if actual >= declared && chunk.layout != ChunkLayout::Mcap =>
        {
            None
        }
        Err(kind) => Some(
            FormatError::new(head.data_offset, RecordKind::Chunk, beyond_declared(kind))
                .in_chunk(chunk.pos),
        ),
    };
    Ok(Some(LoadedChunk {
        bytes: Bytes::from_vec(out),
        error,
        permit: Some(permit),
    }))
}

/// What the record at an index entry says about itself.
#[derive(Clone, Debug)]
pub(crate) struct RawMessage {
    /// Receive time in the record.
    pub time: RosTime,
    /// Connection id in the record (2.0), if it has one.
    pub file_conn: Option<u32>,
    /// Topic in the record (older layouts), if it has one.
    pub topic: Option<Vec<u8>>,
    /// The payload.
    pub data: Bytes,
}

/// Reads the message whose record starts at `offset` of `bytes` (a chunk's uncompressed data,
/// or the whole file for older layouts).
pub(crate) fn read_message(
    chunk: &Chunk,
    bytes: &Bytes,
    offset: u64,
) -> Result<RawMessage, FormatError> {
    let at = usize::try_from(offset).unwrap_or(usize::MAX);
    let in_chunk = |e: FormatError| {
        if chunk.is_record() {
            e.in_chunk(chunk.pos)
        } else {
            e
        }
    };
    let slice_of = |start: u64, len: usize| {
        let s = usize::try_from(start).unwrap_or(usize::MAX);
        bytes.slice(s..s.saturating_add(len))
    };
    match chunk.layout {
        ChunkLayout::V2 => {
            if let Some(m) = read_v2_message_fast(bytes, at) {
                return Ok(m);
            }
            let rec = read_record(bytes, at, 0).map_err(in_chunk)?;
            let h = MessageDataHeader::parse(rec.header.bytes(), rec.header.base())
                .map_err(in_chunk)?;
            Ok(RawMessage {
                time: h.time,
                file_conn: Some(h.conn),
                topic: None,
                data: slice_of(rec.data_offset, rec.data.len()),
            })
        }
        ChunkLayout::Mcap => {
            let m = crate::format::mcap::message_at(bytes, at).ok_or_else(|| {
                in_chunk(FormatError::new(
                    offset,
                    RecordKind::Mcap(crate::format::mcap::op::MESSAGE),
                    ErrorKind::BadValue {
                        name: "message",
                        reason: "not a whole message record".into(),
                    },
                ))
            })?;
            Ok(RawMessage {
                time: RosTime::from_nanos(m.log_time),
                file_conn: Some(u32::from(m.channel)),
                topic: None,
                data: bytes.slice(m.data_start..m.data_end),
            })
        }
        ChunkLayout::V12 => {
            let mut rec = read_record(bytes, at, 0)?;
            if rec.header.op()? == Op::MessageDefinition.byte() {
                let next = usize::try_from(rec.end()).unwrap_or(usize::MAX);
                rec = read_record(bytes, next, 0)?;
            }
            rec.expect_op(Op::MessageData)?;
            let h = rec.header.with_kind(RecordKind::MessageData);
            let time = message_time_12(&h)?;
            let topic = h.required("topic")?.value.to_vec();
            Ok(RawMessage {
                time,
                file_conn: None,
                topic: Some(topic),
                data: slice_of(rec.data_offset, rec.data.len()),
            })
        }
        ChunkLayout::V11 | ChunkLayout::V10 => {
            let m = if chunk.layout == ChunkLayout::V11 {
                read_v11_message(bytes, at, 0)?
            } else {
                read_v10_message(bytes, at, 0)?
            };
            Ok(RawMessage {
                time: m.time,
                file_conn: None,
                topic: Some(m.topic.to_vec()),
                data: slice_of(m.data_offset, m.data.len()),
            })
        }
    }
}

/// The hot path of a full read: a well-formed 2.0 message data record at `at`, read in one
/// pass (frame, header fields, data) with every length checked. `None` when anything is off;
/// the general path then reads the record again and reports the problem.
#[inline]
fn read_v2_message_fast(bytes: &Bytes, at: usize) -> Option<RawMessage> {
    let tail = bytes.get(at..)?;
    let (header_len, rest) = tail.split_first_chunk::<4>()?;
    let header_len = usize::try_from(u32::from_le_bytes(*header_len)).ok()?;
    let (header, rest) = rest.split_at_checked(header_len)?;
    let (data_len, rest) = rest.split_first_chunk::<4>()?;
    let data_len = usize::try_from(u32::from_le_bytes(*data_len)).ok()?;
    if data_len > rest.len() {
        return None;
    }
    // The base only places errors, and errors go to the general path.
    let h = MessageDataHeader::parse(header, 0).ok()?;
    let start = at.checked_add(8)?.checked_add(header_len)?;
    Some(RawMessage {
        time: h.time,
        file_conn: Some(h.conn),
        topic: None,
        data: bytes.slice(start..start.checked_add(data_len)?),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunk(compression: Compression, data_len: u64, declared: u64) -> (Chunk, ChunkHead) {
        let c = Chunk {
            index: 0,
            pos: 0,
            layout: ChunkLayout::V2,
            state: ChunkState::Complete,
            start: RosTime::MIN,
            end: RosTime::MIN,
            counts: crate::bag::counts::Counts::default(),
        };
        let h = ChunkHead {
            data_offset: 0,
            compressed_size: data_len,
            uncompressed_size: declared,
            compression,
            index_data_pos: None,
        };
        (c, h)
    }

    #[test]
    fn a_chunk_larger_than_declared_is_decoded_within_the_budget_or_left_to_the_consumer() {
        let data: Vec<u8> = (0..3_000_000u32).map(|i| (i % 7) as u8).collect();
        for method in [Compression::Bz2, Compression::Lz4] {
            let packed = compression::compress(method, &data).unwrap();
            let len = packed.len() as u64;
            let source = Arc::new(Source::owned(packed));
            let budget = Budget::new(1 << 30);
            // The header says 10 bytes: decoded again with more room, all of it kept.
            let c = chunk(method, len, 10);
            let l = load_chunk(&source, &c.0, &c.1, 1 << 30, &budget).unwrap();
            assert_eq!(&l.bytes[..], &data[..], "{method}");
            assert!(l.error.is_none(), "{method}: {:?}", l.error);
            assert!(
                budget.used() >= data.len() as u64,
                "held while the chunk is"
            );
            drop(l);
            assert_eq!(budget.used(), 0);
            // The cap still holds.
            let l = load_chunk(&source, &c.0, &c.1, 1 << 20, &budget).unwrap();
            assert!(matches!(
                l.error.as_ref().map(|e| &e.kind),
                Some(ErrorKind::TooLarge { .. })
            ));
            drop(l);
            // Read-ahead never decodes past the declared size.
            assert!(matches!(
                load_chunk_within(&source, &c.0, &c.1, 1 << 30, &budget),
                Within::Larger
            ));
            let honest = chunk(method, len, data.len() as u64);
            match load_chunk_within(&source, &honest.0, &honest.1, 1 << 30, &budget) {
                Within::Done(Ok(l)) => assert_eq!(l.bytes.len(), data.len()),
                _ => panic!("{method}: an honest chunk loads ahead"),
            }
            assert_eq!(budget.used(), 0);
        }
    }
}
