//! A record header's layout, learned from one header so that the next ones laid out the same
//! way are read by comparing bytes instead of walking their fields. Every chunk info record
//! and every chunk record header of a bag comes from one writer, with the same fields in the
//! same order and of the same sizes: at a million chunks the walk is a quarter of `info`.
//!
//! A header "has the shape" when its length, each field's length and each field's name and
//! `=` are the bytes of the learned header: the field walk would then find the same fields at
//! the same places, so the values read here are exactly those [`walk_fast`] reads. The check
//! is a masked comparison of 8-byte words (values masked out), and where the wanted fields'
//! values sit is worked out once, when the shape is learned.

use super::header::walk_fast;

/// Where the fields of a learned record header sit.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Shape {
    /// The header's length, its 4-byte length field included.
    end: usize,
    /// The learned header's whole 8-byte little-endian words from its start, masked to the
    /// bytes that are not values, and the masks (0 where all is value).
    pattern: Vec<u64>,
    mask: Vec<u64>,
    /// The same for the header's last 8 bytes (overlapping the last whole word when the
    /// length is not a multiple of 8): `(bytes, mask)`.
    tail: (u64, u64),
    /// The value range of each wanted field (the last field of that name), in the order of
    /// the names the shape was learned for.
    values: Vec<Option<Span>>,
}

/// A range `start..end` of a header's bytes.
type Span = (usize, usize);

/// The little-endian value of up to 8 bytes (the first 8 of longer ones).
fn word(bytes: &[u8]) -> u64 {
    let mut w = [0; 8];
    for (d, s) in w.iter_mut().zip(bytes) {
        *d = *s;
    }
    u64::from_le_bytes(w)
}

/// What [`read_fields`] finds: the value of each wanted field (`None` when the header lacks
/// it), the header's length and the bytes after the header.
pub type Fields<'a, const N: usize> = ([Option<&'a [u8]>; N], usize, &'a [u8]);

impl Shape {
    /// The layout of the record header at the start of `buf`, with where the fields `names`
    /// sit; `None` when [`walk_fast`] would not read it (or it is too short to be worth it).
    pub fn learn(buf: &[u8], names: &[&[u8]]) -> Option<Shape> {
        let (header_len, _) = walk_fast(buf, |_, _| {})?;
        let end = header_len.checked_add(4)?;
        let bytes = buf.get(..end)?;
        if end < 8 {
            return None;
        }
        let mut mask = vec![0xffu8; end];
        let mut values = vec![None; names.len()];
        let mut at = 4;
        while at < end {
            let len = bytes
                .get(at..at + 4)
                .and_then(|b| b.try_into().ok())
                .map(u32::from_le_bytes)?;
            let field = at + 4;
            let field_end = field.checked_add(usize::try_from(len).ok()?)?;
            let text = bytes.get(field..field_end)?;
            let eq = text.iter().position(|&b| b == b'=')?;
            let name = text.get(..eq)?;
            let value = field + eq + 1;
            mask.get_mut(value..field_end)?.fill(0);
            if let Some(slot) = names
                .iter()
                .position(|n| *n == name)
                .and_then(|k| values.get_mut(k))
            {
                *slot = Some((value, field_end));
            }
            at = field_end;
        }
        let masks: Vec<u64> = mask.chunks_exact(8).map(word).collect();
        let pattern = bytes
            .chunks_exact(8)
            .zip(&masks)
            .map(|(w, m)| word(w) & m)
            .collect();
        let last = |s: &[u8]| s.get(end - 8..end).map(word);
        let tail_mask = last(&mask)?;
        let tail = (last(bytes)? & tail_mask, tail_mask);
        Some(Shape {
            end,
            pattern,
            mask: masks,
            tail,
            values,
        })
    }

    /// True when the header at the start of `buf` is laid out like the learned one.
    pub fn fits(&self, buf: &[u8]) -> bool {
        let Some(b) = buf.get(..self.end) else {
            return false;
        };
        // Every word compared, the differences gathered without a branch per word (a chunk
        // info header is 13 words; this runs for each of a million of them).
        let mut differ = 0;
        for ((w, p), m) in b.chunks_exact(8).zip(&self.pattern).zip(&self.mask) {
            differ |= (word(w) & m) ^ p;
        }
        let (tail, tail_mask) = self.tail;
        let last = word(b.get(self.end.saturating_sub(8)..).unwrap_or_default());
        differ | ((last & tail_mask) ^ tail) == 0
    }

    /// The wanted fields of the header at the start of `buf`, which must
    /// [`fit`](Shape::fits); `N` must be the number of names the shape was learned for.
    fn read<'a, const N: usize>(&self, buf: &'a [u8]) -> Option<Fields<'a, N>> {
        let mut found = [None; N];
        for (slot, span) in found.iter_mut().zip(&self.values) {
            *slot = match *span {
                Some((s, e)) => Some(buf.get(s..e)?),
                None => None,
            };
        }
        Some((found, self.end - 4, buf.get(self.end..)?))
    }
}

/// The values of the fields `names` (the last field of each name) of the record header at
/// the start of `buf`, its length and the bytes after it: what [`walk_fast`] finds, `None`
/// when it would fail. Read through `shape` when the header fits it; otherwise walked, and
/// the header's shape learned for the next one. One `shape` serves one list of `names`.
pub fn read_fields<'a, const N: usize>(
    buf: &'a [u8],
    names: [&[u8]; N],
    shape: &mut Option<Shape>,
) -> Option<Fields<'a, N>> {
    if let Some(s) = shape
        .as_ref()
        .filter(|s| s.values.len() == N && s.fits(buf))
    {
        return s.read(buf);
    }
    let mut found = [None; N];
    let (header_len, rest) = walk_fast(buf, |name, value| {
        if let Some(slot) = names
            .iter()
            .position(|n| *n == name)
            .and_then(|k| found.get_mut(k))
        {
            *slot = Some(value);
        }
    })?;
    *shape = Shape::learn(buf, &names);
    Some((found, header_len, rest))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::header::write_field;

    fn record(fields: &[(&str, &[u8])], data: &[u8]) -> Vec<u8> {
        let mut h = Vec::new();
        for (n, v) in fields {
            write_field(&mut h, n, v);
        }
        let mut out = u32::try_from(h.len()).unwrap().to_le_bytes().to_vec();
        out.extend(h);
        out.extend(u32::try_from(data.len()).unwrap().to_le_bytes());
        out.extend(data);
        out
    }

    const NAMES: [&[u8]; 3] = [b"chunk_pos", b"op", b"missing"];

    type Read = Option<([Option<Vec<u8>>; 3], usize, Vec<u8>)>;

    fn owned(f: Option<Fields<'_, 3>>) -> Read {
        let (found, n, rest) = f?;
        Some((found.map(|v| v.map(<[u8]>::to_vec)), n, rest.to_vec()))
    }

    /// What the plain field walk finds.
    fn plain(buf: &[u8]) -> Read {
        let mut found: [Option<&[u8]>; 3] = [None; 3];
        let walked = walk_fast(buf, |k, v| {
            if let Some(i) = NAMES.iter().position(|n| *n == k) {
                found[i] = Some(v);
            }
        });
        owned(walked.map(|(n, rest)| (found, n, rest)))
    }

    fn shaped(buf: &[u8], shape: &mut Option<Shape>) -> Read {
        owned(read_fields(buf, NAMES, shape))
    }

    #[test]
    fn reads_what_the_walk_reads_for_every_header_and_every_cut() {
        let a = record(&[("op", &[6]), ("chunk_pos", &[1; 8]), ("x", b"")], b"data");
        let same = record(&[("op", &[7]), ("chunk_pos", &[9; 8]), ("x", b"")], b"zz");
        let renamed = record(&[("op", &[7]), ("chunk_pot", &[9; 8]), ("x", b"")], b"");
        let longer = record(&[("op", &[7]), ("chunk_pos", &[9; 9]), ("x", b"")], b"");
        let eq_in_value = record(&[("op", b"="), ("chunk_pos", b"a=b=c=d="), ("x", b"")], b"");
        let twice = record(&[("op", &[1]), ("op", &[2]), ("chunk_pos", b"")], b"");
        let tiny = record(&[("o", b"")], b"");
        let mut shape = None;
        assert_eq!(shaped(&a, &mut shape), plain(&a));
        assert_eq!(shape, Shape::learn(&a, &NAMES));
        let learned = shape.clone().unwrap();
        assert!(learned.fits(&same) && learned.fits(&eq_in_value));
        assert!(!learned.fits(&renamed) && !learned.fits(&longer) && !learned.fits(&twice));
        for buf in [&same, &renamed, &longer, &eq_in_value, &twice, &tiny, &a] {
            for cut in 0..=buf.len() {
                let part = &buf[..cut];
                // Through the learned shape, and again as learned from each header before.
                let mut s = Some(learned.clone());
                assert_eq!(shaped(part, &mut s), plain(part), "cut {cut}");
                assert_eq!(shaped(part, &mut s), plain(part), "cut {cut}, again");
            }
        }
        // Damage in the bytes the shape compares is noticed; in a value it is read as is.
        for base in [&same, &twice] {
            let mut bad = base.clone();
            for i in 0..bad.len() {
                for flip in [0x55, 0x80, 0x01] {
                    bad[i] ^= flip;
                    let mut s = Some(learned.clone());
                    assert_eq!(shaped(&bad, &mut s), plain(&bad), "byte {i}");
                    let mut t = Shape::learn(base, &NAMES);
                    assert_eq!(shaped(&bad, &mut t), plain(&bad), "byte {i}, own shape");
                    bad[i] ^= flip;
                }
            }
        }
    }
}
