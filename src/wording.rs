//! How counts and signed numbers are worded for people, the same everywhere (command line and
//! explorer): `1 message`, `2 messages`, `0 messages`; `0.0`, never `-0.0` (a value that rounds
//! to zero has no sign). Imports nothing from the crate: every layer may use it.

/// `n` and the noun in the number it takes: `1 message`, `3 messages` (`one` and `many` are
/// the singular and plural forms).
#[must_use]
pub fn count_of(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// `n` and `noun`, with an `s` (or `es` after s, x, ch, sh) when `n` is not 1: `1 message`,
/// `2 messages`, `4 matches`. For irregular nouns, [`count_of`].
#[must_use]
pub fn count(n: u64, noun: &str) -> String {
    if n == 1 {
        return format!("1 {noun}");
    }
    let es = ["s", "x", "ch", "sh"].iter().any(|e| noun.ends_with(e));
    format!("{n} {noun}{}", if es { "es" } else { "s" })
}

/// `x` with `decimals` decimals, without the minus sign of a value that rounds to zero:
/// `fixed(-0.01, 1)` is `0.0`.
#[must_use]
pub fn fixed(x: f64, decimals: usize) -> String {
    let text = format!("{x:.decimals$}");
    if rounds_to_zero(&text) {
        format!("{:.decimals$}", 0.0)
    } else {
        text
    }
}

/// `x` with its sign and `decimals` decimals; a value that rounds to zero is `+0.0`, never
/// `-0.0`.
#[must_use]
pub fn signed(x: f64, decimals: usize) -> String {
    let text = format!("{x:+.decimals$}");
    if rounds_to_zero(&text) {
        format!("{:+.decimals$}", 0.0)
    } else {
        text
    }
}

/// Whether a formatted number is zero (`-0.00`, `+0`, `0.0`).
fn rounds_to_zero(text: &str) -> bool {
    text.trim_start_matches(['+', '-'])
        .chars()
        .all(|c| c == '0' || c == '.')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_take_the_number_of_their_noun() {
        assert_eq!(count(1, "message"), "1 message");
        assert_eq!(count(0, "message"), "0 messages");
        assert_eq!(count(2, "msg"), "2 msgs");
        assert_eq!(count(3, "match"), "3 matches");
        assert_eq!(count(1, "match"), "1 match");
        assert_eq!(count_of(1, "series", "series"), "1 series");
        assert_eq!(count_of(5, "child", "children"), "5 children");
    }

    #[test]
    fn zero_has_no_minus_sign() {
        assert_eq!(fixed(-0.04, 1), "0.0");
        assert_eq!(fixed(-0.0, 3), "0.000");
        assert_eq!(fixed(-0.06, 1), "-0.1");
        assert_eq!(fixed(2.25, 1), "2.2");
        assert_eq!(signed(-0.0004, 3), "+0.000");
        assert_eq!(signed(-0.04, 1), "+0.0");
        assert_eq!(signed(-1.5, 1), "-1.5");
        assert_eq!(signed(24.0, 1), "+24.0");
        assert_eq!(fixed(-0.4, 0), "0");
        assert_eq!(fixed(f64::NAN, 1), "NaN");
        assert_eq!(fixed(f64::NEG_INFINITY, 1), "-inf");
    }
}
