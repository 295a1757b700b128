//! What can be wrong with a `ros2idl` schema ([`IdlError`]) and where ([`Pos`], [`Located`]).

/// A place in the schema text: 1-based line (counted over the whole schema, `IDL:` headers
/// included) and 1-based column (in characters).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Pos {
    /// The line.
    pub line: usize,
    /// The column.
    pub col: usize,
}

/// Why an IDL text cannot be turned into `.msg` text.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub(crate) enum IdlError {
    /// The text is not IDL as rosidl writes it.
    #[error("{0}")]
    Syntax(String),
    /// A valid IDL construct that a ROS 2 `.msg` cannot express.
    #[error("{construct} is not supported: {why}")]
    Unsupported {
        /// The construct, as written (`union`, `long double`, ...).
        construct: String,
        /// Why it has no `.msg` equivalent.
        why: &'static str,
    },
    /// A constant expression that cannot be evaluated (unknown name, wrong type, overflow).
    #[error("{0}")]
    Value(String),
    /// The text exceeds a limit (size, nesting).
    #[error("{0}")]
    Limit(String),
    /// The schema does not define the type it is the schema of.
    #[error("the schema does not define {0}")]
    MissingMain(String),
}

/// An [`IdlError`] at a [`Pos`].
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Located {
    /// Where.
    pub pos: Pos,
    /// What.
    pub error: IdlError,
}

impl Located {
    /// `error` at `pos`.
    pub fn new(pos: Pos, error: IdlError) -> Self {
        Located { pos, error }
    }

    /// A syntax error at `pos`.
    pub fn syntax(pos: Pos, message: impl Into<String>) -> Self {
        Located::new(pos, IdlError::Syntax(message.into()))
    }

    /// An unsupported construct at `pos`.
    pub fn unsupported(pos: Pos, construct: impl Into<String>, why: &'static str) -> Self {
        Located::new(
            pos,
            IdlError::Unsupported {
                construct: construct.into(),
                why,
            },
        )
    }

    /// A value error at `pos`.
    pub fn value(pos: Pos, message: impl Into<String>) -> Self {
        Located::new(pos, IdlError::Value(message.into()))
    }
}
