//! Literal (`|`) and folded (`>`) block scalars, with chomping (`-`, `+`) and indentation
//! indicators.

use std::io::BufRead;

use super::super::error::{InputError, InputErrorKind};
use super::lines::{is_comment_at, skip_blanks};
use super::{Line, Parser, Scalar, Style, Tag};

#[derive(Clone, Copy, PartialEq, Eq)]
enum Chomp {
    Clip,
    Strip,
    Keep,
}

impl<R: BufRead> Parser<R> {
    /// The block scalar whose indicator is at byte `at` of `line`, in a block indented
    /// `parent`.
    pub(super) fn block_scalar(
        &mut self,
        line: &Line,
        at: usize,
        parent: isize,
        tag: Option<Tag>,
    ) -> Result<Scalar, InputError> {
        let header = line.mark(at);
        let folded = line.byte(at) == Some(b'>');
        let (chomp, explicit) = indicators(line, at + 1)?;
        let base = usize::try_from(parent.max(0)).unwrap_or(0);
        let mut indent = explicit.map(|e| base + e);
        let mut text = String::new();
        let mut segments = Vec::new();
        let mut first_mark = None;
        // Line breaks since the last content line (that line's own break included).
        let mut breaks = 0usize;
        let mut prev_more = false;
        let mut any = false;
        while let Some(l) = self.lines.next_line()? {
            let ind = l.indent();
            let blank = l.is_blank();
            if blank && indent.is_none_or(|n| ind <= n) {
                breaks += 1;
                continue;
            }
            let n = match indent {
                Some(n) => n,
                None if super::signed(ind) > parent => {
                    indent = Some(ind);
                    ind
                }
                None => {
                    self.lines.push_back(l);
                    break;
                }
            };
            if ind < n {
                self.lines.push_back(l);
                break;
            }
            let content = l.from(n);
            let more = content.starts_with([' ', '\t']);
            push_breaks(&mut text, breaks, any && folded && !prev_more && !more);
            let mark = l.mark(n);
            first_mark.get_or_insert(mark);
            segments.push((text.len(), mark));
            text.push_str(content);
            if text.len() > self.limits.max_scalar {
                return Err(InputError::new(
                    header,
                    InputErrorKind::TooLong {
                        what: "a scalar",
                        limit: self.limits.max_scalar,
                    },
                ));
            }
            any = true;
            prev_more = more;
            breaks = 1;
        }
        match chomp {
            Chomp::Clip if any => text.push('\n'),
            Chomp::Strip | Chomp::Clip => {}
            Chomp::Keep => {
                for _ in 0..breaks {
                    text.push('\n');
                }
            }
        }
        let mark = first_mark.unwrap_or(header);
        if segments.is_empty() {
            segments.push((0, mark));
        }
        Ok(Scalar {
            text,
            style: if folded {
                Style::Folded
            } else {
                Style::Literal
            },
            tag,
            mark,
            segments,
        })
    }
}

/// The chomping and indentation indicators of a block scalar header, from byte `i` (after
/// `|` or `>`); only blanks and a comment may follow them.
fn indicators(line: &Line, mut i: usize) -> Result<(Chomp, Option<usize>), InputError> {
    let mut chomp = None;
    let mut explicit = None;
    loop {
        match line.byte(i) {
            Some(b'-') if chomp.is_none() => chomp = Some(Chomp::Strip),
            Some(b'+') if chomp.is_none() => chomp = Some(Chomp::Keep),
            Some(d @ b'1'..=b'9') if explicit.is_none() => {
                explicit = Some(usize::from(d - b'0'));
            }
            _ => break,
        }
        i += 1;
    }
    let after = skip_blanks(line, i);
    if !(line.byte(after).is_none() || (after > i && is_comment_at(line, after))) {
        return Err(InputError::syntax(
            line.mark(i),
            "a block scalar header (`|`, `>`) takes only `-`, `+`, an indentation digit and a comment",
        ));
    }
    Ok((chomp.unwrap_or(Chomp::Clip), explicit))
}

/// Appends the `breaks` line breaks seen before a content line; `folding` (between two
/// lines of a folded scalar that are not more indented) a single break becomes a space and
/// the others are kept less one.
fn push_breaks(text: &mut String, breaks: usize, folding: bool) {
    match breaks {
        1 if folding => text.push(' '),
        _ if folding => {
            for _ in 1..breaks {
                text.push('\n');
            }
        }
        _ => {
            for _ in 0..breaks {
                text.push('\n');
            }
        }
    }
}
