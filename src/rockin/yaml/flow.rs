//! Flow collections (`[1, 2]`, `{secs: 1, nsecs: 2}`), possibly over several lines,
//! produced one event per step so that a list of millions of numbers is never held as
//! events.

use std::collections::VecDeque;
use std::io::BufRead;

use super::super::Limits;
use super::super::error::{InputError, InputErrorKind, Mark};
use super::lines::{is_comment_at, rest_is_empty, skip_blanks};
use super::plain::{FlowPlainEnd, scan_plain_flow};
use super::{Event, Line, LineReader, Scalar, Style, Tag, quoted};

/// Where a flow collection is between its tokens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum At {
    /// Just opened.
    Start,
    /// After an item (sequence) or a value (mapping).
    Item,
    /// After a `,`.
    Comma,
    /// After a mapping key.
    Key,
    /// After a mapping key's `:`.
    Colon,
}

#[derive(Debug)]
struct Frame {
    map: bool,
    at: At,
    open: Mark,
}

/// A flow collection being read.
#[derive(Debug)]
pub(crate) struct Flow {
    line: Line,
    pos: usize,
    stack: Vec<Frame>,
    tag: Option<Tag>,
    started: bool,
}

impl Flow {
    /// A flow collection whose bracket is at byte `at` of `line`.
    pub(crate) fn new(line: Line, at: usize, tag: Option<Tag>) -> Self {
        Flow {
            line,
            pos: at,
            stack: Vec::new(),
            tag,
            started: false,
        }
    }

    /// Open flow collections.
    pub(crate) fn depth(&self) -> usize {
        self.stack.len()
    }

    /// Moves past blanks, comments and line ends.
    fn skip<R: BufRead>(&mut self, lines: &mut LineReader<R>) -> Result<(), InputError> {
        loop {
            self.pos = skip_blanks(&self.line, self.pos);
            if self.line.byte(self.pos).is_some() && !is_comment_at(&self.line, self.pos) {
                return Ok(());
            }
            if let Some(l) = lines.next_line()? {
                self.line = l;
                self.pos = 0;
            } else {
                {
                    let (kind, open) = self
                        .stack
                        .last()
                        .map_or((false, Mark::default()), |f| (f.map, f.open));
                    let what = if kind {
                        "flow mapping"
                    } else {
                        "flow sequence"
                    };
                    return Err(InputError::new(
                        lines.eof_mark(),
                        InputErrorKind::Truncated(format!("the {what} that starts at {open}")),
                    ));
                }
            }
        }
    }

    /// Produces the next event(s); true when the outermost collection has closed.
    pub(crate) fn step<R: BufRead>(
        &mut self,
        lines: &mut LineReader<R>,
        queue: &mut VecDeque<Event>,
        blocks: usize,
        limits: &Limits,
    ) -> Result<bool, InputError> {
        if !self.started {
            self.started = true;
            self.open(queue, blocks, limits)?;
            return Ok(false);
        }
        loop {
            self.skip(lines)?;
            let mark = self.line.mark(self.pos);
            let b = self.line.byte(self.pos);
            let Some(top) = self.stack.last_mut() else {
                return Ok(true);
            };
            let close = if top.map { b'}' } else { b']' };
            match (top.at, b) {
                (At::Key | At::Colon, Some(b'}' | b',')) if top.map => {
                    top.at = At::Item;
                    queue.push_back(Event::Scalar(Scalar::null(mark, self.tag.take())));
                    return Ok(false);
                }
                (At::Start | At::Item | At::Comma, Some(c)) if c == close => {
                    let map = top.map;
                    self.stack.pop();
                    self.pos += 1;
                    queue.push_back(if map {
                        Event::MapEnd { mark, eof: false }
                    } else {
                        Event::SeqEnd { mark }
                    });
                    if self.stack.is_empty() {
                        self.end()?;
                        return Ok(true);
                    }
                    return Ok(false);
                }
                (At::Item, Some(b',')) => {
                    top.at = At::Comma;
                    self.pos += 1;
                }
                (At::Item, _) => {
                    let close = char::from(close);
                    return Err(InputError::syntax(
                        mark,
                        format!("expected ',' or '{close}' in a flow collection"),
                    ));
                }
                (At::Key, Some(b':')) => {
                    top.at = At::Colon;
                    self.pos += 1;
                }
                (At::Key, _) => {
                    return Err(InputError::syntax(mark, "expected ':' after the key"));
                }
                (At::Start | At::Comma, Some(b',')) => {
                    return Err(InputError::syntax(mark, "expected a value before ','"));
                }
                (At::Start | At::Comma | At::Colon, Some(b'!')) => self.tag(mark)?,
                (At::Start | At::Comma | At::Colon, _) => {
                    let key = top.map && top.at != At::Colon;
                    top.at = if key { At::Key } else { At::Item };
                    self.node(lines, queue, key, blocks, limits)?;
                    return Ok(false);
                }
            }
        }
    }

    /// Opens the collection whose bracket is at the current position.
    fn open(
        &mut self,
        queue: &mut VecDeque<Event>,
        blocks: usize,
        limits: &Limits,
    ) -> Result<(), InputError> {
        let mark = self.line.mark(self.pos);
        if blocks + self.stack.len() >= limits.max_depth {
            return Err(InputError::new(
                mark,
                InputErrorKind::TooLong {
                    what: "nesting",
                    limit: limits.max_depth,
                },
            ));
        }
        let map = self.line.byte(self.pos) == Some(b'{');
        self.stack.push(Frame {
            map,
            at: At::Start,
            open: mark,
        });
        self.pos += 1;
        let tag = self.tag.take();
        queue.push_back(if map {
            Event::MapStart { mark, tag }
        } else {
            Event::SeqStart { mark, tag }
        });
        Ok(())
    }

    /// A tag at the current position, kept for the node that follows.
    fn tag(&mut self, mark: Mark) -> Result<(), InputError> {
        if self.tag.is_some() {
            return Err(InputError::syntax(mark, "a second tag on one node"));
        }
        let end = self.pos
            + self
                .line
                .from(self.pos)
                .bytes()
                .take_while(|b| !matches!(b, b' ' | b'\t' | b',' | b'[' | b']' | b'{' | b'}'))
                .count();
        self.tag = Some(Tag {
            text: self.line.slice(self.pos, end).to_string(),
            mark,
        });
        self.pos = end;
        Ok(())
    }

    /// A node at the current position.
    fn node<R: BufRead>(
        &mut self,
        lines: &mut LineReader<R>,
        queue: &mut VecDeque<Event>,
        key: bool,
        blocks: usize,
        limits: &Limits,
    ) -> Result<(), InputError> {
        let mark = self.line.mark(self.pos);
        match self.line.byte(self.pos) {
            Some(b'[' | b'{') if key => Err(InputError::syntax(
                mark,
                "a collection as a mapping key is not supported",
            )),
            Some(b'[' | b'{') => self.open(queue, blocks, limits),
            Some(b'&') => Err(InputError::syntax(mark, "anchors (`&`) are not supported")),
            Some(b'*') => Err(InputError::syntax(mark, "aliases (`*`) are not supported")),
            Some(b'"' | b'\'') => {
                let mut s = quoted::parse(lines, &mut self.line, &mut self.pos, limits)?;
                s.tag = self.tag.take();
                let in_seq = self.stack.last().is_some_and(|f| !f.map);
                let after = skip_blanks(&self.line, self.pos);
                if in_seq && self.line.byte(after) == Some(b':') {
                    return Err(InputError::syntax(
                        self.line.mark(after),
                        "a mapping inside a flow sequence (`[a: b]`) is not supported: write `[{a: b}]`",
                    ));
                }
                queue.push_back(Event::Scalar(s));
                Ok(())
            }
            Some(c @ (b']' | b'}' | b'?' | b'@' | b'`' | b'|' | b'>' | b'%')) => Err(
                InputError::syntax(mark, format!("unexpected '{}'", char::from(c))),
            ),
            _ => {
                let (end, how) = scan_plain_flow(&self.line, self.pos);
                if end == self.pos {
                    return Err(InputError::syntax(mark, "expected a value"));
                }
                let in_seq = self.stack.last().is_some_and(|f| !f.map);
                if let (FlowPlainEnd::Key(colon), true) = (how, in_seq) {
                    return Err(InputError::syntax(
                        self.line.mark(colon),
                        "a mapping inside a flow sequence (`[a: b]`) is not supported: write `[{a: b}]`",
                    ));
                }
                let mut scalar = Scalar {
                    text: self.line.slice(self.pos, end).to_string(),
                    style: Style::Plain,
                    tag: self.tag.take(),
                    mark,
                    segments: vec![(0, mark)],
                };
                let at_line_end =
                    matches!(how, FlowPlainEnd::Other(i) if self.line.byte(i).is_none());
                self.pos = end;
                if at_line_end {
                    self.plain_continuation(lines, &mut scalar, limits)?;
                }
                queue.push_back(Event::Scalar(scalar));
                Ok(())
            }
        }
    }

    /// The following lines of a plain scalar that reached the end of its line inside a flow
    /// collection: a line that does not start with an indicator continues it (folded with a
    /// space, or a line break per blank line), as emitters such as PyYAML write long scalars.
    fn plain_continuation<R: BufRead>(
        &mut self,
        lines: &mut LineReader<R>,
        scalar: &mut Scalar,
        limits: &Limits,
    ) -> Result<(), InputError> {
        loop {
            let mut blanks = 0usize;
            let next = loop {
                match lines.next_line()? {
                    Some(l) if l.is_blank() => blanks += 1,
                    other => break other,
                }
            };
            let Some(l) = next else {
                // The end of the input inside the collection: `skip` reports it.
                self.line = Line::new(String::new(), self.line.no);
                self.pos = 0;
                return Ok(());
            };
            let first = skip_blanks(&l, 0);
            let ends = match l.byte(first) {
                None | Some(b',' | b'[' | b']' | b'{' | b'}' | b'#') => true,
                Some(b':') => matches!(
                    l.byte(first + 1),
                    None | Some(b' ' | b'\t' | b',' | b'[' | b']' | b'{' | b'}')
                ),
                Some(_) => false,
            };
            self.line = l;
            self.pos = first;
            if ends {
                return Ok(());
            }
            let (end, how) = scan_plain_flow(&self.line, first);
            if blanks == 0 {
                scalar.text.push(' ');
            } else {
                for _ in 0..blanks {
                    scalar.text.push('\n');
                }
            }
            scalar
                .segments
                .push((scalar.text.len(), self.line.mark(first)));
            scalar.text.push_str(self.line.slice(first, end));
            self.pos = end;
            if scalar.text.len() > limits.max_scalar {
                return Err(InputError::new(
                    scalar.mark,
                    InputErrorKind::TooLong {
                        what: "a scalar",
                        limit: limits.max_scalar,
                    },
                ));
            }
            if !matches!(how, FlowPlainEnd::Other(i) if self.line.byte(i).is_none()) {
                return Ok(());
            }
        }
    }

    /// After the outermost bracket: the rest of the line must be empty.
    fn end(&self) -> Result<(), InputError> {
        if rest_is_empty(&self.line, self.pos) {
            return Ok(());
        }
        let at = skip_blanks(&self.line, self.pos);
        let what = if self.line.byte(at) == Some(b':') {
            "a flow collection as a mapping key is not supported"
        } else {
            "unexpected text after a flow collection"
        };
        Err(InputError::syntax(self.line.mark(at), what))
    }
}
