//! The `.msg` text parser: one type's text → fields and constants, and a connection's full
//! `message_definition` → its `MSG:` sections. Mirrors genmsg's `msg_loader` line rules.

use super::constant::{self, Constant};
use super::error::{MsgError, SyntaxError};
use super::primitive::Primitive;
use super::types::ArrayKind;

/// The full name of the standard header type.
pub(crate) const HEADER: &str = "std_msgs/Header";

/// A field's element type before the referenced message types are compiled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ParsedBase {
    Prim(Primitive),
    /// A message type, resolved to its full `pkg/Type` name.
    Msg(String),
}

/// One field line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ParsedField {
    pub name: String,
    pub base: ParsedBase,
    pub array: ArrayKind,
    /// The type as genmsg keeps it: resolved base plus the array suffix as written.
    pub type_text: String,
    /// ROS 2 `T[<=N]`: the sequence's upper bound (always `None` in ROS1).
    pub seq_bound: Option<usize>,
    /// ROS 2 `string<=N`: the string's upper bound (always `None` in ROS1).
    pub str_bound: Option<usize>,
    /// ROS 2 `wstring` (always `false` in ROS1).
    pub wide: bool,
}

/// One type's text, parsed.
#[derive(Debug, Clone, Default)]
pub(crate) struct ParsedMsg {
    pub fields: Vec<ParsedField>,
    pub constants: Vec<Constant>,
}

/// One section of a full definition: the main text, or a `MSG: pkg/Type` dependency.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Section<'d> {
    /// `None` for the main text; the (alias-resolved) type name for a dependency.
    pub name: Option<String>,
    /// The section's text, exactly as genpy splits it.
    pub text: &'d str,
    /// 1-based line number of the first text line within the full definition.
    pub first_line: usize,
}

/// The package part of `pkg/Type` (empty when there is none).
pub(crate) fn package_of(datatype: &str) -> &str {
    datatype.split_once('/').map_or("", |(pkg, _)| pkg)
}

/// Maps the historical names of the header type to `std_msgs/Header`.
pub(crate) fn canonical_type_name(name: &str) -> &str {
    if name == "Header" || name == "roslib/Header" {
        HEADER
    } else {
        name
    }
}

/// Resolves a non-builtin field type against the package of the enclosing message.
pub(crate) fn resolve_type(base: &str, package: &str) -> String {
    let base = canonical_type_name(base);
    if base.contains('/') || package.is_empty() {
        base.to_string()
    } else {
        format!("{package}/{base}")
    }
}

/// True for a legal `pkg/Type` (or bare `Type`) name.
pub(crate) fn is_legal_type_name(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_alphabetic())
        && chars.all(|c| c.is_alphanumeric() || c == '_' || c == '/')
        && !name.contains("//")
}

fn is_legal_field_name(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_alphabetic())
        && chars.all(|c| c.is_alphanumeric() || c == '_')
}

/// A line of `=` characters separating the sections of a full definition.
fn is_separator(line: &str) -> bool {
    let line = line.trim_end_matches('\r');
    line.len() >= 3 && line.bytes().all(|b| b == b'=')
}

/// Splits a full definition into its main text and `MSG:` sections.
pub(crate) fn split_sections<'d>(
    datatype: &str,
    definition: &'d str,
) -> Result<Vec<Section<'d>>, MsgError> {
    let header_error = |line: usize, text: &str| MsgError::Syntax {
        datatype: datatype.to_string(),
        line,
        text: text.to_string(),
        error: SyntaxError::SectionHeader,
    };
    let mut sections = Vec::new();
    let mut name: Option<String> = None;
    let mut start = 0usize;
    let mut first_line = 1usize;
    let mut expect_header = false;
    let mut pos = 0usize;
    for (i, line) in definition.split('\n').enumerate() {
        let line_no = i + 1;
        let line_start = pos;
        pos = pos.saturating_add(line.len() + 1);
        if expect_header {
            let ty = line
                .trim()
                .strip_prefix("MSG:")
                .map(str::trim)
                .filter(|ty| is_legal_type_name(ty))
                .ok_or_else(|| header_error(line_no, line))?;
            name = Some(canonical_type_name(ty).to_string());
            start = pos.min(definition.len());
            first_line = line_no + 1;
            expect_header = false;
        } else if is_separator(line) {
            // The section ends before the '\n' that precedes the separator.
            let end = line_start.saturating_sub(1).max(start);
            sections.push(Section {
                name: name.take(),
                text: definition.get(start..end).unwrap_or_default(),
                first_line,
            });
            expect_header = true;
        }
    }
    if expect_header {
        return Err(header_error(first_line, ""));
    }
    sections.push(Section {
        name,
        text: definition.get(start..).unwrap_or_default(),
        first_line,
    });
    Ok(sections)
}

/// The part of a line before any `#`, trimmed (genmsg's `_strip_comments`).
fn strip_comment(line: &str) -> &str {
    line.split('#').next().unwrap_or_default().trim()
}

/// True when the text declares nothing (only blank lines and comments).
pub(crate) fn is_blank(text: &str) -> bool {
    text.split('\n').all(|line| strip_comment(line).is_empty())
}

/// Parses the text of one type. `datatype` is its full name (for resolution and errors).
#[cfg(test)]
pub(crate) fn parse_msg(datatype: &str, text: &str) -> Result<ParsedMsg, MsgError> {
    parse_msg_at(datatype, text, 1)
}

/// [`parse_msg`] with the line number of the text's first line within a larger definition.
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
        if clean.contains('=') {
            msg.constants
                .push(parse_constant(line, clean).map_err(err)?);
        } else {
            msg.fields.push(parse_field(clean, package).map_err(err)?);
        }
    }
    Ok(msg)
}

fn parse_constant(line: &str, clean: &str) -> Result<Constant, SyntaxError> {
    let mut tokens = clean.split_whitespace();
    let type_text = tokens.next().unwrap_or_default();
    let ty = Primitive::from_name(type_text)
        .filter(|p| p.can_be_constant())
        .ok_or_else(|| SyntaxError::ConstantType(type_text.to_string()))?;
    let (raw_name, value_text): (String, String) = if ty == Primitive::String {
        // Everything right of the first '=' is the value, '#' included (genmsg); the name is
        // what lies between the first space and that '='.
        let eq = line.find('=').unwrap_or_default();
        let name_start = line.find(' ').map_or(0, |i| i + 1);
        let raw_name = if name_start <= eq {
            line.get(name_start..eq).unwrap_or_default()
        } else {
            ""
        };
        let value = line.get(eq + 1..).unwrap_or_default().trim();
        (raw_name.to_string(), value.to_string())
    } else {
        let rest = tokens.collect::<Vec<_>>().join(" ");
        let mut parts = rest.split('=');
        let (Some(name), Some(value), None) = (parts.next(), parts.next(), parts.next()) else {
            return Err(SyntaxError::ConstantDeclaration);
        };
        (name.trim().to_string(), value.trim().to_string())
    };
    let name = raw_name.trim();
    if name.is_empty() {
        return Err(SyntaxError::ConstantDeclaration);
    }
    let value = constant::convert(ty, &value_text).ok_or_else(|| SyntaxError::ConstantValue {
        ty: type_text.to_string(),
        value: value_text.clone(),
    })?;
    Ok(Constant {
        ty,
        name: name.to_string(),
        md5_line: format!("{type_text} {name}={value_text}"),
        value_text,
        value,
    })
}

fn parse_field(clean: &str, package: &str) -> Result<ParsedField, SyntaxError> {
    let mut tokens = clean.split_whitespace();
    let (Some(type_text), Some(name), None) = (tokens.next(), tokens.next(), tokens.next()) else {
        return Err(SyntaxError::FieldDeclaration);
    };
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
    if !is_legal_type_name(base) {
        return Err(bad_type());
    }
    let array = if suffix.is_empty() {
        ArrayKind::Single
    } else {
        let inner = suffix
            .strip_prefix('[')
            .and_then(|s| s.strip_suffix(']'))
            .ok_or_else(bad_type)?;
        if inner.is_empty() {
            ArrayKind::Variable
        } else if inner.bytes().all(|b| b.is_ascii_digit()) {
            ArrayKind::Fixed(inner.parse().map_err(|_| bad_type())?)
        } else {
            return Err(bad_type());
        }
    };
    let (parsed_base, resolved) = if let Some(p) = Primitive::from_name(base) {
        (ParsedBase::Prim(p), base.to_string())
    } else {
        let full = resolve_type(base, package);
        (ParsedBase::Msg(full.clone()), full)
    };
    Ok(ParsedField {
        name: name.to_string(),
        base: parsed_base,
        array,
        type_text: format!("{resolved}{suffix}"),
        seq_bound: None,
        str_bound: None,
        wide: false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_sections_like_genpy() {
        let sep = "=".repeat(80);
        let def = format!("Header header\nint32 x\n\n{sep}\nMSG: std_msgs/Header\nuint32 seq\n");
        let s = split_sections("a/B", &def).unwrap();
        assert_eq!(s.len(), 2);
        assert_eq!(s[0].name, None);
        assert_eq!(s[0].text, "Header header\nint32 x\n");
        assert_eq!(s[1].name.as_deref(), Some("std_msgs/Header"));
        assert_eq!(s[1].text, "uint32 seq\n");
        assert_eq!(s[1].first_line, 6);
        let roslib = format!("x\n{sep}\nMSG: roslib/Header\ny");
        assert_eq!(
            split_sections("a/B", &roslib).unwrap()[1].name.as_deref(),
            Some(HEADER)
        );
        let bad = format!("x\n{sep}\nnot a header\ny");
        assert!(matches!(
            split_sections("a/B", &bad),
            Err(MsgError::Syntax { line: 3, .. })
        ));
        assert_eq!(split_sections("a/B", "").unwrap()[0].text, "");
    }

    #[test]
    fn parses_fields_constants_and_resolution() {
        let text = "Header header # comment\n  Point[] pts\nbyte b\nchar[4] c\n\
                    geometry_msgs/Pose p\nuint8 FIX = 3 # x=y\n\
                    string S=a # not a comment = really\nfloat64 K=-2.5e-3\n";
        let m = parse_msg("pkg/T", text).unwrap();
        let types: Vec<_> = m.fields.iter().map(|f| f.type_text.as_str()).collect();
        assert_eq!(
            types,
            [
                "std_msgs/Header",
                "pkg/Point[]",
                "byte",
                "char[4]",
                "geometry_msgs/Pose"
            ]
        );
        assert_eq!(m.fields[1].array, ArrayKind::Variable);
        assert_eq!(m.fields[3].array, ArrayKind::Fixed(4));
        assert_eq!(m.constants.len(), 3);
        assert_eq!(m.constants[0].md5_line, "uint8 FIX=3");
        assert_eq!(m.constants[1].value_text(), "a # not a comment = really");
        assert_eq!(
            m.constants[1].md5_line,
            "string S=a # not a comment = really"
        );
        assert_eq!(m.constants[2].md5_line, "float64 K=-2.5e-3");
    }

    #[test]
    fn rejects_bad_lines_with_their_number() {
        for (text, line) in [
            ("int32 x\nint32\n", 2),
            ("int32 x y\n", 1),
            ("int32[][] x\n", 1),
            ("int32[a] x\n", 1),
            ("int32 9x\n", 1),
            ("time T=3\n", 1),
            ("uint8 X=300\n", 1),
            ("int32 X=1=2\n", 1),
        ] {
            match parse_msg("p/T", text) {
                Err(MsgError::Syntax { line: l, .. }) => assert_eq!(l, line, "{text}"),
                other => panic!("{text}: {other:?}"),
            }
        }
    }

    #[test]
    fn blank_texts() {
        assert!(is_blank(""));
        assert!(is_blank("\n# only a comment\n  \n"));
        assert!(!is_blank("int32 x"));
    }
}
