//! Errors of the ROS node.

use super::xmlrpc::XmlRpcError;

/// What went wrong talking to the ROS graph.
#[derive(Debug, thiserror::Error)]
pub enum RosError {
    /// An XML-RPC call failed (connection, HTTP, document or fault).
    #[error("{method} on {uri}: {source}")]
    Call {
        /// The method called.
        method: String,
        /// The server's URI.
        uri: String,
        /// What failed.
        source: XmlRpcError,
    },
    /// The master (or a node) answered with an error code.
    #[error("{method}: {uri} answered code {code}: {message}")]
    Refused {
        /// The method called.
        method: String,
        /// The server's URI.
        uri: String,
        /// `-1` (error) or `0` (failure).
        code: i32,
        /// The status message.
        message: String,
    },
    /// The answer does not have the shape the API specifies.
    #[error("{method}: unexpected answer from {uri}: {what}")]
    BadAnswer {
        /// The method called.
        method: String,
        /// The server's URI.
        uri: String,
        /// What was wrong.
        what: String,
    },
    /// A graph resource name that ROS does not accept.
    #[error("invalid ROS name '{name}': {why}")]
    InvalidName {
        /// The name.
        name: String,
        /// Why it is not valid.
        why: &'static str,
    },
    /// A setting from the environment is unusable.
    #[error("{variable}={value}: {why}")]
    Environment {
        /// The variable.
        variable: &'static str,
        /// Its value.
        value: String,
        /// Why it is unusable.
        why: String,
    },
    /// A topic is already advertised with another type.
    #[error("{topic} is already advertised as {existing}, not {requested}")]
    TypeConflict {
        /// The topic.
        topic: String,
        /// Its advertised type.
        existing: String,
        /// The type asked for.
        requested: String,
    },
    /// A socket could not be opened.
    #[error("{context}: {source}")]
    Io {
        /// What was being done.
        context: String,
        /// The underlying error.
        source: std::io::Error,
    },
    /// The node has been shut down.
    #[error("the node has been shut down")]
    ShutDown,
}
