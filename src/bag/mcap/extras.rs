//! Attachments and metadata records of a file whose summary does not index them all (its
//! statistics count more than its indexes list, or it has neither): found by walking the
//! data section's top-level records, reading each record's frame (9 bytes) and skipping its
//! body — a chunk with its message indexes in one step, as the chunk index places them — and
//! reading only attachment heads and metadata records. Nothing is decompressed.

use std::collections::HashMap;

use mcap::records::Record;

use crate::bag::error::Warning;
use crate::bag::source::{Changed, Source};
use crate::format::mcap::{self as fmt, MAGIC, op};

use super::{Attachment, MetadataRecord};

/// The most bytes of an attachment record read for its head (name and media type).
const ATTACHMENT_HEAD: u64 = 1 << 20;

/// The most bytes of a metadata record read.
pub(crate) const MAX_METADATA: u64 = 16 << 20;

/// What the walk found.
#[derive(Default)]
pub(crate) struct Extras {
    pub attachments: Vec<Attachment>,
    pub metadata: Vec<MetadataRecord>,
}

/// Walks the top-level records from the magic to `end` (the summary's start) or the data end
/// record. `skips`: for a chunk starting at an offset, the bytes of it and its message index
/// records. Records that do not read are warnings; a frame that runs past `end` ends the walk
/// with one.
pub(crate) fn walk(
    source: &Source,
    end: u64,
    skips: &HashMap<u64, u64>,
    warnings: &mut Vec<Warning>,
) -> Result<Extras, Changed> {
    let mut found = Extras::default();
    let mut at = MAGIC.len() as u64;
    while at.saturating_add(fmt::FRAME) <= end {
        let head = source.read_exact_at(at, fmt::FRAME)?;
        let Some((opcode, len)) = fmt::stated_len(&head, 0) else {
            break;
        };
        let next = at.saturating_add(fmt::FRAME).saturating_add(len);
        if next > end {
            warnings.push(Warning::at(
                at,
                format!(
                    "an MCAP {} record of {len} bytes runs past the data section: its attachments and metadata were not all listed",
                    op::name(opcode)
                ),
            ));
            break;
        }
        match opcode {
            op::DATA_END => break,
            op::ATTACHMENT => {
                let take = (fmt::FRAME + len).min(ATTACHMENT_HEAD);
                let bytes = source.read_exact_at(at, take)?;
                // The head is in the first bytes: the data need not be read.
                let frame = fmt::Frame {
                    op: opcode,
                    at: 0,
                    body: bytes.get(fmt::FRAME_LEN..).unwrap_or_default(),
                    end: take,
                };
                match fmt::attachment_head(&frame, at) {
                    Ok(a) => found.attachments.push(Attachment {
                        offset: at,
                        name: a.name,
                        media_type: a.media_type,
                        size: a.data_size,
                        log_time: a.log_time,
                        create_time: a.create_time,
                    }),
                    Err(e) => {
                        warnings.push(Warning::at(at, format!("an attachment is unreadable: {e}")));
                    }
                }
            }
            op::METADATA => {
                let bytes = source.read_exact_at(at, (fmt::FRAME + len).min(MAX_METADATA))?;
                let read = fmt::frame_at(&bytes, 0, at).and_then(|f| fmt::parse_borrowed(&f, at));
                match read {
                    Ok(Record::Metadata(m)) => found.metadata.push(MetadataRecord {
                        name: m.name,
                        entries: m.metadata,
                    }),
                    Ok(_) => {}
                    Err(e) => warnings.push(Warning::at(
                        at,
                        format!("a metadata record is unreadable: {e}"),
                    )),
                }
            }
            _ => {}
        }
        at = match (opcode, skips.get(&at)) {
            (op::CHUNK, Some(&n)) if at.saturating_add(n) >= next => at.saturating_add(n),
            _ => next,
        };
    }
    Ok(found)
}
