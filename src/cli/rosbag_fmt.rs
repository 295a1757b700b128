//! Number and time formats exactly as `rosbag info` prints them (sizes in KB/MB with one
//! decimal, rates in Hz, local dates with two decimals, durations as `6.0s` / `1:05s (65s)`).

use chrono::{Local, TimeZone};

/// `rosbag`'s size format: divide by 1024 until below 1024, one decimal, `KB` at least.
pub fn human_size(size: f64) -> String {
    let mut size = size;
    for suffix in ["KB", "MB", "GB", "TB", "PB", "EB", "ZB", "YB"] {
        size /= 1024.0;
        if size < 1024.0 {
            return format!("{size:.1} {suffix}");
        }
    }
    "-".to_string()
}

/// `rosbag`'s frequency format: `12.5 Hz`, `1.2 kHz`, ...
pub fn human_frequency(freq: f64) -> String {
    let mut freq = freq;
    for suffix in ["Hz", "kHz", "MHz", "GHz", "THz", "PHz", "EHz", "ZHz", "YHz"] {
        if freq < 1000.0 {
            return format!("{freq:.1} {suffix}");
        }
        freq /= 1000.0;
    }
    "-".to_string()
}

/// `rostopic bw`'s bandwidth format (decimal units): `512.00 B/s`, `12.35 KB/s`, `1.20 MB/s`.
pub fn human_bandwidth(bytes_per_s: f64) -> String {
    if bytes_per_s < 1000.0 {
        format!("{bytes_per_s:.2} B/s")
    } else if bytes_per_s < 1_000_000.0 {
        format!("{:.2} KB/s", bytes_per_s / 1000.0)
    } else {
        format!("{:.2} MB/s", bytes_per_s / 1_000_000.0)
    }
}

/// `rosbag`'s date: `Nov 14 2023 22:13:20.12` in local time (`TZ` is honoured).
pub fn time_to_str(secs: f64) -> String {
    let frac = secs - secs.trunc();
    let frac_text = format!("{frac:.2}");
    let frac_text = frac_text.get(1..).unwrap_or_default();
    #[allow(clippy::cast_possible_truncation)] // bag times fit in i64 seconds
    let whole = secs.floor() as i64;
    let date = match Local.timestamp_opt(whole, 0) {
        chrono::LocalResult::Single(d) | chrono::LocalResult::Ambiguous(d, _) => {
            d.format("%b %d %Y %H:%M:%S").to_string()
        }
        chrono::LocalResult::None => whole.to_string(),
    };
    format!("{date}{frac_text}")
}

/// `rosbag`'s duration: `6.0s`, `1:05s (65s)` or `1hr 2:03s (3723s)`.
pub fn duration_str(duration: f64) -> String {
    let secs = duration.rem_euclid(60.0);
    #[allow(clippy::cast_possible_truncation)]
    let mins = (duration / 60.0).trunc() as i64;
    let hrs = mins / 60;
    #[allow(clippy::cast_possible_truncation)]
    let (secs_whole, total) = (secs.trunc() as i64, duration.trunc() as i64);
    if hrs > 0 {
        format!("{hrs}hr {}:{secs_whole:02}s ({total}s)", mins % 60)
    } else if mins > 0 {
        format!("{mins}:{secs_whole:02}s ({total}s)")
    } else {
        format!("{duration:.1}s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_like_rosbag() {
        assert_eq!(human_size(161_844.0), "158.1 KB");
        assert_eq!(human_size(206_468.0), "201.6 KB");
        assert_eq!(human_size(5.0), "0.0 KB");
        assert_eq!(human_size(3_835_840.0), "3.7 MB");
        assert_eq!(human_frequency(3.3333), "3.3 Hz");
        assert_eq!(human_frequency(1500.0), "1.5 kHz");
        assert_eq!(human_bandwidth(512.0), "512.00 B/s");
        assert_eq!(human_bandwidth(12_345.0), "12.35 KB/s");
        assert_eq!(human_bandwidth(1_200_000.0), "1.20 MB/s");
        assert_eq!(duration_str(5.99), "6.0s");
        assert_eq!(duration_str(65.5), "1:05s (65s)");
        assert_eq!(duration_str(3723.0), "1hr 2:03s (3723s)");
    }
}
