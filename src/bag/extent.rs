//! How far a record goes in the bytes at hand: its header whole, cut off by the end of the
//! bytes, or not a record. A record cut off by the end of a file that a writer is appending
//! to is the one being written, not damage: the follower waits for the rest of it, and the
//! recovery scan of a `.active` file reports it as unfinished instead of lost. One rule for
//! both walks.

use crate::format::cursor::le_u32;
use crate::format::{RecordHead, read_head};

/// The longest record header accepted (connection headers with long definitions included).
pub(crate) const MAX_HEADER: u32 = 16 << 20;

/// What the bytes at the start of a record are (see [`record_at`]).
pub(crate) enum Extent<'a> {
    /// The record header is whole and parses; its data may still run past the bytes at hand.
    Head(RecordHead<'a>),
    /// The bytes end inside the record header (or its length fields); what there is of it
    /// has the shape of a record header.
    CutHeader,
    /// Not a record: why.
    Damage(String),
}

/// The record at `rest[0]` (file offset `offset`): a record claiming a header longer than
/// [`MAX_HEADER`] or more than `max_data` data bytes is damage.
pub(crate) fn record_at(rest: &[u8], offset: u64, max_data: u64) -> Extent<'_> {
    let Some(header_len) = rest.get(..4).and_then(le_u32) else {
        return Extent::CutHeader;
    };
    if header_len > MAX_HEADER {
        return Extent::Damage(format!("a record header of {header_len} bytes"));
    }
    let whole_header = 8usize.saturating_add(header_len as usize);
    if rest.len() < whole_header {
        let present = rest.get(4..).unwrap_or_default();
        return match fields_so_far(present, header_len as usize) {
            Ok(()) => Extent::CutHeader,
            Err(why) => Extent::Damage(why),
        };
    }
    let head = match read_head(rest, 0, offset) {
        Ok(h) => h,
        Err(e) => return Extent::Damage(e.to_string()),
    };
    if u64::from(head.data_len) > max_data {
        return Extent::Damage(format!(
            "a record of {} bytes (more than the {max_data} accepted)",
            head.data_len
        ));
    }
    Extent::Head(head)
}

/// When the record at `rest[0]` (file offset `offset`) is cut off by the end of the file at
/// offset `end` (its header, or its data, goes past it): where its data starts (`end` when
/// its header is cut), the first byte that is not its header. `rest` holds the file from the
/// record on, at least its header when the file has it. `None` for a record that is whole,
/// or that is not one.
pub(crate) fn cut_off(rest: &[u8], offset: u64, end: u64, max_data: u64) -> Option<u64> {
    match record_at(rest, offset, max_data) {
        Extent::CutHeader => (offset.saturating_add(rest.len() as u64) >= end).then_some(end),
        Extent::Head(h) => (h.end() > end).then_some(h.data_offset),
        Extent::Damage(_) => None,
    }
}

/// Checks the fields of a record header of `len` bytes of which only `present` are at hand:
/// each whole field holds a `name=`, and no field runs past the header.
fn fields_so_far(present: &[u8], len: usize) -> Result<(), String> {
    let present = present.get(..len.min(present.len())).unwrap_or_default();
    let mut at = 0usize;
    while let Some(n) = present.get(at..at + 4).and_then(le_u32) {
        let n = n as usize;
        let start = at + 4;
        let end = start.saturating_add(n);
        if end > len {
            return Err(format!(
                "a header field of {n} bytes at byte {at} of a record header of {len} bytes"
            ));
        }
        let field = present
            .get(start..end.min(present.len()))
            .unwrap_or_default();
        if end <= present.len() && !field.contains(&b'=') {
            return Err("a record header field without `=`".into());
        }
        at = end;
    }
    Ok(())
}

#[cfg(test)]
#[allow(clippy::cast_possible_truncation)] // small test records
mod tests {
    use super::*;

    /// A message data record of `data` bytes.
    fn record(data: usize) -> Vec<u8> {
        let fields: &[&[u8]] = &[
            b"op=\x02",
            b"conn=\x00\x00\x00\x00",
            b"time=\x01\x00\x00\x00\x00\x00\x00\x00",
        ];
        let mut header = Vec::new();
        for f in fields {
            header.extend_from_slice(&(f.len() as u32).to_le_bytes());
            header.extend_from_slice(f);
        }
        let mut r = (header.len() as u32).to_le_bytes().to_vec();
        r.extend_from_slice(&header);
        r.extend_from_slice(&(data as u32).to_le_bytes());
        r.extend(vec![7u8; data]);
        r
    }

    #[test]
    fn a_record_cut_anywhere_is_cut_off_and_a_whole_one_is_not() {
        let r = record(10);
        for k in 0..r.len() {
            let data = cut_off(&r[..k], 100, 100 + k as u64, 1 << 20);
            let header_end = 100 + r.len() as u64 - 10;
            let want = if k as u64 + 100 >= header_end {
                header_end
            } else {
                100 + k as u64
            };
            assert_eq!(data, Some(want), "cut at {k}");
        }
        assert_eq!(cut_off(&r, 100, 100 + r.len() as u64, 1 << 20), None);
        assert!(matches!(record_at(&r, 100, 1 << 20), Extent::Head(_)));
    }

    #[test]
    fn what_is_not_a_record_is_not_cut_off() {
        // A header claiming more than the limit, a field without `=`, a field past the header.
        assert!(cut_off(&[0xff, 0xff, 0xff, 0x7f, 0], 0, 5, 1 << 20).is_none());
        let mut bad = 40u32.to_le_bytes().to_vec();
        bad.extend_from_slice(&4u32.to_le_bytes());
        bad.extend_from_slice(b"opxx");
        assert!(cut_off(&bad, 0, bad.len() as u64, 1 << 20).is_none());
        let mut long = 10u32.to_le_bytes().to_vec();
        long.extend_from_slice(&20u32.to_le_bytes());
        assert!(cut_off(&long, 0, long.len() as u64, 1 << 20).is_none());
        // Data beyond what is accepted.
        assert!(cut_off(&record(100)[..50], 0, 50, 50).is_none());
    }
}
