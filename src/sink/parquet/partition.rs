//! Where a message's rows go: Hive-style partition directories (`robot=r1/date=2026-11-24`)
//! and a file name made from the topic.

use std::fmt::Write;
use std::path::{Path, PathBuf};

use crate::time::RosTime;

use super::super::SinkMessage;

/// One level of the partition directories.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Level {
    /// `KEY=VALUE` for every message.
    Fixed(String, String),
    /// `date=YYYY-MM-DD`: the message's receive date (UTC).
    Date,
    /// `date=YYYY-MM-DD`: the date (UTC) of the first message of the message's bag.
    BagDate,
}

/// Parses `--partition-by` (`robot=r1,date`, `bag-date`): levels in the order given.
pub fn parse_levels(text: &str) -> Result<Vec<Level>, String> {
    let mut levels = Vec::new();
    for item in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let level = match item.split_once('=') {
            None if item == "date" => Level::Date,
            None if item == "bag-date" => Level::BagDate,
            None => {
                return Err(format!(
                    "--partition-by: '{item}' is not KEY=VALUE, date or bag-date"
                ));
            }
            Some((k, v)) => {
                if !is_safe(k) || !is_safe(v) {
                    return Err(format!(
                        "--partition-by: '{item}': keys and values are letters, digits, '_', '-' and '.' (not only dots)"
                    ));
                }
                Level::Fixed(k.to_string(), v.to_string())
            }
        };
        let key = key_of(&level);
        if levels.iter().any(|l| key_of(l) == key) {
            return Err(format!("--partition-by: '{key}' is given twice"));
        }
        levels.push(level);
    }
    Ok(levels)
}

fn key_of(level: &Level) -> &str {
    match level {
        Level::Fixed(k, _) => k,
        Level::Date | Level::BagDate => "date",
    }
}

fn is_safe(s: &str) -> bool {
    !s.is_empty()
        && !s.chars().all(|c| c == '.')
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
}

/// The partition directory of `m` below the output directory.
pub fn directory(levels: &[Level], m: &SinkMessage<'_>) -> PathBuf {
    let mut dir = PathBuf::new();
    for level in levels {
        match level {
            Level::Fixed(k, v) => dir.push(format!("{k}={v}")),
            Level::Date => dir.push(format!("date={}", date(m.time))),
            Level::BagDate => dir.push(format!("date={}", date(m.bag_start.unwrap_or(m.time)))),
        }
    }
    dir
}

/// The longest file name made (in bytes, with `.parquet`): well within the 255 bytes file
/// systems allow, with room for the temporary name's `.` + `.XXXXXX.partial`.
pub const MAX_NAME: usize = 200;
/// What is kept of a name too long: its first bytes, then `~` and the hash.
const KEPT: usize = MAX_NAME - ".parquet".len() - 17;

/// The file name of a topic's rows: the topic without its leading `/`, `/` as `.`, other
/// characters outside `[A-Za-z0-9_.-]` as `_` (`/robot/odom` → `robot.odom.parquet`); with
/// `bag`, the bag's file stem is added (`robot.odom.run1.parquet`). A name that would be
/// longer than [`MAX_NAME`] bytes keeps its first 175 bytes, then `~` and the 16 hex digits
/// of the xxHash64 of the whole name (`~` appears in no other name, and the hash keeps
/// distinct long names apart).
pub fn file_name(topic: &str, bag: Option<&Path>) -> String {
    let mut name = sanitise(topic.trim_start_matches('/'));
    if name.is_empty() || name.starts_with('.') {
        name.insert(0, '_');
    }
    if let Some(stem) = bag.and_then(Path::file_stem) {
        name.push('.');
        name.push_str(&sanitise(&stem.to_string_lossy()));
    }
    if name.len() + ".parquet".len() > MAX_NAME {
        let hash = twox_hash::XxHash64::oneshot(0, name.as_bytes());
        // (The name is ASCII: any byte is a character boundary.)
        name.truncate(KEPT);
        let _ = write!(name, "~{hash:016x}");
    }
    name.push_str(".parquet");
    name
}

fn sanitise(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            '/' => '.',
            c if c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.') => c,
            _ => '_',
        })
        .collect()
}

/// `YYYY-MM-DD` of a time (UTC), by the civil-from-days algorithm.
pub fn date(time: RosTime) -> String {
    let days = i64::from(time.sec) / 86_400 + 719_468;
    let era = days.div_euclid(146_097);
    let day_of_era = days.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_index = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * month_index + 2) / 5 + 1;
    let month = if month_index < 10 {
        month_index + 3
    } else {
        month_index - 9
    };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_utc_calendar_days() {
        assert_eq!(date(RosTime::new(0, 0)), "1970-01-01");
        assert_eq!(date(RosTime::new(1_700_000_000, 0)), "2023-11-14");
        assert_eq!(date(RosTime::new(951_782_400, 0)), "2000-02-29");
        assert_eq!(date(RosTime::new(u32::MAX, 0)), "2106-02-07");
    }

    #[test]
    fn topics_become_safe_file_names() {
        assert_eq!(file_name("/robot/odom", None), "robot.odom.parquet");
        assert_eq!(file_name("scan", None), "scan.parquet");
        assert_eq!(file_name("/", None), "_.parquet");
        assert_eq!(file_name("/../x y", None), "_...x_y.parquet");
        assert_eq!(
            file_name("/tf", Some(Path::new("/d/run 1.bag"))),
            "tf.run_1.parquet"
        );
    }

    #[test]
    fn long_topics_get_short_unique_names() {
        let long_a = format!("/{}/a", "x".repeat(300));
        let long_b = format!("/{}/b", "x".repeat(300));
        let a = file_name(&long_a, None);
        let b = file_name(&long_b, None);
        assert_eq!(a.len(), MAX_NAME, "{a}");
        assert_ne!(a, b);
        assert!(a.starts_with(&"x".repeat(KEPT)), "{a}");
        assert!(a.ends_with(".parquet") && a.contains('~'), "{a}");
        // The same topic always gets the same name; a name just short enough is kept.
        assert_eq!(a, file_name(&long_a, None));
        let fits = format!("/{}", "y".repeat(MAX_NAME - ".parquet".len()));
        assert_eq!(file_name(&fits, None).len(), MAX_NAME);
        assert!(!file_name(&fits, None).contains('~'));
        let by_bag = file_name(&long_a, Some(Path::new("/d/run1.bag")));
        assert!(by_bag.len() <= MAX_NAME && by_bag != a, "{by_bag}");
    }

    #[test]
    fn partition_levels_parse() {
        assert_eq!(
            parse_levels("robot=r1,date").unwrap(),
            [Level::Fixed("robot".into(), "r1".into()), Level::Date]
        );
        assert_eq!(parse_levels("bag-date").unwrap(), [Level::BagDate]);
        assert!(parse_levels("robot=../x").is_err());
        assert!(parse_levels("robot=..").is_err());
        assert!(parse_levels("date,bag-date").is_err());
        assert!(parse_levels("month").is_err());
    }
}
