//! Where plain (unquoted) scalars end.

use super::{Line, is_blank_or_end};

/// Why a plain scalar in block context ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum PlainEnd {
    /// At `:` (at this byte) followed by a blank or the end: the scalar is a key.
    Key(usize),
    /// At a comment.
    Comment,
    /// At the end of the line.
    Line,
}

/// Scans a plain scalar in block context from byte `at`: the end of its text (trailing
/// blanks excluded) and why it ended.
pub(super) fn scan_plain_block(line: &Line, at: usize) -> (usize, PlainEnd) {
    let bytes = line.text.as_bytes();
    let mut i = at;
    let how = loop {
        // Only `:` and `#` can end the scalar before the line does: jump to the next one.
        match bytes
            .get(i..)
            .and_then(|rest| memchr::memchr2(b':', b'#', rest))
        {
            Some(skip) => i += skip,
            None => i = bytes.len(),
        }
        match bytes.get(i) {
            None => break PlainEnd::Line,
            Some(b':') if is_blank_or_end(bytes.get(i + 1).copied()) => break PlainEnd::Key(i),
            Some(b'#') if i > at && matches!(bytes.get(i - 1), Some(b' ' | b'\t')) => {
                break PlainEnd::Comment;
            }
            Some(_) => i += 1,
        }
    };
    (trim_end(line, at, i), how)
}

/// Why a plain scalar in flow context ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum FlowPlainEnd {
    /// At `:` (at this byte) followed by a blank, a flow indicator or the end.
    Key(usize),
    /// At a flow indicator, a comment or the end of the line.
    Other(usize),
}

/// Scans a plain scalar in flow context from byte `at`: the end of its text and where it
/// stopped.
pub(super) fn scan_plain_flow(line: &Line, at: usize) -> (usize, FlowPlainEnd) {
    let bytes = line.text.as_bytes();
    let mut i = at;
    let how = loop {
        match bytes.get(i) {
            None | Some(b',' | b'[' | b']' | b'{' | b'}') => break FlowPlainEnd::Other(i),
            Some(b':')
                if matches!(
                    bytes.get(i + 1),
                    None | Some(b' ' | b'\t' | b',' | b'[' | b']' | b'{' | b'}')
                ) =>
            {
                break FlowPlainEnd::Key(i);
            }
            Some(b'#') if i > at && matches!(bytes.get(i - 1), Some(b' ' | b'\t')) => {
                break FlowPlainEnd::Other(i);
            }
            Some(_) => i += 1,
        }
    };
    (trim_end(line, at, i), how)
}

fn trim_end(line: &Line, at: usize, mut end: usize) -> usize {
    while end > at && matches!(line.byte(end - 1), Some(b' ' | b'\t')) {
        end -= 1;
    }
    end
}
