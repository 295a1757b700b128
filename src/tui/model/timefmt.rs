//! How times are shown: epoch seconds, UTC date, local date, or offset from the start.

use chrono::{Local, TimeZone, Utc};

use crate::time::RosTime;

/// The time display mode, cycled with `t`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TimeFormat {
    /// Seconds since the epoch, `1700000000.123456789`.
    #[default]
    Epoch,
    /// UTC date and time.
    Utc,
    /// Local date and time.
    Local,
    /// Seconds since the start of the bag(s), `+12.345`.
    Offset,
}

impl TimeFormat {
    /// The next mode.
    #[must_use]
    pub fn next(self) -> Self {
        match self {
            TimeFormat::Epoch => TimeFormat::Utc,
            TimeFormat::Utc => TimeFormat::Local,
            TimeFormat::Local => TimeFormat::Offset,
            TimeFormat::Offset => TimeFormat::Epoch,
        }
    }

    /// A short name for the status bar.
    pub fn name(self) -> &'static str {
        match self {
            TimeFormat::Epoch => "epoch",
            TimeFormat::Utc => "UTC",
            TimeFormat::Local => "local",
            TimeFormat::Offset => "offset",
        }
    }

    /// Formats `t` (full precision).
    pub fn format(self, t: RosTime, start: RosTime) -> String {
        match self {
            TimeFormat::Epoch => t.to_string(),
            TimeFormat::Utc => date(t, false),
            TimeFormat::Local => date(t, true),
            TimeFormat::Offset => offset(t, start, 3),
        }
    }

    /// Formats `t` compactly (axis labels, lists).
    pub fn short(self, t: RosTime, start: RosTime) -> String {
        match self {
            TimeFormat::Epoch => {
                let n = t.as_nanos();
                format!(
                    "{}.{:03}",
                    n / 1_000_000_000,
                    (n % 1_000_000_000) / 1_000_000
                )
            }
            TimeFormat::Utc => short_date(t, false),
            TimeFormat::Local => short_date(t, true),
            TimeFormat::Offset => offset(t, start, 3),
        }
    }
}

/// `+12.345` seconds since `start` (negative before it).
pub fn offset(t: RosTime, start: RosTime, decimals: usize) -> String {
    let d = t.nanos_since(start) as f64 / 1e9;
    crate::wording::signed(d, decimals)
}

/// Whole seconds `secs` formatted with `fmt` in local time or UTC (the number itself when out
/// of the calendar's range).
pub(crate) fn clock(secs: i64, local: bool, fmt: &str) -> String {
    let formatted = if local {
        Local
            .timestamp_opt(secs, 0)
            .single()
            .map(|d| d.format(fmt).to_string())
    } else {
        Utc.timestamp_opt(secs, 0)
            .single()
            .map(|d| d.format(fmt).to_string())
    };
    formatted.unwrap_or_else(|| secs.to_string())
}

fn date(t: RosTime, local: bool) -> String {
    let t = t.normalized();
    let base = clock(i64::from(t.sec), local, "%Y-%m-%d %H:%M:%S");
    format!("{base}.{:09}", t.nsec)
}

fn short_date(t: RosTime, local: bool) -> String {
    let t = t.normalized();
    let base = clock(i64::from(t.sec), local, "%H:%M:%S");
    format!("{base}.{:03}", t.nsec / 1_000_000)
}

/// Human duration for spans: `850 ms`, `12.3 s`, `4 min 05 s`, `2 h 03 min`.
pub fn span(nanos: i128) -> String {
    let s = nanos as f64 / 1e9;
    if s.abs() < 1.0 {
        format!("{} ms", crate::wording::fixed(s * 1e3, 0))
    } else if s.abs() < 60.0 {
        format!("{s:.1} s")
    } else if s.abs() < 3600.0 {
        format!("{} min {:02} s", (s / 60.0).trunc(), (s % 60.0).trunc())
    } else {
        format!(
            "{} h {:02} min",
            (s / 3600.0).trunc(),
            ((s % 3600.0) / 60.0).trunc()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_time_that_rounds_to_the_start_is_plus_zero() {
        let start = RosTime::new(100, 0);
        assert_eq!(offset(RosTime::new(99, 990_000_000), start, 1), "+0.0");
        assert_eq!(offset(RosTime::new(99, 900_000_000), start, 1), "-0.1");
        assert_eq!(span(-400_000), "0 ms");
    }

    #[test]
    fn formats_each_mode() {
        let start = RosTime::new(1_700_000_000, 0);
        let t = RosTime::new(1_700_000_012, 345_000_000);
        assert_eq!(TimeFormat::Epoch.format(t, start), "1700000012.345000000");
        assert_eq!(
            TimeFormat::Utc.format(t, start),
            "2023-11-14 22:13:32.345000000"
        );
        assert_eq!(TimeFormat::Offset.format(t, start), "+12.345");
        assert_eq!(TimeFormat::Epoch.short(t, start), "1700000012.345");
        assert_eq!(TimeFormat::Utc.short(t, start), "22:13:32.345");
        assert_eq!(
            TimeFormat::Epoch.next().next().next().next(),
            TimeFormat::Epoch
        );
        assert_eq!(span(850_000_000), "850 ms");
        assert_eq!(span(12_300_000_000), "12.3 s");
        assert_eq!(span(245_000_000_000), "4 min 05 s");
    }
}

/// Parses a time typed after `:` with [`crate::time::parse_time`] — seconds since the epoch, `+offset` (`+1m30s`) from `start`, a date
/// and time (`2023-11-14 22:13:32.5`, local time; add `Z` for UTC) or a time of day on the
/// start's date (`22:13:32`).
pub fn parse_jump(text: &str, start: RosTime, local: bool) -> Result<RosTime, String> {
    crate::time::parse_time(text, local)
        .map(|spec| spec.resolve(start))
        .map_err(|e| e.to_string())
}

/// What `:` jumps to: `text` read by [`parse_jump`] against the catalog's `bounds`. Says
/// what is wrong when nothing was typed or the time is outside the bags.
pub fn jump_target(
    text: &str,
    bounds: (RosTime, RosTime),
    format: TimeFormat,
) -> Result<RosTime, String> {
    let (start, end) = bounds;
    if text.trim().is_empty() {
        return Err(
            "no time typed: give seconds since the epoch, +offset, a date or a time of day"
                .to_string(),
        );
    }
    let t = parse_jump(text, start, format == TimeFormat::Local)?;
    if t < start || t > end {
        // The range as offsets first (short), then as shown in the current format.
        let absolute = match format {
            TimeFormat::Offset => String::new(),
            _ => format!(
                " ({} to {})",
                format.short(start, start),
                format.short(end, start)
            ),
        };
        return Err(format!(
            "{} is outside the bags: they run from {} to {} s{absolute}",
            text.trim(),
            offset(start, start, 1),
            offset(end, start, 1),
        ));
    }
    Ok(t)
}

#[cfg(test)]
mod jump_tests {
    use super::*;

    #[test]
    fn says_what_is_wrong_with_a_jump() {
        let b = (RosTime::new(100, 0), RosTime::new(110, 0));
        let e = jump_target("  ", b, TimeFormat::Offset).unwrap_err();
        assert!(e.starts_with("no time typed"), "{e}");
        let e = jump_target("+20", b, TimeFormat::Offset).unwrap_err();
        assert!(e.contains("outside the bags") && e.contains("+10.0"), "{e}");
        assert_eq!(
            jump_target("+5", b, TimeFormat::Offset).unwrap(),
            RosTime::new(105, 0)
        );
    }

    #[test]
    fn parses_every_form() {
        let start = RosTime::new(1_700_000_000, 123_000_000);
        assert_eq!(
            parse_jump("+2.5", start, false).unwrap(),
            RosTime::new(1_700_000_002, 623_000_000)
        );
        assert_eq!(
            parse_jump("1700000005.5", start, false).unwrap(),
            RosTime::new(1_700_000_005, 500_000_000)
        );
        assert_eq!(
            parse_jump("2023-11-14 22:13:25Z", start, true).unwrap(),
            RosTime::new(1_700_000_005, 0)
        );
        assert_eq!(
            parse_jump("22:13:25.25", start, false).unwrap(),
            RosTime::new(1_700_000_005, 250_000_000)
        );
        assert!(parse_jump("yesterday", start, false).is_err());
    }
}
