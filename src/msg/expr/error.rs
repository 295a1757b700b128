//! What is wrong with an expression, and where: every error carries the expression text and
//! the 1-based column it points at, and displays with a `^` under that column.

use std::fmt;

use crate::msg::path::PathError;

/// Why an expression does not parse or does not fit a message type.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExprErrorKind {
    /// The expression is longer than [`MAX_EXPR_LEN`](super::MAX_EXPR_LEN).
    #[error("the expression is longer than {limit} bytes")]
    TooLong {
        /// The limit.
        limit: usize,
    },
    /// Something other than what the grammar allows here.
    #[error("expected {expected}, found {found}")]
    Expected {
        /// What would fit here.
        expected: String,
        /// What is there.
        found: String,
    },
    /// A number that does not parse.
    #[error("'{0}' is not a number")]
    Number(String),
    /// A field path that does not parse or does not fit the type (unknown field: the error
    /// lists the fields there are).
    #[error("{0}")]
    Path(String),
    /// A name that is neither a field nor a constant of the type.
    #[error(
        "{name} is not a constant of {datatype}; {}",
        list("its constants are", available)
    )]
    UnknownConstant {
        /// The name.
        name: String,
        /// The type searched.
        datatype: String,
        /// The constants it has.
        available: Vec<String>,
    },
    /// A function the language does not have.
    #[error("unknown function '{name}'; {}", list("the functions are", available))]
    UnknownFunction {
        /// The name called.
        name: String,
        /// The functions there are.
        available: Vec<String>,
    },
    /// An operator applied to a value it does not work on.
    #[error("{0}")]
    Mismatch(String),
    /// A regular expression that does not compile.
    #[error("bad regular expression: {0}")]
    Regex(String),
}

fn list(what: &str, items: &[String]) -> String {
    if items.is_empty() {
        format!("{what}: none")
    } else {
        format!("{what}: {}", items.join(", "))
    }
}

/// An error in an expression, pointing at a column of its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExprError {
    /// The expression text.
    pub text: String,
    /// 1-based column (in characters) the error points at.
    pub column: usize,
    /// What is wrong.
    pub kind: ExprErrorKind,
}

impl ExprError {
    pub(super) fn new(text: &str, column: usize, kind: ExprErrorKind) -> Self {
        ExprError {
            text: text.to_string(),
            column,
            kind,
        }
    }

    /// A path error of the path starting at `column`, its column made relative to the whole
    /// expression.
    pub(super) fn from_path(text: &str, column: usize, e: &PathError) -> Self {
        let (inner, message) = match e {
            PathError::Syntax { column, what, .. } => (*column, what.clone()),
            PathError::UnknownField {
                field,
                datatype,
                column,
                available,
            } => (
                *column,
                format!(
                    "{datatype} has no field '{field}'; {}",
                    list("its fields are", available)
                ),
            ),
            PathError::NotAMessage {
                field,
                column,
                what,
                ..
            } => (*column, format!("'{field}': {what} has no fields")),
            PathError::NotAnArray { column, what } => (*column, format!("{what} is not an array")),
            PathError::IndexOutOfRange {
                index,
                len,
                column,
                what,
            } => (
                *column,
                format!("index {index} is out of range: {what} has {len} elements"),
            ),
        };
        ExprError::new(
            text,
            column + inner.saturating_sub(1),
            ExprErrorKind::Path(message),
        )
    }

    /// The message alone, without the text and the caret.
    pub fn message(&self) -> String {
        format!("{} (column {})", self.kind, self.column)
    }

    /// Two lines: the expression, and a `^` under the column.
    pub fn pointer(&self) -> String {
        let text: String = self
            .text
            .chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect();
        format!(
            "{text}\n{}^",
            " ".repeat(self.column.saturating_sub(1).min(text.chars().count()))
        )
    }
}

impl fmt::Display for ExprError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}\n  {}",
            self.message(),
            self.pointer().replace('\n', "\n  ")
        )
    }
}

impl std::error::Error for ExprError {}
