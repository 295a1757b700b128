//! Structured errors for malformed bag bytes: where (byte offset, record kind) and what.

use std::fmt;

use super::op::RecordKind;

/// What was wrong with the bytes.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ErrorKind {
    /// The file is zero bytes long.
    #[error("empty file")]
    EmptyFile,
    /// The first bytes are not a known bag version line or a version-0 record.
    #[error("not a ROS bag file (no '#ROSBAG'/'#ROSRECORD'/'#ROSLOG' version line)")]
    NotABag,
    /// A version line we do not know.
    #[error("unsupported bag version '{0}'")]
    UnsupportedVersion(String),
    /// The bag header names an encryptor.
    #[error("encrypted bag (encryptor '{0}') is not supported")]
    Encrypted(String),
    /// Fewer bytes remain than a length or fixed-size field requires.
    #[error("{what} needs {needed} bytes but only {available} remain")]
    Truncated {
        /// What was being read.
        what: &'static str,
        /// Bytes required.
        needed: u64,
        /// Bytes left.
        available: u64,
    },
    /// A header field has no `=` separator.
    #[error("header field without '=' separator")]
    FieldWithoutSeparator,
    /// A required header field is absent.
    #[error("missing header field '{0}'")]
    MissingField(&'static str),
    /// A fixed-size header field has the wrong length.
    #[error("header field '{name}' is {len} bytes long, expected {expected}")]
    FieldSize {
        /// Field name.
        name: &'static str,
        /// Actual length.
        len: usize,
        /// Expected length.
        expected: usize,
    },
    /// A header field has a value that makes no sense.
    #[error("header field '{name}': {reason}")]
    BadValue {
        /// Field name.
        name: &'static str,
        /// Why it is unacceptable.
        reason: String,
    },
    /// The record header has no `op` field.
    #[error("record header has no 'op' field")]
    MissingOp,
    /// A record of another kind was found where this one was expected.
    #[error("expected a {expected} record, found op 0x{found:02x}")]
    UnexpectedOp {
        /// The op byte found.
        found: u8,
        /// The record kind expected.
        expected: RecordKind,
    },
    /// The chunk names a compression method we do not know.
    #[error("unsupported chunk compression '{0}'")]
    UnknownCompression(String),
    /// A declared size exceeds what we are willing to allocate or decompress.
    #[error("declared size {declared} exceeds the limit of {limit} bytes")]
    TooLarge {
        /// The declared size.
        declared: u64,
        /// The configured limit.
        limit: u64,
    },
    /// The compressed data could not be decoded.
    #[error("{method} decompression failed: {reason}")]
    Decompress {
        /// The method (`bz2`, `lz4`).
        method: &'static str,
        /// The decoder's message.
        reason: String,
    },
    /// The decompressed data is not the size the chunk header declares.
    #[error("decompressed {actual} bytes, chunk header declares {declared}")]
    SizeMismatch {
        /// Size in the header.
        declared: u64,
        /// Size produced.
        actual: u64,
    },
    /// An index or chunk-info record has a version we do not know.
    #[error("unsupported {what} version {version}")]
    UnsupportedRecordVersion {
        /// The record kind.
        what: &'static str,
        /// The version found.
        version: u32,
    },
    /// A text line (old formats) is not what was expected.
    #[error("{0}")]
    BadLine(&'static str),
}

/// An error in the bytes of a bag: the kind of record, the byte offset and what was wrong.
///
/// `offset` is a file offset, unless `chunk` is set: then it is an offset into the
/// uncompressed data of the chunk record that starts at file offset `chunk`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FormatError {
    /// Byte offset of the problem (see the type docs).
    pub offset: u64,
    /// File offset of the enclosing chunk when `offset` is inside its uncompressed data.
    pub chunk: Option<u64>,
    /// The kind of record being read.
    pub record: RecordKind,
    /// What was wrong.
    pub kind: ErrorKind,
}

impl FormatError {
    /// Builds an error at a file or chunk-relative offset.
    pub fn new(offset: u64, record: RecordKind, kind: ErrorKind) -> Self {
        FormatError {
            offset,
            chunk: None,
            record,
            kind,
        }
    }

    /// Marks the error as located inside the chunk at file offset `chunk_pos`.
    #[must_use]
    pub fn in_chunk(mut self, chunk_pos: u64) -> Self {
        if self.chunk.is_none() {
            self.chunk = Some(chunk_pos);
        }
        self
    }

    /// The file offset to report: the offset itself, or the enclosing chunk's.
    pub fn file_offset(&self) -> u64 {
        self.chunk.unwrap_or(self.offset)
    }
}

impl fmt::Display for FormatError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.record, self.kind)?;
        if self.chunk.is_some() {
            write!(f, " (offset {} in the uncompressed chunk)", self.offset)?;
        }
        Ok(())
    }
}

impl std::error::Error for FormatError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.kind)
    }
}

/// Result alias for the format layer.
pub type Result<T, E = FormatError> = std::result::Result<T, E>;
