//! The strings `rostopic echo` prints come from PyYAML (`yaml.dump`): a lone string as a
//! double-quoted scalar, a list of strings as a block sequence whose items PyYAML styles
//! itself (plain, single- or double-quoted). This is a port of the parts of PyYAML 6's
//! emitter and resolver involved (`analyze_scalar`, `choose_scalar_style`, the three scalar
//! writers with their 80-column folding, the YAML 1.1 implicit resolvers), with its defaults
//! (`allow_unicode=False`, width 80, indent 2) — and, for ROS 2's `message_to_yaml`, with
//! `allow_unicode=True` and no folding ([`dump_unicode_value`]).

mod analysis;
mod resolver;

use analysis::{Style, choose_style};

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

/// A string as `yaml.dump(..., allow_unicode=True, width=sys.maxsize)` writes it as a value in
/// a block mapping or sequence whose scalars are indented `indent` (rosidl_runtime_py's
/// `message_to_yaml`, which `ros2 topic echo` prints): plain, single- or double-quoted as
/// PyYAML chooses, printable non-ASCII characters as they are, never folded. The text starts
/// with the space PyYAML writes after `key:` or `-`.
pub(crate) fn dump_unicode_value(text: &str, indent: usize) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut e = Emitter::new(indent);
    e.unicode = true;
    e.width = usize::MAX;
    // After `key:` or `-`: not at whitespace.
    e.whitespace = false;
    e.indention = false;
    e.column = indent;
    match choose_style(&chars, true) {
        Style::Plain => e.write_plain(&chars),
        Style::Single => e.write_single_quoted(&chars),
        Style::Double => e.write_double_quoted(&chars, true),
    }
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
        match choose_style(&chars, false) {
            Style::Plain => e.write_plain(&chars),
            Style::Single => e.write_single_quoted(&chars),
            Style::Double => e.write_double_quoted(&chars, true),
        }
    }
    e.out
}

struct Emitter {
    out: String,
    column: usize,
    whitespace: bool,
    indention: bool,
    indent: usize,
    /// `allow_unicode`: printable non-ASCII characters are written as they are.
    unicode: bool,
    /// The column past which scalars are folded.
    width: usize,
}

pub(super) fn is_break(ch: char) -> bool {
    matches!(ch, '\n' | '\u{85}' | '\u{2028}' | '\u{2029}')
}

pub(super) fn is_space_or_break(ch: char) -> bool {
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
            unicode: false,
            width: BEST_WIDTH,
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

    /// A run of line breaks inside a single-quoted or plain scalar (a leading `\n` doubled, as
    /// folding would otherwise eat it), then the indent of the next line.
    fn write_breaks(&mut self, breaks: &[char]) {
        if breaks.first() == Some(&'\n') {
            self.write_line_break(None);
        }
        for &br in breaks {
            if br == '\n' {
                self.write_line_break(None);
            } else {
                self.write_line_break(Some(br));
            }
        }
        self.write_indent();
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
                    ) || !((' '..='~').contains(&c)
                        || (self.unicode
                            && (('\u{a0}'..='\u{d7ff}').contains(&c)
                                || ('\u{e000}'..='\u{fffd}').contains(&c))))
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
                && self.column + end > self.width.saturating_add(start)
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
        self.write_folded(text, true);
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
        self.write_folded(text, false);
    }

    /// The loop of PyYAML's `write_single_quoted` (`single`) and `write_plain`: a lone space
    /// past the width becomes a line break, line breaks are written as breaks, quotes are
    /// doubled (single-quoted); a plain scalar also starts each new line as non-whitespace.
    fn write_folded(&mut self, text: &[char], single: bool) {
        let len = text.len();
        let (mut spaces, mut breaks) = (false, false);
        let (mut start, mut end) = (0usize, 0usize);
        while end <= len {
            let ch = text.get(end).copied();
            if spaces {
                if ch != Some(' ') {
                    // A single-quoted scalar never breaks at its first or last character.
                    let inner = !single || (start != 0 && end != len);
                    if start + 1 == end && self.column > self.width && inner {
                        self.write_indent();
                        self.plain_line(single);
                    } else {
                        self.write_chars(text.get(start..end).unwrap_or_default());
                    }
                    start = end;
                }
            } else if breaks {
                if ch.is_none_or(|c| !is_break(c)) {
                    self.write_breaks(text.get(start..end).unwrap_or_default());
                    self.plain_line(single);
                    start = end;
                }
            } else if ch.is_none_or(|c| c == ' ' || (single && c == '\'') || is_break(c))
                && start < end
            {
                self.write_chars(text.get(start..end).unwrap_or_default());
                start = end;
            }
            if single && ch == Some('\'') {
                self.write("''");
                start = end + 1;
            }
            if let Some(c) = ch {
                spaces = c == ' ';
                breaks = is_break(c);
            }
            end += 1;
        }
    }

    /// After a break inside a plain scalar, the new line does not start with whitespace.
    fn plain_line(&mut self, single: bool) {
        if !single {
            self.whitespace = false;
            self.indention = false;
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
}
