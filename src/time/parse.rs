//! Reading a time typed by a person: the one parser behind the CLI's `--start`/`--end` and
//! the explorer's `:`.
//!
//! Forms: seconds since the epoch (`1397024209.156423`); an offset from the start of the
//! bag(s) with a leading `+`, in seconds (`+12.5`, `+-1`) or as a duration (`+1m30s`, `+2h`,
//! `+500ms`, `+1h2m3.5s`; units `h`, `m`/`min`, `s`, `ms`, `us`, `ns`); a date and time
//! (`2023-11-14 22:13:32.5`, `2023-11-14T22:13:32`, `2023-11-14 22:13`, `2023-11-14`), in
//! local time or, with a trailing `Z` or ` UTC`, in UTC; or a time of day (`22:13:32.25`,
//! `22:13`) on the date the bag(s) start.

use chrono::{Local, NaiveDateTime, NaiveTime, TimeZone, Timelike, Utc};

use super::{NSEC_PER_SEC, RosTime, TimeParseError, TimeSpec, parse_decimal_nanos};

/// Nanoseconds in a day.
const NSEC_PER_DAY: u64 = 86_400 * NSEC_PER_SEC;

/// The largest offset taken, in nanoseconds (twice the whole ROS time range).
const MAX_OFFSET: i128 = 2 * (u32::MAX as i128 + 1) * NSEC_PER_SEC as i128;

/// Parses every form above. `local` says how a date or time of day without `Z` is read:
/// local time (`true`, the CLI) or UTC.
pub fn parse_time(text: &str, local: bool) -> Result<TimeSpec, TimeParseError> {
    let err = |reason| TimeParseError {
        text: text.to_string(),
        reason,
    };
    let t = text.trim();
    if t.is_empty() {
        return Err(err("nothing given"));
    }
    if let Some(rest) = t.strip_prefix('+') {
        if let Ok(n) = parse_decimal_nanos(rest) {
            return Ok(TimeSpec::Offset(n));
        }
        return parse_duration(rest).map(TimeSpec::Offset).map_err(err);
    }
    if t.starts_with('-') || t.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
        return absolute_seconds(t).map_err(err);
    }
    let (body, utc) = match t.strip_suffix('Z').or_else(|| t.strip_suffix(" UTC")) {
        Some(b) => (b.trim_end(), true),
        None => (t, !local),
    };
    for fmt in [
        "%Y-%m-%d %H:%M:%S%.f",
        "%Y-%m-%dT%H:%M:%S%.f",
        "%Y-%m-%d %H:%M",
    ] {
        if let Ok(dt) = NaiveDateTime::parse_from_str(body, fmt) {
            return date_time(dt, utc).map(TimeSpec::Absolute).ok_or_else(|| {
                err("outside the times a bag can hold (1970 to 2106), or not a local time")
            });
        }
    }
    if let Ok(day) = chrono::NaiveDate::parse_from_str(body, "%Y-%m-%d") {
        return date_time(day.and_time(NaiveTime::MIN), utc)
            .map(TimeSpec::Absolute)
            .ok_or_else(|| err("outside the times a bag can hold (1970 to 2106)"));
    }
    for fmt in ["%H:%M:%S%.f", "%H:%M"] {
        if let Ok(tod) = NaiveTime::parse_from_str(body, fmt) {
            let nanos = u64::from(tod.num_seconds_from_midnight()) * NSEC_PER_SEC
                + u64::from(tod.nanosecond().min(999_999_999));
            return Ok(TimeSpec::TimeOfDay { nanos, utc });
        }
    }
    Err(err(
        "use seconds since the epoch, +offset (+12.5, +1m30s), a date (2023-11-14 22:13:32, Z for UTC) or a time of day (22:13:32)",
    ))
}

/// Seconds since the epoch, checked to be a ROS time.
fn absolute_seconds(t: &str) -> Result<TimeSpec, &'static str> {
    let nanos = parse_decimal_nanos(t)?;
    if nanos < 0 {
        return Err("a time cannot be negative");
    }
    u64::try_from(nanos)
        .ok()
        .filter(|n| *n <= RosTime::MAX.as_nanos())
        .map(|n| TimeSpec::Absolute(RosTime::from_nanos(n)))
        .ok_or("beyond the largest ROS time (4294967295.999999999)")
}

/// A date and time in UTC or local time as a ROS time; `None` outside the ROS range (or a
/// local time that does not exist, in a daylight-saving gap).
pub(super) fn date_time(dt: NaiveDateTime, utc: bool) -> Option<RosTime> {
    let stamp = if utc {
        Utc.from_utc_datetime(&dt).timestamp_nanos_opt()?
    } else {
        Local
            .from_local_datetime(&dt)
            .earliest()?
            .timestamp_nanos_opt()?
    };
    u64::try_from(stamp)
        .ok()
        .filter(|n| *n <= RosTime::MAX.as_nanos())
        .map(RosTime::from_nanos)
}

/// The time `nanos` after midnight on the date of `start` (in UTC or local time).
pub(super) fn on_start_date(start: RosTime, nanos: u64, utc: bool) -> Option<RosTime> {
    let secs = i64::from(start.normalized().sec);
    let day = if utc {
        Utc.timestamp_opt(secs, 0).single()?.date_naive()
    } else {
        Local.timestamp_opt(secs, 0).single()?.date_naive()
    };
    let midnight = date_time(day.and_time(NaiveTime::MIN), utc)?;
    Some(midnight.saturating_add_nanos(i128::from(nanos.min(NSEC_PER_DAY))))
}

/// A duration such as `1m30s`, `2h`, `500ms`, `1.5s`, `-1m` in signed nanoseconds.
fn parse_duration(text: &str) -> Result<i128, &'static str> {
    const HELP: &str = "expected seconds (+12.5) or a duration such as +1m30s, +2h, +500ms (units h, m, s, ms, us, ns)";
    let (neg, mut rest) = match text.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, text),
    };
    if rest.is_empty() {
        return Err(HELP);
    }
    let mut total: i128 = 0;
    while !rest.is_empty() {
        let digits = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .ok_or(HELP)?;
        let (number, tail) = rest.split_at(digits);
        let unit_len = tail
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(tail.len());
        let (unit, tail) = tail.split_at(unit_len);
        let per: i128 = match unit {
            "h" => 3_600_000_000_000,
            "m" | "min" => 60_000_000_000,
            "s" => 1_000_000_000,
            "ms" => 1_000_000,
            "us" | "µs" => 1_000,
            "ns" => 1,
            _ => return Err(HELP),
        };
        // The number as nanoseconds of a second, then scaled to the unit.
        let as_secs = parse_decimal_nanos(number).map_err(|_| HELP)?;
        let part = as_secs
            .checked_mul(per)
            .map(|n| n / i128::from(NSEC_PER_SEC))
            .ok_or("too large")?;
        total = total.checked_add(part).ok_or("too large")?;
        if total > MAX_OFFSET {
            return Err("too large");
        }
        rest = tail;
    }
    Ok(if neg { -total } else { total })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn offset(text: &str) -> i128 {
        match parse_time(text, false) {
            Ok(TimeSpec::Offset(n)) => n,
            other => panic!("{text}: {other:?}"),
        }
    }

    #[test]
    fn offsets_and_durations() {
        assert_eq!(offset("+12.5"), 12_500_000_000);
        assert_eq!(offset("+-1"), -1_000_000_000);
        assert_eq!(offset("+1m30s"), 90_000_000_000);
        assert_eq!(offset("+2h"), 7_200_000_000_000);
        assert_eq!(offset("+500ms"), 500_000_000);
        assert_eq!(offset("+1h2m3.5s"), 3_723_500_000_000);
        assert_eq!(offset("+1.5min"), 90_000_000_000);
        assert_eq!(offset("+250us"), 250_000);
        assert_eq!(offset("+7ns"), 7);
        assert_eq!(offset("+-1m"), -60_000_000_000);
        for bad in [
            "+",
            "+1x",
            "+m",
            "+1m30",
            "+s1",
            "+99999999999999h",
            "+1..2s",
        ] {
            assert!(parse_time(bad, false).is_err(), "{bad}");
        }
    }

    #[test]
    fn epoch_seconds() {
        assert_eq!(
            parse_time("1397024209.156423", true),
            Ok(TimeSpec::Absolute(RosTime::new(1_397_024_209, 156_423_000)))
        );
        assert_eq!(
            parse_time(" 5 ", true),
            Ok(TimeSpec::Absolute(RosTime::new(5, 0)))
        );
        for bad in ["-3", "99999999999", "1.0000000001", "abc", "", "1e9"] {
            assert!(parse_time(bad, true).is_err(), "{bad}");
        }
    }

    #[test]
    fn dates_in_utc_and_local_time() {
        let want = TimeSpec::Absolute(RosTime::new(1_700_000_005, 0));
        assert_eq!(parse_time("2023-11-14 22:13:25Z", true), Ok(want));
        assert_eq!(parse_time("2023-11-14T22:13:25 UTC", true), Ok(want));
        assert_eq!(parse_time("2023-11-14 22:13:25", false), Ok(want));
        assert_eq!(
            parse_time("2023-11-14 22:13:25.5Z", true),
            Ok(TimeSpec::Absolute(RosTime::new(1_700_000_005, 500_000_000)))
        );
        assert_eq!(
            parse_time("2023-11-14Z", true),
            Ok(TimeSpec::Absolute(RosTime::new(1_699_920_000, 0)))
        );
        // Local time is the machine's: checked against chrono's own reading.
        let local = Local
            .with_ymd_and_hms(2023, 11, 14, 22, 13, 25)
            .earliest()
            .unwrap()
            .timestamp();
        assert_eq!(
            parse_time("2023-11-14 22:13:25", true),
            Ok(TimeSpec::Absolute(RosTime::new(
                u32::try_from(local).unwrap(),
                0
            )))
        );
        assert!(parse_time("1969-12-31 23:59:59Z", true).is_err());
        assert!(parse_time("2023-13-01Z", true).is_err());
    }

    #[test]
    fn times_of_day_land_on_the_start_date() {
        let start = RosTime::new(1_700_000_000, 123_000_000); // 2023-11-14 22:13:20.123 UTC
        let spec = parse_time("22:13:25.25Z", true).unwrap();
        assert_eq!(
            spec.resolve(start),
            RosTime::new(1_700_000_005, 250_000_000)
        );
        let spec = parse_time("22:14", false).unwrap();
        assert_eq!(spec.resolve(start), RosTime::new(1_700_000_040, 0));
        assert!(parse_time("25:00", false).is_err());
    }
}
