//! The strings `rostopic echo` prints come from PyYAML (`yaml.dump`): a lone string as a
//! double-quoted scalar, a list of strings as a block sequence whose items PyYAML styles
//! itself (plain, single- or double-quoted). This is a port of the parts of PyYAML 6's
//! emitter and resolver involved (`analyze_scalar`, `choose_scalar_style`, the three scalar
//! writers with their 80-column folding, the YAML 1.1 implicit resolvers), with its defaults
//! (`allow_unicode=False`, width 80, indent 2).

const BEST_WIDTH: usize = 80;
const BEST_INDENT: usize = 2;

/// `yaml.dump(text, default_style='"')` without the final newline.
pub(crate) fn dump_double_quoted(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    // A root flow scalar: the emitter's indent is `best_indent`.
    let mut e = Emitter::new(BEST_INDENT);
    e.write_double_quoted(&chars, true);
    e.out
}

/// `yaml.dump(items)` for a list of strings, without the final newline: `- item` lines.
pub(crate) fn dump_string_list<S: AsRef<str>>(items: &[S]) -> String {
    // A root block sequence has indent 0; each item scalar is written at indent 2.
    let mut e = Emitter::new(0);
    for item in items {
        let chars: Vec<char> = item.as_ref().chars().collect();
        e.indent = 0;
        e.write_indent();
        e.write_indicator("-", true, false, true);
        e.indent = BEST_INDENT;
        match choose_style(&chars) {
            Style::Plain => e.write_plain(&chars),
            Style::Single => e.write_single_quoted(&chars),
            Style::Double => e.write_double_quoted(&chars, true),
        }
    }
    e.out
}

#[derive(Debug, PartialEq, Eq)]
enum Style {
    Plain,
    Single,
    Double,
}

struct Emitter {
    out: String,
    column: usize,
    whitespace: bool,
    indention: bool,
    indent: usize,
}

fn is_break(ch: char) -> bool {
    matches!(ch, '\n' | '\u{85}' | '\u{2028}' | '\u{2029}')
}

fn is_space_or_break(ch: char) -> bool {
    matches!(
        ch,
        '\0' | ' ' | '\t' | '\r' | '\n' | '\u{85}' | '\u{2028}' | '\u{2029}'
    )
}

impl Emitter {
    fn new(indent: usize) -> Self {
        Emitter {
            out: String::new(),
            column: 0,
            whitespace: true,
            indention: true,
            indent,
        }
    }

    fn write(&mut self, data: &str) {
        self.column += data.chars().count();
        self.out.push_str(data);
    }

    fn write_chars(&mut self, data: &[char]) {
        self.column += data.len();
        self.out.extend(data);
    }

    fn write_indicator(
        &mut self,
        indicator: &str,
        need_whitespace: bool,
        whitespace: bool,
        indention: bool,
    ) {
        if !self.whitespace && need_whitespace {
            self.write(" ");
        }
        self.write(indicator);
        self.whitespace = whitespace;
        self.indention = self.indention && indention;
    }

    fn write_indent(&mut self) {
        let indent = self.indent;
        if !self.indention || self.column > indent || (self.column == indent && !self.whitespace) {
            self.write_line_break(None);
        }
        if self.column < indent {
            self.whitespace = true;
            let pad = " ".repeat(indent - self.column);
            self.write(&pad);
        }
    }

    fn write_line_break(&mut self, data: Option<char>) {
        self.whitespace = true;
        self.indention = true;
        self.column = 0;
        self.out.push(data.unwrap_or('\n'));
    }

    fn write_double_quoted(&mut self, text: &[char], split: bool) {
        self.write_indicator("\"", true, false, false);
        let len = text.len();
        let (mut start, mut end) = (0usize, 0usize);
        while end <= len {
            let ch = text.get(end).copied();
            let needs_escape = match ch {
                None => true,
                Some(c) => {
                    matches!(
                        c,
                        '"' | '\\' | '\u{85}' | '\u{2028}' | '\u{2029}' | '\u{feff}'
                    ) || !(' '..='~').contains(&c)
                }
            };
            if needs_escape {
                if start < end {
                    self.write_chars(text.get(start..end).unwrap_or_default());
                    start = end;
                }
                if let Some(c) = ch {
                    let data = match escape_replacement(c) {
                        Some(r) => format!("\\{r}"),
                        None if u32::from(c) <= 0xff => format!("\\x{:02X}", u32::from(c)),
                        None if u32::from(c) <= 0xffff => format!("\\u{:04X}", u32::from(c)),
                        None => format!("\\U{:08X}", u32::from(c)),
                    };
                    self.write(&data);
                    start = end + 1;
                }
            }
            if 0 < end
                && end + 1 < len
                && (ch == Some(' ') || start >= end)
                // column + (end - start) > width, where start may be end + 1.
                && self.column + end > BEST_WIDTH + start
                && split
            {
                let mut data: String = text.get(start..end).unwrap_or_default().iter().collect();
                data.push('\\');
                if start < end {
                    start = end;
                }
                self.write(&data);
                self.write_indent();
                self.whitespace = false;
                self.indention = false;
                if text.get(start) == Some(&' ') {
                    self.write("\\");
                }
            }
            end += 1;
        }
        self.write_indicator("\"", false, false, false);
    }

    fn write_single_quoted(&mut self, text: &[char]) {
        self.write_indicator("'", true, false, false);
        let len = text.len();
        let (mut spaces, mut breaks) = (false, false);
        let (mut start, mut end) = (0usize, 0usize);
        while end <= len {
            let ch = text.get(end).copied();
            if spaces {
                if ch != Some(' ') {
                    if start + 1 == end && self.column > BEST_WIDTH && start != 0 && end != len {
                        self.write_indent();
                    } else {
                        self.write_chars(text.get(start..end).unwrap_or_default());
                    }
                    start = end;
                }
            } else if breaks {
                if ch.is_none_or(|c| !is_break(c)) {
                    if text.get(start) == Some(&'\n') {
                        self.write_line_break(None);
                    }
                    for &br in text.get(start..end).unwrap_or_default() {
                        if br == '\n' {
                            self.write_line_break(None);
                        } else {
                            self.write_line_break(Some(br));
                        }
                    }
                    self.write_indent();
                    start = end;
                }
            } else if ch.is_none_or(|c| c == ' ' || c == '\'' || is_break(c)) && start < end {
                self.write_chars(text.get(start..end).unwrap_or_default());
                start = end;
            }
            if ch == Some('\'') {
                self.write("''");
                start = end + 1;
            }
            if let Some(c) = ch {
                spaces = c == ' ';
                breaks = is_break(c);
            }
            end += 1;
        }
        self.write_indicator("'", false, false, false);
    }

    fn write_plain(&mut self, text: &[char]) {
        if text.is_empty() {
            return;
        }
        if !self.whitespace {
            self.write(" ");
        }
        self.whitespace = false;
        self.indention = false;
        let len = text.len();
        let (mut spaces, mut breaks) = (false, false);
        let (mut start, mut end) = (0usize, 0usize);
        while end <= len {
            let ch = text.get(end).copied();
            if spaces {
                if ch != Some(' ') {
                    if start + 1 == end && self.column > BEST_WIDTH {
                        self.write_indent();
                        self.whitespace = false;
                        self.indention = false;
                    } else {
                        self.write_chars(text.get(start..end).unwrap_or_default());
                    }
                    start = end;
                }
            } else if breaks {
                if ch.is_none_or(|c| !is_break(c)) {
                    if text.get(start) == Some(&'\n') {
                        self.write_line_break(None);
                    }
                    for &br in text.get(start..end).unwrap_or_default() {
                        if br == '\n' {
                            self.write_line_break(None);
                        } else {
                            self.write_line_break(Some(br));
                        }
                    }
                    self.write_indent();
                    self.whitespace = false;
                    self.indention = false;
                    start = end;
                }
            } else if ch.is_none_or(|c| c == ' ' || is_break(c)) {
                self.write_chars(text.get(start..end).unwrap_or_default());
                start = end;
            }
            if let Some(c) = ch {
                spaces = c == ' ';
                breaks = is_break(c);
            }
            end += 1;
        }
    }
}

fn escape_replacement(c: char) -> Option<char> {
    Some(match c {
        '\0' => '0',
        '\u{07}' => 'a',
        '\u{08}' => 'b',
        '\t' => 't',
        '\n' => 'n',
        '\u{0b}' => 'v',
        '\u{0c}' => 'f',
        '\r' => 'r',
        '\u{1b}' => 'e',
        '"' => '"',
        '\\' => '\\',
        '\u{85}' => 'N',
        '\u{a0}' => '_',
        '\u{2028}' => 'L',
        '\u{2029}' => 'P',
        _ => return None,
    })
}

/// `choose_scalar_style` for an item of a block sequence (no simple key, not in flow).
fn choose_style(text: &[char]) -> Style {
    let a = analyze(text);
    let s: String = text.iter().collect();
    if a.allow_block_plain && !resolves_to_non_string(&s) {
        Style::Plain
    } else if a.allow_single_quoted {
        Style::Single
    } else {
        Style::Double
    }
}

struct Analysis {
    allow_block_plain: bool,
    allow_single_quoted: bool,
}

/// PyYAML's `analyze_scalar` with `allow_unicode=False`, reduced to the two answers needed.
fn analyze(text: &[char]) -> Analysis {
    if text.is_empty() {
        return Analysis {
            allow_block_plain: true,
            allow_single_quoted: true,
        };
    }
    let mut block_indicators = false;
    let mut line_breaks = false;
    let mut special_characters = false;
    let (mut leading_space, mut leading_break) = (false, false);
    let (mut trailing_space, mut trailing_break) = (false, false);
    let (mut break_space, mut space_break) = (false, false);
    let starts_with = |p: &str| text.iter().take(3).copied().eq(p.chars());
    if starts_with("---") || starts_with("...") {
        block_indicators = true;
    }
    let mut preceded_by_whitespace = true;
    let mut followed_by_whitespace =
        text.len() == 1 || text.get(1).is_some_and(|&c| is_space_or_break(c));
    let (mut previous_space, mut previous_break) = (false, false);
    let last = text.len() - 1;
    for (index, &ch) in text.iter().enumerate() {
        if index == 0 {
            if "#,[]{}&*!|>'\"%@`".contains(ch) {
                block_indicators = true;
            }
            if (ch == '?' || ch == ':') && followed_by_whitespace {
                block_indicators = true;
            }
            if ch == '-' && followed_by_whitespace {
                block_indicators = true;
            }
        } else {
            if ch == ':' && followed_by_whitespace {
                block_indicators = true;
            }
            if ch == '#' && preceded_by_whitespace {
                block_indicators = true;
            }
        }
        if is_break(ch) {
            line_breaks = true;
        }
        if !(ch == '\n' || (' '..='~').contains(&ch)) {
            special_characters = true;
        }
        if ch == ' ' {
            if index == 0 {
                leading_space = true;
            }
            if index == last {
                trailing_space = true;
            }
            if previous_break {
                break_space = true;
            }
            previous_space = true;
            previous_break = false;
        } else if is_break(ch) {
            if index == 0 {
                leading_break = true;
            }
            if index == last {
                trailing_break = true;
            }
            if previous_space {
                space_break = true;
            }
            previous_space = false;
            previous_break = true;
        } else {
            previous_space = false;
            previous_break = false;
        }
        preceded_by_whitespace = is_space_or_break(ch);
        followed_by_whitespace =
            index + 2 >= text.len() || text.get(index + 2).is_some_and(|&c| is_space_or_break(c));
    }
    let mut allow_block_plain = true;
    let mut allow_single_quoted = true;
    if leading_space || leading_break || trailing_space || trailing_break {
        allow_block_plain = false;
    }
    if break_space {
        allow_block_plain = false;
        allow_single_quoted = false;
    }
    if space_break || special_characters {
        allow_block_plain = false;
        allow_single_quoted = false;
    }
    if line_breaks || block_indicators {
        allow_block_plain = false;
    }
    Analysis {
        allow_block_plain,
        allow_single_quoted,
    }
}

/// True when a plain scalar with this text would be read back as something other than a
/// string (PyYAML's YAML 1.1 implicit resolvers: bool, int, float, null, timestamp, merge,
/// value).
fn resolves_to_non_string(s: &str) -> bool {
    const WORDS: [&str; 24] = [
        "yes", "Yes", "YES", "no", "No", "NO", "true", "True", "TRUE", "false", "False", "FALSE",
        "on", "On", "ON", "off", "Off", "OFF", "~", "null", "Null", "NULL", "<<", "=",
    ];
    s.is_empty() || WORDS.contains(&s) || is_int(s) || is_float(s) || is_timestamp(s)
}

fn digits_or_underscores(s: &str, radix: u32) -> bool {
    !s.is_empty() && s.chars().all(|c| c == '_' || c.is_digit(radix))
}

fn strip_sign(s: &str) -> &str {
    s.strip_prefix(['-', '+']).unwrap_or(s)
}

/// `[0-5]?[0-9]`
fn is_sexagesimal_part(p: &str) -> bool {
    let b = p.as_bytes();
    match b {
        [d] => d.is_ascii_digit(),
        [h, d] => (b'0'..=b'5').contains(h) && d.is_ascii_digit(),
        _ => false,
    }
}

/// `[1-9][0-9_]*` (or `[0-9][0-9_]*` when `zero_ok`) followed by `(:[0-5]?[0-9])+`.
fn is_sexagesimal(s: &str, zero_ok: bool) -> bool {
    let mut parts = s.split(':');
    let head = parts.next().unwrap_or_default();
    let head_ok = head.chars().next().is_some_and(|c| {
        if zero_ok {
            c.is_ascii_digit()
        } else {
            ('1'..='9').contains(&c)
        }
    }) && head.chars().skip(1).all(|c| c == '_' || c.is_ascii_digit());
    let rest: Vec<&str> = parts.collect();
    head_ok && !rest.is_empty() && rest.iter().all(|p| is_sexagesimal_part(p))
}

fn is_int(s: &str) -> bool {
    let body = strip_sign(s);
    if let Some(bits) = body.strip_prefix("0b") {
        return digits_or_underscores(bits, 2);
    }
    if let Some(hex) = body.strip_prefix("0x") {
        return digits_or_underscores(hex, 16);
    }
    if body == "0" {
        return true;
    }
    if let Some(oct) = body.strip_prefix('0') {
        return digits_or_underscores(oct, 8);
    }
    let decimal = body
        .chars()
        .next()
        .is_some_and(|c| ('1'..='9').contains(&c))
        && body.chars().all(|c| c == '_' || c.is_ascii_digit());
    decimal || is_sexagesimal(body, false)
}

/// `[eE][-+][0-9]+` or nothing.
fn is_exponent_or_empty(s: &str) -> bool {
    if s.is_empty() {
        return true;
    }
    let Some(rest) = s.strip_prefix(['e', 'E']) else {
        return false;
    };
    let Some(digits) = rest.strip_prefix(['-', '+']) else {
        return false;
    };
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

fn is_float(s: &str) -> bool {
    if matches!(s, ".nan" | ".NaN" | ".NAN") {
        return true;
    }
    let body = strip_sign(s);
    if matches!(body, ".inf" | ".Inf" | ".INF") {
        return true;
    }
    // `\.[0-9][0-9_]*(exp)?` (no sign allowed)
    if let Some(frac) = s.strip_prefix('.') {
        let end = frac
            .find(|c: char| c != '_' && !c.is_ascii_digit())
            .unwrap_or(frac.len());
        let (digits, exp) = frac.split_at(end);
        if digits.starts_with(|c: char| c.is_ascii_digit()) && is_exponent_or_empty(exp) {
            return true;
        }
    }
    let Some((int_part, after_dot)) = body.split_once('.') else {
        return false;
    };
    // `[0-9][0-9_]*(:[0-5]?[0-9])+\.[0-9_]*`
    if int_part.contains(':') {
        return is_sexagesimal(int_part, true)
            && after_dot.chars().all(|c| c == '_' || c.is_ascii_digit());
    }
    // `[0-9][0-9_]*\.[0-9_]*(exp)?`
    let int_ok = int_part.starts_with(|c: char| c.is_ascii_digit())
        && int_part.chars().all(|c| c == '_' || c.is_ascii_digit());
    let end = after_dot
        .find(|c: char| c != '_' && !c.is_ascii_digit())
        .unwrap_or(after_dot.len());
    int_ok && is_exponent_or_empty(after_dot.get(end..).unwrap_or_default())
}

fn take_digits(s: &[u8], min: usize, max: usize) -> Option<(&[u8], &[u8])> {
    let n = s
        .iter()
        .take(max)
        .take_while(|b| b.is_ascii_digit())
        .count();
    (n >= min).then(|| s.split_at(n))
}

fn is_timestamp(s: &str) -> bool {
    let date = (|| {
        let (_, r) = take_digits(s.as_bytes(), 4, 4)?;
        let r = r.strip_prefix(b"-")?;
        let (month, r) = take_digits(r, 1, 2)?;
        let r = r.strip_prefix(b"-")?;
        let (day, r) = take_digits(r, 1, 2)?;
        Some((month.len() == 2 && day.len() == 2, r))
    })();
    let Some((two_digit, rest)) = date else {
        return false;
    };
    if rest.is_empty() {
        return two_digit;
    }
    (|| {
        let r = match rest.first()? {
            b'T' | b't' => rest.get(1..)?,
            b' ' | b'\t' => {
                let n = rest
                    .iter()
                    .take_while(|c| matches!(c, b' ' | b'\t'))
                    .count();
                rest.get(n..)?
            }
            _ => return None,
        };
        let (_, r) = take_digits(r, 1, 2)?;
        let r = r.strip_prefix(b":")?;
        let (_, r) = take_digits(r, 2, 2)?;
        let r = r.strip_prefix(b":")?;
        let (_, mut r) = take_digits(r, 2, 2)?;
        if let Some(frac) = r.strip_prefix(b".") {
            r = frac.get(frac.iter().take_while(|c| c.is_ascii_digit()).count()..)?;
        }
        let n = r.iter().take_while(|c| matches!(c, b' ' | b'\t')).count();
        let tz = r.get(n..)?;
        if tz.is_empty() {
            return Some(n == 0);
        }
        if tz == b"Z" {
            return Some(true);
        }
        let tz = tz.strip_prefix(b"-").or_else(|| tz.strip_prefix(b"+"))?;
        let (_, r) = take_digits(tz, 1, 2)?;
        if r.is_empty() {
            return Some(true);
        }
        let r = r.strip_prefix(b":")?;
        let (_, r) = take_digits(r, 2, 2)?;
        Some(r.is_empty())
    })()
    .unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Against `yaml.dump` itself (`tests/fixtures/msg/yaml_strings.jsonl`, made by PyYAML 6
    /// with `make_yaml_strings.py`).
    #[test]
    fn matches_pyyaml() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/msg/yaml_strings.jsonl");
        let text = std::fs::read_to_string(path).unwrap();
        let mut cases = 0;
        for line in text.lines() {
            let row: serde_json::Value = serde_json::from_str(line).unwrap();
            let items: Vec<&str> = row["items"]
                .as_array()
                .unwrap()
                .iter()
                .map(|i| i.as_str().unwrap())
                .collect();
            assert_eq!(dump_double_quoted(items[0]), row["double"], "{items:?}");
            assert_eq!(dump_string_list(&items), row["list"], "{items:?}");
            cases += 1;
        }
        assert!(cases > 500);
    }

    #[test]
    fn resolvers() {
        for s in [
            "",
            "1",
            "-1",
            "+0",
            "0x1F",
            "0b101",
            "017",
            "1_000",
            "1:30",
            "1.5",
            "-1.",
            ".5",
            "1.0e+5",
            ".inf",
            "-.Inf",
            ".nan",
            "190:20:30.15",
            "yes",
            "Off",
            "~",
            "null",
            "<<",
            "=",
            "2001-12-14",
            "2001-12-14t21:59:43.10-05:00",
            "2001-12-14 21:59:43.10 -5",
            "2001-1-1 1:00:00",
        ] {
            assert!(resolves_to_non_string(s), "{s:?}");
        }
        for s in [
            "a", "1.0e5", "1e+5", "0x", "09", "1:60", "abc1", "2001-1-1", "y", "nan", "inf",
            "1.5.6", "- 1", "+", ".",
        ] {
            assert!(!resolves_to_non_string(s), "{s:?}");
        }
    }
}
