//! The compiled message types a [`Schema`](super::Schema) is made of: message types, their
//! fields and field types, and each type's decode plan ([`Op`]s). Plain data with the sizes the
//! compiler precomputes; nothing here parses or decodes.

use std::sync::Arc;

use super::constant::Constant;
use super::primitive::Primitive;

/// Whether a field is a single value or an array.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ArrayKind {
    /// `T name`.
    Single,
    /// `T[N] name`: exactly N elements, no length on the wire.
    Fixed(usize),
    /// `T[] name`: a `u32` count, then the elements.
    Variable,
}

/// The element type of a field.
#[derive(Debug, Clone)]
pub enum Elem {
    /// A builtin type.
    Prim(Primitive),
    /// A nested message type.
    Msg(Arc<MsgType>),
}

/// A field's type: element type and array kind.
#[derive(Debug, Clone)]
pub struct FieldType {
    pub(crate) elem: Elem,
    pub(crate) array: ArrayKind,
    /// ROS 2 bounds and wide strings (all empty for ROS1 types).
    pub(crate) ros2: Ros2Type,
}

/// What a ROS 2 field type adds to its element and array kind: bounds and `wstring`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Ros2Type {
    /// `T[<=N]`: at most N elements.
    pub(crate) seq_bound: Option<usize>,
    /// `string<=N`: at most N characters (bytes; UTF-16 units for `wstring`).
    pub(crate) str_bound: Option<usize>,
    /// `wstring`: UTF-16 on the wire, text once decoded.
    pub(crate) wide: bool,
}

impl FieldType {
    /// The element type.
    pub fn elem(&self) -> &Elem {
        &self.elem
    }

    /// Single value or array.
    pub fn array(&self) -> ArrayKind {
        self.array
    }

    /// The upper bound of a ROS 2 bounded sequence `T[<=N]`.
    pub fn sequence_bound(&self) -> Option<usize> {
        self.ros2.seq_bound
    }

    /// The upper bound of a ROS 2 bounded string `string<=N` (or of each element of an array
    /// of them).
    pub fn string_bound(&self) -> Option<usize> {
        self.ros2.str_bound
    }

    /// True for a ROS 2 `wstring` (its element type is `string`; it decodes to the same text).
    pub fn is_wide(&self) -> bool {
        self.ros2.wide
    }

    /// True for `uint8[]`, `uint8[N]`, `char[]`, `char[N]`: decoded as a borrowed byte blob.
    pub fn is_bytes(&self) -> bool {
        self.array != ArrayKind::Single && matches!(self.elem, Elem::Prim(p) if p.is_byte())
    }
}

/// One field of a message type.
#[derive(Debug, Clone)]
pub struct Field {
    pub(crate) name: String,
    pub(crate) type_text: String,
    pub(crate) ty: FieldType,
}

impl Field {
    /// The field name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The type as genmsg spells it after resolution (`std_msgs/Header`, `float64[9]`).
    pub fn type_text(&self) -> &str {
        &self.type_text
    }

    /// The compiled type.
    pub fn ty(&self) -> &FieldType {
        &self.ty
    }
}

/// One step of a message type's decode plan: what to read for one field.
#[derive(Debug, Clone)]
pub(crate) enum Op {
    /// A single builtin value.
    Prim(Primitive),
    /// A single nested message.
    Msg(Arc<MsgType>),
    /// A `uint8`/`char` array (`Some(n)`: fixed length n, `None`: counted).
    Bytes(Option<usize>),
    /// An array of another fixed-size builtin.
    Prims(Primitive, Option<usize>),
    /// A `string` array.
    Strings(Option<usize>),
    /// An array of messages.
    Msgs(Arc<MsgType>, Option<usize>),
}

impl Op {
    /// Nodes this field takes in a decoded message when variable-length arrays are empty.
    pub(crate) fn node_hint(&self) -> usize {
        match self {
            Op::Prim(_) | Op::Bytes(_) | Op::Prims(..) => 1,
            Op::Msg(sub) => 1 + sub.node_hint,
            Op::Strings(n) => 1 + n.unwrap_or(0),
            Op::Msgs(sub, n) => n
                .unwrap_or(0)
                .saturating_mul(1 + sub.node_hint)
                .saturating_add(1),
        }
    }

    pub(crate) fn for_field(ty: &FieldType) -> Op {
        let len = match ty.array {
            ArrayKind::Single => {
                return match &ty.elem {
                    Elem::Prim(p) => Op::Prim(*p),
                    Elem::Msg(m) => Op::Msg(Arc::clone(m)),
                };
            }
            ArrayKind::Fixed(n) => Some(n),
            ArrayKind::Variable => None,
        };
        match &ty.elem {
            Elem::Prim(p) if p.is_byte() => Op::Bytes(len),
            Elem::Prim(Primitive::String) => Op::Strings(len),
            Elem::Prim(p) => Op::Prims(*p, len),
            Elem::Msg(m) => Op::Msgs(Arc::clone(m), len),
        }
    }
}

/// One step of a ROS 2 type's CDR decode plan: what to read for one field.
#[derive(Debug, Clone)]
pub(crate) enum CdrOp {
    /// A single fixed-size builtin value.
    Prim(Primitive),
    /// A single `string` or `wstring`.
    Str(Ros2Type),
    /// A single nested message.
    Msg(Arc<MsgType>),
    /// A `uint8`/`byte`/`char` array (`Some(n)`: fixed length n, `None`: counted).
    Bytes(Option<usize>, Ros2Type),
    /// An array of another fixed-size builtin.
    Prims(Primitive, Option<usize>, Ros2Type),
    /// An array of strings or wstrings.
    Strs(Option<usize>, Ros2Type),
    /// An array of messages.
    Msgs(Arc<MsgType>, Option<usize>, Ros2Type),
}

impl CdrOp {
    pub(crate) fn for_field(ty: &FieldType) -> CdrOp {
        let r = ty.ros2;
        let len = match ty.array {
            ArrayKind::Single => {
                return match &ty.elem {
                    Elem::Prim(Primitive::String) => CdrOp::Str(r),
                    Elem::Prim(p) => CdrOp::Prim(*p),
                    Elem::Msg(m) => CdrOp::Msg(Arc::clone(m)),
                };
            }
            ArrayKind::Fixed(n) => Some(n),
            ArrayKind::Variable => None,
        };
        match &ty.elem {
            Elem::Prim(p) if p.is_byte() => CdrOp::Bytes(len, r),
            Elem::Prim(Primitive::String) => CdrOp::Strs(len, r),
            Elem::Prim(p) => CdrOp::Prims(*p, len, r),
            Elem::Msg(m) => CdrOp::Msgs(Arc::clone(m), len, r),
        }
    }

    /// The fewest CDR bytes the field takes (padding not counted).
    fn min_size(&self) -> usize {
        let fixed = |len: Option<usize>, each: usize| len.map_or(4, |n| n.saturating_mul(each));
        match self {
            CdrOp::Prim(p) => p.min_size(),
            CdrOp::Str(_) => 4,
            CdrOp::Msg(m) => m.cdr_min_size,
            CdrOp::Bytes(len, _) => fixed(*len, 1),
            CdrOp::Prims(p, len, _) => fixed(*len, p.min_size()),
            CdrOp::Strs(len, _) => fixed(*len, 4),
            CdrOp::Msgs(m, len, _) => fixed(*len, m.cdr_min_size),
        }
    }

    /// True when the field is or holds a `wstring`.
    fn has_wide(&self) -> bool {
        match self {
            CdrOp::Str(r) | CdrOp::Strs(_, r) => r.wide,
            CdrOp::Msg(m) | CdrOp::Msgs(m, ..) => m.cdr_wide,
            CdrOp::Prim(_) | CdrOp::Bytes(..) | CdrOp::Prims(..) => false,
        }
    }
}

/// The CDR plan of a type's fields: the ops, the fewest bytes a message takes (an empty
/// type takes its one dummy byte) and whether a `wstring` is anywhere inside.
pub(crate) fn cdr_plan(fields: &[Field]) -> (Vec<CdrOp>, usize, bool) {
    let ops: Vec<CdrOp> = fields.iter().map(|f| CdrOp::for_field(&f.ty)).collect();
    let min = ops
        .iter()
        .fold(0usize, |acc, op| acc.saturating_add(op.min_size()))
        .max(1);
    let wide = ops.iter().any(CdrOp::has_wide);
    (ops, min, wide)
}

/// One compiled message type.
#[derive(Debug, Clone)]
pub struct MsgType {
    pub(crate) name: String,
    pub(crate) text: String,
    pub(crate) fields: Vec<Field>,
    /// The decode plan: one op per field, in field order.
    pub(crate) ops: Vec<Op>,
    pub(crate) constants: Vec<Constant>,
    pub(crate) md5sum: String,
    pub(crate) min_size: usize,
    pub(crate) fixed_size: Option<usize>,
    /// Every field a single `float64` (`Vector3`, `Quaternion`, `Point`…), at least one: the
    /// decoder reads these in one loop.
    pub(crate) all_f64: bool,
    /// Nodes a decoded message of this type takes when its variable-length arrays are empty
    /// (capped): the first guess for the decoder's node vector.
    pub(crate) node_hint: usize,
    /// The CDR decode plan (ROS 2 types; empty for ROS1 types, which are not read from CDR).
    pub(crate) cdr: Vec<CdrOp>,
    /// The fewest bytes a message of this type takes in CDR (at least 1).
    pub(crate) cdr_min_size: usize,
    /// A `wstring` somewhere in the type.
    pub(crate) cdr_wide: bool,
}

impl MsgType {
    /// Full type name: `pkg/Type` (ROS1) or `pkg/msg/Type` (ROS 2).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The `.msg` text this type was compiled from.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The fields, in definition (and wire) order.
    pub fn fields(&self) -> &[Field] {
        &self.fields
    }

    /// The constants, in definition order.
    pub fn constants(&self) -> &[Constant] {
        &self.constants
    }

    /// The genmsg md5sum (empty for ROS 2 types, which have none).
    pub fn md5sum(&self) -> &str {
        &self.md5sum
    }

    /// The index and definition of the field called `name`.
    pub fn field(&self, name: &str) -> Option<(usize, &Field)> {
        self.fields.iter().enumerate().find(|(_, f)| f.name == name)
    }

    /// The fewest bytes a message of this type occupies.
    pub fn min_size(&self) -> usize {
        self.min_size
    }

    /// The exact size when every message of this type has the same size.
    pub fn fixed_size(&self) -> Option<usize> {
        self.fixed_size
    }
}

fn elem_min_size(elem: &Elem) -> usize {
    match elem {
        Elem::Prim(p) => p.min_size(),
        Elem::Msg(m) => m.min_size,
    }
}

fn elem_fixed_size(elem: &Elem) -> Option<usize> {
    match elem {
        Elem::Prim(p) => p.fixed_size(),
        Elem::Msg(m) => m.fixed_size,
    }
}

impl FieldType {
    pub(crate) fn min_size(&self) -> usize {
        match self.array {
            ArrayKind::Single => elem_min_size(&self.elem),
            ArrayKind::Fixed(n) => n.saturating_mul(elem_min_size(&self.elem)),
            ArrayKind::Variable => 4,
        }
    }

    pub(crate) fn fixed_size(&self) -> Option<usize> {
        match self.array {
            ArrayKind::Single => elem_fixed_size(&self.elem),
            ArrayKind::Fixed(n) => n.checked_mul(elem_fixed_size(&self.elem)?),
            ArrayKind::Variable => None,
        }
    }
}
