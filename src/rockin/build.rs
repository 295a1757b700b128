//! YAML events → [`Value`], field by field against a message type: every field present once,
//! no other keys, each value of its field's kind and range. Recursion follows the message
//! type (whose depth the schema compiler bounds), never the YAML.

// Events are handed to the builders by value throughout, also where one only looks at them.
#![allow(clippy::needless_pass_by_value)]

use std::borrow::Cow;
use std::sync::Arc;

use crate::msg::{ArrayKind, Elem, Field, Message, MsgType, PrimArray, Primitive, Value};
use crate::time::{RosDuration, RosTime};

use super::base64;
use super::error::{InputError, InputErrorKind};
use super::scalars::{IntProblem, parse_bool, parse_f32, parse_f64, parse_int};
use super::yaml::{Event, Events, Scalar, TagKind};

type Result<T> = std::result::Result<T, InputError>;

/// "expected …, found …" at the event.
pub(super) fn wrong(expected: impl Into<String>, found: &Event) -> InputError {
    InputError::new(
        found.mark(),
        InputErrorKind::WrongType {
            expected: expected.into(),
            found: found.describe(),
        },
    )
}

fn wrong_scalar(expected: impl Into<String>, s: &Scalar) -> InputError {
    InputError::new(
        s.mark,
        InputErrorKind::WrongType {
            expected: expected.into(),
            found: s.describe(),
        },
    )
}

fn unsupported_tag(s: &Scalar) -> Option<InputError> {
    let tag = s.tag.as_ref()?;
    match tag.kind() {
        TagKind::Other | TagKind::Seq | TagKind::Map => Some(InputError::syntax(
            tag.mark,
            format!("unsupported tag '{}' here", tag.text),
        )),
        _ => None,
    }
}

/// A field missing from the mapping that starts at `start` and ends at `end`. A mapping
/// closed by the end of a file cut in the middle of a line is reported as truncated, at the
/// end; otherwise at the mapping, with a hint when the file ends there.
fn missing_field(
    start: crate::rockin::Mark,
    end: crate::rockin::Mark,
    eof: bool,
    field: String,
    field_type: String,
    datatype: String,
) -> InputError {
    if eof && end.column > 1 {
        InputError::new(
            end,
            InputErrorKind::TruncatedMessage {
                field,
                field_type,
                datatype,
            },
        )
    } else {
        InputError::new(
            start,
            InputErrorKind::MissingField {
                truncated: eof,
                field,
                field_type,
                datatype,
            },
        )
    }
}

/// A message of type `ty` whose first event is `first`.
pub(crate) fn message<E: Events>(
    ev: &mut E,
    ty: &Arc<MsgType>,
    first: Event,
) -> Result<Value<'static>> {
    let start = match first {
        Event::MapStart { mark, ref tag } => {
            if let Some(t) = tag.as_ref().filter(|t| t.kind() != TagKind::Map) {
                return Err(InputError::syntax(
                    t.mark,
                    format!("unsupported tag '{}' on a message", t.text),
                ));
            }
            mark
        }
        Event::Scalar(ref s) if ty.fields().is_empty() && s.is_null() => {
            return Ok(Value::Message(Message::new(Arc::clone(ty), Vec::new())));
        }
        other => return Err(wrong(format!("a mapping ({})", ty.name()), &other)),
    };
    let mut slots: Vec<Option<Value<'static>>> = ty.fields().iter().map(|_| None).collect();
    loop {
        match ev.next_event()? {
            Event::MapEnd { mark, eof } => {
                let missing = slots
                    .iter()
                    .position(Option::is_none)
                    .and_then(|i| ty.fields().get(i));
                if let Some(f) = missing {
                    let (field, field_type, datatype) = (
                        f.name().to_string(),
                        f.type_text().to_string(),
                        ty.name().to_string(),
                    );
                    return Err(missing_field(start, mark, eof, field, field_type, datatype));
                }
                break;
            }
            Event::Scalar(key) => {
                let Some((i, field)) = ty.field(&key.text) else {
                    let expected = ty
                        .fields()
                        .iter()
                        .map(Field::name)
                        .collect::<Vec<_>>()
                        .join(", ");
                    return Err(InputError::new(
                        key.mark,
                        InputErrorKind::UnexpectedField {
                            field: key.text.clone(),
                            datatype: ty.name().to_string(),
                            expected: if expected.is_empty() {
                                "no fields".to_string()
                            } else {
                                format!("the fields {expected}")
                            },
                        },
                    ));
                };
                let Some(slot) = slots.get_mut(i) else {
                    continue;
                };
                if slot.is_some() {
                    return Err(InputError::new(
                        key.mark,
                        InputErrorKind::Duplicate(key.text.clone()),
                    ));
                }
                let first = ev.next_event()?;
                *slot = Some(field_value(ev, field, first).map_err(|e| e.in_field(field.name()))?);
            }
            other => return Err(wrong("a field name", &other)),
        }
    }
    let values: Vec<Value<'static>> = slots.into_iter().flatten().collect();
    Ok(Value::Message(Message::new(Arc::clone(ty), values)))
}

fn fixed_len(array: ArrayKind) -> Option<usize> {
    match array {
        ArrayKind::Fixed(n) => Some(n),
        ArrayKind::Single | ArrayKind::Variable => None,
    }
}

/// The value of `field`, whose first event is `first`.
fn field_value<E: Events>(ev: &mut E, field: &Field, first: Event) -> Result<Value<'static>> {
    let ft = field.ty();
    let fixed = fixed_len(ft.array());
    match (ft.array(), ft.elem()) {
        (ArrayKind::Single, Elem::Prim(p)) => prim(ev, *p, first),
        (ArrayKind::Single, Elem::Msg(m)) => message(ev, m, first),
        (_, _) if ft.is_bytes() => bytes(ev, first, fixed, field.type_text()),
        (_, Elem::Prim(Primitive::String)) => list(ev, first, fixed, field.type_text(), |ev, e| {
            prim(ev, Primitive::String, e)
        }),
        (_, Elem::Prim(p)) => prim_array(ev, *p, first, fixed, field.type_text()),
        (_, Elem::Msg(m)) => list(ev, first, fixed, field.type_text(), |ev, e| {
            message(ev, m, e)
        }),
    }
}

/// A single builtin value.
fn prim<E: Events>(ev: &mut E, p: Primitive, first: Event) -> Result<Value<'static>> {
    if matches!(p, Primitive::Time | Primitive::Duration) {
        return time(ev, p, first);
    }
    let Event::Scalar(s) = first else {
        return Err(wrong(expected_prim(p), &first));
    };
    if let Some(e) = unsupported_tag(&s) {
        return Err(e);
    }
    let binary = s.tag.as_ref().is_some_and(|t| t.kind() == TagKind::Binary);
    if p == Primitive::String {
        if binary {
            return Ok(Value::String(Cow::Owned(decode_base64(&s)?)));
        }
        return Ok(Value::String(Cow::Owned(s.text.into_bytes())));
    }
    if binary {
        return Err(wrong_scalar(expected_prim(p), &s));
    }
    scalar(p, &s)
}

fn expected_prim(p: Primitive) -> String {
    match p {
        Primitive::Bool => "a boolean (bool)".to_string(),
        Primitive::Float32 | Primitive::Float64 => format!("a number ({p})"),
        Primitive::String => "a string".to_string(),
        Primitive::Time | Primitive::Duration => format!("a mapping of secs and nsecs ({p})"),
        _ => format!("an integer ({p})"),
    }
}

fn out_of_range(s: &Scalar, ty: &'static str, range: &'static str) -> InputError {
    InputError::new(
        s.mark,
        InputErrorKind::OutOfRange {
            value: s.text.trim().to_string(),
            ty,
            range,
        },
    )
}

/// A scalar of a numeric or boolean type.
fn scalar(p: Primitive, s: &Scalar) -> Result<Value<'static>> {
    macro_rules! int {
        ($t:ty, $variant:ident, $range:expr) => {{
            let v = match parse_int(&s.text) {
                Ok(v) => v,
                Err(IntProblem::NotInteger) => return Err(wrong_scalar(expected_prim(p), s)),
                Err(IntProblem::TooLarge) => return Err(out_of_range(s, p.name(), $range)),
            };
            <$t>::try_from(v)
                .map(Value::$variant)
                .map_err(|_| out_of_range(s, p.name(), $range))
        }};
    }
    match p {
        Primitive::Bool => parse_bool(&s.text)
            .map(Value::Bool)
            .ok_or_else(|| wrong_scalar(expected_prim(p), s)),
        Primitive::Int8 | Primitive::Byte => int!(i8, I8, "-128 to 127"),
        Primitive::UInt8 | Primitive::Char => int!(u8, U8, "0 to 255"),
        Primitive::Int16 => int!(i16, I16, "-32768 to 32767"),
        Primitive::UInt16 => int!(u16, U16, "0 to 65535"),
        Primitive::Int32 => int!(i32, I32, "-2147483648 to 2147483647"),
        Primitive::UInt32 => int!(u32, U32, "0 to 4294967295"),
        Primitive::Int64 => int!(i64, I64, "-9223372036854775808 to 9223372036854775807"),
        Primitive::UInt64 => int!(u64, U64, "0 to 18446744073709551615"),
        Primitive::Float32 => match parse_f32(&s.text) {
            Ok(Some(v)) => Ok(Value::F32(v)),
            Ok(None) => Err(wrong_scalar(expected_prim(p), s)),
            Err(()) => Err(out_of_range(s, "float32", "magnitude at most 3.4028235e38")),
        },
        Primitive::Float64 => match parse_f64(&s.text) {
            Ok(Some(v)) => Ok(Value::F64(v)),
            Ok(None) => Err(wrong_scalar(expected_prim(p), s)),
            Err(()) => Err(out_of_range(
                s,
                "float64",
                "magnitude at most 1.7976931348623157e308",
            )),
        },
        Primitive::String | Primitive::Time | Primitive::Duration => {
            Err(wrong_scalar(expected_prim(p), s))
        }
    }
}

/// A `time` or `duration`: a mapping of `secs` and `nsecs`.
fn time<E: Events>(ev: &mut E, p: Primitive, first: Event) -> Result<Value<'static>> {
    let Event::MapStart { mark: start, .. } = first else {
        return Err(wrong(expected_prim(p), &first));
    };
    let signed = p == Primitive::Duration;
    let part = if signed {
        Primitive::Int32
    } else {
        Primitive::UInt32
    };
    let mut secs: Option<Value<'static>> = None;
    let mut nsecs: Option<Value<'static>> = None;
    loop {
        match ev.next_event()? {
            Event::MapEnd { mark, eof } => {
                let missing = if secs.is_none() {
                    Some("secs")
                } else if nsecs.is_none() {
                    Some("nsecs")
                } else {
                    None
                };
                if let Some(name) = missing {
                    let (field, field_type, datatype) = (
                        name.to_string(),
                        part.name().to_string(),
                        p.name().to_string(),
                    );
                    return Err(missing_field(start, mark, eof, field, field_type, datatype));
                }
                break;
            }
            Event::Scalar(key) => {
                let slot = match key.text.as_str() {
                    "secs" => &mut secs,
                    "nsecs" => &mut nsecs,
                    _ => {
                        return Err(InputError::new(
                            key.mark,
                            InputErrorKind::UnexpectedField {
                                field: key.text.clone(),
                                datatype: p.name().to_string(),
                                expected: "the fields secs, nsecs".to_string(),
                            },
                        ));
                    }
                };
                if slot.is_some() {
                    return Err(InputError::new(
                        key.mark,
                        InputErrorKind::Duplicate(key.text.clone()),
                    ));
                }
                let first = ev.next_event()?;
                *slot = Some(prim(ev, part, first).map_err(|e| e.in_field(&key.text))?);
            }
            other => return Err(wrong("secs or nsecs", &other)),
        }
    }
    Ok(match (secs, nsecs) {
        (Some(Value::U32(sec)), Some(Value::U32(nsec))) => Value::Time(RosTime::new(sec, nsec)),
        (Some(Value::I32(sec)), Some(Value::I32(nsec))) => {
            Value::Duration(RosDuration { sec, nsec })
        }
        _ => return Err(InputError::syntax(start, "bad time value")),
    })
}

fn decode_base64(s: &Scalar) -> Result<Vec<u8>> {
    base64::decode(&s.text)
        .map_err(|e| InputError::new(s.mark_at(e.offset), InputErrorKind::Base64(e.what)))
}

fn check_len(
    mark: crate::rockin::Mark,
    fixed: Option<usize>,
    found: usize,
    ty: &str,
) -> Result<()> {
    match fixed {
        Some(n) if n != found => Err(InputError::new(
            mark,
            InputErrorKind::FixedLength {
                expected: n,
                found,
                ty: ty.to_string(),
            },
        )),
        _ => Ok(()),
    }
}

/// A `uint8[]`/`char[]` field: base64 text (tagged `!!binary` or not) or a list of integers.
fn bytes<E: Events>(
    ev: &mut E,
    first: Event,
    fixed: Option<usize>,
    ty: &str,
) -> Result<Value<'static>> {
    let mark = first.mark();
    let data = match first {
        Event::Scalar(s) => {
            if let Some(e) = unsupported_tag(&s) {
                return Err(e);
            }
            if s.tag.as_ref().is_some_and(|t| t.kind() == TagKind::Scalar) {
                return Err(wrong_scalar(
                    format!("base64 text or a list of integers ({ty})"),
                    &s,
                ));
            }
            decode_base64(&s)?
        }
        Event::SeqStart { .. } => {
            let mut data = Vec::new();
            loop {
                match ev.next_event()? {
                    Event::SeqEnd { .. } => break,
                    e => {
                        let i = data.len();
                        match prim(ev, Primitive::UInt8, e).map_err(|err| err.in_element(i))? {
                            Value::U8(b) => data.push(b),
                            _ => return Err(InputError::syntax(mark, "bad byte")),
                        }
                    }
                }
            }
            data
        }
        other => {
            return Err(wrong(
                format!("base64 text or a list of integers ({ty})"),
                &other,
            ));
        }
    };
    check_len(mark, fixed, data.len(), ty)?;
    Ok(Value::Bytes(Cow::Owned(data)))
}

/// Appends the wire form of a builtin scalar value.
fn push_wire(v: &Value<'_>, out: &mut Vec<u8>) {
    match v {
        Value::Bool(x) => out.push(u8::from(*x)),
        Value::I8(x) => out.extend_from_slice(&x.to_le_bytes()),
        Value::U8(x) => out.push(*x),
        Value::I16(x) => out.extend_from_slice(&x.to_le_bytes()),
        Value::U16(x) => out.extend_from_slice(&x.to_le_bytes()),
        Value::I32(x) => out.extend_from_slice(&x.to_le_bytes()),
        Value::U32(x) => out.extend_from_slice(&x.to_le_bytes()),
        Value::I64(x) => out.extend_from_slice(&x.to_le_bytes()),
        Value::U64(x) => out.extend_from_slice(&x.to_le_bytes()),
        Value::F32(x) => out.extend_from_slice(&x.to_le_bytes()),
        Value::F64(x) => out.extend_from_slice(&x.to_le_bytes()),
        Value::Time(t) => {
            out.extend_from_slice(&t.sec.to_le_bytes());
            out.extend_from_slice(&t.nsec.to_le_bytes());
        }
        Value::Duration(d) => {
            out.extend_from_slice(&d.sec.to_le_bytes());
            out.extend_from_slice(&d.nsec.to_le_bytes());
        }
        _ => {}
    }
}

/// An array of a fixed-size builtin other than bytes, kept as wire bytes.
fn prim_array<E: Events>(
    ev: &mut E,
    p: Primitive,
    first: Event,
    fixed: Option<usize>,
    ty: &str,
) -> Result<Value<'static>> {
    let Event::SeqStart { mark, .. } = first else {
        return Err(wrong(format!("a list ({ty})"), &first));
    };
    let mut wire = Vec::new();
    let mut count = 0usize;
    loop {
        match ev.next_event()? {
            Event::SeqEnd { .. } => break,
            e => {
                let v = prim(ev, p, e).map_err(|err| err.in_element(count))?;
                push_wire(&v, &mut wire);
                count += 1;
            }
        }
    }
    check_len(mark, fixed, count, ty)?;
    PrimArray::from_wire(p, Cow::Owned(wire))
        .map(Value::PrimArray)
        .ok_or_else(|| InputError::syntax(mark, format!("{ty} cannot be an array")))
}

/// An array of strings or messages.
fn list<E: Events>(
    ev: &mut E,
    first: Event,
    fixed: Option<usize>,
    ty: &str,
    mut elem: impl FnMut(&mut E, Event) -> Result<Value<'static>>,
) -> Result<Value<'static>> {
    let Event::SeqStart { mark, .. } = first else {
        return Err(wrong(format!("a list ({ty})"), &first));
    };
    let mut items = Vec::new();
    loop {
        match ev.next_event()? {
            Event::SeqEnd { .. } => break,
            e => {
                let i = items.len();
                items.push(elem(ev, e).map_err(|err| err.in_element(i))?);
            }
        }
    }
    check_len(mark, fixed, items.len(), ty)?;
    Ok(Value::Array(items))
}
