//! PyYAML's YAML 1.1 implicit resolvers: which plain scalars read back as something other
//! than a string.

/// True when a plain scalar with this text would be read back as something other than a
/// string (PyYAML's YAML 1.1 implicit resolvers: bool, int, float, null, timestamp, merge,
/// value).
pub(super) fn resolves_to_non_string(s: &str) -> bool {
    const WORDS: [&str; 24] = [
        "yes", "Yes", "YES", "no", "No", "NO", "true", "True", "TRUE", "false", "False", "FALSE",
        "on", "On", "ON", "off", "Off", "OFF", "~", "null", "Null", "NULL", "<<", "=",
    ];
    s.is_empty() || WORDS.contains(&s) || is_int(s) || is_float(s) || is_timestamp(s)
}

fn digits_or_underscores(s: &str, radix: u32) -> bool {
    !s.is_empty() && s.chars().all(|c| c == '_' || c.is_digit(radix))
}

fn strip_sign(s: &str) -> &str {
    s.strip_prefix(['-', '+']).unwrap_or(s)
}

/// `[0-5]?[0-9]`
fn is_sexagesimal_part(p: &str) -> bool {
    let b = p.as_bytes();
    match b {
        [d] => d.is_ascii_digit(),
        [h, d] => (b'0'..=b'5').contains(h) && d.is_ascii_digit(),
        _ => false,
    }
}

/// `[1-9][0-9_]*` (or `[0-9][0-9_]*` when `zero_ok`) followed by `(:[0-5]?[0-9])+`.
fn is_sexagesimal(s: &str, zero_ok: bool) -> bool {
    let mut parts = s.split(':');
    let head = parts.next().unwrap_or_default();
    let head_ok = head.chars().next().is_some_and(|c| {
        if zero_ok {
            c.is_ascii_digit()
        } else {
            ('1'..='9').contains(&c)
        }
    }) && head.chars().skip(1).all(|c| c == '_' || c.is_ascii_digit());
    let rest: Vec<&str> = parts.collect();
    head_ok && !rest.is_empty() && rest.iter().all(|p| is_sexagesimal_part(p))
}

fn is_int(s: &str) -> bool {
    let body = strip_sign(s);
    if let Some(bits) = body.strip_prefix("0b") {
        return digits_or_underscores(bits, 2);
    }
    if let Some(hex) = body.strip_prefix("0x") {
        return digits_or_underscores(hex, 16);
    }
    if body == "0" {
        return true;
    }
    if let Some(oct) = body.strip_prefix('0') {
        return digits_or_underscores(oct, 8);
    }
    let decimal = body
        .chars()
        .next()
        .is_some_and(|c| ('1'..='9').contains(&c))
        && body.chars().all(|c| c == '_' || c.is_ascii_digit());
    decimal || is_sexagesimal(body, false)
}

/// `[eE][-+][0-9]+` or nothing.
fn is_exponent_or_empty(s: &str) -> bool {
    if s.is_empty() {
        return true;
    }
    let Some(rest) = s.strip_prefix(['e', 'E']) else {
        return false;
    };
    let Some(digits) = rest.strip_prefix(['-', '+']) else {
        return false;
    };
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

fn is_float(s: &str) -> bool {
    if matches!(s, ".nan" | ".NaN" | ".NAN") {
        return true;
    }
    let body = strip_sign(s);
    if matches!(body, ".inf" | ".Inf" | ".INF") {
        return true;
    }
    // `\.[0-9][0-9_]*(exp)?` (no sign allowed)
    if let Some(frac) = s.strip_prefix('.') {
        let end = frac
            .find(|c: char| c != '_' && !c.is_ascii_digit())
            .unwrap_or(frac.len());
        let (digits, exp) = frac.split_at(end);
        if digits.starts_with(|c: char| c.is_ascii_digit()) && is_exponent_or_empty(exp) {
            return true;
        }
    }
    let Some((int_part, after_dot)) = body.split_once('.') else {
        return false;
    };
    // `[0-9][0-9_]*(:[0-5]?[0-9])+\.[0-9_]*`
    if int_part.contains(':') {
        return is_sexagesimal(int_part, true)
            && after_dot.chars().all(|c| c == '_' || c.is_ascii_digit());
    }
    // `[0-9][0-9_]*\.[0-9_]*(exp)?`
    let int_ok = int_part.starts_with(|c: char| c.is_ascii_digit())
        && int_part.chars().all(|c| c == '_' || c.is_ascii_digit());
    let end = after_dot
        .find(|c: char| c != '_' && !c.is_ascii_digit())
        .unwrap_or(after_dot.len());
    int_ok && is_exponent_or_empty(after_dot.get(end..).unwrap_or_default())
}

fn take_digits(s: &[u8], min: usize, max: usize) -> Option<(&[u8], &[u8])> {
    let n = s
        .iter()
        .take(max)
        .take_while(|b| b.is_ascii_digit())
        .count();
    (n >= min).then(|| s.split_at(n))
}

fn is_timestamp(s: &str) -> bool {
    let date = (|| {
        let (_, r) = take_digits(s.as_bytes(), 4, 4)?;
        let r = r.strip_prefix(b"-")?;
        let (month, r) = take_digits(r, 1, 2)?;
        let r = r.strip_prefix(b"-")?;
        let (day, r) = take_digits(r, 1, 2)?;
        Some((month.len() == 2 && day.len() == 2, r))
    })();
    let Some((two_digit, rest)) = date else {
        return false;
    };
    if rest.is_empty() {
        return two_digit;
    }
    (|| {
        let r = match rest.first()? {
            b'T' | b't' => rest.get(1..)?,
            b' ' | b'\t' => {
                let n = rest
                    .iter()
                    .take_while(|c| matches!(c, b' ' | b'\t'))
                    .count();
                rest.get(n..)?
            }
            _ => return None,
        };
        let (_, r) = take_digits(r, 1, 2)?;
        let r = r.strip_prefix(b":")?;
        let (_, r) = take_digits(r, 2, 2)?;
        let r = r.strip_prefix(b":")?;
        let (_, mut r) = take_digits(r, 2, 2)?;
        if let Some(frac) = r.strip_prefix(b".") {
            r = frac.get(frac.iter().take_while(|c| c.is_ascii_digit()).count()..)?;
        }
        let n = r.iter().take_while(|c| matches!(c, b' ' | b'\t')).count();
        let tz = r.get(n..)?;
        if tz.is_empty() {
            return Some(n == 0);
        }
        if tz == b"Z" {
            return Some(true);
        }
        let tz = tz.strip_prefix(b"-").or_else(|| tz.strip_prefix(b"+"))?;
        let (_, r) = take_digits(tz, 1, 2)?;
        if r.is_empty() {
            return Some(true);
        }
        let r = r.strip_prefix(b":")?;
        let (_, r) = take_digits(r, 2, 2)?;
        Some(r.is_empty())
    })()
    .unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolvers() {
        for s in [
            "",
            "1",
            "-1",
            "+0",
            "0x1F",
            "0b101",
            "017",
            "1_000",
            "1:30",
            "1.5",
            "-1.",
            ".5",
            "1.0e+5",
            ".inf",
            "-.Inf",
            ".nan",
            "190:20:30.15",
            "yes",
            "Off",
            "~",
            "null",
            "<<",
            "=",
            "2001-12-14",
            "2001-12-14t21:59:43.10-05:00",
            "2001-12-14 21:59:43.10 -5",
            "2001-1-1 1:00:00",
        ] {
            assert!(resolves_to_non_string(s), "{s:?}");
        }
        for s in [
            "a", "1.0e5", "1e+5", "0x", "09", "1:60", "abc1", "2001-1-1", "y", "nan", "inf",
            "1.5.6", "- 1", "+", ".",
        ] {
            assert!(!resolves_to_non_string(s), "{s:?}");
        }
    }
}
