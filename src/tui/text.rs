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

/// `s` shortened in the middle to at most `max` cells: a head, `…`, then the end (topic names
/// keep their namespace and their most specific part). `keep` is a character index that
/// should stay visible (where the name differs from its neighbours in a list): the head then
/// runs to the end of the name segment holding it. Returns the text and, per shown character,
/// its index in `s` (`None` for the `…`).
pub fn fit_middle(s: &str, max: usize, keep: Option<usize>) -> (String, Vec<Option<usize>>) {
    let chars: Vec<char> = s.chars().collect();
    if width(s) <= max {
        return (s.to_string(), (0..chars.len()).map(Some).collect());
    }
    if max <= 1 {
        let dots = if max == 1 { "…" } else { "" };
        return (dots.to_string(), if max == 1 { vec![None] } else { vec![] });
    }
    let cells = |r: std::ops::Range<usize>| -> usize {
        chars
            .get(r)
            .map_or(0, |cs| cs.iter().map(|c| c.width().unwrap_or(0)).sum())
    };
    let room = max - 1;
    let min_tail = (room / 3).max(1);
    // Where a name segment ends (just after its '/'), from character `from` on.
    let segment_end = |from: usize| -> usize {
        chars
            .iter()
            .enumerate()
            .skip(from)
            .find(|(_, c)| **c == '/')
            .map_or(chars.len(), |(i, _)| i + 1)
    };
    let last_segment = chars.iter().rposition(|c| *c == '/').map_or(0, |i| i + 1);
    let mut candidates: Vec<usize> = Vec::new();
    match keep.filter(|k| *k < last_segment) {
        // The differing character is before the last segment: keep its whole segment, or at
        // least the character itself.
        Some(k) => {
            candidates.push(segment_end(k + 1));
            // Else the character itself, unless half and half shows it anyway.
            if k + 1 > room / 2 {
                candidates.push(k + 1);
            }
        }
        // No neighbour, or the names differ in the last segment (which the tail shows): keep
        // the first segment after the root.
        None => candidates.push(segment_end(1)),
    }
    let head = candidates
        .into_iter()
        .find(|&h| h < chars.len() && cells(0..h) + min_tail <= room)
        .unwrap_or_else(|| {
            // Half and half.
            let mut h = 0;
            while h < chars.len() && cells(0..h + 1) <= room / 2 {
                h += 1;
            }
            h
        });
    let mut used = cells(0..head);
    let mut tail_start = chars.len();
    while tail_start > head {
        let w = chars
            .get(tail_start - 1)
            .and_then(|c| c.width())
            .unwrap_or(0);
        if used + w > room {
            break;
        }
        used += w;
        tail_start -= 1;
    }
    let mut text = String::new();
    let mut map = Vec::new();
    for (i, c) in chars.iter().enumerate().take(head) {
        text.push(*c);
        map.push(Some(i));
    }
    text.push('…');
    map.push(None);
    for (i, c) in chars.iter().enumerate().skip(tail_start) {
        text.push(*c);
        map.push(Some(i));
    }
    (text, map)
}

/// Number of leading characters `a` and `b` share.
pub fn common_prefix(a: &str, b: &str) -> usize {
    a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count()
}

/// `text` broken into lines of at most `max` cells, at spaces where possible; continuation
/// lines start with `indent` spaces.
pub fn wrap(text: &str, max: usize, indent: usize) -> Vec<String> {
    let max = max.max(1);
    let indent = indent.min(max / 2);
    let mut lines = Vec::new();
    let mut line = String::new();
    let mut line_w = 0;
    // Nothing but the indentation on the line yet.
    let mut fresh = true;
    for word in text.split(' ') {
        if !fresh && line_w + 1 + width(word) > max {
            lines.push(std::mem::replace(&mut line, " ".repeat(indent)));
            line_w = indent;
            fresh = true;
        }
        if !fresh {
            line.push(' ');
            line_w += 1;
        }
        // A word longer than a line is cut into pieces.
        let mut rest = word.to_string();
        while line_w + width(&rest) > max {
            let piece = fit_exact(&rest, max - line_w);
            if piece.is_empty() {
                break;
            }
            rest = rest.chars().skip(piece.chars().count()).collect();
            line.push_str(&piece);
            lines.push(std::mem::replace(&mut line, " ".repeat(indent)));
            line_w = indent;
        }
        line_w += width(&rest);
        line.push_str(&rest);
        fresh = false;
    }
    lines.push(line);
    lines
}

/// The longest start of `s` that fits in `max` cells (no `…`).
fn fit_exact(s: &str, max: usize) -> String {
    let mut out = String::new();
    let mut used = 0;
    for c in s.chars() {
        let w = c.width().unwrap_or(0);
        if used + w > max {
            break;
        }
        out.push(c);
        used += w;
    }
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

    #[test]
    fn shortens_in_the_middle_keeping_what_differs() {
        let a = "/turtle1/color_sensor";
        let b = "/turtle2/color_sensor";
        let k = common_prefix(a, b);
        assert_eq!(k, 7);
        assert_eq!(fit_middle(a, 16, Some(k)).0, "/turtle1/…sensor");
        assert_eq!(fit_middle(b, 16, Some(k)).0, "/turtle2/…sensor");
        // Too narrow for the whole segment: the differing character still shows.
        let (t, _) = fit_middle(a, 13, Some(k));
        assert_eq!(t, "/turtle1…nsor");
        assert_eq!(width(&t), 13);
        // Differences in the last segment are in the tail.
        assert_eq!(
            fit_middle("/camera/left/image_raw", 14, None).0,
            "/camera/…e_raw"
        );
        let (t, map) = fit_middle("/a/bc", 4, None);
        assert_eq!(t, "/…bc");
        assert_eq!(map, vec![Some(0), None, Some(3), Some(4)]);
        assert_eq!(fit_middle("/short", 10, Some(2)).0, "/short");
        assert_eq!(width(&fit_middle("日本語のトピック/名前", 9, None).0), 9);
    }

    #[test]
    fn wraps_at_spaces_with_an_indent() {
        assert_eq!(
            wrap("#1 a.bag: lost 120 bytes at byte 4096", 16, 4),
            vec!["#1 a.bag: lost", "    120 bytes at", "    byte 4096"]
        );
        assert_eq!(wrap("    gap of 1 s", 40, 6), vec!["    gap of 1 s"]);
        let long = wrap("x".repeat(25).as_str(), 10, 2);
        assert_eq!(long, vec!["xxxxxxxxxx", "  xxxxxxxx", "  xxxxxxx"]);
    }
}
