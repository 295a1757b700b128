//! XML-RPC over HTTP/1.1, both directions, with the value types ROS uses (int, boolean,
//! string, double, base64, array, struct; `nil` is read). Written for untrusted peers: every
//! length is capped, every socket has a timeout, malformed documents are errors.

mod client;
mod error;
pub(crate) mod http;
mod parse;
mod server;
mod value;
mod write;
pub(crate) mod xml;

pub use client::{MAX_RESPONSE, call};
pub use error::XmlRpcError;
pub use parse::{MAX_DEPTH, parse_call, parse_response};
pub use server::{Handler, IO_TIMEOUT, MAX_CONNECTIONS, MAX_REQUEST, Server};
pub use value::{Fault, MethodCall, MethodResponse, Value};
pub use write::{call_document, fault_document, response_document, write_value};

#[cfg(test)]
mod tests;
