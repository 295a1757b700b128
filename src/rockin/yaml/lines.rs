//! The input as lines, read one at a time from a [`BufRead`]: only the current line (and a
//! few pushed back) is in memory. A line longer than the limit is an error before it is
//! held whole.

use std::cell::Cell;
use std::io::BufRead;

use super::super::error::{InputError, InputErrorKind, Mark};

/// One line of text, without its line break.
#[derive(Debug)]
pub(crate) struct Line {
    pub(crate) text: String,
    pub(crate) no: u64,
    ascii: bool,
    /// `(byte, column)` of the last column computed: columns of a long non-ASCII line are
    /// counted incrementally as the scanners move forward.
    cache: Cell<(usize, u64)>,
}

impl Line {
    pub(crate) fn new(text: String, no: u64) -> Self {
        let ascii = text.is_ascii();
        Line {
            text,
            no,
            ascii,
            cache: Cell::new((0, 0)),
        }
    }

    /// The position of byte `byte` of the line.
    pub(crate) fn mark(&self, byte: usize) -> Mark {
        let byte = byte.min(self.text.len());
        let col = if self.ascii {
            byte as u64
        } else {
            let (b0, c0) = self.cache.get();
            let (from, base) = if byte >= b0 { (b0, c0) } else { (0, 0) };
            let n = self.text.get(from..byte).map_or_else(
                || {
                    // Not a char boundary: count the bytes that start a char.
                    self.text
                        .as_bytes()
                        .get(from..byte)
                        .map_or(0, |s| s.iter().filter(|&&b| (b & 0xC0) != 0x80).count())
                },
                |s| s.chars().count(),
            ) as u64;
            self.cache.set((byte, base + n));
            base + n
        };
        Mark::new(self.no, col + 1)
    }

    /// The byte at `i`, if any.
    pub(crate) fn byte(&self, i: usize) -> Option<u8> {
        self.text.as_bytes().get(i).copied()
    }

    /// Leading spaces.
    pub(crate) fn indent(&self) -> usize {
        self.text.bytes().take_while(|&b| b == b' ').count()
    }

    /// True when the line holds only spaces and tabs.
    pub(crate) fn is_blank(&self) -> bool {
        self.text.bytes().all(|b| b == b' ' || b == b'\t')
    }

    /// The text from byte `from` (empty when out of range).
    pub(crate) fn from(&self, from: usize) -> &str {
        self.text.get(from..).unwrap_or_default()
    }

    /// The text of bytes `a..b` (empty when out of range).
    pub(crate) fn slice(&self, a: usize, b: usize) -> &str {
        self.text.get(a..b).unwrap_or_default()
    }
}

/// True when byte `at` starts a comment (`#` at the start or after a blank).
pub(super) fn is_comment_at(line: &Line, at: usize) -> bool {
    line.byte(at) == Some(b'#') && (at == 0 || matches!(line.byte(at - 1), Some(b' ' | b'\t')))
}

/// The first byte at or after `at` that is not a space or tab.
pub(super) fn skip_blanks(line: &Line, mut at: usize) -> usize {
    while matches!(line.byte(at), Some(b' ' | b'\t')) {
        at += 1;
    }
    at
}

/// True when nothing but blanks and perhaps a comment follows byte `at`.
pub(super) fn rest_is_empty(line: &Line, at: usize) -> bool {
    let at = skip_blanks(line, at);
    line.byte(at).is_none() || is_comment_at(line, at)
}

/// Reads lines, keeping count, with lines pushed back for lookahead.
pub(crate) struct LineReader<R> {
    input: R,
    pushed: Vec<Line>,
    next_no: u64,
    max_line: usize,
    buf: Vec<u8>,
    done: bool,
    eof: Mark,
    bytes_read: u64,
}

impl<R: BufRead> LineReader<R> {
    pub(crate) fn new(input: R, max_line: usize) -> Self {
        LineReader {
            input,
            pushed: Vec::new(),
            next_no: 1,
            max_line,
            buf: Vec::new(),
            done: false,
            eof: Mark::new(1, 1),
            bytes_read: 0,
        }
    }

    /// The position just after the last character of the input (meaningful at the end).
    pub(crate) fn eof_mark(&self) -> Mark {
        self.eof
    }

    /// Bytes consumed from the input so far.
    pub(crate) fn bytes_read(&self) -> u64 {
        self.bytes_read
    }

    /// Gives a line back; the next [`LineReader::next_line`] returns it.
    pub(crate) fn push_back(&mut self, line: Line) {
        self.pushed.push(line);
    }

    /// The next line, or `None` at the end of the input.
    pub(crate) fn next_line(&mut self) -> Result<Option<Line>, InputError> {
        if let Some(l) = self.pushed.pop() {
            return Ok(Some(l));
        }
        if self.done {
            return Ok(None);
        }
        let no = self.next_no;
        self.buf.clear();
        let mut newline = false;
        loop {
            let avail = match self.input.fill_buf() {
                Ok(a) => a,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    return Err(InputError::new(Mark::new(no, 1), InputErrorKind::Read(e)));
                }
            };
            if avail.is_empty() {
                self.done = true;
                break;
            }
            let (take, found) = match memchr::memchr(b'\n', avail) {
                Some(i) => (i, true),
                None => (avail.len(), false),
            };
            if self.buf.len() + take > self.max_line {
                return Err(InputError::new(
                    Mark::new(no, 1),
                    InputErrorKind::TooLong {
                        what: "a line",
                        limit: self.max_line,
                    },
                ));
            }
            self.buf
                .extend_from_slice(avail.get(..take).unwrap_or_default());
            let consumed = take + usize::from(found);
            self.input.consume(consumed);
            self.bytes_read += consumed as u64;
            if found {
                newline = true;
                break;
            }
        }
        if self.done && !newline && self.buf.is_empty() {
            return Ok(None);
        }
        self.next_no += 1;
        if self.buf.last() == Some(&b'\r') {
            self.buf.pop();
        }
        let bytes = std::mem::take(&mut self.buf);
        let mut text = match String::from_utf8(bytes) {
            Ok(t) => t,
            Err(e) => {
                let valid = e.utf8_error().valid_up_to();
                let bytes = e.into_bytes();
                let prefix = String::from_utf8_lossy(bytes.get(..valid).unwrap_or_default());
                let col = prefix.chars().count() as u64 + 1;
                return Err(InputError::new(Mark::new(no, col), InputErrorKind::NotUtf8));
            }
        };
        if no == 1 && text.starts_with('\u{feff}') {
            text.drain(..'\u{feff}'.len_utf8());
        }
        let line = Line::new(text, no);
        self.eof = if newline {
            Mark::new(no + 1, 1)
        } else {
            line.mark(line.text.len())
        };
        Ok(Some(line))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[allow(clippy::many_single_char_names)]
    fn lines_numbers_and_columns() {
        let mut r = LineReader::new(&b"a\r\n\xef\xbb\xbfx\nh\xc3\xa9llo: 1"[..], 100);
        let a = r.next_line().unwrap().unwrap();
        assert_eq!((a.text.as_str(), a.no), ("a", 1));
        let b = r.next_line().unwrap().unwrap();
        assert_eq!(b.text, "\u{feff}x", "a BOM is stripped only on line 1");
        let c = r.next_line().unwrap().unwrap();
        assert_eq!(c.mark(5), Mark::new(3, 5), "é counts as one column");
        assert_eq!(c.mark(3), Mark::new(3, 3));
        assert_eq!(c.mark(7), Mark::new(3, 7));
        assert!(r.next_line().unwrap().is_none());
        assert_eq!(r.eof_mark(), Mark::new(3, 9));
        let mut r = LineReader::new(&b"ok\n\xff"[..], 100);
        r.next_line().unwrap();
        let e = r.next_line().unwrap_err();
        assert!(matches!(e.kind, InputErrorKind::NotUtf8));
        assert_eq!(e.mark, Mark::new(2, 1));
        let mut r = LineReader::new(&b"0123456789\n"[..], 5);
        assert!(matches!(
            r.next_line().unwrap_err().kind,
            InputErrorKind::TooLong { .. }
        ));
    }
}
