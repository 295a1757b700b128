//! Base64 for binary fields: a decoder that reports the offset of what is wrong (so errors
//! name a line and column), and the encoder used when writing YAML.
//!
//! Decoding takes the standard alphabet, skips whitespace (lines of a block scalar), and
//! accepts missing `=` padding and non-zero trailing bits, as the reference RoCKIn
//! converter (boost's `binary_from_base64`) does. It allocates at most three bytes per four
//! characters of the text it is given.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;

/// What is wrong with base64 text, and at which byte of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Base64Error {
    /// Byte offset in the text.
    pub(crate) offset: usize,
    /// What.
    pub(crate) what: String,
}

/// Table entry of bytes that are not base64 digits.
const SPECIAL: u8 = 0x80;

/// The value of each base64 digit; [`SPECIAL`] for every other byte.
static TABLE: [u8; 256] = table();

#[allow(clippy::indexing_slicing, clippy::cast_possible_truncation)] // evaluated at compile time
const fn table() -> [u8; 256] {
    let mut t = [SPECIAL; 256];
    let alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut i = 0;
    while i < 64 {
        t[alphabet[i] as usize] = i as u8;
        i += 1;
    }
    t
}

fn value(b: u8) -> u8 {
    TABLE.get(usize::from(b)).copied().unwrap_or(SPECIAL)
}

/// Decodes `text`.
///
/// Whole groups of four digits are decoded four at a time; whitespace, padding and errors
/// go through a byte-at-a-time path that knows where each byte is.
pub(crate) fn decode(text: &str) -> Result<Vec<u8>, Base64Error> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len() / 4 * 3 + 3);
    let mut acc: u32 = 0;
    let mut n = 0u8;
    let mut padding: Option<(usize, usize)> = None;
    let mut last_char = 0usize;
    let mut i = 0usize;
    loop {
        if n == 0 && padding.is_none() {
            while let Some(&[g0, g1, g2, g3]) = bytes.get(i..i + 4) {
                let (s0, s1, s2, s3) = (value(g0), value(g1), value(g2), value(g3));
                if (s0 | s1 | s2 | s3) & SPECIAL != 0 {
                    break;
                }
                let v = (u32::from(s0) << 18)
                    | (u32::from(s1) << 12)
                    | (u32::from(s2) << 6)
                    | u32::from(s3);
                let [_, b0, b1, b2] = v.to_be_bytes();
                out.extend_from_slice(&[b0, b1, b2]);
                last_char = i + 3;
                i += 4;
            }
        }
        let Some(&byte) = bytes.get(i) else {
            break;
        };
        if matches!(byte, b' ' | b'\t' | b'\n' | b'\r') {
            i += 1;
            continue;
        }
        if byte == b'=' {
            padding.get_or_insert((i, 0)).1 += 1;
            i += 1;
            continue;
        }
        if let Some((at, _)) = padding {
            return Err(Base64Error {
                offset: i,
                what: format!("data after the '=' padding at byte {at}"),
            });
        }
        let v = value(byte);
        if v & SPECIAL != 0 {
            let ch = text.get(i..).and_then(|s| s.chars().next()).unwrap_or('?');
            return Err(Base64Error {
                offset: i,
                what: format!("'{}' is not a base64 character", ch.escape_debug()),
            });
        }
        last_char = i;
        acc = (acc << 6) | u32::from(v);
        n += 1;
        if n == 4 {
            let [_, b0, b1, b2] = acc.to_be_bytes();
            out.extend_from_slice(&[b0, b1, b2]);
            acc = 0;
            n = 0;
        }
        i += 1;
    }
    match n {
        0 => {}
        1 => {
            return Err(Base64Error {
                offset: last_char,
                what: "one character left over after the last group of four (cut short?)"
                    .to_string(),
            });
        }
        2 => {
            let [_, _, _, b0] = (acc >> 4).to_be_bytes();
            out.push(b0);
        }
        _ => {
            let [_, _, b0, b1] = (acc >> 2).to_be_bytes();
            out.extend_from_slice(&[b0, b1]);
        }
    }
    if let Some((at, count)) = padding {
        let expected = (4 - usize::from(n)) % 4;
        if count != expected {
            return Err(Base64Error {
                offset: at,
                what: format!("{count} '=' where the data needs {expected}"),
            });
        }
    }
    Ok(out)
}

/// Encodes `bytes` (standard alphabet, padded), appending to `out`.
pub(crate) fn encode_into(bytes: &[u8], out: &mut String) {
    STANDARD.encode_string(bytes, out);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_like_the_reference_and_reports_offsets() {
        assert_eq!(decode("aGVsbG8=").unwrap(), b"hello");
        assert_eq!(
            decode("aGVsbG8").unwrap(),
            b"hello",
            "padding may be left out"
        );
        assert_eq!(decode(" aGVs\n  bG8=\n").unwrap(), b"hello");
        assert_eq!(decode("").unwrap(), b"");
        let all: Vec<u8> = (0..=255).collect();
        let mut s = String::new();
        encode_into(&all, &mut s);
        assert_eq!(decode(&s).unwrap(), all);
        let e = decode("aGV*bG8=").unwrap_err();
        assert_eq!(e.offset, 3);
        assert!(e.what.contains("'*'"), "{}", e.what);
        assert_eq!(decode("aGVsb").unwrap_err().offset, 4);
        assert_eq!(decode("aGVsbG8=A").unwrap_err().offset, 8);
        assert_eq!(decode("aGVsbG8==").unwrap_err().offset, 7);
        assert_eq!(decode("aGVs=").unwrap_err().offset, 4);
        assert_eq!(decode("aGVsbG8gd29y\nbGQ=").unwrap(), b"hello world");
        assert_eq!(decode("aGVsbG8gd2*y").unwrap_err().offset, 10);
        assert_eq!(decode("aGVsbG8gd29ybGQ").unwrap(), b"hello world");
    }
}
