//! JSON messages (MCAP `json`) → [`Decoded`], the same values ROS1 and CDR payloads decode
//! to, so every renderer, expression, plot and export reads them unchanged.
//!
//! A channel's [`Schema`] comes from its `jsonschema` ([`Schema::for_json`], `schema.rs`) or,
//! without one, is free-form ([`Schema::json_free_form`]). A message is parsed as Python's
//! `json.loads` parses it (`parse.rs`), then built into nodes against the schema's type
//! (`build.rs`): it must match that type exactly (every property, nothing else, each value of
//! its field's kind) or it is a [`DecodeError`] naming the field. Free-form messages decode
//! into a type read off the message itself (`infer.rs`), each message its own.
//! `docs/mcap.md` ("JSON messages") states what is decoded and what is not.

mod build;
mod infer;
mod parse;
mod schema;
#[cfg(test)]
mod tests;
mod types;

use self::build::{Build, mismatch};
use crate::msg::decoded::Decoded;
use crate::msg::error::DecodeError;
use crate::msg::schema::Schema;

/// Decodes one JSON message of `schema` (a [`Wire::Json`](crate::msg::Wire::Json) schema).
pub(crate) fn decode<'a>(schema: &'a Schema, bytes: &'a [u8]) -> Result<Decoded<'a>, DecodeError> {
    let value = parse::parse(bytes).map_err(|e| mismatch(e.at, format!("not JSON: {}", e.what)))?;
    let root = schema.root();
    let mut build = Build::new(bytes.len(), schema.node_guess());
    if root.fields().is_empty() {
        // Free-form: the message's own type.
        let ty = infer::message_type_of(root.name(), &value)?;
        build.fields(&ty, &value)?;
        let buffer = build.buffer(bytes);
        return Ok(Decoded::with_own_type(ty, buffer, bytes.len(), build.nodes));
    }
    build.fields(root, &value)?;
    if build.nodes.len() > build.nodes.capacity() / 2 {
        schema.saw_nodes(build.nodes.len());
    }
    let buffer = build.buffer(bytes);
    Ok(Decoded::with_buffer(root, buffer, bytes.len(), build.nodes))
}
