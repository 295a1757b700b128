//! The columns of a message type, flattened: one column per leaf field, named by its path
//! (`pose.position.x`), and how each decoded message appends one row to them.
//!
//! | field | column |
//! |---|---|
//! | `bool`, `int8`…`uint64`, `float32`, `float64` | the same Arrow type |
//! | `string` | `Utf8` (invalid UTF-8 replaced by U+FFFD) |
//! | `time` | `Timestamp(ns)` (UTC, no zone) |
//! | `duration` | `Int64` nanoseconds |
//! | nested message | its fields, `name.` prefixed |
//! | `uint8[]`, `char[]`, `uint8[N]`, `char[N]` | `Binary` |
//! | other arrays of builtins, fixed or variable | `List` of the element type |
//! | arrays of messages | `Utf8`: the array as JSON text (see docs/export.md) |

use std::sync::Arc;

use arrow_array::builder::{
    ArrayBuilder, BinaryBuilder, BooleanBuilder, Float32Builder, Float64Builder, Int8Builder,
    Int16Builder, Int32Builder, Int64Builder, ListBuilder, StringBuilder,
    TimestampNanosecondBuilder, UInt8Builder, UInt16Builder, UInt32Builder, UInt64Builder,
    make_builder,
};
use arrow_schema::{DataType, Field, TimeUnit};

use crate::msg::{ArrayKind, Elem, MessageRef, MsgType, Primitive, ValueRef};

/// The names of the columns every file has before the message's own.
pub const EXTRA: [&str; 3] = ["log_time", "topic", "bag"];

/// How a column is filled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// One value.
    Scalar,
    /// A list of values.
    List,
    /// An array of messages as JSON text.
    Json,
}

/// One message column.
#[derive(Clone, Debug)]
pub struct Column {
    /// The field path (`pose.position.x`).
    pub name: String,
    /// Its Arrow type.
    pub data_type: DataType,
    /// How it is filled.
    pub kind: Kind,
}

/// The Arrow type of a builtin.
pub fn prim_type(p: Primitive) -> DataType {
    match p {
        Primitive::Bool => DataType::Boolean,
        Primitive::Int8 | Primitive::Byte => DataType::Int8,
        Primitive::UInt8 | Primitive::Char => DataType::UInt8,
        Primitive::Int16 => DataType::Int16,
        Primitive::UInt16 => DataType::UInt16,
        Primitive::Int32 => DataType::Int32,
        Primitive::UInt32 => DataType::UInt32,
        Primitive::Int64 | Primitive::Duration => DataType::Int64,
        Primitive::UInt64 => DataType::UInt64,
        Primitive::Float32 => DataType::Float32,
        Primitive::Float64 => DataType::Float64,
        Primitive::String => DataType::Utf8,
        Primitive::Time => time_type(),
    }
}

/// `time` values and `log_time`: nanoseconds since the epoch, no time zone (UTC).
pub fn time_type() -> DataType {
    DataType::Timestamp(TimeUnit::Nanosecond, None)
}

/// The columns of `ty`, in field order (nested messages expanded in place). A column whose
/// name is one of [`EXTRA`] is renamed `msg.NAME`.
pub fn columns(ty: &MsgType) -> Vec<Column> {
    let mut out = Vec::new();
    push_columns(ty, "", &mut out, 0);
    for c in &mut out {
        if EXTRA.contains(&c.name.as_str()) {
            c.name = format!("msg.{}", c.name);
        }
    }
    out
}

fn push_columns(ty: &MsgType, prefix: &str, out: &mut Vec<Column>, depth: usize) {
    // The schema compiler already bounds nesting; this guards the recursion anyway.
    if depth > crate::msg::MAX_DEPTH {
        return;
    }
    for f in ty.fields() {
        let name = format!("{prefix}{}", f.name());
        let ft = f.ty();
        let (data_type, kind) = match (ft.elem(), ft.array()) {
            (Elem::Msg(inner), ArrayKind::Single) => {
                push_columns(inner, &format!("{name}."), out, depth + 1);
                continue;
            }
            (Elem::Msg(_), _) => (DataType::Utf8, Kind::Json),
            (Elem::Prim(_), _) if ft.is_bytes() => (DataType::Binary, Kind::Scalar),
            (Elem::Prim(p), ArrayKind::Single) => (prim_type(*p), Kind::Scalar),
            (Elem::Prim(p), _) => (
                DataType::List(Arc::new(Field::new_list_field(prim_type(*p), true))),
                Kind::List,
            ),
        };
        out.push(Column {
            name,
            data_type,
            kind,
        });
    }
}

/// Empty builders for `columns`.
pub fn builders(columns: &[Column], capacity: usize) -> Vec<Box<dyn ArrayBuilder>> {
    columns
        .iter()
        .map(|c| make_builder(&c.data_type, capacity))
        .collect()
}

/// A value that did not fit its column: the layout and the message disagree.
#[derive(Debug)]
pub struct Misfit(pub String);

/// Appends the fields of `m` to `builders` (from `*at` on), in the order of [`columns`].
pub fn append_message(
    m: &MessageRef<'_>,
    columns: &[Column],
    builders: &mut [Box<dyn ArrayBuilder>],
    at: &mut usize,
) -> Result<(), Misfit> {
    for (name, v) in m.iter() {
        if let ValueRef::Message(inner) = &v {
            append_message(inner, columns, builders, at)?;
            continue;
        }
        let (Some(column), Some(builder)) = (columns.get(*at), builders.get_mut(*at)) else {
            return Err(Misfit(format!("field {name} has no column")));
        };
        let ok = match column.kind {
            Kind::Scalar => append_scalar(builder.as_mut(), &v),
            Kind::List => append_list(builder.as_mut(), &v),
            Kind::Json => append_json(builder.as_mut(), &v),
        };
        if !ok {
            return Err(Misfit(format!(
                "field {name}: a {} value does not fit column {} ({})",
                kind_name(&v),
                column.name,
                column.data_type
            )));
        }
        *at += 1;
    }
    Ok(())
}

fn kind_name(v: &ValueRef<'_>) -> &'static str {
    match v {
        ValueRef::String(_) => "string",
        ValueRef::Bytes(_) => "byte array",
        ValueRef::PrimArray(_) | ValueRef::Array(_) => "array",
        ValueRef::Message(_) => "message",
        _ => "scalar",
    }
}

/// Downcasts `b` to `$t` and appends `$v`; `false` when `b` is not a `$t`.
macro_rules! push {
    ($b:expr, $t:ty, $v:expr) => {
        match $b.as_any_mut().downcast_mut::<$t>() {
            Some(b) => {
                b.append_value($v);
                true
            }
            None => false,
        }
    };
}

/// Appends one builtin value (or a byte array) to a scalar builder.
pub fn append_scalar(b: &mut dyn ArrayBuilder, v: &ValueRef<'_>) -> bool {
    match v {
        ValueRef::Bool(x) => push!(b, BooleanBuilder, *x),
        ValueRef::I8(x) => push!(b, Int8Builder, *x),
        ValueRef::U8(x) => push!(b, UInt8Builder, *x),
        ValueRef::I16(x) => push!(b, Int16Builder, *x),
        ValueRef::U16(x) => push!(b, UInt16Builder, *x),
        ValueRef::I32(x) => push!(b, Int32Builder, *x),
        ValueRef::U32(x) => push!(b, UInt32Builder, *x),
        ValueRef::I64(x) => push!(b, Int64Builder, *x),
        ValueRef::U64(x) => push!(b, UInt64Builder, *x),
        ValueRef::F32(x) => push!(b, Float32Builder, *x),
        ValueRef::F64(x) => push!(b, Float64Builder, *x),
        ValueRef::Duration(d) => push!(b, Int64Builder, d.as_nanos()),
        ValueRef::Time(t) => match b.as_any_mut().downcast_mut::<TimestampNanosecondBuilder>() {
            // Times past 2262-04-11 do not fit a signed nanosecond count: null.
            Some(b) => {
                b.append_option(i64::try_from(t.as_nanos()).ok());
                true
            }
            None => false,
        },
        ValueRef::String(s) => push!(b, StringBuilder, String::from_utf8_lossy(s)),
        ValueRef::Bytes(s) => push!(b, BinaryBuilder, s),
        ValueRef::PrimArray(_) | ValueRef::Array(_) | ValueRef::Message(_) => false,
    }
}

/// Appends an array of builtins (or strings) as one list.
fn append_list(b: &mut dyn ArrayBuilder, v: &ValueRef<'_>) -> bool {
    let Some(list) = b
        .as_any_mut()
        .downcast_mut::<ListBuilder<Box<dyn ArrayBuilder>>>()
    else {
        return false;
    };
    let ok = match v {
        ValueRef::PrimArray(a) => a.refs().all(|x| append_scalar(list.values().as_mut(), &x)),
        ValueRef::Array(a) => a.iter().all(|x| append_scalar(list.values().as_mut(), &x)),
        _ => false,
    };
    list.append(true);
    ok
}

/// Appends an array of messages as its JSON text.
fn append_json(b: &mut dyn ArrayBuilder, v: &ValueRef<'_>) -> bool {
    if !matches!(v, ValueRef::Array(_)) {
        return false;
    }
    push!(b, StringBuilder, crate::msg::json::value_to_string(v))
}
