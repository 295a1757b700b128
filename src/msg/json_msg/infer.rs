//! The type of a JSON message that has no (usable) jsonschema, read off the message itself:
//! each property a field in the message's order — `true`/`false` → `bool`, an integer →
//! `int64` (`uint64` above `i64::MAX`), another number → `float64`, a string → `string`, an
//! object → a nested type, an array → a sequence of its elements' type.
//!
//! Arrays: numbers mixing integers and floats are `float64[]` (equal in value to what
//! `json.loads` gives); an empty array is `float64[]`; objects in one array must have the
//! same properties of the same types. What a decoded value cannot hold is an error naming
//! the field: `null`, arrays of arrays, arrays mixing kinds (numbers and strings, objects of
//! different shapes), a top-level value that is not an object.

use std::sync::Arc;

use super::build::{mismatch, segment};
use super::parse::{Json, Kind};
use super::types::{FLOAT, INT, UINT, bad_name, field, message_type, nested_name, same_shape};
use crate::msg::error::{DecodeError, PathSegment};
use crate::msg::primitive::Primitive;
use crate::msg::types::{Elem, MsgType};

/// The type `name` of the message `value`.
pub(super) fn message_type_of(name: &str, value: &Json) -> Result<Arc<MsgType>, DecodeError> {
    match &value.kind {
        Kind::Object(members) => object(name, members),
        other => Err(mismatch(
            value.at,
            format!(
                "the message is {}, not an object (only objects are decoded)",
                other.what()
            ),
        )),
    }
}

fn object(name: &str, members: &[(String, Json)]) -> Result<Arc<MsgType>, DecodeError> {
    let mut fields = Vec::with_capacity(members.len());
    for (key, value) in members {
        if let Some(why) = bad_name(key) {
            return Err(mismatch(value.at, format!("{why} (not decoded)")));
        }
        let (elem, array) =
            elem_of(&nested_name(name, key), value).map_err(|e| e.within(segment(key)))?;
        fields.push(field(key, elem, array));
    }
    Ok(message_type(name.to_string(), fields))
}

/// The element type of `value` and whether it is an array.
fn elem_of(name: &str, value: &Json) -> Result<(Elem, bool), DecodeError> {
    Ok(match &value.kind {
        Kind::Array(items) => (items_elem(name, items)?, true),
        Kind::Object(members) => (Elem::Msg(object(name, members)?), false),
        _ => (Elem::Prim(scalar_type(value)?), false),
    })
}

/// The primitive of a scalar value.
fn scalar_type(value: &Json) -> Result<Primitive, DecodeError> {
    match value.kind {
        Kind::Bool(_) => Ok(Primitive::Bool),
        Kind::Int(_) => Ok(INT),
        Kind::UInt(_) => Ok(UINT),
        Kind::Float(_) => Ok(FLOAT),
        Kind::Str(_) => Ok(Primitive::String),
        Kind::Null => Err(mismatch(
            value.at,
            "a null value (decoded values have no null; give the channel a jsonschema without nulls)",
        )),
        Kind::Array(_) | Kind::Object(_) => Err(mismatch(value.at, "not a scalar")),
    }
}

/// The element type of the array `items`.
fn items_elem(name: &str, items: &[Json]) -> Result<Elem, DecodeError> {
    let Some(first) = items.first() else {
        return Ok(Elem::Prim(FLOAT));
    };
    let differs = |i: usize, item: &Json| {
        mismatch(
            item.at,
            format!(
                "{} in an array that starts with {} (arrays of mixed kinds are not decoded)",
                item.kind.what(),
                first.kind.what()
            ),
        )
        .within(PathSegment::Index(i))
    };
    match &first.kind {
        Kind::Array(_) => Err(mismatch(first.at, "an array of arrays (not decoded)")),
        Kind::Object(members) => {
            let ty = object(name, members).map_err(|e| e.within(PathSegment::Index(0)))?;
            for (i, item) in items.iter().enumerate().skip(1) {
                let Kind::Object(other) = &item.kind else {
                    return Err(differs(i, item));
                };
                let other = object(name, other).map_err(|e| e.within(PathSegment::Index(i)))?;
                if !same_shape(&ty, &other) {
                    return Err(mismatch(
                        item.at,
                        "an object whose properties differ from the first element's (not decoded)",
                    )
                    .within(PathSegment::Index(i)));
                }
            }
            Ok(Elem::Msg(ty))
        }
        Kind::Int(_) | Kind::UInt(_) | Kind::Float(_) => {
            let (mut float, mut big, mut negative) = (false, false, false);
            for (i, item) in items.iter().enumerate() {
                match item.kind {
                    Kind::Float(_) => float = true,
                    Kind::UInt(_) => big = true,
                    Kind::Int(v) => negative |= v < 0,
                    _ => return Err(differs(i, item)),
                }
            }
            Ok(Elem::Prim(match (float, big) {
                (true, _) => FLOAT,
                (false, false) => INT,
                (false, true) if !negative => UINT,
                (false, true) => {
                    return Err(mismatch(
                        first.at,
                        "integers above int64 and negative ones in one array (not decoded)",
                    ));
                }
            }))
        }
        _ => {
            let p = scalar_type(first).map_err(|e| e.within(PathSegment::Index(0)))?;
            for (i, item) in items.iter().enumerate().skip(1) {
                if std::mem::discriminant(&item.kind) != std::mem::discriminant(&first.kind) {
                    return Err(differs(i, item));
                }
            }
            Ok(Elem::Prim(p))
        }
    }
}
