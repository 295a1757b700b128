//! ROS time and duration values: parsing, formatting and arithmetic.
//!
//! A ROS1 `time` is `sec:u32, nsec:u32` and a `duration` is `sec:i32, nsec:i32`. Bags in the
//! wild carry values whose `nsec` is outside `[0, 1e9)`, so comparisons and arithmetic go
//! through total nanoseconds, while the raw fields are kept for display ("print what is in
//! the bag").

mod parse;

pub use parse::parse_time;

use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};

/// Nanoseconds in one second.
pub const NSEC_PER_SEC: u64 = 1_000_000_000;

/// A ROS1 time stamp as stored in a bag: seconds and nanoseconds since the Unix epoch.
///
/// Equality, ordering and hashing use the total number of nanoseconds, so `(2, 1_500_000_000)`
/// equals `(3, 500_000_000)`.
#[derive(Clone, Copy, Debug, Default)]
pub struct RosTime {
    /// Whole seconds.
    pub sec: u32,
    /// Nanoseconds; normally below 1e9, but not guaranteed by the file.
    pub nsec: u32,
}

impl RosTime {
    /// The earliest representable time.
    pub const MIN: RosTime = RosTime { sec: 0, nsec: 0 };
    /// The latest time a bag can hold (`u32::MAX` seconds and a full second of nanoseconds).
    pub const MAX: RosTime = RosTime {
        sec: u32::MAX,
        nsec: 999_999_999,
    };

    /// Builds a time from raw fields.
    pub const fn new(sec: u32, nsec: u32) -> Self {
        RosTime { sec, nsec }
    }

    /// Total nanoseconds since the epoch (never overflows: at most about 4.3e18).
    pub const fn as_nanos(self) -> u64 {
        self.sec as u64 * NSEC_PER_SEC + self.nsec as u64
    }

    /// The time `nanos` nanoseconds after the epoch, saturating at [`RosTime::MAX`].
    pub fn from_nanos(nanos: u64) -> Self {
        let sec = nanos / NSEC_PER_SEC;
        match u32::try_from(sec) {
            #[allow(clippy::cast_possible_truncation)] // the remainder is below 1e9
            Ok(sec) => RosTime {
                sec,
                nsec: (nanos % NSEC_PER_SEC) as u32,
            },
            Err(_) => RosTime::MAX,
        }
    }

    /// Seconds as a float, as rosbag's `to_sec()` computes it (used for its display formats).
    pub fn as_secs_f64(self) -> f64 {
        f64::from(self.sec) + f64::from(self.nsec) / 1e9
    }

    /// The same instant with `nsec` brought into `[0, 1e9)`.
    #[must_use]
    pub fn normalized(self) -> Self {
        Self::from_nanos(self.as_nanos())
    }

    /// Signed nanoseconds from `earlier` to `self`.
    pub fn nanos_since(self, earlier: RosTime) -> i128 {
        i128::from(self.as_nanos()) - i128::from(earlier.as_nanos())
    }

    /// Adds a signed number of nanoseconds, saturating at both ends.
    #[must_use]
    pub fn saturating_add_nanos(self, delta: i128) -> Self {
        let total = i128::from(self.as_nanos()) + delta;
        let clamped = total.clamp(0, i128::from(RosTime::MAX.as_nanos()));
        // The clamp above keeps the value inside u64.
        Self::from_nanos(u64::try_from(clamped).unwrap_or(u64::MAX))
    }
}

impl PartialEq for RosTime {
    fn eq(&self, other: &Self) -> bool {
        self.as_nanos() == other.as_nanos()
    }
}

impl Eq for RosTime {}

impl PartialOrd for RosTime {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for RosTime {
    fn cmp(&self, other: &Self) -> Ordering {
        self.as_nanos().cmp(&other.as_nanos())
    }
}

impl Hash for RosTime {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_nanos().hash(state);
    }
}

/// Formats as `SECS.NNNNNNNNN` (normalised), the CLI contract's time format.
impl fmt::Display for RosTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.as_nanos();
        write!(f, "{}.{:09}", n / NSEC_PER_SEC, n % NSEC_PER_SEC)
    }
}

/// A ROS1 duration: signed seconds and nanoseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct RosDuration {
    /// Signed seconds.
    pub sec: i32,
    /// Signed nanoseconds (normally in `[0, 1e9)` after canonicalisation).
    pub nsec: i32,
}

impl RosDuration {
    /// Total signed nanoseconds.
    pub fn as_nanos(self) -> i64 {
        i64::from(self.sec) * 1_000_000_000 + i64::from(self.nsec)
    }

    /// Seconds as a float.
    pub fn as_secs_f64(self) -> f64 {
        self.as_nanos() as f64 / 1e9
    }
}

/// A time given on the command line or in the UI: absolute, or relative to the start of the
/// bag(s).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeSpec {
    /// Seconds since the epoch.
    Absolute(RosTime),
    /// Nanoseconds after the start of the bag(s) (`+12.5`); may be negative (`+-1`).
    Offset(i128),
    /// A time of day (`22:13:32`) on the date the bag(s) start, in UTC or local time.
    TimeOfDay {
        /// Nanoseconds after midnight.
        nanos: u64,
        /// UTC (`22:13:32Z`) rather than local time.
        utc: bool,
    },
}

impl TimeSpec {
    /// Resolves the spec against the start time of the bag(s).
    pub fn resolve(self, start: RosTime) -> RosTime {
        match self {
            TimeSpec::Absolute(t) => t,
            TimeSpec::Offset(d) => start.saturating_add_nanos(d),
            TimeSpec::TimeOfDay { nanos, utc } => {
                parse::on_start_date(start, nanos, utc).unwrap_or(start)
            }
        }
    }
}

/// Why a time could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid time '{text}': {reason}")]
pub struct TimeParseError {
    /// The text given.
    pub text: String,
    /// What was wrong with it.
    pub reason: &'static str,
}

/// Parses `SECS[.FRACTION]` (up to 9 fraction digits) into signed nanoseconds.
fn parse_decimal_nanos(s: &str) -> Result<i128, &'static str> {
    let (neg, body) = match s.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, s),
    };
    let (int_part, frac_part) = match body.split_once('.') {
        Some((i, f)) => (i, f),
        None => (body, ""),
    };
    if int_part.is_empty() && frac_part.is_empty() {
        return Err("expected digits");
    }
    if !int_part.bytes().all(|b| b.is_ascii_digit())
        || !frac_part.bytes().all(|b| b.is_ascii_digit())
    {
        return Err("expected seconds with an optional fraction, e.g. 1397024209.156423");
    }
    if frac_part.len() > 9 {
        return Err("at most 9 fraction digits (nanoseconds)");
    }
    if int_part.len() > 20 {
        return Err("too large");
    }
    let secs: i128 = if int_part.is_empty() {
        0
    } else {
        int_part.parse().map_err(|_| "too large")?
    };
    let mut frac: i128 = 0;
    for (i, b) in frac_part.bytes().enumerate() {
        frac += i128::from(b - b'0') * 10i128.pow(8 - u32::try_from(i).unwrap_or(8));
    }
    let total = secs * i128::from(NSEC_PER_SEC) + frac;
    Ok(if neg { -total } else { total })
}

/// Parses a time as the CLI takes it: every form of [`parse_time`], dates and times of day
/// without `Z` in local time.
pub fn parse_time_spec(text: &str) -> Result<TimeSpec, TimeParseError> {
    parse_time(text, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordering_uses_total_nanoseconds() {
        let a = RosTime::new(2, 1_500_000_000);
        let b = RosTime::new(3, 500_000_000);
        assert_eq!(a, b);
        assert!(RosTime::new(2, 999_999_999) < RosTime::new(3, 0));
        assert_eq!(a.normalized().sec, 3);
    }

    #[test]
    fn display_is_secs_dot_nine_digits() {
        assert_eq!(
            RosTime::new(1_397_024_209, 156_423_000).to_string(),
            "1397024209.156423000"
        );
        assert_eq!(RosTime::new(0, 0).to_string(), "0.000000000");
    }

    #[test]
    fn parses_absolute_and_offset_times() {
        assert_eq!(
            parse_time_spec("1397024209.156423"),
            Ok(TimeSpec::Absolute(RosTime::new(1_397_024_209, 156_423_000)))
        );
        assert_eq!(
            parse_time_spec("+12.5"),
            Ok(TimeSpec::Offset(12_500_000_000))
        );
        assert_eq!(parse_time_spec("+-1"), Ok(TimeSpec::Offset(-1_000_000_000)));
        assert_eq!(
            parse_time_spec("5"),
            Ok(TimeSpec::Absolute(RosTime::new(5, 0)))
        );
        assert!(parse_time_spec("1.0000000001").is_err());
        assert!(parse_time_spec("abc").is_err());
        assert!(parse_time_spec("-3").is_err());
        assert!(parse_time_spec("99999999999").is_err());
        assert!(parse_time_spec("").is_err());
    }

    #[test]
    fn offsets_resolve_against_start_and_saturate() {
        let start = RosTime::new(100, 0);
        assert_eq!(
            TimeSpec::Offset(1_500_000_000).resolve(start),
            RosTime::new(101, 500_000_000)
        );
        assert_eq!(
            TimeSpec::Offset(-1_000_000_000_000).resolve(start),
            RosTime::MIN
        );
    }
}
