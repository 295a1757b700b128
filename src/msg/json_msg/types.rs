//! The message types JSON messages decode into, built from a jsonschema or from a message:
//! plain [`MsgType`]s whose fields are the JSON properties (`int64`, `uint64`, `float64`,
//! `bool`, `string`, nested types, and sequences of them), with a `.msg`-style text that
//! shows how the JSON was mapped. JSON types have no md5sum and no wire sizes.

use std::fmt::Write as _;
use std::sync::Arc;

use crate::msg::primitive::Primitive;
use crate::msg::types::{ArrayKind, Elem, Field, FieldType, MsgType, Op, Ros2Type};

/// The largest node vector a type's first guess reserves (as for other schemas).
const NODE_HINT_CAP: usize = 4096;

/// A field `name` of element `elem`, a single value or (`array`) a sequence.
pub(super) fn field(name: &str, elem: Elem, array: bool) -> Field {
    let base = match &elem {
        Elem::Prim(p) => p.name().to_string(),
        Elem::Msg(m) => m.name.clone(),
    };
    Field {
        name: name.to_string(),
        type_text: if array { format!("{base}[]") } else { base },
        ty: FieldType {
            elem,
            array: if array {
                ArrayKind::Variable
            } else {
                ArrayKind::Single
            },
            ros2: Ros2Type::default(),
        },
    }
}

/// The message type `name` with `fields` (in order).
pub(super) fn message_type(name: String, fields: Vec<Field>) -> Arc<MsgType> {
    let ops: Vec<Op> = fields.iter().map(|f| Op::for_field(&f.ty)).collect();
    let node_hint = ops
        .iter()
        .fold(0usize, |acc, op| acc.saturating_add(op.node_hint()))
        .min(NODE_HINT_CAP);
    let mut text = String::new();
    for f in &fields {
        let _ = writeln!(text, "{} {}", f.type_text, f.name);
    }
    text.pop();
    Arc::new(MsgType {
        name,
        text,
        fields,
        ops,
        constants: Vec::new(),
        md5sum: String::new(),
        min_size: 0,
        fixed_size: None,
        all_f64: false,
        node_hint,
        cdr: Vec::new(),
        cdr_min_size: 1,
        cdr_wide: false,
    })
}

/// The name of the type of property `key` of type `parent`.
pub(super) fn nested_name(parent: &str, key: &str) -> String {
    format!("{parent}.{key}")
}

/// True when `a` and `b` have the same fields of the same types, recursively.
pub(super) fn same_shape(a: &MsgType, b: &MsgType) -> bool {
    a.fields.len() == b.fields.len()
        && a.fields.iter().zip(&b.fields).all(|(x, y)| {
            x.name == y.name
                && x.ty.array == y.ty.array
                && match (&x.ty.elem, &y.ty.elem) {
                    (Elem::Prim(p), Elem::Prim(q)) => p == q,
                    (Elem::Msg(m), Elem::Msg(n)) => same_shape(m, n),
                    _ => false,
                }
        })
}

/// Why a property name cannot be a field name: `None` when it can. Names are shown as they
/// are (YAML keys, the inspector), so control and bidirectional characters are refused.
pub(super) fn bad_name(key: &str) -> Option<&'static str> {
    if key.is_empty() {
        Some("an empty property name")
    } else if key
        .chars()
        .any(|c| crate::printable::is_unsafe(c) || c == '\n' || c == '\t')
    {
        Some("a property name with control characters")
    } else {
        None
    }
}

/// The primitives JSON values decode to.
pub(super) const INT: Primitive = Primitive::Int64;
/// Integers above `i64::MAX` (messages without a schema).
pub(super) const UINT: Primitive = Primitive::UInt64;
/// Numbers.
pub(super) const FLOAT: Primitive = Primitive::Float64;
