//! ROS 2 IDL (`ros2idl` schemas: the `.idl` files rosidl generates, one after another, each
//! after a line of 80 `=` and `IDL: pkg/msg/Type`) → the equivalent `ros2msg` texts, which
//! the ROS 2 compiler reads.
//!
//! A hand-written parser for the IDL subset rosidl writes (tokens → definitions → `.msg` text):
//! `#include` lines (skipped), comments, `module` nesting, `struct`, `typedef` (array
//! typedefs included), `const` in `module Type_Constants` (the constants of `Type`),
//! annotations (`@verbatim` comments and `@default` values kept, the others parsed and
//! ignored), every primitive, bounded and unbounded strings and sequences, arrays and scoped
//! names. What `.msg` cannot express (enum, union, bitmask, struct inheritance, `long double`,
//! `wchar`, `fixed`, `any`, `map`, multi-dimensional arrays) is a [`MsgError::Idl`] naming the
//! construct and its line, raised only when the type being compiled uses it. Sections
//! written in the interface language (`MSG:`, `SRV:`, `ACTION:`) are passed on as they are.

mod ast;
mod cursor;
mod emit;
mod error;
mod expr;
mod lex;
mod parse;
mod split;
#[cfg(test)]
mod tests;

use self::error::{IdlError, Located, Pos};
use super::error::MsgError;

/// The largest schema text translated (real ones are a few kilobytes to a few hundred).
const MAX_SCHEMA_BYTES: usize = 8 << 20;

/// One message type of an IDL schema, written as `ros2msg` text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MsgSection {
    /// `pkg/msg/Type`.
    pub name: String,
    /// The type as a ROS 2 `.msg` text (fields with bounds, constants, defaults).
    pub text: String,
}

/// Translates an IDL schema for `datatype` (`pkg/msg/Type`, or `pkg/Type`) into `ros2msg`
/// sections: the main type first, then every structure it uses (breadth first), then the
/// schema's `MSG:`/`SRV:`/`ACTION:` sections not already given. Field types are written as
/// `.msg` files write them (`pkg/Type` for `pkg/msg/Type`, other names in full); types the
/// schema lacks are left for the compiler to find elsewhere.
///
/// Errors ([`MsgError::Idl`], with the line and column in `idl`): a syntax error anywhere;
/// a construct that has no `.msg` equivalent where the main type or a type it uses needs it;
/// a schema that does not define `datatype`.
pub fn to_msg_sections(datatype: &str, idl: &str) -> Result<Vec<MsgSection>, MsgError> {
    let datatype = datatype.trim();
    let fail = |l: Located| MsgError::Idl {
        datatype: datatype.to_string(),
        line: l.pos.line,
        column: l.pos.col,
        message: l.error.to_string(),
    };
    let start = Pos { line: 1, col: 1 };
    if idl.len() > MAX_SCHEMA_BYTES {
        return Err(fail(Located::new(
            start,
            IdlError::Limit(format!(
                "the schema is {} bytes, more than the {MAX_SCHEMA_BYTES} allowed",
                idl.len()
            )),
        )));
    }
    let mut defs = ast::Defs::default();
    let mut passed: Vec<MsgSection> = Vec::new();
    for section in split::split(idl) {
        match section.kind {
            split::Kind::Idl => {
                let toks = lex::lex(section.text, section.first_line).map_err(fail)?;
                parse::parse_into(&toks, &mut defs).map_err(fail)?;
            }
            split::Kind::Interface => {
                if let (Some(name), false) = (section.name, section.text.trim().is_empty()) {
                    let text = section.text.trim_end().to_string();
                    passed.push(MsgSection { name, text });
                }
            }
        }
    }
    let wanted = main_names(datatype);
    let mut out: Vec<MsgSection> = if let Some(main) = emit::find(&defs, &wanted) {
        emit::emit(&defs, main)
            .map_err(fail)?
            .into_iter()
            .map(|e| MsgSection {
                name: e.name,
                text: e.text,
            })
            .collect()
    } else {
        let Some(i) = passed.iter().position(|s| wanted.contains(&s.name)) else {
            return Err(fail(Located::new(
                start,
                IdlError::MissingMain(datatype.to_string()),
            )));
        };
        vec![passed.remove(i)]
    };
    for s in passed {
        if !out.iter().any(|o| o.name == s.name) {
            out.push(s);
        }
    }
    Ok(out)
}

/// The qualified names the main type may have: `pkg/msg/Type` as given, `pkg/Type` also as
/// `pkg/msg/Type`.
fn main_names(datatype: &str) -> Vec<String> {
    let mut names = vec![datatype.to_string()];
    if let [pkg, name] = datatype.split('/').collect::<Vec<_>>().as_slice() {
        names.push(format!("{pkg}/msg/{name}"));
    }
    names
}
