//! Messages as JSON, exactly as `docs/JSON.md` (shared) specifies: one object per message,
//! `{"topic":…,"type":…,"time":{"sec":…,"nsec":…},"data":{…}}`.
//!
//! Integers are exact (64-bit included); floats are the shortest text that reads back as the
//! same value of their width (`float32` printed as `f32`), with NaN and ±infinity as the strings
//! `"NaN"`, `"Infinity"`, `"-Infinity"` and `-0.0` kept; strings that are not UTF-8 get U+FFFD;
//! `uint8`/`char` arrays are one standard padded base64 string; times and durations print their
//! raw wire fields.

use std::fmt::{self, Write};

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;

use super::write_bool_or_integer;
use crate::msg::{Decoded, ValueRef};
use crate::time::RosTime;

/// Writes one message line (without the trailing newline): `topic`, `type`, receive `time`
/// and `data`.
pub fn write_message<W: Write + ?Sized>(
    out: &mut W,
    topic: &str,
    datatype: &str,
    time: RosTime,
    message: &Decoded<'_>,
) -> fmt::Result {
    write_head(out, topic, datatype, time)?;
    out.write_str(",\"data\":")?;
    write_value(out, &message.value())?;
    out.write_char('}')
}

/// The keys every line starts with: `{"topic":…,"type":…,"time":{"sec":…,"nsec":…}`.
fn write_head<W: Write + ?Sized>(
    out: &mut W,
    topic: &str,
    datatype: &str,
    time: RosTime,
) -> fmt::Result {
    out.write_str("{\"topic\":")?;
    write_str(out, topic)?;
    out.write_str(",\"type\":")?;
    write_str(out, datatype)?;
    write!(
        out,
        ",\"time\":{{\"sec\":{},\"nsec\":{}}}",
        time.sec, time.nsec
    )
}

/// Writes one line for the value a field path names in a message (without the trailing
/// newline): `topic`, `type`, receive `time`, `field` (the path as given) and `data`: the
/// value, `null` when the message has none there (an index past the end), or with
/// `wildcard` (a `[*]` path) the list of every value.
pub fn write_field<W: Write + ?Sized>(
    out: &mut W,
    topic: &str,
    datatype: &str,
    time: RosTime,
    field: &str,
    values: &[ValueRef<'_>],
    wildcard: bool,
) -> fmt::Result {
    write_head(out, topic, datatype, time)?;
    out.write_str(",\"field\":")?;
    write_str(out, field)?;
    out.write_str(",\"data\":")?;
    match (values, wildcard) {
        (_, true) => {
            out.write_char('[')?;
            for (i, v) in values.iter().enumerate() {
                if i > 0 {
                    out.write_char(',')?;
                }
                write_value(out, v)?;
            }
            out.write_char(']')?;
        }
        ([first, ..], false) => write_value(out, first)?,
        ([], false) => out.write_str("null")?,
    }
    out.write_char('}')
}

/// [`write_message`] into a new `String`.
pub fn message_to_string(
    topic: &str,
    datatype: &str,
    time: RosTime,
    message: &Decoded<'_>,
) -> String {
    let mut out = String::new();
    // Writing to a String cannot fail.
    let _ = write_message(&mut out, topic, datatype, time, message);
    out
}

/// Writes just the value (`data` of a message line).
pub fn write_value<W: Write + ?Sized>(out: &mut W, value: &ValueRef<'_>) -> fmt::Result {
    if let Some(done) = write_bool_or_integer(out, value) {
        return done;
    }
    match value {
        ValueRef::F32(v) => write_float(
            out,
            v.is_nan(),
            v.is_infinite(),
            *v > 0.0,
            format_args!("{v:?}"),
        ),
        ValueRef::F64(v) => write_float(
            out,
            v.is_nan(),
            v.is_infinite(),
            *v > 0.0,
            format_args!("{v:?}"),
        ),
        ValueRef::String(bytes) => write_str(out, &String::from_utf8_lossy(bytes)),
        ValueRef::Time(t) => write!(out, "{{\"sec\":{},\"nsec\":{}}}", t.sec, t.nsec),
        ValueRef::Duration(d) => write!(out, "{{\"sec\":{},\"nsec\":{}}}", d.sec, d.nsec),
        ValueRef::Bytes(bytes) => {
            let mut encoded = String::with_capacity(bytes.len().div_ceil(3) * 4 + 2);
            encoded.push('"');
            STANDARD.encode_string(bytes, &mut encoded);
            encoded.push('"');
            out.write_str(&encoded)
        }
        ValueRef::PrimArray(items) => write_array(out, items.refs()),
        ValueRef::Array(items) => write_array(out, items.iter()),
        ValueRef::Message(m) => {
            out.write_char('{')?;
            for (i, (name, item)) in m.iter().enumerate() {
                if i > 0 {
                    out.write_char(',')?;
                }
                write_str(out, name)?;
                out.write_char(':')?;
                write_value(out, &item)?;
            }
            out.write_char('}')
        }
        // Booleans and integers: written above.
        _ => Ok(()),
    }
}

/// `[a,b,…]`.
fn write_array<'v, W: Write + ?Sized>(
    out: &mut W,
    items: impl Iterator<Item = ValueRef<'v>>,
) -> fmt::Result {
    out.write_char('[')?;
    for (i, item) in items.enumerate() {
        if i > 0 {
            out.write_char(',')?;
        }
        write_value(out, &item)?;
    }
    out.write_char(']')
}

/// [`write_value`] into a new `String`.
pub fn value_to_string(value: &ValueRef<'_>) -> String {
    let mut out = String::new();
    let _ = write_value(&mut out, value);
    out
}

fn write_float<W: Write + ?Sized>(
    out: &mut W,
    nan: bool,
    infinite: bool,
    positive: bool,
    shortest: fmt::Arguments<'_>,
) -> fmt::Result {
    if nan {
        out.write_str("\"NaN\"")
    } else if infinite {
        out.write_str(if positive {
            "\"Infinity\""
        } else {
            "\"-Infinity\""
        })
    } else {
        // `{:?}` is the shortest round-trip text, with an exponent for very large or small
        // magnitudes (`1e300`, `5e-324`) and `.0` on integral values: all valid JSON numbers.
        out.write_fmt(shortest)
    }
}

/// Writes `s` as a JSON string literal. Besides what JSON requires, the characters a terminal
/// would act on (DEL, C1 controls, bidirectional overrides: [`crate::printable::is_unsafe`])
/// are written as `\uXXXX` escapes — the same string for a JSON reader, inert on a terminal.
pub fn write_str<W: Write + ?Sized>(out: &mut W, s: &str) -> fmt::Result {
    out.write_char('"')?;
    let mut start = 0;
    for (i, c) in s.char_indices() {
        let escape = match c {
            '"' => "\\\"",
            '\\' => "\\\\",
            '\n' => "\\n",
            '\r' => "\\r",
            '\t' => "\\t",
            '\u{8}' => "\\b",
            '\u{c}' => "\\f",
            c if crate::printable::is_unsafe(c) => "",
            _ => continue,
        };
        out.write_str(s.get(start..i).unwrap_or_default())?;
        if escape.is_empty() {
            // Every unsafe character is in the Basic Multilingual Plane.
            write!(out, "\\u{:04x}", u32::from(c))?;
        } else {
            out.write_str(escape)?;
        }
        start = i + c.len_utf8();
    }
    out.write_str(s.get(start..).unwrap_or_default())?;
    out.write_char('"')
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::msg::{Schema, decode};

    #[test]
    fn strings_escape_what_a_terminal_would_act_on() {
        let mut out = String::new();
        write_str(&mut out, "a\u{1b}[2J\u{7}\u{7f}\u{9b}\u{202e}é\n\"").unwrap();
        assert_eq!(out, r#""a\u001b[2J\u0007\u007f\u009b\u202eé\n\"""#);
    }

    #[allow(clippy::needless_pass_by_value)]
    fn json(v: ValueRef<'_>) -> String {
        value_to_string(&v)
    }

    #[test]
    fn numbers() {
        assert_eq!(json(ValueRef::F32(0.1)), "0.1");
        assert_eq!(json(ValueRef::F64(0.1)), "0.1");
        assert_eq!(json(ValueRef::F64(1.0)), "1.0");
        assert_eq!(json(ValueRef::F64(-0.0)), "-0.0");
        assert_eq!(json(ValueRef::F64(1e300)), "1e300");
        assert_eq!(json(ValueRef::F64(5e-324)), "5e-324");
        assert_eq!(json(ValueRef::F32(f32::MAX)), "3.4028235e38");
        assert_eq!(json(ValueRef::F32(f32::NAN)), "\"NaN\"");
        assert_eq!(json(ValueRef::F64(f64::INFINITY)), "\"Infinity\"");
        assert_eq!(json(ValueRef::F64(f64::NEG_INFINITY)), "\"-Infinity\"");
        assert_eq!(json(ValueRef::U64(u64::MAX)), "18446744073709551615");
        assert_eq!(json(ValueRef::I64(i64::MIN)), "-9223372036854775808");
    }

    #[test]
    fn strings_bytes_and_times() {
        assert_eq!(
            json(ValueRef::String(b"a\"b\\c\n\x01\xff")),
            "\"a\\\"b\\\\c\\n\\u0001\u{fffd}\""
        );
        assert_eq!(json(ValueRef::Bytes(b"hi!?")), "\"aGkhPw==\"");
        assert_eq!(json(ValueRef::Bytes(b"")), "\"\"");
        assert_eq!(
            json(ValueRef::Time(RosTime::new(2, 1_500_000_000))),
            "{\"sec\":2,\"nsec\":1500000000}"
        );
    }

    #[test]
    fn message_lines() {
        let s = Schema::from_definition("std_msgs/String", "string data\n").unwrap();
        let v = decode(&s, b"\x02\0\0\0hi").unwrap();
        assert_eq!(
            message_to_string(
                "/chatter",
                s.datatype(),
                RosTime::new(1_397_024_209, 156_423_000),
                &v
            ),
            r#"{"topic":"/chatter","type":"std_msgs/String","time":{"sec":1397024209,"nsec":156423000},"data":{"data":"hi"}}"#
        );
    }
}
