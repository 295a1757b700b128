//! Single- and double-quoted scalars, possibly over several lines, with YAML's escapes and
//! line folding.

use std::io::BufRead;

use super::super::Limits;
use super::super::error::{InputError, InputErrorKind};
use super::{Line, LineReader, Scalar, Style};

/// Reads the quoted scalar whose opening quote is at byte `*pos` of `*line`. On return
/// `*line` is the line holding the closing quote and `*pos` the byte after it.
pub(crate) fn parse<R: BufRead>(
    lines: &mut LineReader<R>,
    line: &mut Line,
    pos: &mut usize,
    limits: &Limits,
) -> Result<Scalar, InputError> {
    let open = line.mark(*pos);
    let double = line.byte(*pos) == Some(b'"');
    let quote = if double { b'"' } else { b'\'' };
    let (style, what) = if double {
        (Style::DoubleQuoted, "a double-quoted string")
    } else {
        (Style::SingleQuoted, "a single-quoted string")
    };
    let mut text = String::new();
    let mut segments = vec![(0, line.mark(*pos + 1))];
    let mut i = *pos + 1;
    loop {
        let mut start = i;
        // Text that came from escapes is not trimmed at a line end.
        let mut kept = text.len();
        let mut escaped_break = false;
        loop {
            match line.byte(i) {
                None => {
                    text.push_str(line.slice(start, i));
                    break;
                }
                Some(b) if b == quote => {
                    if !double && line.byte(i + 1) == Some(b'\'') {
                        text.push_str(line.slice(start, i + 1));
                        i += 2;
                        start = i;
                        kept = text.len();
                        continue;
                    }
                    text.push_str(line.slice(start, i));
                    *pos = i + 1;
                    return Ok(Scalar {
                        text,
                        style,
                        tag: None,
                        mark: open,
                        segments,
                    });
                }
                Some(b'\\') if double => {
                    text.push_str(line.slice(start, i));
                    if line.byte(i + 1).is_none() {
                        escaped_break = true;
                        break;
                    }
                    let (ch, len) = escape(line, i)?;
                    text.push(ch);
                    i += len;
                    start = i;
                    kept = text.len();
                }
                Some(_) => i += 1,
            }
        }
        if text.len() > limits.max_scalar {
            return Err(InputError::new(
                open,
                InputErrorKind::TooLong {
                    what: "a scalar",
                    limit: limits.max_scalar,
                },
            ));
        }
        if !escaped_break {
            while text.len() > kept && text.ends_with([' ', '\t']) {
                text.pop();
            }
        }
        let mut empties = 0usize;
        let next = loop {
            let Some(l) = lines.next_line()? else {
                return Err(InputError::new(
                    lines.eof_mark(),
                    InputErrorKind::Truncated(format!("{what} that starts at {open}")),
                ));
            };
            if l.is_blank() {
                empties += 1;
                continue;
            }
            break l;
        };
        *line = next;
        i = super::lines::skip_blanks(line, 0);
        if empties > 0 {
            for _ in 0..empties {
                text.push('\n');
            }
        } else if !escaped_break {
            text.push(' ');
        }
        segments.push((text.len(), line.mark(i)));
    }
}

/// Decodes the escape sequence whose backslash is at byte `at`: the character and the
/// bytes it takes.
fn escape(line: &Line, at: usize) -> Result<(char, usize), InputError> {
    let bad = |what: String| InputError::syntax(line.mark(at), what);
    let Some(e) = line.byte(at + 1) else {
        return Err(bad("a backslash at the end".into()));
    };
    let simple = match e {
        b'0' => Some('\0'),
        b'a' => Some('\u{7}'),
        b'b' => Some('\u{8}'),
        b't' | b'\t' => Some('\t'),
        b'n' => Some('\n'),
        b'v' => Some('\u{b}'),
        b'f' => Some('\u{c}'),
        b'r' => Some('\r'),
        b'e' => Some('\u{1b}'),
        b' ' => Some(' '),
        b'"' => Some('"'),
        b'/' => Some('/'),
        b'\\' => Some('\\'),
        b'N' => Some('\u{85}'),
        b'_' => Some('\u{a0}'),
        b'L' => Some('\u{2028}'),
        b'P' => Some('\u{2029}'),
        _ => None,
    };
    if let Some(c) = simple {
        return Ok((c, 2));
    }
    let digits = match e {
        b'x' => 2,
        b'u' => 4,
        b'U' => 8,
        _ => {
            let shown: String = line.from(at).chars().take(2).collect();
            return Err(bad(format!("unknown escape sequence '{shown}'")));
        }
    };
    let hex = line.text.get(at + 2..at + 2 + digits).unwrap_or_default();
    if hex.len() != digits || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(bad(format!(
            "'\\{}' needs {digits} hexadecimal digits",
            char::from(e)
        )));
    }
    let code = u32::from_str_radix(hex, 16).map_err(|_| bad("bad escape".into()))?;
    let c = char::from_u32(code).ok_or_else(|| {
        bad(format!(
            "'\\{}{hex}' is not a Unicode character",
            char::from(e)
        ))
    })?;
    Ok((c, 2 + digits))
}
