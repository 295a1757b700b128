//! Python's `repr` of floats and bytes, which `rostopic echo` prints (genpy values are Python
//! objects, `float32` fields included, widened to Python's double).

use std::fmt::{self, Write};

/// Writes `x` as Python 3's `repr(float)`: the shortest round-trip digits, in positional
/// notation with a `.0` when integral, or in exponent notation (`1e-05`, `1.5e+16`) when the
/// decimal exponent is below -4 or above 15; `nan`, `inf`, `-inf`.
///
/// The digits come from `ryu` (shortest round-trip, correctly rounded with ties to even, as
/// CPython's `repr`), read off its text without allocating: this runs for every float that
/// `echo`, `export` and the explorer print.
pub(crate) fn write_float<W: Write + ?Sized>(out: &mut W, x: f64) -> fmt::Result {
    if x.is_nan() {
        return out.write_str("nan");
    }
    if x.is_infinite() {
        return out.write_str(if x > 0.0 { "inf" } else { "-inf" });
    }
    let mut buf = ryu::Buffer::new();
    let text = buf.format_finite(x);
    // From 1e-4 to below 1e16 ryu's positional text (`0.0001`, `123.0`, `-2.5`) is Python's
    // repr as it is; outside that range the exponent forms differ (`1e-5` vs `1e-05`).
    if (1e-4..1e16).contains(&x.abs()) || x == 0.0 {
        return out.write_str(text);
    }
    let (negative, digits, exp) = Digits::read(text);
    let digits = digits.as_str();
    if negative {
        out.write_char('-')?;
    }
    if !(-4..16).contains(&exp) {
        let (first, rest) = digits.split_at(1.min(digits.len()));
        out.write_str(first)?;
        if !rest.is_empty() {
            out.write_char('.')?;
            out.write_str(rest)?;
        }
        let exp_sign = if exp < 0 { '-' } else { '+' };
        return write!(out, "e{exp_sign}{:02}", exp.unsigned_abs());
    }
    if exp < 0 {
        out.write_str("0.")?;
        for _ in 0..(-exp - 1) {
            out.write_char('0')?;
        }
        return out.write_str(digits);
    }
    let int_len = usize::try_from(exp).unwrap_or(0) + 1;
    if digits.len() <= int_len {
        out.write_str(digits)?;
        for _ in digits.len()..int_len {
            out.write_char('0')?;
        }
        out.write_str(".0")
    } else {
        let (int_part, frac) = digits.split_at(int_len);
        out.write_str(int_part)?;
        out.write_char('.')?;
        out.write_str(frac)
    }
}

/// The significant decimal digits of a finite float (no leading or trailing zeros; `0` for
/// zero), on the stack.
struct Digits {
    buf: [u8; 24],
    len: usize,
}

impl Digits {
    /// Reads `ryu`'s text (`-1.5e-7`, `0.001`, `123.0`, `1e30`) as (negative, digits, decimal
    /// exponent of the first digit).
    fn read(text: &str) -> (bool, Digits, i32) {
        let (negative, body) = match text.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, text),
        };
        let (mantissa, exp_text) = body.split_once(['e', 'E']).unwrap_or((body, "0"));
        let mut exp: i32 = exp_text.parse().unwrap_or(0);
        let mut digits = Digits {
            buf: [0; 24],
            len: 0,
        };
        // Digits before the point shift the exponent up; leading zeros after it, down.
        let mut seen_point = false;
        let mut before_point: i32 = 0;
        let mut leading_zeros: i32 = 0;
        for b in mantissa.bytes() {
            match b {
                b'.' => seen_point = true,
                b'0'..=b'9' => {
                    if digits.len == 0 && b == b'0' {
                        if seen_point {
                            leading_zeros += 1;
                        }
                        continue;
                    }
                    if !seen_point {
                        before_point += 1;
                    }
                    if let Some(slot) = digits.buf.get_mut(digits.len) {
                        *slot = b;
                        digits.len += 1;
                    }
                }
                _ => {}
            }
        }
        while digits.len > 1 && digits.buf.get(digits.len - 1) == Some(&b'0') {
            digits.len -= 1;
        }
        if digits.len == 0 {
            if let Some(first) = digits.buf.first_mut() {
                *first = b'0';
                digits.len = 1;
            }
            return (negative, digits, 0);
        }
        exp += if before_point > 0 {
            before_point - 1
        } else {
            -leading_zeros - 1
        };
        (negative, digits, exp)
    }

    fn as_str(&self) -> &str {
        std::str::from_utf8(self.buf.get(..self.len).unwrap_or_default()).unwrap_or("0")
    }
}

/// Writes `bytes` as Python 3's `repr(bytes)`: `b'...'` (double quotes when the bytes hold a
/// `'` and no `"`), with `\t`, `\n`, `\r`, `\\`, the quote escaped and other non-printable
/// bytes as `\xhh`.
pub(crate) fn write_bytes<W: Write + ?Sized>(out: &mut W, bytes: &[u8]) -> fmt::Result {
    let quote = if bytes.contains(&b'\'') && !bytes.contains(&b'"') {
        '"'
    } else {
        '\''
    };
    out.write_char('b')?;
    out.write_char(quote)?;
    for &b in bytes {
        match b {
            b'\t' => out.write_str("\\t")?,
            b'\n' => out.write_str("\\n")?,
            b'\r' => out.write_str("\\r")?,
            b'\\' => out.write_str("\\\\")?,
            _ if char::from(b) == quote => {
                out.write_char('\\')?;
                out.write_char(quote)?;
            }
            0x20..=0x7e => out.write_char(char::from(b))?,
            _ => write!(out, "\\x{b:02x}")?,
        }
    }
    out.write_char(quote)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repr(x: f64) -> String {
        let mut s = String::new();
        write_float(&mut s, x).unwrap();
        s
    }

    #[test]
    fn floats_like_python() {
        // Expected texts from CPython 3's repr().
        for (x, want) in [
            (0.0, "0.0"),
            (-0.0, "-0.0"),
            (1.0, "1.0"),
            (0.1, "0.1"),
            (1e16, "1e+16"),
            (1e15, "1000000000000000.0"),
            (1_234_567_890_123_456.0, "1234567890123456.0"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (1.5e-7, "1.5e-07"),
            (5e-324, "5e-324"),
            (1e300, "1e+300"),
            (-1.797_693_134_862_315_7e308, "-1.7976931348623157e+308"),
            (f64::from(0.1f32), "0.10000000149011612"),
            (f64::from(f32::MAX), "3.4028234663852886e+38"),
            (123.456, "123.456"),
            // 8.6940460205078125 (a float32), exactly halfway between two 16-digit strings.
            (f64::from_bits(0x4021_635a_0000_0000), "8.694046020507812"),
            (f64::NAN, "nan"),
            (f64::NEG_INFINITY, "-inf"),
        ] {
            assert_eq!(repr(x), want, "{x:e}");
        }
    }

    /// Against CPython's repr of 4 640 doubles (`tests/fixtures/msg/py_floats.txt`, made by
    /// `make_py_floats.py`).
    #[test]
    fn matches_cpython() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/msg/py_floats.txt");
        let text = std::fs::read_to_string(path).unwrap();
        for line in text.lines() {
            let (bits, want) = line.split_once(' ').unwrap();
            let x = f64::from_bits(u64::from_str_radix(bits, 16).unwrap());
            assert_eq!(repr(x), want, "{bits}");
        }
        assert!(text.lines().count() > 4000);
    }

    #[test]
    fn bytes_like_python() {
        let r = |b: &[u8]| {
            let mut s = String::new();
            write_bytes(&mut s, b).unwrap();
            s
        };
        assert_eq!(r(b""), "b''");
        assert_eq!(r(b"a\x00\xff\n\\"), "b'a\\x00\\xff\\n\\\\'");
        assert_eq!(r(b"it's"), "b\"it's\"");
        assert_eq!(r(b"'\""), "b'\\'\"'");
    }
}
