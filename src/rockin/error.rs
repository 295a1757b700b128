//! What can go wrong converting: a problem in the YAML at a line and column
//! ([`InputError`]), or reading, decoding or writing files ([`ConvertError`]).

use std::fmt;
use std::path::PathBuf;

use crate::bag::BagError;
use crate::bag::writer::WriteError;
use crate::msg::{DecodeError, MsgError};
use crate::time::RosTime;

/// A position in the YAML text: line and column, both counted from 1; columns count
/// characters (not bytes).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Mark {
    /// Line, from 1.
    pub line: u64,
    /// Column in characters, from 1.
    pub column: u64,
}

impl Mark {
    /// A mark at `line`, `column`.
    pub const fn new(line: u64, column: u64) -> Self {
        Mark { line, column }
    }
}

impl fmt::Display for Mark {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}, column {}", self.line, self.column)
    }
}

/// What is wrong with the YAML at some position.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum InputErrorKind {
    /// The bytes are not UTF-8.
    #[error("the text is not valid UTF-8")]
    NotUtf8,
    /// The input could not be read.
    #[error("cannot read the input: {0}")]
    Read(#[source] std::io::Error),
    /// A line, scalar or nesting exceeds a limit of [`super::Limits`].
    #[error("{what} is longer than the limit of {limit}")]
    TooLong {
        /// What was too long (`a line`, `a scalar`, `nesting`).
        what: &'static str,
        /// The limit.
        limit: usize,
    },
    /// YAML this reader does not understand, or that is not well formed.
    #[error("{0}")]
    Syntax(String),
    /// The file ends in the middle of something.
    #[error("the file ends inside {0} (truncated?)")]
    Truncated(String),
    /// The topic is not in the RoCKIn table and the item gives no `type`.
    #[error(
        "unknown topic '{topic}': not in the RoCKIn topic table ({known}); give its message type with a `type:` key"
    )]
    UnknownTopic {
        /// The topic as written.
        topic: String,
        /// The topics of the table.
        known: String,
    },
    /// The message type has no definition (bundled or `--msg-path`).
    #[error("no definition of message type '{datatype}' (bundled or under --msg-path): {reason}")]
    UnknownType {
        /// The type.
        datatype: String,
        /// Why it cannot be compiled.
        reason: String,
    },
    /// A field of a message is absent.
    #[error("missing field '{field}' ({field_type}) of {datatype}{}", if *truncated { " (the file ends inside this message: truncated?)" } else { "" })]
    MissingField {
        /// The mapping was closed by the end of the file.
        truncated: bool,
        /// The field's name.
        field: String,
        /// Its type as written in the definition.
        field_type: String,
        /// The message type.
        datatype: String,
    },
    /// The file ends, in the middle of a line, where a field of a message is expected.
    #[error("the file ends before field '{field}' ({field_type}) of {datatype} (truncated?)")]
    TruncatedMessage {
        /// The field's name.
        field: String,
        /// Its type as written in the definition.
        field_type: String,
        /// The message type.
        datatype: String,
    },
    /// A key that is not a field of the message type.
    #[error("unexpected field '{field}': {datatype} has {expected}")]
    UnexpectedField {
        /// The key.
        field: String,
        /// The message type.
        datatype: String,
        /// Its fields, listed.
        expected: String,
    },
    /// A field or key given twice.
    #[error("'{0}' is given twice")]
    Duplicate(String),
    /// A value of the wrong kind.
    #[error("expected {expected}, found {found}")]
    WrongType {
        /// What the definition asks for.
        expected: String,
        /// What the YAML holds.
        found: String,
    },
    /// A number outside the range of its type.
    #[error("{value} is out of range for {ty} ({range})")]
    OutOfRange {
        /// The number as written.
        value: String,
        /// The field's type.
        ty: &'static str,
        /// The allowed range.
        range: &'static str,
    },
    /// Base64 text that does not decode.
    #[error("bad base64: {0}")]
    Base64(String),
    /// A fixed-size array with another number of elements.
    #[error("expected {expected} elements ({ty}), found {found}")]
    FixedLength {
        /// Elements the definition asks for.
        expected: usize,
        /// Elements given.
        found: usize,
        /// The field's type.
        ty: String,
    },
    /// A message item lacks one of `topic`, `secs`, `nsecs`, `message`.
    #[error("this message item has no '{key}' (an item needs topic, secs, nsecs and message){}", if *truncated { "; the file ends inside it (truncated?)" } else { "" })]
    MissingKey {
        /// The key.
        key: &'static str,
        /// The item was closed by the end of the file.
        truncated: bool,
    },
    /// The file ends, in the middle of a line, inside a message item.
    #[error("the file ends before the '{0}' of this message item (truncated?)")]
    TruncatedItem(&'static str),
    /// A key that is not one of `topic`, `type`, `secs`, `nsecs`, `message`.
    #[error(
        "unexpected key '{0}' in a message item (expected topic, secs, nsecs, message, and optionally type)"
    )]
    UnexpectedKey(String),
    /// The message could not be serialized.
    #[error("cannot serialize the message: {0}")]
    Encode(String),
}

/// A problem in the YAML: where, in which field, and what.
#[derive(Debug)]
pub struct InputError {
    /// Where in the text.
    pub mark: Mark,
    /// The field path inside the item (`message.header.stamp.secs`), when inside a message.
    pub field: String,
    /// What is wrong.
    pub kind: InputErrorKind,
}

impl InputError {
    /// An error at `mark`.
    pub fn new(mark: Mark, kind: InputErrorKind) -> Self {
        InputError {
            mark,
            field: String::new(),
            kind,
        }
    }

    /// A syntax error at `mark`.
    pub(crate) fn syntax(mark: Mark, what: impl Into<String>) -> Self {
        InputError::new(mark, InputErrorKind::Syntax(what.into()))
    }

    /// Prefixes the field path with a field name (errors gain their path while unwinding).
    #[must_use]
    pub(crate) fn in_field(mut self, name: &str) -> Self {
        if self.field.is_empty() || self.field.starts_with('[') {
            self.field.insert_str(0, name);
        } else {
            self.field.insert(0, '.');
            self.field.insert_str(0, name);
        }
        self
    }

    /// Prefixes the field path with an array index.
    #[must_use]
    pub(crate) fn in_element(mut self, index: usize) -> Self {
        let sep = if self.field.is_empty() || self.field.starts_with('[') {
            ""
        } else {
            "."
        };
        self.field.insert_str(0, &format!("[{index}]{sep}"));
        self
    }
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.field.is_empty() {
            write!(f, "{}: ", self.field)?;
        }
        write!(f, "{} (at {})", self.kind, self.mark)
    }
}

impl std::error::Error for InputError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        std::error::Error::source(&self.kind)
    }
}

/// An error of a conversion. Nothing is left at the output path when one occurs.
#[derive(Debug, thiserror::Error)]
pub enum ConvertError {
    /// The YAML is not a valid RoCKIn file.
    #[error("{}: {error}", path.display())]
    Input {
        /// The YAML file.
        path: PathBuf,
        /// What and where.
        error: Box<InputError>,
    },
    /// A file could not be opened, read or written.
    #[error("{}: {what}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What was being done.
        what: &'static str,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// Writing the bag failed.
    #[error(transparent)]
    Write(#[from] WriteError),
    /// Reading the bag failed.
    #[error(transparent)]
    Bag(#[from] BagError),
    /// A connection of the bag has no usable message definition.
    #[error("{}: topic '{topic}' ({datatype}): no usable message definition: {source}", path.display())]
    Definition {
        /// The bag.
        path: PathBuf,
        /// The topic.
        topic: String,
        /// Its type.
        datatype: String,
        /// Why.
        source: Box<MsgError>,
    },
    /// A message of the bag does not decode with its definition.
    #[error("{}: {topic} message at {time} ({datatype}): {source}", path.display())]
    Decode {
        /// The bag.
        path: PathBuf,
        /// The topic.
        topic: String,
        /// Its type.
        datatype: String,
        /// Its receive time.
        time: RosTime,
        /// Why.
        source: Box<DecodeError>,
    },
}

impl ConvertError {
    /// The position in the YAML, for errors about its content.
    pub fn mark(&self) -> Option<Mark> {
        match self {
            ConvertError::Input { error, .. } => Some(error.mark),
            _ => None,
        }
    }

    /// True when the input's content is at fault (as opposed to files that cannot be opened,
    /// read or written).
    pub fn is_input_error(&self) -> bool {
        match self {
            ConvertError::Input { error, .. } => !matches!(error.kind, InputErrorKind::Read(_)),
            ConvertError::Definition { .. } | ConvertError::Decode { .. } => true,
            ConvertError::Io { .. } | ConvertError::Write(_) | ConvertError::Bag(_) => false,
        }
    }
}
