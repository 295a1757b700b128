//! Messages as `rostopic echo` prints them (genpy's `strify_message`): two-space indent,
//! `secs`/`nsecs` for times, Python's `True`/`False` and float `repr` (float32 widened to
//! double, as genpy holds it), strings quoted by PyYAML, numeric arrays inline
//! (`[1.0, 2.5]`, `uint8[]` as a list of integers), arrays of messages as `- ` blocks, long
//! arrays printed whole. `rostopic echo` puts `---` after each message: [`write_echo`].
//!
//! Messages read from CDR (ROS 2) are echoed as `ros2 topic echo` prints them instead:
//! [`YamlStyle`] picks by the schema's wire format.
//!
//! Deliberate difference: times and durations print the raw wire fields; genpy first
//! normalises `nsec` into `[0, 1e9)` (`secs: 2, nsecs: 1500000000` where rostopic shows
//! `secs: 3, nsecs: 500000000`). Identical for every well-formed value.

use std::fmt::{self, Write};

use super::{pyrepr, pyyaml, write_bool_or_integer, yaml_ros2};
use crate::msg::{Decoded, Elem, FieldType, MessageRef, Primitive, ValueRef, Wire};

/// The line `rostopic echo` prints after each message.
pub const SEPARATOR: &str = "---";

/// Which tool's YAML a message is echoed as: `rostopic echo`'s (this module) for ROS1
/// payloads, `ros2 topic echo`'s ([`super::yaml_ros2`]) for CDR ones.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum YamlStyle {
    /// genpy's `strify_message`, as `rostopic echo` prints.
    #[default]
    Rostopic,
    /// rosidl_runtime_py's `message_to_yaml`, as `ros2 topic echo` prints.
    Ros2,
}

impl YamlStyle {
    /// The style for messages laid out as `wire` (a schema's [`Schema::wire`](crate::msg::Schema::wire)).
    pub fn for_wire(wire: Wire) -> YamlStyle {
        match wire {
            Wire::Ros1 => YamlStyle::Rostopic,
            // JSON data reads best as modern YAML (UTF-8 text, `true`/`false`).
            Wire::Cdr | Wire::Json => YamlStyle::Ros2,
        }
    }

    /// Writes one echo block of `message` (the message, then the separator) in this style.
    pub fn write_echo<W: Write + ?Sized>(self, out: &mut W, message: &Decoded<'_>) -> fmt::Result {
        match self {
            YamlStyle::Rostopic => write_echo(out, message),
            YamlStyle::Ros2 => yaml_ros2::write_echo(out, message),
        }
    }

    /// Writes one echo block of the values a field path names in this style.
    pub fn write_echo_values<W: Write + ?Sized>(
        self,
        out: &mut W,
        values: &[ValueRef<'_>],
    ) -> fmt::Result {
        match self {
            YamlStyle::Rostopic => write_echo_values(out, values),
            YamlStyle::Ros2 => yaml_ros2::write_echo_values(out, values),
        }
    }

    /// The message as text in this style, without a separator.
    pub fn message_to_string(self, message: &Decoded<'_>) -> String {
        match self {
            YamlStyle::Rostopic => message_to_string(message),
            YamlStyle::Ros2 => yaml_ros2::message_to_string(message),
        }
    }
}

/// Writes a message as `rostopic echo` shows it, without a trailing newline or separator.
pub fn write_message<W: Write + ?Sized>(out: &mut W, message: &Decoded<'_>) -> fmt::Result {
    write_msg(out, &message.root(), "")
}

/// Writes a message followed by `\n---\n`, exactly one `rostopic echo` block.
pub fn write_echo<W: Write + ?Sized>(out: &mut W, message: &Decoded<'_>) -> fmt::Result {
    write_message(out, message)?;
    out.write_char('\n')?;
    out.write_str(SEPARATOR)?;
    out.write_char('\n')
}

/// [`write_message`] into a new `String`.
pub fn message_to_string(message: &Decoded<'_>) -> String {
    let mut out = String::new();
    // Writing to a String cannot fail.
    let _ = write_message(&mut out, message);
    out
}

/// Writes one value a field path names, followed by `\n---\n`, as `rostopic echo -b BAG
/// /topic/field` prints it (genpy's `strify_message` of the value at no indent: scalars and
/// numeric arrays on one line, strings quoted, times and arrays of messages starting with a
/// newline, messages as a block; a whole `uint8[]` or `char[]` is Python bytes, as genpy
/// holds it). Several values (a `[*]` path) print as one list.
pub fn write_echo_values<W: Write + ?Sized>(out: &mut W, values: &[ValueRef<'_>]) -> fmt::Result {
    match values {
        [ValueRef::Bytes(bytes)] => pyrepr::write_bytes(out, bytes)?,
        [one] => write_value(out, one, None, "")?,
        many => write_array(out, many, None, "")?,
    }
    out.write_char('\n')?;
    out.write_str(SEPARATOR)?;
    out.write_char('\n')
}

fn write_msg<W: Write + ?Sized>(out: &mut W, m: &MessageRef<'_>, indent: &str) -> fmt::Result {
    let inner = format!("{indent}  ");
    for (i, (field, value)) in m.ty().fields.iter().zip(m.values()).enumerate() {
        if i > 0 || !indent.is_empty() {
            out.write_char('\n')?;
        }
        write!(out, "{indent}{}: ", field.name)?;
        write_value(out, &value, Some(&field.ty), &inner)?;
    }
    if m.ty().fields.is_empty() && !indent.is_empty() {
        out.write_char('\n')?;
    }
    Ok(())
}

/// A scalar as Python's `str()` shows it; `false` for values that are not scalars.
fn write_scalar<W: Write + ?Sized>(out: &mut W, value: &ValueRef<'_>) -> Result<bool, fmt::Error> {
    match value {
        ValueRef::Bool(v) => out.write_str(if *v { "True" } else { "False" })?,
        ValueRef::F32(v) => pyrepr::write_float(out, f64::from(*v))?,
        ValueRef::F64(v) => pyrepr::write_float(out, *v)?,
        _ => match write_bool_or_integer(out, value) {
            Some(done) => done?,
            None => return Ok(false),
        },
    }
    Ok(true)
}

fn write_value<W: Write + ?Sized>(
    out: &mut W,
    value: &ValueRef<'_>,
    ty: Option<&FieldType>,
    indent: &str,
) -> fmt::Result {
    if write_scalar(out, value)? {
        return Ok(());
    }
    match value {
        ValueRef::String([]) => out.write_str("''"),
        ValueRef::String(bytes) => {
            out.write_str(&pyyaml::dump_double_quoted(&String::from_utf8_lossy(bytes)))
        }
        ValueRef::Time(t) => write!(
            out,
            "\n{indent}secs: {}\n{indent}nsecs: {:>9}",
            t.sec, t.nsec
        ),
        ValueRef::Duration(d) => {
            write!(
                out,
                "\n{indent}secs: {}\n{indent}nsecs: {:>9}",
                d.sec, d.nsec
            )
        }
        // genpy turns `uint8[]` back into a list of ints for printing, but leaves `char[]`
        // as Python bytes, printed with `repr`.
        ValueRef::Bytes(bytes)
            if ty.is_some_and(|t| matches!(t.elem, Elem::Prim(Primitive::Char))) =>
        {
            pyrepr::write_bytes(out, bytes)
        }
        ValueRef::Bytes(bytes) => {
            out.write_char('[')?;
            for (i, b) in bytes.iter().enumerate() {
                if i > 0 {
                    out.write_str(", ")?;
                }
                write!(out, "{b}")?;
            }
            out.write_char(']')
        }
        ValueRef::PrimArray(items) => {
            let items: Vec<ValueRef<'_>> = items.refs().collect();
            write_array(out, &items, ty, indent)
        }
        ValueRef::Array(items) => {
            let items: Vec<ValueRef<'_>> = items.iter().collect();
            write_array(out, &items, ty, indent)
        }
        ValueRef::Message(m) => write_msg(out, m, indent),
        _ => Ok(()),
    }
}

fn write_array<W: Write + ?Sized>(
    out: &mut W,
    items: &[ValueRef<'_>],
    ty: Option<&FieldType>,
    indent: &str,
) -> fmt::Result {
    let Some(first) = items.first() else {
        return out.write_str("[]");
    };
    match first {
        ValueRef::String(_) => {
            let texts: Vec<String> = items
                .iter()
                .map(|v| match v {
                    ValueRef::String(b) => String::from_utf8_lossy(b).into_owned(),
                    _ => String::new(),
                })
                .collect();
            for line in pyyaml::dump_string_list(&texts).split('\n') {
                write!(out, "\n{indent}{line}")?;
            }
            Ok(())
        }
        ValueRef::Time(_)
        | ValueRef::Duration(_)
        | ValueRef::Message(_)
        | ValueRef::Array(_)
        | ValueRef::PrimArray(_)
        | ValueRef::Bytes(_) => {
            let inner = format!("{indent}  ");
            for item in items {
                write!(out, "\n{indent}- ")?;
                write_value(out, item, ty, &inner)?;
            }
            Ok(())
        }
        _ => {
            out.write_char('[')?;
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.write_str(", ")?;
                }
                write_scalar(out, item)?;
            }
            out.write_char(']')
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::msg::{Schema, decode};

    /// The expected text is what genpy's `strify_message` printed for the same definition and
    /// payload (Debian python3-genpy 0.6).
    #[test]
    fn nested_messages_arrays_and_times() {
        let sep = "=".repeat(80);
        let s = Schema::from_definition(
            "t/T",
            &format!(
                "Header header\nfloat32[] v\nP[] ps\nbool[] flags\nstring[] names\n\
                 {sep}\nMSG: std_msgs/Header\nuint32 seq\ntime stamp\nstring frame_id\n\
                 {sep}\nMSG: t/P\nfloat64 x\n"
            ),
        )
        .unwrap();
        let mut p = vec![
            7, 0, 0, 0, 1, 0, 0, 0, 5, 0, 0, 0, 3, 0, 0, 0, b'm', b'a', b'p',
        ];
        p.extend([2, 0, 0, 0]);
        p.extend(0.5f32.to_le_bytes());
        p.extend(0.1f32.to_le_bytes());
        p.extend([1, 0, 0, 0]);
        p.extend(1e-5f64.to_le_bytes());
        p.extend([2, 0, 0, 0, 1, 0]);
        p.extend([2, 0, 0, 0, 1, 0, 0, 0, b'a', 0, 0, 0, 0]);
        let v = decode(&s, &p).unwrap();
        assert_eq!(
            message_to_string(&v),
            "header: \n  seq: 7\n  stamp: \n    secs: 1\n    nsecs:         5\n  frame_id: \"map\"\n\
             v: [0.5, 0.10000000149011612]\nps: \n  - \n    x: 1e-05\nflags: [True, False]\n\
             names: \n  - a\n  - ''"
        );
    }
}
