//! [`Value`] → RoCKIn YAML text: one list item per message, the body laid out as
//! `rostopic echo` does (two-space indentation, `secs`/`nsecs` for times, Python's float
//! `repr`, `True`/`False`, double-quoted strings), with binary fields as `!!binary` base64
//! as the specification allows. Every value is written so that reading it back gives the
//! same value: floats in shortest round-trip form (float32 widened as genpy prints it),
//! strings on one line with escapes, strings that are not UTF-8 as `!!binary`.

use std::fmt::Write as _;

use crate::msg::{Message, Primitive, Value};
use crate::time::RosTime;

use super::base64;

/// Writes one list item.
pub(crate) fn write_item(
    out: &mut String,
    topic: &str,
    datatype: Option<&str>,
    time: RosTime,
    value: &Value<'_>,
) {
    out.push_str("- topic: ");
    write_key_text(out, topic);
    out.push('\n');
    if let Some(dt) = datatype {
        out.push_str("  type: ");
        write_key_text(out, dt);
        out.push('\n');
    }
    let time = if time.nsec >= 1_000_000_000 {
        time.normalized()
    } else {
        time
    };
    let _ = writeln!(out, "  secs: {}\n  nsecs: {}", time.sec, time.nsec);
    out.push_str("  message:");
    match value {
        Value::Message(m) if m.values().is_empty() => out.push_str(" {}\n"),
        Value::Message(m) => {
            out.push('\n');
            write_fields(out, m, 4, None);
        }
        // Not a message (cannot come from a decoder): keep the output well-formed.
        other => {
            out.push(' ');
            write_flow_scalar(out, other);
            out.push('\n');
        }
    }
}

/// A topic or type name: plain when that reads back as the same string in any YAML reader,
/// else double-quoted.
fn write_key_text(out: &mut String, s: &str) {
    let plain = !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'/' | b'~' | b'.' | b'-'))
        && !s.starts_with(['-', '.', '~'])
        && s.bytes().any(|b| b.is_ascii_alphabetic())
        && !matches!(
            s.to_ascii_lowercase().as_str(),
            "true" | "false" | "yes" | "no" | "on" | "off" | "null" | "y" | "n" | "nan" | "inf"
        );
    if plain {
        out.push_str(s);
    } else {
        write_double_quoted(out, s);
    }
}

fn indent(out: &mut String, n: usize) {
    for _ in 0..n {
        out.push(' ');
    }
}

/// The fields of `m`, one per line at `ind` spaces; the first line starts with `lead`
/// instead of the indentation when given (`- ` items).
fn write_fields(out: &mut String, m: &Message<'_>, ind: usize, lead: Option<&str>) {
    for (i, (field, v)) in m.ty().fields().iter().zip(m.values()).enumerate() {
        match lead {
            Some(l) if i == 0 => out.push_str(l),
            _ => indent(out, ind),
        }
        out.push_str(field.name());
        out.push(':');
        write_value(out, v, ind);
    }
}

/// Everything after `key:` for a value, final line break included.
fn write_value(out: &mut String, v: &Value<'_>, ind: usize) {
    match v {
        Value::Time(t) => {
            let _ = write!(
                out,
                "\n{:ind$}secs: {}\n{:ind$}nsecs: {}\n",
                "",
                t.sec,
                "",
                t.nsec,
                ind = ind + 2
            );
        }
        Value::Duration(d) => {
            let _ = write!(
                out,
                "\n{:ind$}secs: {}\n{:ind$}nsecs: {}\n",
                "",
                d.sec,
                "",
                d.nsec,
                ind = ind + 2
            );
        }
        Value::Bytes(b) if b.is_empty() => out.push_str(" []\n"),
        Value::Bytes(b) => {
            out.push_str(" !!binary ");
            base64::encode_into(b, out);
            out.push('\n');
        }
        Value::PrimArray(a) if a.is_empty() => out.push_str(" []\n"),
        Value::PrimArray(a) if matches!(a.elem(), Primitive::Time | Primitive::Duration) => {
            out.push('\n');
            for item in a.iter() {
                let (s, n) = match item {
                    Value::Time(t) => (i64::from(t.sec), i64::from(t.nsec)),
                    Value::Duration(d) => (i64::from(d.sec), i64::from(d.nsec)),
                    _ => (0, 0),
                };
                let _ = write!(
                    out,
                    "{:ind$}- secs: {s}\n{:ind2$}nsecs: {n}\n",
                    "",
                    "",
                    ind = ind + 2,
                    ind2 = ind + 4
                );
            }
        }
        Value::PrimArray(a) => {
            out.push_str(" [");
            for (i, item) in a.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_flow_scalar(out, &item);
            }
            out.push_str("]\n");
        }
        Value::Array(items) if items.is_empty() => out.push_str(" []\n"),
        Value::Array(items) => {
            out.push('\n');
            let lead = format!("{:ind$}- ", "", ind = ind + 2);
            for item in items {
                match item {
                    Value::Message(m) if m.values().is_empty() => {
                        out.push_str(&lead);
                        out.push_str("{}\n");
                    }
                    Value::Message(m) => write_fields(out, m, ind + 4, Some(&lead)),
                    Value::Array(_)
                    | Value::PrimArray(_)
                    | Value::Bytes(_)
                    | Value::Time(_)
                    | Value::Duration(_) => {
                        // Arrays of arrays do not exist in ROS 1; keep the output readable.
                        out.push_str(&lead);
                        out.push_str("[]\n");
                    }
                    scalar => {
                        out.push_str(&lead);
                        write_flow_scalar(out, scalar);
                        out.push('\n');
                    }
                }
            }
        }
        Value::Message(m) if m.values().is_empty() => out.push_str(" {}\n"),
        Value::Message(m) => {
            out.push('\n');
            write_fields(out, m, ind + 2, None);
        }
        scalar => {
            out.push(' ');
            write_flow_scalar(out, scalar);
            out.push('\n');
        }
    }
}

/// A scalar on one line.
fn write_flow_scalar(out: &mut String, v: &Value<'_>) {
    match v {
        Value::Bool(b) => out.push_str(if *b { "True" } else { "False" }),
        Value::I8(x) => push_int(out, *x),
        Value::U8(x) => push_int(out, *x),
        Value::I16(x) => push_int(out, *x),
        Value::U16(x) => push_int(out, *x),
        Value::I32(x) => push_int(out, *x),
        Value::U32(x) => push_int(out, *x),
        Value::I64(x) => push_int(out, *x),
        Value::U64(x) => push_int(out, *x),
        Value::F32(x) => {
            let _ = crate::msg::pyrepr::write_float(out, f64::from(*x));
        }
        Value::F64(x) => {
            let _ = crate::msg::pyrepr::write_float(out, *x);
        }
        Value::String(b) => write_string(out, b),
        Value::Time(t) => {
            let _ = write!(out, "{{secs: {}, nsecs: {}}}", t.sec, t.nsec);
        }
        Value::Duration(d) => {
            let _ = write!(out, "{{secs: {}, nsecs: {}}}", d.sec, d.nsec);
        }
        Value::Bytes(_) | Value::PrimArray(_) | Value::Array(_) | Value::Message(_) => {
            out.push_str("[]");
        }
    }
}

fn push_int(out: &mut String, v: impl std::fmt::Display) {
    let _ = write!(out, "{v}");
}

/// A `string` value: `''` when empty, double-quoted when UTF-8, else `!!binary` base64.
fn write_string(out: &mut String, bytes: &[u8]) {
    if bytes.is_empty() {
        out.push_str("''");
        return;
    }
    if let Ok(s) = std::str::from_utf8(bytes) {
        write_double_quoted(out, s);
    } else {
        out.push_str("!!binary ");
        base64::encode_into(bytes, out);
    }
}

/// A double-quoted scalar on one line: `"` and `\` escaped, and every character YAML does
/// not allow as is (controls, `U+0085`, line and paragraph separators, the BOM, non-
/// characters).
fn write_double_quoted(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\0' => out.push_str("\\0"),
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\u{b}' => out.push_str("\\v"),
            '\u{c}' => out.push_str("\\f"),
            '\r' => out.push_str("\\r"),
            '\u{1b}' => out.push_str("\\e"),
            '\u{85}' => out.push_str("\\N"),
            '\u{2028}' => out.push_str("\\L"),
            '\u{2029}' => out.push_str("\\P"),
            c if printable(c) => out.push(c),
            c if u32::from(c) <= 0xFF => {
                let _ = write!(out, "\\x{:02X}", u32::from(c));
            }
            c if u32::from(c) <= 0xFFFF => {
                let _ = write!(out, "\\u{:04X}", u32::from(c));
            }
            c => {
                let _ = write!(out, "\\U{:08X}", u32::from(c));
            }
        }
    }
    out.push('"');
}

/// YAML's printable characters (besides tab and line breaks, handled above).
fn printable(c: char) -> bool {
    matches!(u32::from(c), 0x20..=0x7E | 0xA0..=0xD7FF | 0xE000..=0xFFFD | 0x10000..=0x10_FFFF)
        && c != '\u{feff}'
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_are_escaped_and_non_utf8_is_binary() {
        let mut s = String::new();
        write_string(&mut s, "a\"b\\c\n\t\u{1}\u{7f}é\u{feff}😀".as_bytes());
        assert_eq!(s, "\"a\\\"b\\\\c\\n\\t\\x01\\x7Fé\\uFEFF😀\"");
        s.clear();
        write_string(&mut s, b"\xff\x00");
        assert_eq!(s, "!!binary /wA=");
        s.clear();
        write_string(&mut s, b"");
        assert_eq!(s, "''");
        s.clear();
        write_key_text(&mut s, "pose2d");
        write_key_text(&mut s, "/a b");
        write_key_text(&mut s, "true");
        write_key_text(&mut s, "123");
        assert_eq!(s, "pose2d\"/a b\"\"true\"\"123\"");
    }
}
