//! A `jsonschema` text → the [`Schema`] of a JSON channel.
//!
//! The root is an object schema; its `properties` become the fields, in the order the text
//! lists them: `integer` → `int64`, `number` → `float64`, `boolean` → `bool`, `string` →
//! `string` (whatever its `format` or `contentEncoding`), an object with `properties` → a
//! nested type named `Parent.property`, an `array` with an object `items` → a sequence of
//! that. `title`, `description`, `required`, `enum`, `const`, bounds and the like do not
//! change the layout and are not checked. A root object without `properties` is free-form:
//! each message gets the type its own JSON has ([`Schema::json_free_form`]).
//!
//! Everything else is [`MsgError::JsonSchema`] naming the construct and where it is (a JSON
//! pointer): `$ref`, `oneOf`/`anyOf`/`allOf`/`not`/`if`, `patternProperties`, tuple arrays,
//! arrays of arrays, type unions (`["string", "null"]`), `null`, a property without a type, a
//! nested free-form object, property names with control characters. The caller then decodes
//! the channel free-form and says why.

use std::sync::Arc;

use super::parse::{self, Json, Kind};
use super::types::{FLOAT, INT, bad_name, field, message_type, nested_name};
use crate::msg::error::MsgError;
use crate::msg::primitive::Primitive;
use crate::msg::schema::Schema;
use crate::msg::types::{Elem, MsgType};
use crate::msg::wire::Wire;

/// Keywords that change which values are valid in ways a fixed set of fields cannot say.
const UNSUPPORTED: &[&str] = &[
    "$ref",
    "$dynamicRef",
    "$recursiveRef",
    "oneOf",
    "anyOf",
    "allOf",
    "not",
    "if",
    "patternProperties",
    "prefixItems",
    "dependentSchemas",
    "unevaluatedProperties",
];

/// The name of a JSON channel's root type: its schema name, or `json` when it has none.
fn root_name(datatype: &str) -> String {
    match datatype.trim() {
        "" => "json".to_string(),
        name => name.to_string(),
    }
}

impl Schema {
    /// Compiles the `jsonschema` text of a JSON channel whose schema is named `datatype` into
    /// a schema read from JSON ([`Wire::Json`]); an error names what is not supported and
    /// where. See `docs/mcap.md`, "JSON messages".
    pub fn for_json(datatype: &str, text: &str) -> Result<Arc<Schema>, MsgError> {
        let name = root_name(datatype);
        let error = |at: &str, message: String| MsgError::JsonSchema {
            datatype: name.clone(),
            at: if at.is_empty() {
                "/".to_string()
            } else {
                at.to_string()
            },
            message,
        };
        let value = parse::parse(text.as_bytes())
            .map_err(|e| error("text", format!("not JSON at byte {}: {}", e.at, e.what)))?;
        let mapper = Mapper { error: &error };
        let root = mapper.object_type(&name, &value, "", true)?;
        Ok(Schema::from_root(root, Wire::Json))
    }

    /// The schema of a JSON channel without a (usable) jsonschema, its schema named
    /// `datatype`: the root type has no fields, and each message decodes into the type its
    /// own JSON has (so field paths cannot be resolved before a message is read).
    pub fn json_free_form(datatype: &str) -> Arc<Schema> {
        Schema::from_root(message_type(root_name(datatype), Vec::new()), Wire::Json)
    }
}

/// Escapes a property name for a JSON pointer (`~` → `~0`, `/` → `~1`) and for a terminal.
fn pointer(parent: &str, word: &str, key: &str) -> String {
    let key = key.replace('~', "~0").replace('/', "~1");
    format!("{parent}/{word}/{}", crate::printable::escape(&key))
}

struct Mapper<'e> {
    error: &'e dyn Fn(&str, String) -> MsgError,
}

impl Mapper<'_> {
    /// The members of a schema that must be an object.
    fn members<'j>(&self, schema: &'j Json, at: &str) -> Result<&'j [(String, Json)], MsgError> {
        let Kind::Object(members) = &schema.kind else {
            return Err((self.error)(
                at,
                format!("a schema must be an object, found {}", schema.kind.what()),
            ));
        };
        if let Some((k, _)) = members
            .iter()
            .find(|(k, _)| UNSUPPORTED.contains(&k.as_str()))
        {
            return Err((self.error)(at, format!("'{k}' is not supported")));
        }
        Ok(members)
    }

    /// The `type` of a schema (`properties` alone means an object, `items` alone an array).
    fn type_of<'j>(&self, members: &'j [(String, Json)], at: &str) -> Result<&'j str, MsgError> {
        let get = |key: &str| members.iter().find(|(k, _)| k == key).map(|(_, v)| v);
        match get("type").map(|t| &t.kind) {
            Some(Kind::Str(t)) => Ok(t),
            Some(Kind::Array(ts)) => match ts.as_slice() {
                [
                    Json {
                        kind: Kind::Str(t), ..
                    },
                ] => Ok(t),
                _ => Err((self.error)(
                    at,
                    "a type union ('type' as a list of types) is not supported".into(),
                )),
            },
            Some(other) => Err((self.error)(
                at,
                format!("'type' must be a string, found {}", other.what()),
            )),
            None if get("properties").is_some() => Ok("object"),
            None if get("items").is_some() => Ok("array"),
            None => Err((self.error)(
                at,
                "a schema without a 'type' (any value) is not supported".into(),
            )),
        }
    }

    /// The message type `name` of an object schema; `root` accepts a free-form object (no
    /// `properties`) as a type without fields.
    fn object_type(
        &self,
        name: &str,
        schema: &Json,
        at: &str,
        root: bool,
    ) -> Result<Arc<MsgType>, MsgError> {
        let members = self.members(schema, at)?;
        let ty = self.type_of(members, at)?;
        if ty != "object" {
            return Err((self.error)(
                at,
                format!(
                    "the root must be an object schema, found type '{}'",
                    crate::printable::escape(ty)
                ),
            ));
        }
        let properties = members.iter().find(|(k, _)| k == "properties");
        let properties = match properties.map(|(_, v)| &v.kind) {
            Some(Kind::Object(p)) => p.as_slice(),
            Some(other) => {
                return Err((self.error)(
                    at,
                    format!("'properties' must be an object, found {}", other.what()),
                ));
            }
            None if root => &[],
            None => {
                return Err((self.error)(
                    at,
                    "an object without 'properties' (free-form) inside a schema is not supported"
                        .into(),
                ));
            }
        };
        let mut fields = Vec::with_capacity(properties.len());
        for (key, sub) in properties {
            let here = pointer(at, "properties", key);
            if let Some(why) = bad_name(key) {
                return Err((self.error)(&here, format!("{why} is not supported")));
            }
            let (elem, array) = self.field_type(&nested_name(name, key), sub, &here)?;
            fields.push(field(key, elem, array));
        }
        Ok(message_type(name.to_string(), fields))
    }

    /// The element type of a property's schema and whether it is an array.
    fn field_type(&self, name: &str, schema: &Json, at: &str) -> Result<(Elem, bool), MsgError> {
        let members = self.members(schema, at)?;
        Ok(match self.type_of(members, at)? {
            "integer" => (Elem::Prim(INT), false),
            "number" => (Elem::Prim(FLOAT), false),
            "boolean" => (Elem::Prim(Primitive::Bool), false),
            "string" => (Elem::Prim(Primitive::String), false),
            "object" => (Elem::Msg(self.object_type(name, schema, at, false)?), false),
            "array" => {
                let here = format!("{at}/items");
                let items = members.iter().find(|(k, _)| k == "items").map(|(_, v)| v);
                let items = match items {
                    Some(
                        items @ Json {
                            kind: Kind::Object(_),
                            ..
                        },
                    ) => items,
                    Some(_) => {
                        return Err((self.error)(
                            &here,
                            "tuple arrays ('items' as a list) are not supported".into(),
                        ));
                    }
                    None => {
                        return Err((self.error)(
                            at,
                            "an array without 'items' is not supported".into(),
                        ));
                    }
                };
                let (elem, nested) = self.field_type(name, items, &here)?;
                if nested {
                    return Err((self.error)(
                        &here,
                        "arrays of arrays are not supported".into(),
                    ));
                }
                (elem, true)
            }
            other => {
                return Err((self.error)(
                    at,
                    format!(
                        "type '{}' is not supported",
                        crate::printable::escape(other)
                    ),
                ));
            }
        })
    }
}
