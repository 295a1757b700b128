//! The columns of a message type, flattened: one column per leaf field, named by its path
//! (`pose.position.x`), and how each decoded message appends one row to them.
//!
//! | field | column |
//! |---|---|
//! | `bool`, `int8`…`uint64`, `float32`, `float64` | the same Arrow type |
//! | `string` | `Utf8` (invalid UTF-8 replaced by U+FFFD) |
//! | `time` | `Timestamp(µs, UTC)`, and `NAME_ns`: `Int64` exact nanoseconds |
//! | `duration` | `Int64` nanoseconds |
//! | nested message | its fields, `name.` prefixed |
//! | `uint8[]`, `char[]`, `uint8[N]`, `char[N]` | `Binary` |
//! | other arrays of builtins, fixed or variable | `List` of the element type (`time[]`: and `NAME_ns`, a `List` of `Int64` nanoseconds) |
//! | arrays of messages | `Utf8`: the array as JSON text (see docs/export.md) |
//!
//! Times are microsecond timestamps adjusted to UTC because that is what every engine reads
//! with its default settings (Spark refuses nanosecond timestamps; Trino, DuckDB, pyarrow,
//! pandas and Polars read both); the `_ns` column beside each keeps the exact value.

use std::sync::Arc;

use arrow_array::builder::{
    ArrayBuilder, BinaryBuilder, BooleanBuilder, Float32Builder, Float64Builder, Int8Builder,
    Int16Builder, Int32Builder, Int64Builder, ListBuilder, StringBuilder,
    TimestampMicrosecondBuilder, UInt8Builder, UInt16Builder, UInt32Builder, UInt64Builder,
    make_builder,
};
use arrow_schema::{DataType, Field, TimeUnit};

use crate::msg::{ArrayKind, Elem, MessageRef, MsgType, Primitive, ValueRef};

/// The names of the columns every file has before the message's own.
pub const EXTRA: [&str; 4] = ["log_time", "log_time_ns", "topic", "bag"];

/// The suffix of the column that holds a time's exact nanoseconds beside its timestamp.
pub const NANOS_SUFFIX: &str = "_ns";

/// How a column is filled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// One value.
    Scalar,
    /// A list of values.
    List,
    /// An array of messages as JSON text.
    Json,
    /// The nanoseconds (`Int64`) of the `time` in the column before.
    Nanos,
    /// The nanoseconds (`List` of `Int64`) of the `time[]` in the column before.
    NanosList,
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

/// `time` values and `log_time`: microseconds since the epoch, adjusted to UTC (Parquet
/// `TIMESTAMP(MICROS, true)`).
pub fn time_type() -> DataType {
    DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into()))
}

/// The columns of `ty`, in field order (nested messages expanded in place; each `time` field
/// followed by its `_ns` column). A column whose name is one of [`EXTRA`] is renamed
/// `msg.NAME`; a `_ns` column whose name a field already has gets `#2` (`#3`…) added, so
/// every name is unique.
pub fn columns(ty: &MsgType) -> Vec<Column> {
    let mut out = Vec::new();
    push_columns(ty, "", &mut out, 0);
    let mut taken: std::collections::HashSet<String> =
        EXTRA.iter().map(ToString::to_string).collect();
    // The message's own fields first: they keep their names.
    for c in out.iter_mut().filter(|c| !is_nanos(c.kind)) {
        if EXTRA.contains(&c.name.as_str()) {
            c.name = format!("msg.{}", c.name);
        }
        c.name = unique(&c.name, &taken);
        taken.insert(c.name.clone());
    }
    for c in out.iter_mut().filter(|c| is_nanos(c.kind)) {
        c.name = unique(&c.name, &taken);
        taken.insert(c.name.clone());
    }
    out
}

fn is_nanos(kind: Kind) -> bool {
    matches!(kind, Kind::Nanos | Kind::NanosList)
}

/// `name`, or `name#2`, `name#3`… the first not taken.
fn unique(name: &str, taken: &std::collections::HashSet<String>) -> String {
    if !taken.contains(name) {
        return name.to_string();
    }
    // (At most `taken.len()` names are taken, so one of the first `taken.len() + 1` is free.)
    (2..taken.len() + 3)
        .map(|n| format!("{name}#{n}"))
        .find(|n| !taken.contains(n))
        .unwrap_or_else(|| name.to_string())
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
        let nanos = match (ft.elem(), kind) {
            (Elem::Prim(Primitive::Time), Kind::Scalar) => Some((DataType::Int64, Kind::Nanos)),
            (Elem::Prim(Primitive::Time), Kind::List) => Some((
                DataType::List(Arc::new(Field::new_list_field(DataType::Int64, true))),
                Kind::NanosList,
            )),
            _ => None,
        };
        let nanos_name = format!("{name}{NANOS_SUFFIX}");
        out.push(Column {
            name,
            data_type,
            kind,
        });
        if let Some((data_type, kind)) = nanos {
            out.push(Column {
                name: nanos_name,
                data_type,
                kind,
            });
        }
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
            Kind::List => append_list(builder.as_mut(), &v, append_scalar),
            Kind::Json => append_json(builder.as_mut(), &v),
            Kind::Nanos | Kind::NanosList => false,
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
        // A time's nanoseconds, in the column after it.
        if let Some(next) = columns.get(*at).filter(|c| is_nanos(c.kind)) {
            let Some(builder) = builders.get_mut(*at) else {
                return Err(Misfit(format!("field {name} has no column")));
            };
            let ok = if next.kind == Kind::Nanos {
                append_nanos(builder.as_mut(), &v)
            } else {
                append_list(builder.as_mut(), &v, append_nanos)
            };
            if !ok {
                return Err(Misfit(format!(
                    "field {name}: a {} value does not fit column {}",
                    kind_name(&v),
                    next.name
                )));
            }
            *at += 1;
        }
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
        ValueRef::Time(t) => push!(b, TimestampMicrosecondBuilder, micros(*t)),
        ValueRef::String(s) => push!(b, StringBuilder, String::from_utf8_lossy(s)),
        ValueRef::Bytes(s) => push!(b, BinaryBuilder, s),
        ValueRef::PrimArray(_) | ValueRef::Array(_) | ValueRef::Message(_) => false,
    }
}

/// Appends a time's exact nanoseconds since the epoch to an `Int64` builder.
fn append_nanos(b: &mut dyn ArrayBuilder, v: &ValueRef<'_>) -> bool {
    match v {
        // (A `time` has 32-bit seconds: its nanoseconds always fit an i64.)
        ValueRef::Time(t) => push!(
            b,
            Int64Builder,
            i64::try_from(t.as_nanos()).unwrap_or(i64::MAX)
        ),
        _ => false,
    }
}

/// Microseconds since the epoch of a time, rounded down (the exact value is in its `_ns`
/// column).
pub fn micros(t: crate::time::RosTime) -> i64 {
    i64::try_from(t.as_nanos() / 1000).unwrap_or(i64::MAX)
}

/// Appends an array of builtins (or strings) as one list, each element by `append`.
fn append_list(
    b: &mut dyn ArrayBuilder,
    v: &ValueRef<'_>,
    append: fn(&mut dyn ArrayBuilder, &ValueRef<'_>) -> bool,
) -> bool {
    let Some(list) = b
        .as_any_mut()
        .downcast_mut::<ListBuilder<Box<dyn ArrayBuilder>>>()
    else {
        return false;
    };
    let ok = match v {
        ValueRef::PrimArray(a) => a.refs().all(|x| append(list.values().as_mut(), &x)),
        ValueRef::Array(a) => a.iter().all(|x| append(list.values().as_mut(), &x)),
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
