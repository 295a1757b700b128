//! Ticks on the plot's time axis: round times (1 s, 5 s, 1 min, 1 h… or 1-2-5 fractions of a
//! second) chosen by zoom so that their labels fit apart, labelled as the explorer shows times
//! ([`TimeFormat`]): `+12 s` / `+1:30` from the start, `13:05:10` (UTC or local), or epoch
//! seconds.

use crate::tui::model::timefmt::{TimeFormat, clock};

/// One tick: its time and label.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TimeTick {
    /// The tick's time (ns since the epoch).
    pub time_ns: i64,
    /// What is written there.
    pub label: String,
}

const US: i64 = 1_000;
const MS: i64 = 1_000_000;
const S: i64 = 1_000_000_000;
const MIN: i64 = 60 * S;
const H: i64 = 60 * MIN;
const DAY: i64 = 24 * H;

/// The steps ticks can be apart, ascending.
const STEPS: [i64; 38] = [
    US,
    2 * US,
    5 * US,
    10 * US,
    20 * US,
    50 * US,
    100 * US,
    200 * US,
    500 * US,
    MS,
    2 * MS,
    5 * MS,
    10 * MS,
    20 * MS,
    50 * MS,
    100 * MS,
    200 * MS,
    500 * MS,
    S,
    2 * S,
    5 * S,
    10 * S,
    15 * S,
    30 * S,
    MIN,
    2 * MIN,
    5 * MIN,
    10 * MIN,
    15 * MIN,
    30 * MIN,
    H,
    2 * H,
    3 * H,
    6 * H,
    12 * H,
    DAY,
    7 * DAY,
    30 * DAY,
];

/// Columns kept free between two labels.
const GAP: usize = 2;

/// Ticks over `start..=end` (ns) drawn `cols` columns wide, labelled in `format` (`origin`:
/// the start of the bags, for offsets): the finest round step whose labels fit with room
/// between them. Empty when nothing fits.
pub fn time_ticks(
    (start, end): (i64, i64),
    cols: usize,
    format: TimeFormat,
    origin: i64,
) -> Vec<TimeTick> {
    let span = i128::from(end) - i128::from(start);
    if span <= 0 || cols < 4 {
        return Vec::new();
    }
    for step in STEPS {
        let count = span / i128::from(step);
        if count > (cols / 3) as i128 {
            continue;
        }
        let ticks = ticks_at(start, end, step, format, origin);
        let widest = ticks.iter().map(|t| t.label.chars().count()).max();
        // Columns between two ticks.
        let apart = i128::from(step) * cols as i128 / span;
        if widest.is_none_or(|w| apart >= (w + GAP) as i128) {
            return ticks;
        }
    }
    Vec::new()
}

/// The ticks `step` apart within `start..=end`, on round times of `format`.
fn ticks_at(start: i64, end: i64, step: i64, format: TimeFormat, origin: i64) -> Vec<TimeTick> {
    // Round times: from the start for offsets, of the clock otherwise (local time's clock for
    // steps of an hour or more).
    let shift = match format {
        TimeFormat::Offset => origin.rem_euclid(step),
        TimeFormat::Local if step >= H => {
            let zone = clock(start.div_euclid(S), true, "%z");
            utc_offset_ns(&zone).saturating_neg().rem_euclid(step)
        }
        _ => 0,
    };
    let first = (start - shift).div_euclid(step) * step + shift;
    let first = if first < start {
        first.saturating_add(step)
    } else {
        first
    };
    let reach = (end - origin).abs().max((start - origin).abs());
    let clock_style = if reach >= H {
        OffsetStyle::Hours
    } else if reach >= MIN || end - start >= MIN {
        OffsetStyle::Minutes
    } else {
        OffsetStyle::Seconds
    };
    let mut out = Vec::new();
    let mut t = first;
    while t <= end && out.len() < 1000 {
        out.push(TimeTick {
            time_ns: t,
            label: label(t, step, format, origin, clock_style),
        });
        let Some(next) = t.checked_add(step) else {
            break;
        };
        t = next;
    }
    out
}

/// `+0100` → its nanoseconds.
fn utc_offset_ns(z: &str) -> i64 {
    let sign = if z.starts_with('-') { -1 } else { 1 };
    let digits: String = z.chars().filter(char::is_ascii_digit).collect();
    let n: i64 = digits.parse().unwrap_or(0);
    sign * ((n / 100) * H + (n % 100) * MIN)
}

/// Digits after the second's point that tell ticks `step` apart.
fn decimals(step: i64) -> usize {
    let mut d = 0;
    let mut unit = S;
    while d < 9 && step % unit != 0 {
        d += 1;
        unit /= 10;
    }
    d
}

/// The fraction of the second of `ns` with `d` digits (`.25`), empty for 0 digits.
fn fraction(ns: i64, d: usize) -> String {
    if d == 0 {
        return String::new();
    }
    let sub = ns.rem_euclid(S);
    let scaled = sub / 10i64.pow(u32::try_from(9 - d).unwrap_or(0));
    format!(".{scaled:0d$}")
}

/// How offsets read on one axis: `+12 s`, `+1:30` or `+1:00:30`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum OffsetStyle {
    Seconds,
    Minutes,
    Hours,
}

/// The label of tick `t` (offsets in `style`).
#[allow(clippy::many_single_char_names)]
fn label(t: i64, step: i64, format: TimeFormat, origin: i64, style: OffsetStyle) -> String {
    let d = decimals(step);
    match format {
        TimeFormat::Offset => {
            let off = t.saturating_sub(origin);
            let sign = if off < 0 { "-" } else { "+" };
            let a = off.unsigned_abs();
            let secs = a / 1_000_000_000;
            #[allow(clippy::cast_possible_wrap)]
            let frac = fraction(a as i64, d);
            let (h, m, s) = (secs / 3600, (secs / 60) % 60, secs % 60);
            match style {
                OffsetStyle::Seconds => format!("{sign}{secs}{frac} s"),
                OffsetStyle::Minutes => format!("{sign}{}:{s:02}{frac}", secs / 60),
                OffsetStyle::Hours => format!("{sign}{h}:{m:02}:{s:02}{frac}"),
            }
        }
        TimeFormat::Epoch => format!("{}{}", t.div_euclid(S), fraction(t, d)),
        TimeFormat::Utc | TimeFormat::Local => {
            let local = format == TimeFormat::Local;
            let secs = t.div_euclid(S);
            if step >= DAY {
                clock(secs, local, "%m-%d")
            } else if step >= MIN {
                clock(secs, local, "%H:%M")
            } else {
                format!("{}{}", clock(secs, local, "%H:%M:%S"), fraction(t, d))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const T0: i64 = 1_710_421_200_254_282_384;

    fn labels(ticks: &[TimeTick]) -> Vec<&str> {
        ticks.iter().map(|t| t.label.as_str()).collect()
    }

    #[test]
    fn steps_follow_the_zoom() {
        // 24 s over 40 columns from the start: 5 s apart.
        let t = time_ticks((T0, T0 + 24 * S), 40, TimeFormat::Offset, T0);
        assert_eq!(labels(&t), ["+0 s", "+5 s", "+10 s", "+15 s", "+20 s"]);
        assert_eq!(t[1].time_ns, T0 + 5 * S);
        // Wider: 2 s apart.
        let t = time_ticks((T0, T0 + 24 * S), 100, TimeFormat::Offset, T0);
        assert_eq!(t[1].label, "+2 s");
        // Zoomed in to 1.2 s: fractions.
        let t = time_ticks((T0 + S, T0 + S + 1_200 * MS), 80, TimeFormat::Offset, T0);
        assert_eq!(labels(&t)[..3], ["+1.0 s", "+1.2 s", "+1.4 s"]);
        // An hour: minutes as a clock.
        let t = time_ticks((T0, T0 + 50 * MIN), 80, TimeFormat::Offset, T0);
        assert_eq!(labels(&t)[..3], ["+0:00", "+5:00", "+10:00"]);
        let t = time_ticks((T0, T0 + H), 80, TimeFormat::Offset, T0);
        assert_eq!(labels(&t)[..2], ["+0:00:00", "+0:10:00"]);
        let t = time_ticks((T0, T0 + 5 * H), 60, TimeFormat::Offset, T0);
        assert_eq!(labels(&t)[..2], ["+0:00:00", "+1:00:00"]);
    }

    #[test]
    fn clock_ticks_are_round_times() {
        // 2024-03-14 13:00:00.254 UTC + 24 s.
        let t = time_ticks((T0, T0 + 24 * S), 60, TimeFormat::Utc, T0);
        assert_eq!(labels(&t), ["13:00:05", "13:00:10", "13:00:15", "13:00:20"]);
        assert_eq!(t[0].time_ns % (5 * S), 0);
        let t = time_ticks((T0, T0 + 2 * H), 60, TimeFormat::Utc, T0);
        assert_eq!(labels(&t)[..2], ["13:15", "13:30"]);
        let t = time_ticks((T0, T0 + 24 * S), 60, TimeFormat::Epoch, T0);
        assert_eq!(
            labels(&t),
            ["1710421205", "1710421210", "1710421215", "1710421220"]
        );
        let t = time_ticks((T0, T0 + 30 * MS), 80, TimeFormat::Epoch, T0);
        assert!(t[0].label.starts_with("1710421200.26"), "{t:?}");
    }

    #[test]
    fn labels_never_touch_and_nothing_fits_nowhere() {
        for cols in [4, 10, 30, 44, 80, 160] {
            for span in [1, 999, MS, S, 24 * S, H, 3 * DAY, 400 * DAY] {
                for f in [TimeFormat::Offset, TimeFormat::Epoch, TimeFormat::Utc] {
                    let t = time_ticks((T0, T0 + span), cols, f, T0);
                    for w in t.windows(2) {
                        let apart = i128::from(w[1].time_ns - w[0].time_ns) * cols as i128
                            / i128::from(span);
                        assert!(apart >= (w[0].label.chars().count() + GAP) as i128);
                    }
                    assert!(t.iter().all(|k| (T0..=T0 + span).contains(&k.time_ns)));
                }
            }
        }
        assert!(time_ticks((T0, T0), 80, TimeFormat::Offset, T0).is_empty());
    }
}
