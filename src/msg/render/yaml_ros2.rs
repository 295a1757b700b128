//! Messages as `ros2 topic echo --full-length` prints them: rosidl_runtime_py's
//! `message_to_yaml`, that is PyYAML's `yaml.dump(message_to_ordereddict(msg),
//! allow_unicode=True, width=sys.maxsize, default_flow_style=False)`, then `---`.
//!
//! Block style throughout: nested messages as indented mappings, every array (numbers
//! included) as `- item` lines at the indent of its key (PyYAML does not indent a sequence
//! inside a mapping), an empty array `[]`, an empty message `{}`; `true`/`false`; floats as
//! PyYAML writes Python floats (`1.0`, `0.10000000149011612` for a `float32` 0.1, `1.0e+17`,
//! `.nan`, `-.inf`); strings plain or quoted as PyYAML chooses, printable non-ASCII text as it
//! is. `builtin_interfaces/Time` is the message it is (`sec`, `nanosec`).
//!
//! Choices where rosidl has no answer or bagscope differs on purpose:
//! - arrays and strings are printed whole (`ros2 topic echo` cuts them at 128 elements or
//!   characters unless given `--full-length`);
//! - `uint8[]`, `char[]` and `byte[]` arrays print as lists of integers (rclpy holds the
//!   first as integers; `byte` values would print as one-character strings);
//! - a field path's value (`echo /topic/field`) prints as its YAML: a message as a mapping,
//!   an array as `- item` lines, a scalar alone, then `---`.

use std::fmt::{self, Write};

use super::{pyrepr, pyyaml, write_bool_or_integer};
use crate::msg::{Decoded, MessageRef, ValueRef};

/// Writes a message as `message_to_yaml` does, each line ending in a newline, without the
/// separator.
pub fn write_message<W: Write + ?Sized>(out: &mut W, message: &Decoded<'_>) -> fmt::Result {
    write_root(out, &message.root())
}

/// Writes a message followed by `---`: exactly one `ros2 topic echo` block.
pub fn write_echo<W: Write + ?Sized>(out: &mut W, message: &Decoded<'_>) -> fmt::Result {
    write_message(out, message)?;
    out.write_str("---\n")
}

/// [`write_message`] into a new `String`.
pub fn message_to_string(message: &Decoded<'_>) -> String {
    let mut out = String::new();
    // Writing to a String cannot fail.
    let _ = write_message(&mut out, message);
    out
}

/// Writes the values a field path names followed by `---`: one value as its YAML (see the
/// module's notes), several (a `[*]` path) as one list.
pub fn write_echo_values<W: Write + ?Sized>(out: &mut W, values: &[ValueRef<'_>]) -> fmt::Result {
    match values {
        [] => out.write_str("[]\n")?,
        [ValueRef::Message(m)] => write_root(out, m)?,
        [one] if !is_sequence(one) => {
            let mut text = String::new();
            write_scalar(&mut text, one, 0);
            // The scalar starts with the space written after `key:`.
            out.write_str(text.strip_prefix(' ').unwrap_or(&text))?;
            out.write_char('\n')?;
        }
        [one] if items_of(one).is_empty() => out.write_str("[]\n")?,
        [one] => write_items(out, &items_of(one), 0, true)?,
        many => write_items(out, many, 0, true)?,
    }
    out.write_str("---\n")
}

/// A message at the top: its fields from the first column, or `{}`.
fn write_root<W: Write + ?Sized>(out: &mut W, m: &MessageRef<'_>) -> fmt::Result {
    if m.ty().fields().is_empty() {
        return out.write_str("{}\n");
    }
    write_fields(out, m, 0, true)?;
    out.write_char('\n')
}

/// True for values written as a sequence.
fn is_sequence(v: &ValueRef<'_>) -> bool {
    matches!(
        v,
        ValueRef::Bytes(_) | ValueRef::PrimArray(_) | ValueRef::Array(_)
    )
}

/// The elements of an array value.
fn items_of<'d>(v: &ValueRef<'d>) -> Vec<ValueRef<'d>> {
    match v {
        ValueRef::Bytes(b) => b.iter().map(|&x| ValueRef::U8(x)).collect(),
        ValueRef::PrimArray(a) => a.refs().collect(),
        ValueRef::Array(a) => a.iter().collect(),
        _ => Vec::new(),
    }
}

/// The fields of a non-empty message as `key: value` lines at `indent`; the first on the
/// current line when `inline_first` (at the start, or after `- `).
fn write_fields<W: Write + ?Sized>(
    out: &mut W,
    m: &MessageRef<'_>,
    indent: usize,
    inline_first: bool,
) -> fmt::Result {
    for (i, (name, value)) in m.iter().enumerate() {
        if i > 0 || !inline_first {
            new_line(out, indent)?;
        }
        // A field name is a simple key: plain unless it reads as something else (`on`).
        let key = pyyaml::dump_unicode_value(name, indent);
        out.write_str(key.strip_prefix(' ').unwrap_or(&key))?;
        out.write_char(':')?;
        write_value(out, &value, indent)?;
    }
    Ok(())
}

/// The value of a key at `indent`, from right after its `:`.
fn write_value<W: Write + ?Sized>(out: &mut W, value: &ValueRef<'_>, indent: usize) -> fmt::Result {
    match value {
        ValueRef::Message(m) if m.ty().fields().is_empty() => out.write_str(" {}"),
        ValueRef::Message(m) => write_fields(out, m, indent + 2, false),
        v if is_sequence(v) => {
            let items = items_of(v);
            if items.is_empty() {
                out.write_str(" []")
            } else {
                write_items(out, &items, indent, false)
            }
        }
        v => {
            let mut text = String::new();
            write_scalar(&mut text, v, indent + 2);
            out.write_str(&text)
        }
    }
}

/// `- item` lines at `indent`; the first on the current line when `inline_first` (the
/// top-level sequence of a field path's values).
fn write_items<W: Write + ?Sized>(
    out: &mut W,
    items: &[ValueRef<'_>],
    indent: usize,
    inline_first: bool,
) -> fmt::Result {
    for (i, item) in items.iter().enumerate() {
        if i > 0 || !inline_first {
            new_line(out, indent)?;
        }
        out.write_char('-')?;
        match item {
            ValueRef::Message(m) if m.ty().fields().is_empty() => out.write_str(" {}")?,
            ValueRef::Message(m) => {
                out.write_char(' ')?;
                write_fields(out, m, indent + 2, true)?;
            }
            v => {
                let mut text = String::new();
                write_scalar(&mut text, v, indent + 2);
                out.write_str(&text)?;
            }
        }
    }
    if inline_first {
        out.write_char('\n')?;
    }
    Ok(())
}

fn new_line<W: Write + ?Sized>(out: &mut W, indent: usize) -> fmt::Result {
    out.write_char('\n')?;
    for _ in 0..indent {
        out.write_char(' ')?;
    }
    Ok(())
}

/// A scalar as PyYAML writes it after `key:` or `-` (its leading space included); a string's
/// continuation lines are indented `indent`.
fn write_scalar(out: &mut String, value: &ValueRef<'_>, indent: usize) {
    match value {
        ValueRef::Bool(b) => out.push_str(if *b { " true" } else { " false" }),
        ValueRef::F32(v) => write_float(out, f64::from(*v)),
        ValueRef::F64(v) => write_float(out, *v),
        ValueRef::String(bytes) => {
            out.push_str(&pyyaml::dump_unicode_value(
                &String::from_utf8_lossy(bytes),
                indent,
            ));
        }
        // ROS1 times have no place in a ROS 2 message; written as rosidl would a
        // `builtin_interfaces/Time`, should a decoder produce one.
        ValueRef::Time(t) => {
            let pad = " ".repeat(indent);
            let _ = write!(out, "\n{pad}sec: {}\n{pad}nanosec: {}", t.sec, t.nsec);
        }
        ValueRef::Duration(d) => {
            let pad = " ".repeat(indent);
            let _ = write!(out, "\n{pad}sec: {}\n{pad}nanosec: {}", d.sec, d.nsec);
        }
        v => {
            out.push(' ');
            if write_bool_or_integer(out, v).is_none() {
                out.push_str("null");
            }
        }
    }
}

/// PyYAML's `represent_float`: `.nan`, `.inf`, `-.inf`, else Python's `repr` in lower case
/// with `.0` put before an exponent that follows no point (`1e+17` → `1.0e+17`).
fn write_float(out: &mut String, x: f64) {
    out.push(' ');
    if x.is_nan() {
        out.push_str(".nan");
    } else if x.is_infinite() {
        out.push_str(if x > 0.0 { ".inf" } else { "-.inf" });
    } else {
        let mut text = String::new();
        let _ = pyrepr::write_float(&mut text, x);
        let text = text.to_lowercase();
        if !text.contains('.') && text.contains('e') {
            out.push_str(&text.replacen('e', ".0e", 1));
        } else {
            out.push_str(&text);
        }
    }
}

#[cfg(test)]
#[path = "yaml_ros2_tests.rs"]
mod tests;
