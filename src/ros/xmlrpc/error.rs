//! Errors of the XML-RPC layer.

use super::value::Fault;

/// What went wrong in an XML-RPC exchange.
#[derive(Debug, thiserror::Error)]
pub enum XmlRpcError {
    /// The XML document is malformed or not an XML-RPC document.
    #[error("malformed XML-RPC document at byte {offset}: {what}")]
    Xml {
        /// Byte offset in the document.
        offset: usize,
        /// What was wrong.
        what: String,
    },
    /// The HTTP framing is malformed or the peer answered with an error status.
    #[error("HTTP: {0}")]
    Http(String),
    /// Something declared or sent is larger than allowed.
    #[error("{what} larger than {limit} bytes")]
    TooLarge {
        /// What was too large.
        what: &'static str,
        /// The limit.
        limit: usize,
    },
    /// A URI that is not `http://host:port[/path]`.
    #[error("bad URI '{0}' (expected http://HOST:PORT/)")]
    BadUri(String),
    /// The connection failed or timed out.
    #[error("{context}: {source}")]
    Io {
        /// What was being done.
        context: String,
        /// The underlying error.
        source: std::io::Error,
    },
    /// The whole call (connecting, sending, the answer) did not end within its timeout.
    #[error("no complete answer within {:.1} s", .after.as_secs_f64())]
    TimedOut {
        /// The timeout.
        after: std::time::Duration,
    },
    /// The peer answered with a fault.
    #[error("the peer answered with {0}")]
    Fault(Fault),
}

impl XmlRpcError {
    /// A malformed-document error.
    pub(crate) fn xml(offset: usize, what: impl Into<String>) -> Self {
        XmlRpcError::Xml {
            offset,
            what: what.into(),
        }
    }

    /// An I/O error with context.
    pub(crate) fn io(context: impl Into<String>, source: std::io::Error) -> Self {
        XmlRpcError::Io {
            context: context.into(),
            source,
        }
    }
}
