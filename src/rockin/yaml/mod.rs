//! A streaming YAML reader for the subset RoCKIn files use, producing events (like libyaml)
//! with the line and column of each.
//!
//! Supported: one document (optional `---`, `...`, `%` directives before it); block mappings
//! and sequences (also sequences at the indentation of their parent key); flow sequences
//! and mappings (`[1, 2]`, `{secs: 1, nsecs: 2}`), across lines; plain scalars (also over
//! several lines), single- and double-quoted scalars with every YAML escape, literal and
//! folded block scalars (`|`, `>`, with chomping and indentation indicators); tags
//! (`!!binary`, `!!str`…); comments. Not supported (an error naming the place): anchors and
//! aliases, complex keys (`? `), collections as keys, several documents.
//!
//! Memory: the reader holds the current line (and a few looked-ahead ones) and the scalar
//! being read; events are produced one by one, so a flow sequence of millions of numbers is
//! never held as events. Lines, scalars and nesting are capped by [`Limits`].

mod block;
mod block_scalar;
mod flow;
mod lines;
mod plain;
mod quoted;

use std::collections::VecDeque;
use std::io::BufRead;

use super::Limits;
use super::error::{InputError, InputErrorKind, Mark};

pub(crate) use lines::{Line, LineReader};

/// How a scalar was written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Style {
    /// Unquoted.
    Plain,
    /// `'...'`.
    SingleQuoted,
    /// `"..."`.
    DoubleQuoted,
    /// `|` block.
    Literal,
    /// `>` block.
    Folded,
}

/// A tag as written (`!!binary`), with its position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Tag {
    pub(crate) text: String,
    pub(crate) mark: Mark,
}

/// What a tag means, for the tags this reader knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TagKind {
    /// `!!binary`: base64 data.
    Binary,
    /// `!!str`, `!` (and PyYAML 2's `!!python/str`, `!!python/unicode`): a string.
    Str,
    /// `!!int`, `!!float`, `!!bool`, `!!null`: numbers and the like (the field decides).
    Scalar,
    /// `!!seq`.
    Seq,
    /// `!!map`.
    Map,
    /// Anything else.
    Other,
}

impl Tag {
    pub(crate) fn kind(&self) -> TagKind {
        let t = self.text.as_str();
        let core = t
            .strip_prefix("!!")
            .or_else(|| {
                t.strip_prefix("!<tag:yaml.org,2002:")
                    .and_then(|r| r.strip_suffix('>'))
            })
            .unwrap_or(if t == "!" { "str" } else { "" });
        match core {
            "binary" => TagKind::Binary,
            "str" | "python/str" | "python/unicode" => TagKind::Str,
            "int" | "float" | "bool" | "null" => TagKind::Scalar,
            "seq" => TagKind::Seq,
            "map" => TagKind::Map,
            _ => TagKind::Other,
        }
    }
}

/// A scalar: its text after unquoting and folding.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Scalar {
    pub(crate) text: String,
    pub(crate) style: Style,
    pub(crate) tag: Option<Tag>,
    /// Where the scalar starts (its quote or first character).
    pub(crate) mark: Mark,
    /// Where each source line of a multi-line scalar starts in `text`: `(offset, mark)`, the
    /// first entry being the first character of the content.
    pub(crate) segments: Vec<(usize, Mark)>,
}

impl Scalar {
    /// An empty plain scalar (a value left out: `key:` and nothing).
    pub(crate) fn null(mark: Mark, tag: Option<Tag>) -> Self {
        Scalar {
            text: String::new(),
            style: Style::Plain,
            tag,
            mark,
            segments: vec![(0, mark)],
        }
    }

    /// True for an empty plain scalar, `~` or `null` (without tag).
    pub(crate) fn is_null(&self) -> bool {
        self.style == Style::Plain
            && self.tag.is_none()
            && matches!(self.text.as_str(), "" | "~" | "null" | "Null" | "NULL")
    }

    /// The position of byte `offset` of the text (exact for plain and block scalars and for
    /// quoted ones without escapes).
    pub(crate) fn mark_at(&self, offset: usize) -> Mark {
        let (start, mark) = self
            .segments
            .iter()
            .rev()
            .find(|(o, _)| *o <= offset)
            .copied()
            .unwrap_or((0, self.mark));
        let chars = self
            .text
            .get(start..offset.min(self.text.len()))
            .map_or(0, |s| s.chars().count()) as u64;
        Mark::new(mark.line, mark.column + chars)
    }

    /// The scalar as shown in messages: quoted, shortened.
    pub(crate) fn describe(&self) -> String {
        if self.is_null() && self.text.is_empty() {
            return "nothing".to_string();
        }
        let mut s: String = self.text.chars().take(40).collect();
        if s.len() < self.text.len() {
            s.push('…');
        }
        format!("'{}'", s.escape_debug())
    }
}

/// One parsing event.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Event {
    /// A sequence starts.
    SeqStart { mark: Mark, tag: Option<Tag> },
    /// The innermost sequence ends.
    SeqEnd { mark: Mark },
    /// A mapping starts.
    MapStart { mark: Mark, tag: Option<Tag> },
    /// The innermost mapping ends; `eof` when it is closed by the end of the input.
    MapEnd { mark: Mark, eof: bool },
    /// A scalar.
    Scalar(Scalar),
    /// The end of the input.
    StreamEnd { mark: Mark },
}

impl Event {
    /// Where the event is.
    pub(crate) fn mark(&self) -> Mark {
        match self {
            Event::SeqStart { mark, .. }
            | Event::SeqEnd { mark }
            | Event::MapStart { mark, .. }
            | Event::MapEnd { mark, .. }
            | Event::StreamEnd { mark } => *mark,
            Event::Scalar(s) => s.mark,
        }
    }

    /// A short description for "expected …, found …" messages.
    pub(crate) fn describe(&self) -> String {
        match self {
            Event::SeqStart { .. } => "a list".to_string(),
            Event::MapStart { .. } => "a mapping".to_string(),
            Event::SeqEnd { .. } => "the end of the list".to_string(),
            Event::MapEnd { .. } => "the end of the mapping".to_string(),
            Event::StreamEnd { .. } => "the end of the file".to_string(),
            Event::Scalar(s) => s.describe(),
        }
    }
}

/// A source of events: the parser, or a replay of recorded ones.
pub(crate) trait Events {
    /// The next event.
    fn next_event(&mut self) -> Result<Event, InputError>;
}

/// Recorded events played back.
pub(crate) struct Replay(pub(crate) VecDeque<Event>);

impl Events for Replay {
    fn next_event(&mut self) -> Result<Event, InputError> {
        self.0.pop_front().ok_or_else(|| {
            InputError::new(
                Mark::default(),
                InputErrorKind::Syntax("no more events".into()),
            )
        })
    }
}

/// What kind of node a [`Pending`] value is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Slot {
    /// The document's root node.
    Root,
    /// The value of a block mapping key.
    MapValue,
    /// An item of a block sequence.
    SeqItem,
}

/// A node whose content starts on a later line.
#[derive(Debug)]
struct Pending {
    /// The indentation of the enclosing block (-1 for the root): the node must be indented
    /// more (a sequence under a key may also be at the key's indentation).
    parent: isize,
    slot: Slot,
    tag: Option<Tag>,
    mark: Mark,
}

/// An open block collection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Block {
    map: bool,
    indent: usize,
    /// A sequence at the indentation of its parent mapping's keys.
    indentless: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Doc {
    /// Nothing read yet (directives and `---` are allowed).
    Start,
    /// Inside the document.
    Body,
    /// After `...`: only comments may follow.
    Closed,
    /// The stream end was produced.
    Done,
}

/// The streaming parser.
pub(crate) struct Parser<R> {
    lines: LineReader<R>,
    queue: VecDeque<Event>,
    blocks: Vec<Block>,
    pending: Option<Pending>,
    flow: Option<flow::Flow>,
    doc: Doc,
    limits: Limits,
}

impl<R: BufRead> Parser<R> {
    /// A parser over `input`.
    pub(crate) fn new(input: R, limits: Limits) -> Self {
        Parser {
            lines: LineReader::new(input, limits.max_line),
            queue: VecDeque::new(),
            blocks: Vec::new(),
            pending: Some(Pending {
                parent: -1,
                slot: Slot::Root,
                tag: None,
                mark: Mark::new(1, 1),
            }),
            flow: None,
            doc: Doc::Start,
            limits,
        }
    }

    /// Bytes of input consumed so far.
    pub(crate) fn bytes_read(&self) -> u64 {
        self.lines.bytes_read()
    }

    /// Fails when another level of nesting would pass the limit.
    fn check_depth(&self, mark: Mark) -> Result<(), InputError> {
        let depth = self.blocks.len() + self.flow.as_ref().map_or(0, flow::Flow::depth);
        if depth >= self.limits.max_depth {
            return Err(InputError::new(
                mark,
                InputErrorKind::TooLong {
                    what: "nesting",
                    limit: self.limits.max_depth,
                },
            ));
        }
        Ok(())
    }
}

impl<R: BufRead> Events for Parser<R> {
    fn next_event(&mut self) -> Result<Event, InputError> {
        loop {
            if let Some(e) = self.queue.pop_front() {
                return Ok(e);
            }
            if self.doc == Doc::Done {
                return Ok(Event::StreamEnd {
                    mark: self.lines.eof_mark(),
                });
            }
            if let Some(mut f) = self.flow.take() {
                let depth = self.blocks.len();
                let finished = f.step(&mut self.lines, &mut self.queue, depth, &self.limits)?;
                if !finished {
                    self.flow = Some(f);
                }
                continue;
            }
            self.block_step()?;
        }
    }
}

/// An indentation as a signed number (the root's parent is -1).
pub(crate) fn signed(n: usize) -> isize {
    isize::try_from(n).unwrap_or(isize::MAX)
}

/// True for bytes that end a token: none (end of line), space, tab.
pub(crate) fn is_blank_or_end(b: Option<u8>) -> bool {
    matches!(b, None | Some(b' ' | b'\t'))
}

#[cfg(test)]
mod tests;
