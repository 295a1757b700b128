//! A decoded message → RoCKIn YAML text: one list item per message, the body laid out as
//! `rostopic echo` does (two-space indentation, `secs`/`nsecs` for times, Python's float
//! `repr`, `True`/`False`, double-quoted strings), with binary fields as `!!binary` base64
//! as the specification allows. Every value is written so that reading it back gives the
//! same value: floats in shortest round-trip form (float32 widened as genpy prints it),
//! strings on one line with escapes, strings that are not UTF-8 as `!!binary`.

use std::fmt::Write as _;

use crate::msg::{Decoded, MessageRef, Primitive, ValueRef};
use crate::time::RosTime;

use super::base64;

/// Writes one list item.
pub(crate) fn write_item(
    out: &mut String,
    topic: &str,
    datatype: Option<&str>,
    time: RosTime,
    message: &Decoded<'_>,
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
    let root = message.root();
    if root.ty().fields().is_empty() {
        out.push_str(" {}\n");
    } else {
        out.push('\n');
        write_fields(out, &root, 4, None);
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
fn write_fields(out: &mut String, m: &MessageRef<'_>, ind: usize, lead: Option<&str>) {
    for (i, (field, v)) in m.ty().fields().iter().zip(m.values()).enumerate() {
        match lead {
            Some(l) if i == 0 => out.push_str(l),
            _ => indent(out, ind),
        }
        out.push_str(field.name());
        out.push(':');
        write_value(out, &v, ind);
    }
}

/// Everything after `key:` for a value, final line break included.
fn write_value(out: &mut String, v: &ValueRef<'_>, ind: usize) {
    match v {
        ValueRef::Time(t) => {
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
        ValueRef::Duration(d) => {
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
        ValueRef::Bytes([]) => out.push_str(" []\n"),
        ValueRef::Bytes(b) => {
            out.push_str(" !!binary ");
            base64::encode_into(b, out);
            out.push('\n');
        }
        ValueRef::PrimArray(a) if a.is_empty() => out.push_str(" []\n"),
        ValueRef::PrimArray(a) if matches!(a.elem(), Primitive::Time | Primitive::Duration) => {
            out.push('\n');
            for item in a.refs() {
                let (s, n) = match item {
                    ValueRef::Time(t) => (i64::from(t.sec), i64::from(t.nsec)),
                    ValueRef::Duration(d) => (i64::from(d.sec), i64::from(d.nsec)),
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
        ValueRef::PrimArray(a) => {
            out.push_str(" [");
            for (i, item) in a.refs().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_flow_scalar(out, &item);
            }
            out.push_str("]\n");
        }
        ValueRef::Array(items) if items.is_empty() => out.push_str(" []\n"),
        ValueRef::Array(items) => {
            out.push('\n');
            let lead = format!("{:ind$}- ", "", ind = ind + 2);
            for item in items.iter() {
                match item {
                    ValueRef::Message(m) if m.ty().fields().is_empty() => {
                        out.push_str(&lead);
                        out.push_str("{}\n");
                    }
                    ValueRef::Message(m) => write_fields(out, &m, ind + 4, Some(&lead)),
                    ValueRef::Array(_)
                    | ValueRef::PrimArray(_)
                    | ValueRef::Bytes(_)
                    | ValueRef::Time(_)
                    | ValueRef::Duration(_) => {
                        // Arrays of arrays do not exist in ROS 1; keep the output readable.
                        out.push_str(&lead);
                        out.push_str("[]\n");
                    }
                    scalar => {
                        out.push_str(&lead);
                        write_flow_scalar(out, &scalar);
                        out.push('\n');
                    }
                }
            }
        }
        ValueRef::Message(m) if m.ty().fields().is_empty() => out.push_str(" {}\n"),
        ValueRef::Message(m) => {
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
fn write_flow_scalar(out: &mut String, v: &ValueRef<'_>) {
    match v {
        ValueRef::Bool(b) => out.push_str(if *b { "True" } else { "False" }),
        ValueRef::I8(x) => push_int(out, *x),
        ValueRef::U8(x) => push_int(out, *x),
        ValueRef::I16(x) => push_int(out, *x),
        ValueRef::U16(x) => push_int(out, *x),
        ValueRef::I32(x) => push_int(out, *x),
        ValueRef::U32(x) => push_int(out, *x),
        ValueRef::I64(x) => push_int(out, *x),
        ValueRef::U64(x) => push_int(out, *x),
        ValueRef::F32(x) => {
            let _ = crate::msg::pyrepr::write_float(out, f64::from(*x));
        }
        ValueRef::F64(x) => {
            let _ = crate::msg::pyrepr::write_float(out, *x);
        }
        ValueRef::String(b) => write_string(out, b),
        ValueRef::Time(t) => {
            let _ = write!(out, "{{secs: {}, nsecs: {}}}", t.sec, t.nsec);
        }
        ValueRef::Duration(d) => {
            let _ = write!(out, "{{secs: {}, nsecs: {}}}", d.sec, d.nsec);
        }
        ValueRef::Bytes(_) | ValueRef::PrimArray(_) | ValueRef::Array(_) | ValueRef::Message(_) => {
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
