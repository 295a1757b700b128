//! The ROS 2 `.msg` dialect (`ros2msg` schemas, `share/PKG/msg/*.msg` files): one type's text
//! → the same [`ParsedMsg`] the ROS1 parser produces, plus the ROS 2 names.
//!
//! What differs from ROS1 (rosidl's `parse_message_string`, with rosbags' reading of quoted
//! strings): bounded strings `string<=10` and `wstring`, bounded sequences `T[<=N]`, default
//! values after the field name (`int32 x 5`, `int32[] a [1, 2]`, `string s "hi"`; parsed over
//! and ignored: they do not change the wire), constants `TYPE NAME=value` recognised by the
//! `=` after the name (so `string<=5 s` is a field), quoted string constants (`"a"` → `a`), `#`
//! inside quotes is not a comment, `bool` constants `true`/`false`, `byte` an unsigned octet,
//! no `time`/`duration` primitives (read as the `builtin_interfaces` messages, as rosidl and
//! rosbags do), and names: `pkg/Type` and `pkg/msg/Type` are one type, whose canonical name is
//! [`ros2_type_name`] (`pkg/msg/Type`); `Header` alone is `std_msgs/msg/Header`.

use super::constant::{self, ConstValue, Constant};
use super::error::{MsgError, SyntaxError};
use super::parse::{ParsedBase, ParsedField, ParsedMsg, is_legal_type_name};
use super::primitive::Primitive;
use super::types::ArrayKind;

/// The ROS 2 header type.
pub(crate) const ROS2_HEADER: &str = "std_msgs/msg/Header";

/// The canonical ROS 2 name of a type: `pkg/Type` → `pkg/msg/Type`; `Header` →
/// `std_msgs/msg/Header`; `time`/`duration` → `builtin_interfaces/msg/Time`/`Duration`; a
/// name that already has a middle part (`pkg/msg/Type`, `pkg/srv/Type_Request`) or none is
/// returned as it is.
pub(crate) fn ros2_type_name(name: &str) -> String {
    match name {
        "Header" | "std_msgs/Header" => return ROS2_HEADER.to_string(),
        "time" => return "builtin_interfaces/msg/Time".to_string(),
        "duration" => return "builtin_interfaces/msg/Duration".to_string(),
        _ => {}
    }
    let mut parts = name.split('/');
    match (parts.next(), parts.next(), parts.next()) {
        (Some(pkg), Some(ty), None) => format!("{pkg}/msg/{ty}"),
        _ => name.to_string(),
    }
}

/// The package of a ROS 2 type name (`pkg` of `pkg/msg/Type` or `pkg/Type`).
fn package_of(datatype: &str) -> &str {
    datatype.split_once('/').map_or("", |(pkg, _)| pkg)
}

/// The part of a line before a `#` that is not inside a quoted string, trimmed.
fn strip_comment(line: &str) -> &str {
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for (i, c) in line.char_indices() {
        match quote {
            Some(q) => {
                if escaped {
                    escaped = false;
                } else if c == '\\' {
                    escaped = true;
                } else if c == q {
                    quote = None;
                }
            }
            None if c == '"' || c == '\'' => quote = Some(c),
            None if c == '#' => return line.get(..i).unwrap_or_default().trim(),
            None => {}
        }
    }
    line.trim()
}

/// Parses the text of one ROS 2 type. `datatype` is its full name (for resolution and
/// errors), `first_line` the line number of the text's first line within the definition.
pub(crate) fn parse_msg_at(
    datatype: &str,
    text: &str,
    first_line: usize,
) -> Result<ParsedMsg, MsgError> {
    let package = package_of(datatype);
    let mut msg = ParsedMsg::default();
    for (i, line) in text.split('\n').enumerate() {
        let clean = strip_comment(line);
        if clean.is_empty() {
            continue;
        }
        let err = |error| MsgError::Syntax {
            datatype: datatype.to_string(),
            line: first_line + i,
            text: line.trim_end_matches('\r').to_string(),
            error,
        };
        let (type_text, rest) = clean
            .split_once(|c: char| c.is_whitespace())
            .map(|(t, r)| (t, r.trim_start()))
            .ok_or_else(|| err(SyntaxError::FieldDeclaration))?;
        match constant_parts(rest) {
            Some((name, value)) => msg
                .constants
                .push(parse_constant(type_text, name, value).map_err(err)?),
            None => msg
                .fields
                .push(parse_field(type_text, rest, package).map_err(err)?),
        }
    }
    Ok(msg)
}

/// `NAME=value` (spaces allowed around `=`): the name and the value text.
fn constant_parts(rest: &str) -> Option<(&str, &str)> {
    let end = rest
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(rest.len());
    let (name, after) = rest.split_at(end);
    let value = after.trim_start().strip_prefix('=')?;
    (!name.is_empty()).then_some((name, value.trim()))
}

fn parse_constant(type_text: &str, name: &str, value_text: &str) -> Result<Constant, SyntaxError> {
    let ty = primitive(type_text)
        .filter(|(p, _, wide)| p.can_be_constant() && !wide)
        .map(|(p, _, _)| p)
        .ok_or_else(|| SyntaxError::ConstantType(type_text.to_string()))?;
    let bad = || SyntaxError::ConstantValue {
        ty: type_text.to_string(),
        value: value_text.to_string(),
    };
    let value = match ty {
        Primitive::String => ConstValue::String(unquote(value_text)),
        Primitive::Bool => match value_text.to_ascii_lowercase().as_str() {
            "true" => ConstValue::Bool(true),
            "false" => ConstValue::Bool(false),
            _ => constant::convert(ty, value_text).ok_or_else(bad)?,
        },
        _ => constant::convert(ty, value_text)
            .or_else(|| constant::convert(ty, &radix_to_decimal(value_text)?))
            .ok_or_else(bad)?,
    };
    Ok(Constant {
        ty,
        name: name.to_string(),
        md5_line: format!("{type_text} {name}={value_text}"),
        value_text: value_text.to_string(),
        value,
    })
}

/// `0x1F`, `0o17`, `0b101` (optionally signed) as decimal text.
fn radix_to_decimal(text: &str) -> Option<String> {
    let (sign, body) = match text.strip_prefix('-') {
        Some(b) => ("-", b),
        None => ("", text.strip_prefix('+').unwrap_or(text)),
    };
    let lower = body.to_ascii_lowercase();
    let (radix, digits) = if let Some(d) = lower.strip_prefix("0x") {
        (16, d)
    } else if let Some(d) = lower.strip_prefix("0b") {
        (2, d)
    } else if let Some(d) = lower.strip_prefix("0o") {
        (8, d)
    } else {
        return None;
    };
    let v = u128::from_str_radix(digits, radix).ok()?;
    Some(format!("{sign}{v}"))
}

/// A string literal without its quotes (`"a"`, `'a'`; `\"` → `"`); other text as it is.
fn unquote(text: &str) -> String {
    for q in ['"', '\''] {
        if let Some(inner) = text
            .strip_prefix(q)
            .and_then(|t| t.strip_suffix(q))
            .filter(|_| text.len() >= 2)
        {
            let mut out = String::with_capacity(inner.len());
            let mut chars = inner.chars();
            while let Some(c) = chars.next() {
                if c == '\\' {
                    match chars.next() {
                        Some(n) if n == q || n == '\\' => out.push(n),
                        Some(n) => {
                            out.push('\\');
                            out.push(n);
                        }
                        None => out.push('\\'),
                    }
                } else {
                    out.push(c);
                }
            }
            return out;
        }
    }
    text.to_string()
}

/// A ROS 2 builtin type name → the primitive, its string bound (`string<=N`), and whether
/// it is a `wstring`. `byte` is an unsigned octet in ROS 2 (rosidl maps it to IDL `octet`).
fn primitive(base: &str) -> Option<(Primitive, Option<usize>, bool)> {
    for (name, wide) in [("string", false), ("wstring", true)] {
        if base == name {
            return Some((Primitive::String, None, wide));
        }
        if let Some(bound) = base.strip_prefix(name).and_then(|b| b.strip_prefix("<=")) {
            return Some((Primitive::String, Some(bound.parse().ok()?), wide));
        }
    }
    let p = match base {
        "bool" => Primitive::Bool,
        "byte" | "uint8" => Primitive::UInt8,
        "char" => Primitive::Char,
        "int8" => Primitive::Int8,
        "int16" => Primitive::Int16,
        "uint16" => Primitive::UInt16,
        "int32" => Primitive::Int32,
        "uint32" => Primitive::UInt32,
        "int64" => Primitive::Int64,
        "uint64" => Primitive::UInt64,
        "float32" => Primitive::Float32,
        "float64" => Primitive::Float64,
        _ => return None,
    };
    Some((p, None, false))
}

fn parse_field(type_text: &str, rest: &str, package: &str) -> Result<ParsedField, SyntaxError> {
    // The name, then an optional default value (ignored: it does not change the wire).
    let name = rest.split_whitespace().next().unwrap_or_default();
    if !is_legal_field_name(name) {
        return Err(SyntaxError::FieldName(name.to_string()));
    }
    let bad_type = || SyntaxError::FieldType(type_text.to_string());
    let (base, suffix) = match type_text.find('[') {
        Some(i) => (
            type_text.get(..i).unwrap_or_default(),
            type_text.get(i..).unwrap_or_default(),
        ),
        None => (type_text, ""),
    };
    let (array, seq_bound) = if suffix.is_empty() {
        (ArrayKind::Single, None)
    } else {
        let inner = suffix
            .strip_prefix('[')
            .and_then(|s| s.strip_suffix(']'))
            .ok_or_else(bad_type)?;
        if inner.is_empty() {
            (ArrayKind::Variable, None)
        } else if let Some(bound) = inner.strip_prefix("<=") {
            let bound = bound.parse().map_err(|_| bad_type())?;
            (ArrayKind::Variable, Some(bound))
        } else if inner.bytes().all(|b| b.is_ascii_digit()) {
            (
                ArrayKind::Fixed(inner.parse().map_err(|_| bad_type())?),
                None,
            )
        } else {
            return Err(bad_type());
        }
    };
    if let Some((p, str_bound, wide)) = primitive(base) {
        return Ok(ParsedField {
            name: name.to_string(),
            base: ParsedBase::Prim(p),
            array,
            type_text: type_text.to_string(),
            seq_bound,
            str_bound,
            wide,
        });
    }
    if base.contains('<') || !is_legal_type_name(base) {
        return Err(bad_type());
    }
    let full = if base.contains('/') || matches!(base, "Header" | "time" | "duration") {
        ros2_type_name(base)
    } else {
        format!("{package}/msg/{base}")
    };
    // As ROS 2 spells it: a qualified name as written, an unqualified one with its package.
    let shown = match base {
        "Header" => "std_msgs/Header".to_string(),
        _ if base.contains('/') || package.is_empty() => base.to_string(),
        "time" | "duration" => base.to_string(),
        _ => format!("{package}/{base}"),
    };
    Ok(ParsedField {
        name: name.to_string(),
        base: ParsedBase::Msg(full),
        array,
        type_text: format!("{shown}{suffix}"),
        seq_bound,
        str_bound: None,
        wide: false,
    })
}

fn is_legal_field_name(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_alphabetic())
        && chars.all(|c| c.is_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> ParsedMsg {
        parse_msg_at("pkg/msg/T", text, 1).unwrap()
    }

    #[test]
    fn names_are_canonical() {
        assert_eq!(ros2_type_name("std_msgs/Header"), ROS2_HEADER);
        assert_eq!(ros2_type_name("Header"), ROS2_HEADER);
        assert_eq!(
            ros2_type_name("geometry_msgs/Point"),
            "geometry_msgs/msg/Point"
        );
        assert_eq!(
            ros2_type_name("geometry_msgs/msg/Point"),
            "geometry_msgs/msg/Point"
        );
        assert_eq!(ros2_type_name("a/srv/B_Request"), "a/srv/B_Request");
        assert_eq!(ros2_type_name("time"), "builtin_interfaces/msg/Time");
    }

    #[test]
    fn bounds_defaults_and_wide_strings() {
        let m = parse(
            "string<=10 s\nwstring w \"x\"\nint32[<=5] a [1, 2]\nstring<=3[<=2] sb\n\
             float64[3] f [1.0, 2.0, 3.0]\nbyte b 7\nchar c\nint32 x 5 # five\n\
             string d \"a # not a comment\"  # a comment\nwstring<=4[] ws\n",
        );
        let f = &m.fields;
        assert_eq!(f.len(), 10);
        assert_eq!(f[0].str_bound, Some(10));
        assert_eq!(f[0].type_text, "string<=10");
        assert!(f[1].wide && f[1].str_bound.is_none());
        assert_eq!((f[2].array, f[2].seq_bound), (ArrayKind::Variable, Some(5)));
        assert_eq!(f[2].type_text, "int32[<=5]");
        assert_eq!((f[3].str_bound, f[3].seq_bound), (Some(3), Some(2)));
        assert_eq!(f[4].array, ArrayKind::Fixed(3));
        assert_eq!(f[5].base, ParsedBase::Prim(Primitive::UInt8));
        assert_eq!(f[5].type_text, "byte");
        assert_eq!(f[6].base, ParsedBase::Prim(Primitive::Char));
        assert_eq!(f[7].name, "x");
        assert_eq!(f[8].name, "d");
        assert!(f[9].wide && f[9].str_bound == Some(4));
        assert!(m.constants.is_empty());
    }

    #[test]
    fn constants() {
        let m = parse(
            "int32 X=5\nint32 Y = -7\nstring S=\"a#b\" # c\nstring Q='it\\'s'\n\
             bool B=true\nuint8 H=0x1F\nfloat64 F=1.5e3\nstring R=raw text\n",
        );
        let values: Vec<_> = m.constants.iter().map(|c| c.value().clone()).collect();
        assert_eq!(
            values,
            [
                ConstValue::Int(5),
                ConstValue::Int(-7),
                ConstValue::String("a#b".into()),
                ConstValue::String("it's".into()),
                ConstValue::Bool(true),
                ConstValue::UInt(31),
                ConstValue::Float(1500.0),
                ConstValue::String("raw text".into()),
            ]
        );
        assert!(m.fields.is_empty());
        assert!(parse_msg_at("p/msg/T", "uint8 X=300\n", 1).is_err());
        assert!(parse_msg_at("p/msg/T", "wstring W=\"a\"\n", 1).is_err());
    }

    #[test]
    fn type_resolution() {
        let m = parse(
            "Header h\nPoint p\ngeometry_msgs/Pose pose\ngeometry_msgs/msg/Twist[] t\n\
             builtin_interfaces/Time stamp\ntime old\nPart[<=3] parts\n",
        );
        let bases: Vec<_> = m
            .fields
            .iter()
            .map(|f| match &f.base {
                ParsedBase::Msg(n) => n.as_str(),
                ParsedBase::Prim(_) => "",
            })
            .collect();
        assert_eq!(
            bases,
            [
                "std_msgs/msg/Header",
                "pkg/msg/Point",
                "geometry_msgs/msg/Pose",
                "geometry_msgs/msg/Twist",
                "builtin_interfaces/msg/Time",
                "builtin_interfaces/msg/Time",
                "pkg/msg/Part",
            ]
        );
        let shown: Vec<_> = m.fields.iter().map(|f| f.type_text.as_str()).collect();
        assert_eq!(
            shown,
            [
                "std_msgs/Header",
                "pkg/Point",
                "geometry_msgs/Pose",
                "geometry_msgs/msg/Twist[]",
                "builtin_interfaces/Time",
                "time",
                "pkg/Part[<=3]",
            ]
        );
    }

    #[test]
    fn bad_lines_name_their_line() {
        for (text, line) in [
            ("int32 x\nint32\n", 2),
            ("int32[<=a] x\n", 1),
            ("int32[][] x\n", 1),
            ("string<=x s\n", 1),
            ("int32 9x\n", 1),
            ("Foo<3 x\n", 1),
        ] {
            match parse_msg_at("p/msg/T", text, 1) {
                Err(MsgError::Syntax { line: l, .. }) => assert_eq!(l, line, "{text}"),
                other => panic!("{text}: {other:?}"),
            }
        }
    }
}
