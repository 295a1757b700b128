//! Typed errors of the message layer: definitions ([`MsgError`]), payloads ([`DecodeError`])
//! and values ([`EncodeError`]).

use std::fmt;
use std::path::PathBuf;

/// What is wrong with one line of a `.msg` text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SyntaxError {
    /// A field line is not `type name`.
    #[error("expected 'type name'")]
    FieldDeclaration,
    /// The field name is not a legal identifier.
    #[error("'{0}' is not a legal field name")]
    FieldName(String),
    /// The type is not a legal type name (or is an array of arrays).
    #[error("'{0}' is not a legal field type")]
    FieldType(String),
    /// A constant of a type constants cannot have.
    #[error("'{0}' is not a legal constant type")]
    ConstantType(String),
    /// A constant line that is not `type NAME=value`.
    #[error("expected 'type NAME=value'")]
    ConstantDeclaration,
    /// The constant's value does not parse as its type, or does not fit.
    #[error("invalid {ty} constant value '{value}'")]
    ConstantValue {
        /// The constant's type.
        ty: String,
        /// The value text.
        value: String,
    },
    /// A `====` separator not followed by a `MSG: pkg/Type` line.
    #[error("a '====' separator must be followed by 'MSG: pkg/Type'")]
    SectionHeader,
}

/// Why a message definition could not be turned into a [`Schema`](super::Schema).
#[derive(Debug, thiserror::Error)]
pub enum MsgError {
    /// The definition has no fields and no constants, and nothing says the type is really
    /// empty (bags written by broken tools; see `Schema::for_connection`).
    #[error(
        "{datatype}: the message definition is empty; pass a directory with its .msg file \
         with --msg-path"
    )]
    EmptyDefinition {
        /// The type the definition was for.
        datatype: String,
    },
    /// A line of the definition does not parse.
    #[error("{datatype}: line {line}: {error}: '{text}'")]
    Syntax {
        /// The type whose text holds the line.
        datatype: String,
        /// 1-based line number within that type's text.
        line: usize,
        /// The line.
        text: String,
        /// What is wrong with it.
        error: SyntaxError,
    },
    /// A field refers to a type that the definition (or registry) does not provide.
    #[error("{datatype}: type '{missing}' (used by {used_by}) is not defined")]
    UnresolvedType {
        /// The top-level type being compiled.
        datatype: String,
        /// The type that could not be found.
        missing: String,
        /// The type whose field refers to it.
        used_by: String,
    },
    /// The types refer to each other in a cycle, so a message would be infinitely large.
    #[error("{datatype}: recursive type definition: {}", chain.join(" -> "))]
    Recursive {
        /// The top-level type being compiled.
        datatype: String,
        /// The cycle, starting and ending with the same type.
        chain: Vec<String>,
    },
    /// Types nest more deeply than the decoder allows.
    #[error("{datatype}: types nest more than {limit} levels deep")]
    TooDeep {
        /// The top-level type being compiled.
        datatype: String,
        /// The nesting limit.
        limit: usize,
    },
    /// The type name is not `pkg/Type`-like.
    #[error("'{datatype}' is not a legal message type name")]
    TypeName {
        /// The offending name.
        datatype: String,
    },
    /// The messages are serialized in an encoding bagscope does not decode (MCAP `protobuf`,
    /// `flatbuffer`, ...): they are shown as bytes.
    #[error("{topic}: messages in encoding '{encoding}' are not decoded (shown as bytes)")]
    UnknownEncoding {
        /// The topic.
        topic: String,
        /// The encoding.
        encoding: String,
    },
    /// The registry has no definition of this type.
    #[error("no definition of {datatype} is bundled or on the --msg-path")]
    NotInRegistry {
        /// The type looked up.
        datatype: String,
    },
    /// The registry has definitions of this type, but none with this md5sum.
    #[error(
        "no definition of {datatype} with md5sum {md5sum} is bundled or on the --msg-path \
         (found {})",
        if available.is_empty() { "none".to_string() } else { available.join(", ") }
    )]
    Md5NotFound {
        /// The type looked up.
        datatype: String,
        /// The md5sum wanted.
        md5sum: String,
        /// The md5sums of the definitions that exist.
        available: Vec<String>,
    },
    /// A `ros2idl` schema that does not parse, or that uses an IDL construct a ROS 2 `.msg`
    /// cannot express (union, enum, `long double`, `wchar`, multi-dimensional arrays, ...).
    #[error("{datatype}: IDL schema line {line}, column {column}: {message}")]
    Idl {
        /// The type the schema is for.
        datatype: String,
        /// 1-based line within the whole schema text (`IDL:` header lines included).
        line: usize,
        /// 1-based column (in characters).
        column: usize,
        /// What is wrong (naming the construct, when it is an unsupported one).
        message: String,
    },
    /// A `jsonschema` schema that does not parse, or that uses a construct bagscope does not
    /// map to message fields (`$ref`, `oneOf`, a type union, an array of arrays, ...): the
    /// channel's messages are then decoded without it (see `docs/mcap.md`, "JSON messages").
    #[error("{datatype}: jsonschema {at}: {message}")]
    JsonSchema {
        /// The type (schema name) the schema is for.
        datatype: String,
        /// Where in the schema: a JSON pointer such as `/properties/pose`, or `text`.
        at: String,
        /// What is wrong or unsupported.
        message: String,
    },
    /// A `--msg-path` directory or file could not be read.
    #[error("{}: {source}", path.display())]
    Io {
        /// The path.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
}

/// One step of the path from the message root to a value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PathSegment {
    /// A field, by name.
    Field(String),
    /// An array element, by index.
    Index(usize),
}

/// A field path such as `transforms[3].header.frame_id`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FieldPath(Vec<PathSegment>);

impl FieldPath {
    /// The segments, root first.
    pub fn segments(&self) -> &[PathSegment] {
        &self.0
    }

    /// True for the message itself.
    pub fn is_root(&self) -> bool {
        self.0.is_empty()
    }

    /// Adds a segment in front (used while unwinding out of nested values).
    pub(crate) fn push_front(&mut self, segment: PathSegment) {
        self.0.insert(0, segment);
    }
}

impl fmt::Display for FieldPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            return f.write_str("(message)");
        }
        for (i, seg) in self.0.iter().enumerate() {
            match seg {
                PathSegment::Field(name) if i == 0 => f.write_str(name)?,
                PathSegment::Field(name) => write!(f, ".{name}")?,
                PathSegment::Index(index) => write!(f, "[{index}]")?,
            }
        }
        Ok(())
    }
}

/// What went wrong while decoding a payload.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeErrorKind {
    /// The payload ends before the value does.
    #[error("needs {needed} bytes but only {available} remain")]
    Truncated {
        /// Bytes the value needs.
        needed: u64,
        /// Bytes left in the payload.
        available: u64,
    },
    /// An array length from the payload cannot fit in what is left (a corrupt length).
    #[error("array of {count} elements needs at least {needed} bytes but only {available} remain")]
    ArrayTooLong {
        /// The element count read (or declared for a fixed array).
        count: u64,
        /// Minimum bytes those elements need.
        needed: u64,
        /// Bytes left in the payload.
        available: u64,
    },
    /// The message ends before the payload does.
    #[error("{count} trailing bytes after the end of the message")]
    TrailingBytes {
        /// Bytes left over.
        count: u64,
    },
    /// A CDR payload whose encapsulation is not plain CDR (XCDR1), the only one ROS 2 writes.
    #[error(
        "unsupported CDR encapsulation {id:#06x} ({name}): only plain CDR (00 00, 00 01) is read"
    )]
    Encapsulation {
        /// The representation identifier (the payload's first two bytes, big-endian).
        id: u16,
        /// What it names (`PL_CDR_LE (parameter list)`, `CDR2_LE (XCDR2)`, …).
        name: &'static str,
    },
    /// More elements (or characters) than a ROS 2 bounded type (`T[<=N]`, `string<=N`) allows.
    #[error("{count} elements exceed the bound of {bound}")]
    OverBound {
        /// The count read.
        count: u64,
        /// The definition's bound.
        bound: u64,
    },
    /// A `json` message that is not JSON, holds what bagscope's values cannot (`null`, an
    /// integer beyond 64 bits, arrays of mixed kinds), or does not match its jsonschema.
    #[error("{what}")]
    Json {
        /// What is wrong.
        what: String,
    },
    /// The message holds more values than its size allows decoding (only possible with
    /// arrays of messages that occupy no bytes, nested): the wire format is valid
    /// ([`validate`](super::validate) accepts it) but decoding it would take unbounded memory.
    #[error("more than {limit} values in a {bytes}-byte message (arrays of empty messages)")]
    TooManyValues {
        /// Values decoded before giving up.
        limit: u64,
        /// The payload size.
        bytes: u64,
    },
}

/// A payload that does not match its definition: where (field path and byte offset within
/// the payload) and what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeError(Box<DecodeErrorInner>);

#[derive(Debug, Clone, PartialEq, Eq)]
struct DecodeErrorInner {
    path: FieldPath,
    offset: usize,
    kind: DecodeErrorKind,
}

impl DecodeError {
    pub(crate) fn new(offset: usize, kind: DecodeErrorKind) -> Self {
        DecodeError(Box::new(DecodeErrorInner {
            path: FieldPath::default(),
            offset,
            kind,
        }))
    }

    /// Records that the error happened inside `segment` (called while unwinding).
    #[must_use]
    pub(crate) fn within(mut self, segment: PathSegment) -> Self {
        self.0.path.push_front(segment);
        self
    }

    /// The field the error is in.
    pub fn path(&self) -> &FieldPath {
        &self.0.path
    }

    /// Byte offset within the payload where the failing read started.
    pub fn offset(&self) -> usize {
        self.0.offset
    }

    /// What went wrong.
    pub fn kind(&self) -> &DecodeErrorKind {
        &self.0.kind
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} at payload byte {}: {}",
            self.0.path, self.0.offset, self.0.kind
        )
    }
}

impl std::error::Error for DecodeError {}

/// What is wrong with a value given to `msg::encode`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EncodeErrorKind {
    /// The value is not of the field's type.
    #[error("expected {expected}, found {found}")]
    TypeMismatch {
        /// The field's type.
        expected: String,
        /// What the value is.
        found: &'static str,
    },
    /// A message value of another type, or with another number of fields.
    #[error(
        "expected a {expected} message with {fields} fields, found {found} with {found_fields}"
    )]
    MessageMismatch {
        /// The type the schema wants.
        expected: String,
        /// Its field count.
        fields: usize,
        /// The type of the value given.
        found: String,
        /// Its field count.
        found_fields: usize,
    },
    /// A fixed-size array with the wrong number of elements.
    #[error("fixed array needs {expected} elements, found {found}")]
    FixedLength {
        /// The declared length.
        expected: usize,
        /// The value's length.
        found: usize,
    },
    /// A string or array longer than a `u32` length can say.
    #[error("{len} elements do not fit a u32 length")]
    TooLong {
        /// The length.
        len: usize,
    },
}

/// A value that cannot be encoded with a schema: where (field path) and what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EncodeError {
    path: FieldPath,
    kind: EncodeErrorKind,
}

impl EncodeError {
    pub(crate) fn new(kind: EncodeErrorKind) -> Self {
        EncodeError {
            path: FieldPath::default(),
            kind,
        }
    }

    #[must_use]
    pub(crate) fn within(mut self, segment: PathSegment) -> Self {
        self.path.push_front(segment);
        self
    }

    /// The field the error is in.
    pub fn path(&self) -> &FieldPath {
        &self.path
    }

    /// What went wrong.
    pub fn kind(&self) -> &EncodeErrorKind {
        &self.kind
    }
}

impl fmt::Display for EncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path, self.kind)
    }
}

impl std::error::Error for EncodeError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_render_like_field_access() {
        let e = DecodeError::new(
            40,
            DecodeErrorKind::Truncated {
                needed: 8,
                available: 3,
            },
        )
        .within(PathSegment::Field("frame_id".into()))
        .within(PathSegment::Field("header".into()))
        .within(PathSegment::Index(3))
        .within(PathSegment::Field("transforms".into()));
        assert_eq!(
            e.to_string(),
            "transforms[3].header.frame_id at payload byte 40: needs 8 bytes but only 3 remain"
        );
        let root = DecodeError::new(7, DecodeErrorKind::TrailingBytes { count: 2 });
        assert_eq!(
            root.to_string(),
            "(message) at payload byte 7: 2 trailing bytes after the end of the message"
        );
    }
}
