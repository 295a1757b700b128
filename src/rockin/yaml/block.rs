//! Block structure: which collection a line belongs to, by its indentation, and what the
//! line starts (a key, a sequence item, a scalar, a flow collection, a block scalar).

use std::io::BufRead;

use super::super::error::{InputError, InputErrorKind, Mark};
use super::lines::{is_comment_at, rest_is_empty, skip_blanks};
use super::plain::{PlainEnd, scan_plain_block};
use super::{Block, Doc, Event, Parser, Pending, Scalar, Slot, Style, Tag, flow, is_blank_or_end};
use super::{Line, quoted};

/// True when `line` has a sequence entry indicator (`-` then space or end) at byte `at`.
fn is_entry(line: &Line, at: usize) -> bool {
    line.byte(at) == Some(b'-') && is_blank_or_end(line.byte(at + 1))
}

/// True when the line is `---` or `...` (then space or end) at column 1.
fn doc_marker(line: &Line) -> Option<&'static str> {
    ["---", "..."]
        .into_iter()
        .find(|m| line.text.starts_with(m) && is_blank_or_end(line.byte(3)))
}

impl<R: BufRead> Parser<R> {
    /// Processes the next line with content (or the end of the input).
    pub(super) fn block_step(&mut self) -> Result<(), InputError> {
        let Some(line) = self.next_content_line()? else {
            self.finish();
            return Ok(());
        };
        self.place_line(line)
    }

    /// The next line that is not blank or a comment; handles document markers and
    /// directives.
    fn next_content_line(&mut self) -> Result<Option<Line>, InputError> {
        loop {
            let Some(line) = self.lines.next_line()? else {
                return Ok(None);
            };
            let first = skip_blanks(&line, 0);
            if line.byte(first).is_none() || is_comment_at(&line, first) {
                continue;
            }
            if self.doc == Doc::Start && line.text.starts_with('%') {
                continue;
            }
            match doc_marker(&line) {
                Some("---") => {
                    if self.doc != Doc::Start {
                        return Err(InputError::syntax(
                            line.mark(0),
                            "a second YAML document: a RoCKIn file is one list of messages",
                        ));
                    }
                    if !rest_is_empty(&line, 3) {
                        return Err(InputError::syntax(
                            line.mark(4),
                            "content on the `---` line is not supported: start it on the next line",
                        ));
                    }
                    self.doc = Doc::Body;
                    continue;
                }
                Some(_) => {
                    if !rest_is_empty(&line, 3) {
                        return Err(InputError::syntax(
                            line.mark(4),
                            "unexpected text after `...`",
                        ));
                    }
                    self.doc = Doc::Closed;
                    continue;
                }
                None => {}
            }
            if self.doc == Doc::Closed {
                return Err(InputError::syntax(
                    line.mark(first),
                    "content after the end of the document (`...`)",
                ));
            }
            self.doc = Doc::Body;
            if line.byte(first) == Some(b'\t') || line.text.starts_with('\t') {
                return Err(InputError::syntax(
                    line.mark(0),
                    "a tab in the indentation (YAML indents with spaces)",
                ));
            }
            return Ok(Some(line));
        }
    }

    /// The end of the input: a value still expected is empty, open blocks close.
    fn finish(&mut self) {
        let eof = self.lines.eof_mark();
        if let Some(p) = self.pending.take() {
            self.queue
                .push_back(Event::Scalar(Scalar::null(p.mark, p.tag)));
        }
        while !self.blocks.is_empty() {
            self.close_top(eof, true);
        }
        self.queue.push_back(Event::StreamEnd { mark: eof });
        self.doc = Doc::Done;
    }

    fn close_top(&mut self, mark: Mark, eof: bool) {
        if let Some(b) = self.blocks.pop() {
            self.queue.push_back(if b.map {
                Event::MapEnd { mark, eof }
            } else {
                Event::SeqEnd { mark }
            });
        }
    }

    fn open(
        &mut self,
        map: bool,
        indent: usize,
        indentless: bool,
        tag: Option<Tag>,
        mark: Mark,
    ) -> Result<(), InputError> {
        self.check_depth(mark)?;
        self.blocks.push(Block {
            map,
            indent,
            indentless,
        });
        self.queue.push_back(if map {
            Event::MapStart { mark, tag }
        } else {
            Event::SeqStart { mark, tag }
        });
        Ok(())
    }

    /// Places a content line in the block structure.
    fn place_line(&mut self, line: Line) -> Result<(), InputError> {
        let n = line.indent();
        let mark = line.mark(n);
        if let Some(p) = self.pending.take() {
            if super::signed(n) > p.parent {
                return self.node(line, n, p.parent, true, p.tag, p.slot);
            }
            if p.slot == Slot::MapValue && super::signed(n) == p.parent && is_entry(&line, n) {
                self.open(false, n, true, p.tag, mark)?;
                return self.seq_entry(line, n);
            }
            self.queue
                .push_back(Event::Scalar(Scalar::null(p.mark, p.tag)));
        }
        while let Some(top) = self.blocks.last() {
            let close = top.indent > n
                || (top.indent == n && !top.map && top.indentless && !is_entry(&line, n));
            if !close {
                break;
            }
            self.close_top(mark, false);
        }
        match self.blocks.last().copied() {
            None => Err(InputError::syntax(
                mark,
                "content after the end of the document's top-level node",
            )),
            Some(b) if b.indent != n => Err(InputError::syntax(
                mark,
                format!(
                    "bad indentation: {} spaces here, but the enclosing {} is indented by {}",
                    n,
                    if b.map { "mapping" } else { "list" },
                    b.indent
                ),
            )),
            Some(b) if b.map => self.map_entry(line, n),
            Some(_) if is_entry(&line, n) => self.seq_entry(line, n),
            Some(_) => Err(InputError::syntax(
                mark,
                "expected a list item (`- `) at this indentation",
            )),
        }
    }

    /// `- ...` at byte `at`: an item of the sequence indented `at`.
    fn seq_entry(&mut self, line: Line, at: usize) -> Result<(), InputError> {
        self.node(line, at + 1, super::signed(at), true, None, Slot::SeqItem)
    }

    /// `key: ...` at byte `at`: an entry of the mapping indented `at`.
    fn map_entry(&mut self, mut line: Line, at: usize) -> Result<(), InputError> {
        let mark = line.mark(at);
        let (key, after) = match line.byte(at) {
            Some(b'"' | b'\'') => {
                let mut pos = at;
                let key = quoted::parse(&mut self.lines, &mut line, &mut pos, &self.limits)?;
                if key.segments.len() > 1 {
                    return Err(InputError::syntax(mark, "a key must be on one line"));
                }
                let colon = skip_blanks(&line, pos);
                if line.byte(colon) != Some(b':') {
                    return Err(InputError::syntax(
                        line.mark(colon),
                        "expected ':' after the key",
                    ));
                }
                (key, colon + 1)
            }
            Some(b'-') if is_entry(&line, at) => {
                return Err(InputError::syntax(
                    mark,
                    "a list item where a mapping key is expected",
                ));
            }
            Some(b'?') if is_blank_or_end(line.byte(at + 1)) => {
                return Err(InputError::syntax(
                    mark,
                    "complex keys (`? `) are not supported",
                ));
            }
            _ => {
                let (end, how) = scan_plain_block(&line, at);
                let PlainEnd::Key(colon) = how else {
                    return Err(InputError::syntax(
                        mark,
                        format!(
                            "expected `key: value` in this mapping, found '{}'",
                            line.slice(at, end)
                        ),
                    ));
                };
                let text = line.slice(at, end).to_string();
                (
                    Scalar {
                        text,
                        style: Style::Plain,
                        tag: None,
                        mark,
                        segments: vec![(0, mark)],
                    },
                    colon + 1,
                )
            }
        };
        self.queue.push_back(Event::Scalar(key));
        self.map_value(line, after, at)
    }

    /// The value after a key's `:` at byte `at` of a mapping indented `indent`.
    fn map_value(&mut self, line: Line, at: usize, indent: usize) -> Result<(), InputError> {
        self.node(line, at, super::signed(indent), false, None, Slot::MapValue)
    }

    /// A node starting at byte `at` (after blanks). `parent` is the enclosing block's
    /// indentation; `block` allows a block collection to start here (not after `key: `).
    fn node(
        &mut self,
        mut line: Line,
        at: usize,
        parent: isize,
        block: bool,
        mut tag: Option<Tag>,
        slot: Slot,
    ) -> Result<(), InputError> {
        let mut c = skip_blanks(&line, at);
        loop {
            let mark = line.mark(c);
            let b = line.byte(c);
            if b.is_none() || is_comment_at(&line, c) {
                self.pending = Some(Pending {
                    parent,
                    slot,
                    tag,
                    mark,
                });
                return Ok(());
            }
            match b {
                Some(b'!') => {
                    if tag.is_some() {
                        return Err(InputError::syntax(mark, "a second tag on one node"));
                    }
                    let end = c + line
                        .from(c)
                        .bytes()
                        .take_while(|b| !matches!(b, b' ' | b'\t'))
                        .count();
                    tag = Some(Tag {
                        text: line.slice(c, end).to_string(),
                        mark,
                    });
                    c = skip_blanks(&line, end);
                }
                Some(b'&') => {
                    return Err(InputError::syntax(mark, "anchors (`&`) are not supported"));
                }
                Some(b'*') => {
                    return Err(InputError::syntax(mark, "aliases (`*`) are not supported"));
                }
                Some(b'-') if is_entry(&line, c) => {
                    if !block {
                        return Err(InputError::syntax(
                            mark,
                            "a list cannot start on the line of its key: put `- ` on the next line",
                        ));
                    }
                    self.open(false, c, false, tag, mark)?;
                    return self.seq_entry(line, c);
                }
                Some(b'[' | b'{') => {
                    self.check_depth(mark)?;
                    self.flow = Some(flow::Flow::new(line, c, tag));
                    return Ok(());
                }
                Some(b'|' | b'>') => {
                    let s = self.block_scalar(&line, c, parent, tag)?;
                    self.queue.push_back(Event::Scalar(s));
                    return Ok(());
                }
                Some(b'"' | b'\'') => {
                    let mut pos = c;
                    let mut s = quoted::parse(&mut self.lines, &mut line, &mut pos, &self.limits)?;
                    let after = skip_blanks(&line, pos);
                    if line.byte(after) == Some(b':') && is_blank_or_end(line.byte(after + 1)) {
                        if !block {
                            return Err(InputError::syntax(
                                line.mark(after),
                                "a mapping cannot start on the line of its key",
                            ));
                        }
                        if s.segments.len() > 1 {
                            return Err(InputError::syntax(mark, "a key must be on one line"));
                        }
                        s.tag = tag;
                        self.open(true, c, false, None, mark)?;
                        self.queue.push_back(Event::Scalar(s));
                        return self.map_value(line, after + 1, c);
                    }
                    if !rest_is_empty(&line, pos) {
                        return Err(InputError::syntax(
                            line.mark(after),
                            "unexpected text after a quoted scalar",
                        ));
                    }
                    s.tag = tag;
                    self.queue.push_back(Event::Scalar(s));
                    return Ok(());
                }
                Some(b'?') if is_blank_or_end(line.byte(c + 1)) => {
                    return Err(InputError::syntax(
                        mark,
                        "complex keys (`? `) are not supported",
                    ));
                }
                Some(b @ (b']' | b'}' | b',' | b'@' | b'`' | b'%')) => {
                    return Err(InputError::syntax(
                        mark,
                        format!("a value cannot start with '{}'", char::from(b)),
                    ));
                }
                _ => return self.plain(line, c, parent, block, tag),
            }
        }
    }

    /// A plain scalar (or an implicit key) at byte `at`.
    fn plain(
        &mut self,
        line: Line,
        at: usize,
        parent: isize,
        block: bool,
        tag: Option<Tag>,
    ) -> Result<(), InputError> {
        let mark = line.mark(at);
        let (end, how) = scan_plain_block(&line, at);
        let mut scalar = Scalar {
            text: line.slice(at, end).to_string(),
            style: Style::Plain,
            tag,
            mark,
            segments: vec![(0, mark)],
        };
        match how {
            PlainEnd::Key(colon) => {
                if !block {
                    return Err(InputError::syntax(
                        line.mark(colon),
                        "a mapping cannot start on the line of its key (`a: b: c`); quote the value if it holds ': '",
                    ));
                }
                self.open(true, at, false, None, mark)?;
                self.queue.push_back(Event::Scalar(scalar));
                self.map_value(line, colon + 1, at)
            }
            PlainEnd::Comment => {
                self.queue.push_back(Event::Scalar(scalar));
                Ok(())
            }
            PlainEnd::Line => {
                self.plain_continuation(&mut scalar, parent)?;
                self.queue.push_back(Event::Scalar(scalar));
                Ok(())
            }
        }
    }

    /// Appends the following lines of a multi-line plain scalar (lines indented more than
    /// `parent`), folded as YAML folds them.
    fn plain_continuation(&mut self, scalar: &mut Scalar, parent: isize) -> Result<(), InputError> {
        let mut blanks = 0usize;
        loop {
            let Some(l) = self.lines.next_line()? else {
                return Ok(());
            };
            if l.is_blank() {
                blanks += 1;
                continue;
            }
            let ind = l.indent();
            let first = skip_blanks(&l, ind);
            if super::signed(ind) <= parent
                || is_comment_at(&l, first)
                || (ind == 0 && doc_marker(&l).is_some())
            {
                self.lines.push_back(l);
                return Ok(());
            }
            let (end, how) = scan_plain_block(&l, first);
            if let PlainEnd::Key(colon) = how {
                return Err(InputError::syntax(
                    l.mark(colon),
                    "a `key:` inside a multi-line plain scalar (check the indentation, or quote the text)",
                ));
            }
            if blanks == 0 {
                scalar.text.push(' ');
            } else {
                for _ in 0..blanks {
                    scalar.text.push('\n');
                }
            }
            blanks = 0;
            scalar.segments.push((scalar.text.len(), l.mark(first)));
            scalar.text.push_str(l.slice(first, end));
            if scalar.text.len() > self.limits.max_scalar {
                return Err(InputError::new(
                    scalar.mark,
                    InputErrorKind::TooLong {
                        what: "a scalar",
                        limit: self.limits.max_scalar,
                    },
                ));
            }
            if how == PlainEnd::Comment {
                return Ok(());
            }
        }
    }
}
