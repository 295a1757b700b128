//! Scalar text → numbers and booleans, as the fields' types ask.
//!
//! Integers: decimal with an optional sign (`+5`, `-3`), or `0x`/`0o`/`0b` with a sign before
//! it. Floats: what Rust and Python print (`5.5`, `1e-05`, `-0.0`, `6`), `nan`, `inf`,
//! `-inf`, and YAML's `.nan`, `.inf`, `-.inf`. Booleans: `true`/`false` in any case (Python's
//! `True`/`False`), `1`/`0`.

/// Why text is not an integer of some range.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum IntProblem {
    /// Not an integer at all.
    NotInteger,
    /// An integer, but larger than anything a field can hold.
    TooLarge,
}

/// Parses an integer.
pub(crate) fn parse_int(text: &str) -> Result<i128, IntProblem> {
    let t = text.trim();
    let (neg, body) = match t.as_bytes().first() {
        Some(b'-') => (true, t.get(1..).unwrap_or_default()),
        Some(b'+') => (false, t.get(1..).unwrap_or_default()),
        _ => (false, t),
    };
    let (radix, digits) = match body.get(..2) {
        Some("0x" | "0X") => (16, body.get(2..).unwrap_or_default()),
        Some("0o" | "0O") => (8, body.get(2..).unwrap_or_default()),
        Some("0b" | "0B") => (2, body.get(2..).unwrap_or_default()),
        _ => (10, body),
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return Err(IntProblem::NotInteger);
    }
    let mut v: i128 = 0;
    for c in digits.chars() {
        let d = i128::from(c.to_digit(radix).unwrap_or(0));
        v = v
            .checked_mul(i128::from(radix))
            .and_then(|v| v.checked_add(d))
            .ok_or(IntProblem::TooLarge)?;
    }
    Ok(if neg { -v } else { v })
}

/// YAML's special float spellings.
fn special(text: &str) -> Option<f64> {
    Some(match text {
        ".nan" | ".NaN" | ".NAN" => f64::NAN,
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => f64::INFINITY,
        "-.inf" | "-.Inf" | "-.INF" => f64::NEG_INFINITY,
        _ => return None,
    })
}

/// True for text Rust's float parser takes that is not a number in YAML or Python terms
/// (`infinity` is fine, hexadecimal is never taken by Rust).
fn plausible_float(text: &str) -> bool {
    !text.is_empty()
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'+' | b'-'))
}

/// Whether a parsed float stands for a value its type cannot hold (finite text that
/// overflowed).
fn overflowed(text: &str, inf: bool) -> bool {
    let lower = text.to_ascii_lowercase();
    inf && !lower.contains("inf")
}

/// Parses a `float64`: `Ok(None)` when it is not a number, `Err(())` when out of range.
pub(crate) fn parse_f64(text: &str) -> Result<Option<f64>, ()> {
    let t = text.trim();
    if let Some(v) = special(t) {
        return Ok(Some(v));
    }
    if !plausible_float(t) {
        return Ok(None);
    }
    match t.parse::<f64>() {
        Ok(v) if overflowed(t, v.is_infinite()) => Err(()),
        Ok(v) => Ok(Some(v)),
        Err(_) => Ok(None),
    }
}

/// Parses a `float32` (rounded once, from the text).
pub(crate) fn parse_f32(text: &str) -> Result<Option<f32>, ()> {
    let t = text.trim();
    if let Some(v) = special(t) {
        #[allow(clippy::cast_possible_truncation)] // nan and infinities only
        return Ok(Some(v as f32));
    }
    if !plausible_float(t) {
        return Ok(None);
    }
    match t.parse::<f32>() {
        Ok(v) if overflowed(t, v.is_infinite()) => Err(()),
        Ok(v) => Ok(Some(v)),
        Err(_) => Ok(None),
    }
}

/// Parses a `bool`.
pub(crate) fn parse_bool(text: &str) -> Option<bool> {
    let t = text.trim();
    if t.eq_ignore_ascii_case("true") || t == "1" {
        Some(true)
    } else if t.eq_ignore_ascii_case("false") || t == "0" {
        Some(false)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers() {
        assert_eq!(parse_int("42"), Ok(42));
        assert_eq!(parse_int("-7"), Ok(-7));
        assert_eq!(parse_int("+7"), Ok(7));
        assert_eq!(parse_int("0x1F"), Ok(31));
        assert_eq!(parse_int("-0o17"), Ok(-15));
        assert_eq!(parse_int("6.0"), Err(IntProblem::NotInteger));
        assert_eq!(parse_int(""), Err(IntProblem::NotInteger));
        assert_eq!(parse_int("-"), Err(IntProblem::NotInteger));
        assert_eq!(parse_int("1e3"), Err(IntProblem::NotInteger));
        assert_eq!(
            parse_int("999999999999999999999999999999999999999999"),
            Err(IntProblem::TooLarge)
        );
    }

    #[test]
    fn floats() {
        assert_eq!(parse_f64("5.5"), Ok(Some(5.5)));
        assert_eq!(parse_f64("6"), Ok(Some(6.0)));
        assert_eq!(parse_f64("1e-05"), Ok(Some(1e-5)));
        assert!(parse_f64("nan").unwrap().unwrap().is_nan());
        assert!(parse_f64(".NaN").unwrap().unwrap().is_nan());
        assert_eq!(parse_f64("-.inf"), Ok(Some(f64::NEG_INFINITY)));
        assert_eq!(parse_f64("-inf"), Ok(Some(f64::NEG_INFINITY)));
        assert_eq!(parse_f64("1e400"), Err(()));
        assert_eq!(parse_f64("abc"), Ok(None));
        assert_eq!(parse_f64("0x10"), Ok(None));
        assert_eq!(parse_f64("1,5"), Ok(None));
        assert_eq!(parse_f32("0.1"), Ok(Some(0.1f32)));
        assert_eq!(parse_f32("0.10000000149011612"), Ok(Some(0.1f32)));
        assert_eq!(parse_f32("1e39"), Err(()));
        assert_eq!(
            parse_f32("-0.0").unwrap().unwrap().to_bits(),
            (-0.0f32).to_bits()
        );
        assert_eq!(parse_bool("True"), Some(true));
        assert_eq!(parse_bool("0"), Some(false));
        assert_eq!(parse_bool("yes"), None);
    }
}
