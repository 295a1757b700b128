//! Summarised views of values for the UI: one-line texts where long arrays read
//! `[1024 items: 1, 2, 3, …]`. Times read `1700000000.000000005` and durations `-1.500000000s`,
//! ROS1 `time`/`duration` values and ROS 2 `builtin_interfaces/Time`/`Duration` messages alike.

use std::fmt::Write;

use super::write_bool_or_integer;
use crate::msg::{TimeKind, TimeMessage, ValueRef};

/// Limits for summarised rendering.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SummaryOptions {
    /// Array elements shown before `…`.
    pub max_array_items: usize,
    /// String characters shown before `…`.
    pub max_string_chars: usize,
    /// Nested messages inside a one-line summary deeper than this show as `{…}`.
    pub max_depth: usize,
}

impl Default for SummaryOptions {
    fn default() -> Self {
        SummaryOptions {
            max_array_items: 8,
            max_string_chars: 80,
            max_depth: 2,
        }
    }
}

impl ValueRef<'_> {
    /// A one-line summary: scalars as text, strings quoted and cut at 80 characters, arrays
    /// longer than `max_array_items` as `[1024 items: 1, 2, 3, …]`, messages as
    /// `{x: 1.0, y: 2.0}`.
    pub fn summary(&self, max_array_items: usize) -> String {
        let opts = SummaryOptions {
            max_array_items,
            ..SummaryOptions::default()
        };
        summarize(self, &opts)
    }
}

/// A one-line summary with explicit limits (see [`ValueRef::summary`]).
pub fn summarize(value: &ValueRef<'_>, opts: &SummaryOptions) -> String {
    let mut out = String::new();
    write_summary(&mut out, value, opts, 0);
    out
}

/// `[a, b]`, or `[N unit: a, b, …]` when longer than the limit; `item` writes element `i`.
fn write_list(
    out: &mut String,
    len: usize,
    unit: &str,
    opts: &SummaryOptions,
    mut item: impl FnMut(&mut String, usize),
) {
    let cut = len > opts.max_array_items;
    out.push('[');
    if cut {
        let _ = write!(out, "{len} {unit}: ");
    }
    for i in 0..len.min(opts.max_array_items) {
        if i > 0 {
            out.push_str(", ");
        }
        item(out, i);
    }
    if cut {
        out.push_str(if opts.max_array_items > 0 {
            ", …"
        } else {
            "…"
        });
    }
    out.push(']');
}

/// `-1.500000000`: signed nanoseconds as seconds with nine decimals.
fn write_nanos(out: &mut String, n: i64) {
    let sign = if n < 0 { "-" } else { "" };
    let abs = n.unsigned_abs();
    let _ = write!(
        out,
        "{sign}{}.{:09}",
        abs / 1_000_000_000,
        abs % 1_000_000_000
    );
}

fn write_summary(out: &mut String, value: &ValueRef<'_>, opts: &SummaryOptions, depth: usize) {
    // Writing to a String cannot fail.
    if write_bool_or_integer(out, value).is_some() {
        return;
    }
    let _ = match value {
        ValueRef::F32(v) if v.is_finite() => write!(out, "{v:?}"),
        ValueRef::F64(v) if v.is_finite() => write!(out, "{v:?}"),
        ValueRef::F32(v) => write!(out, "{v}"),
        ValueRef::F64(v) => write!(out, "{v}"),
        ValueRef::String(bytes) => {
            let text = String::from_utf8_lossy(bytes);
            let mut chars = text.chars();
            let shown: String = chars.by_ref().take(opts.max_string_chars).collect();
            let _ = write!(out, "{shown:?}");
            if chars.next().is_some() {
                out.push('…');
            }
            Ok(())
        }
        ValueRef::Time(t) => write!(out, "{t}"),
        ValueRef::Duration(d) => {
            write_nanos(out, d.as_nanos());
            out.push('s');
            Ok(())
        }
        // ROS 2's `builtin_interfaces/Time` and `Duration` messages: as ROS1 times and
        // durations.
        ValueRef::Message(m) if TimeMessage::of(m).is_some() => {
            if let Some(t) = TimeMessage::of(m) {
                write_nanos(out, t.as_nanos());
                if t.kind == TimeKind::Duration {
                    out.push('s');
                }
            }
            Ok(())
        }
        ValueRef::Bytes(bytes) => {
            write_list(out, bytes.len(), "bytes", opts, |o, i| {
                if let Some(b) = bytes.get(i) {
                    let _ = write!(o, "{b}");
                }
            });
            Ok(())
        }
        ValueRef::PrimArray(items) => {
            write_list(out, items.len(), "items", opts, |o, i| {
                if let Some(item) = items.get(i).as_ref().and_then(ValueRef::scalar) {
                    write_summary(o, &item, opts, depth + 1);
                }
            });
            Ok(())
        }
        ValueRef::Array(items) => {
            let mut values = items.iter();
            write_list(out, items.len(), "items", opts, |o, _| {
                if let Some(item) = values.next() {
                    write_summary(o, &item, opts, depth + 1);
                }
            });
            Ok(())
        }
        ValueRef::Message(m) => {
            if depth > opts.max_depth && !m.ty().fields().is_empty() {
                out.push_str("{…}");
                return;
            }
            out.push('{');
            for (i, (name, v)) in m.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                let _ = write!(out, "{name}: ");
                write_summary(out, &v, opts, depth + 1);
            }
            out.push('}');
            Ok(())
        }
        // Booleans and integers: written above.
        _ => Ok(()),
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::msg::{PrimArray, Primitive, Value};

    #[test]
    fn long_arrays_are_cut() {
        let v = ValueRef::PrimArray(
            PrimArray::from_values(Primitive::Int32, (1..=1024).map(Value::I32)).unwrap(),
        );
        assert_eq!(v.summary(3), "[1024 items: 1, 2, 3, …]");
        let one = PrimArray::from_values(Primitive::Float64, [Value::F64(1.0)]).unwrap();
        assert_eq!(ValueRef::PrimArray(one).summary(3), "[1.0]");
        let img = vec![7u8; 6_220_800];
        assert_eq!(ValueRef::Bytes(&img).summary(2), "[6220800 bytes: 7, 7, …]");
        let s = ValueRef::String(b"a\"b\n");
        assert_eq!(s.summary(3), "\"a\\\"b\\n\"");
    }

    #[test]
    fn ros2_times_read_as_times() {
        let sep = "=".repeat(80);
        let s = crate::msg::Schema::from_definition(
            "t/msg/T",
            &format!(
                "builtin_interfaces/Time t\nbuiltin_interfaces/Duration d\n\
                 {sep}\nMSG: builtin_interfaces/Time\nint32 sec\nuint32 nanosec\n\
                 {sep}\nMSG: builtin_interfaces/Duration\nint32 sec\nuint32 nanosec\n"
            ),
        )
        .unwrap();
        let mut p = 1_700_000_000i32.to_le_bytes().to_vec();
        p.extend(5u32.to_le_bytes());
        p.extend((-2i32).to_le_bytes());
        p.extend(500_000_000u32.to_le_bytes());
        let d = crate::msg::decode(&s, &p).unwrap();
        assert_eq!(
            d.value().summary(3),
            "{t: 1700000000.000000005, d: -1.500000000s}"
        );
    }
}
