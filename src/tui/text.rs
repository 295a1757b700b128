//! Fitting text into terminal cells (wide characters count double).

use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// Display width of `s`.
pub fn width(s: &str) -> usize {
    UnicodeWidthStr::width(s)
}

/// `s` cut to at most `max` cells, ending with `…` when cut.
pub fn fit(s: &str, max: usize) -> String {
    if width(s) <= max {
        return s.to_string();
    }
    if max == 0 {
        return String::new();
    }
    let mut out = String::new();
    let mut used = 0;
    for c in s.chars() {
        let w = c.width().unwrap_or(0);
        if used + w > max - 1 {
            break;
        }
        out.push(c);
        used += w;
    }
    out.push('…');
    out
}

/// `s` cut from the left to at most `max` cells, starting with `…` when cut (topic names keep
/// their most specific end).
pub fn fit_left(s: &str, max: usize) -> String {
    if width(s) <= max {
        return s.to_string();
    }
    if max == 0 {
        return String::new();
    }
    let mut kept: Vec<char> = Vec::new();
    let mut used = 0;
    for c in s.chars().rev() {
        let w = c.width().unwrap_or(0);
        if used + w > max - 1 {
            break;
        }
        kept.push(c);
        used += w;
    }
    let mut out = String::from("…");
    out.extend(kept.into_iter().rev());
    out
}

/// `s` padded with spaces to exactly `cells` (cut first if longer).
pub fn pad(s: &str, cells: usize) -> String {
    let mut out = fit(s, cells);
    let w = width(&out);
    out.push_str(&" ".repeat(cells.saturating_sub(w)));
    out
}

/// `s` right-aligned in `cells`.
pub fn pad_left(s: &str, cells: usize) -> String {
    let out = fit(s, cells);
    let w = width(&out);
    format!("{}{out}", " ".repeat(cells.saturating_sub(w)))
}

/// A byte count: `512 B`, `1.5 KiB`, `12.0 MiB`.
pub fn bytes(n: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = n as f64;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{n} B")
    } else {
        format!("{v:.1} {}", UNITS.get(u).unwrap_or(&""))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fits_wide_characters() {
        assert_eq!(fit("hello", 10), "hello");
        assert_eq!(fit("hello world", 6), "hello…");
        assert_eq!(fit("日本語のトピック", 7), "日本語…");
        assert_eq!(width(&fit("日本語のトピック", 7)), 7);
        assert_eq!(fit_left("/robot/sensors/imu", 8), "…ors/imu");
        assert_eq!(pad("ab", 4), "ab  ");
        assert_eq!(pad_left("ab", 4), "  ab");
        assert_eq!(bytes(512), "512 B");
        assert_eq!(bytes(1536), "1.5 KiB");
    }
}
