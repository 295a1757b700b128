//! A y axis: a range that holds the data, cut at "nice" ticks (1, 2 or 5 × 10^k), with
//! labels that read well (`0.3`, not `0.30000000000000004`; `1.5e6` for large magnitudes) in
//! at most six significant digits: ticks that need more (1 700 000 000 to 1 700 000 300, 100
//! apart) are labelled from an [`Axis::offset`] shown once (`+100` from `1700000000`).

/// A value axis.
#[derive(Debug, Clone, PartialEq)]
pub struct Axis {
    /// Lowest value shown.
    pub lo: f64,
    /// Highest value shown.
    pub hi: f64,
    /// Distance between ticks.
    pub step: f64,
    /// Tick values, ascending, within `lo..=hi`.
    pub ticks: Vec<f64>,
    /// One label per tick (relative to `offset` when that is not 0).
    pub labels: Vec<String>,
    /// What the labels count from (0 unless the ticks need more than six significant
    /// digits; then a round number at or below `lo`, and the labels read `+100`).
    pub offset: f64,
}

/// Most ticks an axis gets, whatever is asked.
const MAX_TICKS: usize = 64;

/// The smallest 1, 2 or 5 × 10^k at or above `raw` (> 0, finite).
pub fn nice_step(raw: f64) -> f64 {
    if !(raw.is_finite() && raw > 0.0) {
        return 1.0;
    }
    let exp = raw.log10().floor();
    let base = 10f64.powf(exp);
    for m in [1.0, 2.0, 5.0, 10.0] {
        let step = m * base;
        // Tolerate rounding in log10/powf.
        if step >= raw * (1.0 - 1e-9) {
            return step;
        }
    }
    10.0 * base
}

impl Axis {
    /// An axis holding `min..=max` with at most `max_ticks` ticks (at least 3), its ends on
    /// ticks. A flat range (`min == max`) is widened around the value; no data gives 0..1.
    pub fn new(min: f64, max: f64, max_ticks: usize) -> Axis {
        let (mut min, mut max) = if min.is_finite() && max.is_finite() && min <= max {
            (min, max)
        } else {
            (0.0, 1.0)
        };
        if max - min <= f64::EPSILON * min.abs().max(max.abs()) {
            let half = if min == 0.0 { 1.0 } else { min.abs() * 0.1 };
            min -= half;
            max += half;
        }
        let intervals = max_ticks.clamp(3, MAX_TICKS) - 1;
        #[allow(clippy::cast_precision_loss)]
        let mut step = nice_step((max - min) / intervals as f64);
        let (mut first, mut last) = ((min / step).floor(), (max / step).ceil());
        // Rounding out may take an interval too many: go up a nice step.
        #[allow(clippy::cast_precision_loss)]
        for _ in 0..4 {
            if last - first <= intervals as f64 {
                break;
            }
            step = nice_step(step * 1.000_001);
            first = (min / step).floor();
            last = (max / step).ceil();
        }
        let decimals = decimals_for(step);
        let mut ticks = Vec::new();
        let mut k = first;
        while k <= last && ticks.len() <= MAX_TICKS {
            ticks.push(k * step);
            k += 1.0;
        }
        let offset = label_offset(first * step, last * step, step);
        let labels = ticks
            .iter()
            .map(|t| {
                if offset == 0.0 {
                    label(*t, step, decimals)
                } else {
                    format!("+{}", label(*t - offset, step, decimals))
                }
            })
            .collect();
        Axis {
            lo: first * step,
            hi: last * step,
            step,
            ticks,
            labels,
            offset,
        }
    }

    /// Where `v` falls on the axis: 0 at `lo`, 1 at `hi` (outside 0..1 beyond them).
    pub fn fraction(&self, v: f64) -> f64 {
        fraction(self.lo, self.hi, v)
    }
}

/// What the labels of ticks `step` apart from `lo` to `hi` count from: 0 when they read in
/// [`SIG_DIGITS`](super::numbers::SIG_DIGITS) significant digits, else `lo` rounded down to a
/// power of ten above the span (labels then need at most four).
fn label_offset(lo: f64, hi: f64, step: f64) -> f64 {
    let top = lo.abs().max(hi.abs());
    if !(top > 0.0 && step > 0.0 && hi > lo) {
        return 0.0;
    }
    let digits = top.log10().floor() - step.log10().floor() + 1.0;
    #[allow(clippy::cast_precision_loss)]
    if digits <= super::numbers::SIG_DIGITS as f64 {
        return 0.0;
    }
    let unit = 10f64.powf((hi - lo).log10().floor() + 1.0);
    (lo / unit).floor() * unit
}

/// Digits after the point that tell ticks `step` apart.
fn decimals_for(step: f64) -> usize {
    let d = -step.log10().floor();
    if d > 0.0 {
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let d = d as usize;
        d.min(15)
    } else {
        0
    }
}

/// The label of tick `v` on an axis of ticks `step` apart.
pub fn tick_label(v: f64, step: f64) -> String {
    label(v, step, decimals_for(step))
}

/// A tick label: fixed-point with the step's digits, or scientific for very large or small
/// magnitudes; never `-0`.
fn label(v: f64, step: f64, decimals: usize) -> String {
    let v = if v.abs() < step * 1e-6 { 0.0 } else { v };
    let magnitude = v.abs().max(step);
    if magnitude >= 1e6 || step < 1e-4 {
        if v == 0.0 {
            return "0".into();
        }
        // Enough mantissa digits to tell ticks apart.
        let digits = (v.abs().log10().floor() - step.log10().floor()).max(0.0);
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let digits = (digits as usize).min(15);
        return trim_exp(&format!("{v:.digits$e}"));
    }
    format!("{v:.decimals$}")
}

/// `1.50e6` → `1.5e6`.
fn trim_exp(s: &str) -> String {
    match s.split_once('e') {
        Some((m, e)) if m.contains('.') => {
            format!("{}e{e}", m.trim_end_matches('0').trim_end_matches('.'))
        }
        _ => s.to_string(),
    }
}

/// A value in a legend or at the cursor: the shortest text that reads back as the same
/// `f64` (so two different values never print alike), in scientific notation when very large
/// or small.
pub fn value_label(v: f64) -> String {
    if v == 0.0 || !v.is_finite() {
        return format!("{}", if v == 0.0 { 0.0 } else { v });
    }
    let a = v.abs();
    if (1e-4..1e15).contains(&a) {
        format!("{v}")
    } else {
        format!("{v:e}")
    }
}

/// Where `v` falls between `lo` and `hi`: 0 at `lo`, 1 at `hi` (outside 0..1 beyond them; 0.5
/// when the span is empty).
pub(super) fn fraction(lo: f64, hi: f64, v: f64) -> f64 {
    let span = hi - lo;
    if span > 0.0 { (v - lo) / span } else { 0.5 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_are_one_two_five() {
        for (raw, step) in [
            (0.07, 0.1),
            (0.1, 0.1),
            (0.11, 0.2),
            (0.3, 0.5),
            (3.0, 5.0),
            (7.0, 10.0),
            (12.0, 20.0),
            (1e-7, 1e-7),
            (4.2e9, 5e9),
        ] {
            let got = nice_step(raw);
            assert!((got - step).abs() <= step * 1e-12, "{raw}: {got}");
        }
        assert!((nice_step(0.0) - 1.0).abs() < f64::EPSILON);
    }

    #[test]
    fn axes_hold_the_data_on_nice_ticks() {
        let a = Axis::new(0.1, 0.9, 6);
        assert_eq!(a.labels, ["0.0", "0.2", "0.4", "0.6", "0.8", "1.0"]);
        assert!(a.lo <= 0.1 && a.hi >= 0.9);
        let a = Axis::new(0.0, 0.3, 4);
        assert_eq!(a.labels, ["0.0", "0.1", "0.2", "0.3"]);
        let a = Axis::new(-9.81, 9.81, 5);
        assert_eq!(a.labels, ["-10", "-5", "0", "5", "10"]);
        let a = Axis::new(1_700_000_000.0, 1_700_000_300.0, 4);
        assert_eq!(a.labels, ["+0", "+100", "+200", "+300"]);
        assert!((a.offset - 1.7e9).abs() < f64::EPSILON);
        let a = Axis::new(1_710_421_200.25, 1_710_421_224.24, 6);
        assert_eq!(a.labels, ["+0", "+5", "+10", "+15", "+20", "+25"]);
        assert!((a.offset - 1_710_421_200.0).abs() < f64::EPSILON);
        let a = Axis::new(2.5e6, 3.5e6, 3);
        assert_eq!((a.labels[0].as_str(), a.offset), ("2.5e6", 0.0));
        let a = Axis::new(12.5, 12.5, 5);
        assert!(a.lo < 12.5 && a.hi > 12.5 && a.ticks.len() >= 2);
        let a = Axis::new(0.0, 0.0, 5);
        assert_eq!(a.labels.first().map(String::as_str), Some("-1.0"));
        let a = Axis::new(f64::NAN, 1.0, 5);
        assert!(a.lo == 0.0 && a.hi >= 1.0);
        let a = Axis::new(0.000_012, 0.000_018, 4);
        assert_eq!(a.labels, ["1.2e-5", "1.4e-5", "1.6e-5", "1.8e-5"]);
        for (lo, hi, n) in [(-3.3, 1e5, 8), (1e-300, 2e-300, 3), (-1.0, 1.0, 3)] {
            let a = Axis::new(lo, hi, n);
            assert!(a.ticks.len() <= n && a.lo <= lo && a.hi >= hi, "{a:?}");
            assert!(
                !a.labels
                    .iter()
                    .any(|l| l == "-0" || l.contains("000000000"))
            );
        }
        assert!((a.fraction(a.lo)).abs() < 1e-12);
    }

    #[test]
    fn values_print_exactly() {
        assert_eq!(value_label(0.1 + 0.2), "0.30000000000000004");
        assert_eq!(value_label(9.81), "9.81");
        assert_eq!(value_label(-0.0), "0");
        assert_eq!(value_label(1e-9), "1e-9");
        assert_eq!(value_label(f64::NAN), "NaN");
    }
}
