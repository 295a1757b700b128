//! A record header's layout, learned from one header so that the next ones laid out the same
//! way are read by comparing bytes instead of walking their fields. Every chunk info record
//! and every chunk record header of a bag comes from one writer, with the same fields in the
//! same order and of the same sizes: at a million chunks the walk is a quarter of `info`.
//!
//! A header "has the shape" when its length, each field's length and each field's name and
//! `=` are the bytes of the learned header: the field walk would then find the same fields at
//! the same places, so the values read here are exactly those [`walk_fast`] reads.

use super::header::walk_fast;

/// Where the fields of a learned record header sit.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Shape {
    /// The learned header's bytes (its 4-byte length first).
    bytes: Vec<u8>,
    /// `(name, value)` ranges of each field in `bytes`, in field order.
    fields: Vec<(Span, Span)>,
    /// The ranges that are not values: lengths, names and `=`.
    fixed: Vec<Span>,
}

/// A range `start..end` of a header's bytes.
type Span = (usize, usize);

impl Shape {
    /// The layout of the record header at the start of `buf`; `None` when [`walk_fast`]
    /// would not read it.
    pub fn learn(buf: &[u8]) -> Option<Shape> {
        let (header_len, _) = walk_fast(buf, |_, _| {})?;
        let end = header_len.checked_add(4)?;
        let bytes = buf.get(..end)?.to_vec();
        let mut fields = Vec::new();
        let mut fixed = Vec::new();
        let mut at = 4;
        let mut fixed_from = 0;
        while at < end {
            let len = bytes
                .get(at..at + 4)
                .and_then(|b| b.try_into().ok())
                .map(u32::from_le_bytes)?;
            let field = at + 4;
            let field_end = field.checked_add(usize::try_from(len).ok()?)?;
            let eq = bytes
                .get(field..field_end)?
                .iter()
                .position(|&b| b == b'=')?;
            let value = field + eq + 1;
            fixed.push((fixed_from, value));
            fields.push(((field, field + eq), (value, field_end)));
            fixed_from = field_end;
            at = field_end;
        }
        fixed.push((fixed_from, end));
        Some(Shape {
            bytes,
            fields,
            fixed,
        })
    }

    /// True when the header at the start of `buf` is laid out like the learned one.
    pub fn fits(&self, buf: &[u8]) -> bool {
        self.fixed.iter().all(|&(s, e)| {
            buf.get(s..e)
                .is_some_and(|b| self.bytes.get(s..e).is_some_and(|t| t == b))
        })
    }

    /// Calls `field` with each `(name, value)` of the header at the start of `buf`, which
    /// must [`fit`](Shape::fits), and returns what [`walk_fast`] returns: the header length
    /// and the bytes after the header.
    pub fn walk<'a>(
        &self,
        buf: &'a [u8],
        mut field: impl FnMut(&[u8], &'a [u8]),
    ) -> Option<(usize, &'a [u8])> {
        for &((ns, ne), (vs, ve)) in &self.fields {
            field(self.bytes.get(ns..ne)?, buf.get(vs..ve)?);
        }
        let end = self.bytes.len();
        Some((end - 4, buf.get(end..)?))
    }
}

/// [`walk_fast`] through `shape` when the header fits it; otherwise walks and learns the
/// header's shape for the next one.
pub fn walk_shaped<'a>(
    buf: &'a [u8],
    shape: &mut Option<Shape>,
    mut field: impl FnMut(&[u8], &'a [u8]),
) -> Option<(usize, &'a [u8])> {
    if let Some(s) = shape.as_ref().filter(|s| s.fits(buf)) {
        return s.walk(buf, field);
    }
    let walked = walk_fast(buf, &mut field)?;
    *shape = Shape::learn(buf);
    Some(walked)
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

    type Walked = Option<(Vec<(Vec<u8>, Vec<u8>)>, usize, Vec<u8>)>;

    fn plain(buf: &[u8]) -> Walked {
        let mut got = Vec::new();
        let (n, rest) = walk_fast(buf, |k, v| got.push((k.to_vec(), v.to_vec())))?;
        Some((got, n, rest.to_vec()))
    }

    fn shaped(buf: &[u8], shape: &mut Option<Shape>) -> Walked {
        let mut got = Vec::new();
        let (n, rest) = walk_shaped(buf, shape, |k, v| got.push((k.to_vec(), v.to_vec())))?;
        Some((got, n, rest.to_vec()))
    }

    #[test]
    fn reads_what_the_walk_reads_for_every_header_and_every_cut() {
        let a = record(&[("op", &[6]), ("chunk_pos", &[1; 8]), ("x", b"")], b"data");
        let same = record(&[("op", &[7]), ("chunk_pos", &[9; 8]), ("x", b"")], b"zz");
        let renamed = record(&[("op", &[7]), ("chunk_pot", &[9; 8]), ("x", b"")], b"");
        let longer = record(&[("op", &[7]), ("chunk_pos", &[9; 9]), ("x", b"")], b"");
        let eq_in_value = record(&[("op", b"="), ("chunk_pos", b"a=b=c=d="), ("x", b"")], b"");
        let mut shape = None;
        assert_eq!(shaped(&a, &mut shape), plain(&a));
        assert_eq!(shape, Shape::learn(&a));
        let learned = shape.clone().unwrap();
        assert!(learned.fits(&same) && learned.fits(&eq_in_value));
        assert!(!learned.fits(&renamed) && !learned.fits(&longer));
        for buf in [&same, &renamed, &longer, &eq_in_value, &a] {
            for cut in 0..=buf.len() {
                let part = &buf[..cut];
                // Through the learned shape, and again as learned from each header before.
                let mut s = Some(learned.clone());
                assert_eq!(shaped(part, &mut s), plain(part), "cut {cut}");
                assert_eq!(shaped(part, &mut s), plain(part), "cut {cut}, again");
            }
        }
        // Damage in the bytes the shape compares is noticed; in a value it is read as is.
        let mut bad = same.clone();
        for i in 0..bad.len() {
            bad[i] ^= 0x55;
            let mut s = Some(learned.clone());
            assert_eq!(shaped(&bad, &mut s), plain(&bad), "byte {i}");
            bad[i] ^= 0x55;
        }
    }
}
