//! Numbers as the plot prints them: at most [`SIG_DIGITS`] significant digits in legends and
//! on axes ([`short`]), the exact value at the cursor readout ([`exact`]). A float32 field
//! ([`Precision::F32`]) prints as float32 — `2.1178875`, the shortest text that reads back as
//! the same `f32`, not the `f64` widening `2.117887496948242`.

/// Most significant digits of a number in a legend or on an axis.
pub const SIG_DIGITS: usize = 6;

/// How a series' values print.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Precision {
    /// As `f64`.
    #[default]
    F64,
    /// As `f32`: the values are those of a float32 field.
    F32,
}

/// The exact value: the shortest text that reads back as the same number (as `f32` for
/// [`Precision::F32`]), in scientific notation when very large or small; never `-0`.
pub fn exact(v: f64, p: Precision) -> String {
    if v == 0.0 || !v.is_finite() {
        return format!("{}", if v == 0.0 { 0.0 } else { v });
    }
    let scientific = !(1e-4..1e15).contains(&v.abs());
    match (p, scientific) {
        (Precision::F32, false) => format!("{}", narrow(v)),
        (Precision::F32, true) => format!("{:e}", narrow(v)),
        (Precision::F64, false) => format!("{v}"),
        (Precision::F64, true) => format!("{v:e}"),
    }
}

#[allow(clippy::cast_possible_truncation)]
fn narrow(v: f64) -> f32 {
    v as f32
}

/// `v` rounded to [`SIG_DIGITS`] significant digits (of its float32 text for
/// [`Precision::F32`]), as short as it reads: `3.5` for `3.4999950495`, `1.71042e9` for
/// `1710421200.25`, `-0.000123457e0` as `-1.23457e-4`; never `-0`.
pub fn short(v: f64, p: Precision) -> String {
    if v == 0.0 || !v.is_finite() {
        return exact(v, p);
    }
    // The decimal value the series means: the float32's shortest text for float32 data.
    let meant = match p {
        Precision::F32 => format!("{}", narrow(v)).parse::<f64>().unwrap_or(v),
        Precision::F64 => v,
    };
    let rounded = format!("{meant:.prec$e}", prec = SIG_DIGITS - 1)
        .parse::<f64>()
        .unwrap_or(meant);
    if rounded == 0.0 {
        return "0".to_string();
    }
    if (1e-4..1e6).contains(&rounded.abs()) {
        format!("{rounded}")
    } else {
        format!("{rounded:e}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float32_values_print_as_float32() {
        let v = f64::from(2.117_887_5_f32);
        assert_eq!(format!("{v}"), "2.117887496948242");
        assert_eq!(exact(v, Precision::F32), "2.1178875");
        assert_eq!(exact(v, Precision::F64), "2.117887496948242");
        assert_eq!(short(v, Precision::F32), "2.11789");
        assert_eq!(exact(f64::from(1e-9_f32), Precision::F32), "1e-9");
        assert_eq!(exact(f64::from(0.1_f32), Precision::F32), "0.1");
    }

    #[test]
    fn short_numbers_have_at_most_six_significant_digits() {
        for (v, s) in [
            (-1.499_999_998_655_011_9, "-1.5"),
            (3.499_995_049_546_279_7, "3.5"),
            (3.499_949_5, "3.49995"),
            (0.1 + 0.2, "0.3"),
            (9.81, "9.81"),
            (123_456.7, "123457"),
            (999_999.7, "1e6"),
            (1_710_421_200.254, "1.71042e9"),
            (0.000_123_456_7, "0.000123457"),
            (0.000_012_345_67, "1.23457e-5"),
            (-0.0, "0"),
            (1e-300, "1e-300"),
            (f64::NAN, "NaN"),
            (f64::INFINITY, "inf"),
        ] {
            assert_eq!(short(v, Precision::F64), s, "{v}");
            let digits = s
                .split('e')
                .next()
                .unwrap_or("")
                .chars()
                .filter(char::is_ascii_digit)
                .collect::<String>();
            assert!(
                digits.trim_start_matches('0').len() <= SIG_DIGITS,
                "{v}: {s}"
            );
        }
    }
}
