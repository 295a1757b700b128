//! CDR (XCDR1) payloads → [`Decoded`]: the same values as the ROS1 walk, read with CDR's
//! encapsulation header, byte order and alignment. (Contract stub: the CDR helper fills it.)

use super::reader::Result;
use crate::msg::decoded::Decoded;
use crate::msg::error::{DecodeError, DecodeErrorKind};
use crate::msg::schema::Schema;

/// Decodes one CDR payload of `schema` (see [`super::decode`]).
pub(super) fn decode<'a>(schema: &'a Schema, bytes: &'a [u8]) -> Result<Decoded<'a>> {
    validate(schema, bytes)?;
    Err(DecodeError::new(
        0,
        DecodeErrorKind::Truncated {
            needed: 4,
            available: 0,
        },
    ))
}

/// Checks one CDR payload of `schema` without building values (see [`super::validate`]).
pub(super) fn validate(schema: &Schema, bytes: &[u8]) -> Result<()> {
    let _ = (schema, bytes);
    Err(DecodeError::new(
        0,
        DecodeErrorKind::Truncated {
            needed: 4,
            available: 0,
        },
    ))
}
