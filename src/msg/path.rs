//! Field paths into a message, as `rostopic echo` takes them, plus indexing.
//!
//! A path names a value inside a message: `pose.pose.position.x` or, as `rostopic echo -b BAG
//! /odom/pose/pose/position/x` spells it, `pose/pose/position/x`; array elements with
//! `ranges[10]`, `transforms[0].transform.translation.x`, and every element with
//! `transforms[*].child_frame_id`.
//!
//! A path is parsed once ([`ParsedPath::parse`]), resolved once against a message type
//! ([`ParsedPath::resolve`], which reports unknown fields with the fields that do exist), then
//! evaluated on each decoded message ([`ResolvedPath::get`],
//! [`ResolvedPath::for_each`], [`ResolvedPath::get_f64`]). An index past the end of a
//! variable-length array is no value for that message, not an error.
//!
//! [`split_topic`] splits `/topic/field/path` against the topics a bag has (the longest
//! topic wins, as `rostopic` does).

use std::fmt;

use super::stamp::{TimeMessage, time_type};
use super::{ArrayKind, Elem, MessageRef, MsgType, Primitive, ValueRef};

/// One step of a parsed path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// A field by name.
    Field(String),
    /// One element of an array.
    Index(usize),
    /// Every element of an array (`[*]`).
    All,
}

/// A step and where it starts in the path text (1-based column, in characters).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Segment {
    /// The step.
    pub step: Step,
    /// 1-based column of the step in the path text.
    pub column: usize,
}

/// Why a field path is not usable.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PathError {
    /// The text does not parse.
    #[error("field path '{path}': {what} at column {column}")]
    Syntax {
        /// The path text.
        path: String,
        /// 1-based column of the problem.
        column: usize,
        /// What was expected or found.
        what: String,
    },
    /// A field the type does not have.
    #[error(
        "{datatype} has no field '{field}' (column {column}); its fields are: {}",
        if available.is_empty() { "none".to_string() } else { available.join(", ") }
    )]
    UnknownField {
        /// The field asked for.
        field: String,
        /// The type that lacks it.
        datatype: String,
        /// 1-based column of the field in the path text.
        column: usize,
        /// The fields the type has, in definition order.
        available: Vec<String>,
    },
    /// A field asked of something that is not a message.
    #[error("'{field}' (column {column}): {what} has no fields")]
    NotAMessage {
        /// The field asked for.
        field: String,
        /// 1-based column of the field in the path text.
        column: usize,
        /// What the path reached instead (a type such as `float64[9]`).
        what: String,
    },
    /// An index on something that is not an array.
    #[error("index at column {column}: {what} is not an array")]
    NotAnArray {
        /// 1-based column of the `[`.
        column: usize,
        /// What the path reached instead.
        what: String,
    },
    /// An index past the end of a fixed-length array (always out of range).
    #[error("index {index} at column {column} is out of range: {what} has {len} elements")]
    IndexOutOfRange {
        /// The index.
        index: usize,
        /// The array's length.
        len: usize,
        /// 1-based column of the `[`.
        column: usize,
        /// The array's type.
        what: String,
    },
}

/// A parsed, not yet resolved, field path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParsedPath {
    text: String,
    segments: Vec<Segment>,
}

/// Longest path text accepted (a path is typed by a person).
const MAX_PATH_LEN: usize = 4096;

impl ParsedPath {
    /// Parses `pose.pose.position.x`, `pose/pose/position/x`, `ranges[10]`,
    /// `transforms[*].child_frame_id`. A leading `/` or `.` is allowed; the empty path names
    /// the whole message.
    pub fn parse(text: &str) -> Result<ParsedPath, PathError> {
        let err = |column: usize, what: &str| PathError::Syntax {
            path: text.to_string(),
            column,
            what: what.to_string(),
        };
        if text.len() > MAX_PATH_LEN {
            return Err(err(1, "path too long"));
        }
        let chars: Vec<char> = text.chars().collect();
        let mut segments = Vec::new();
        let mut i = 0;
        if matches!(chars.first(), Some('/' | '.')) {
            i = 1;
        }
        // True when a field name may (must) come next.
        let mut want_name = true;
        while i < chars.len() {
            let c = chars.get(i).copied().unwrap_or_default();
            if want_name {
                if !(c.is_ascii_alphabetic() || c == '_') {
                    return Err(err(i + 1, &format!("expected a field name, found '{c}'")));
                }
                let start = i;
                while chars
                    .get(i)
                    .is_some_and(|c| c.is_ascii_alphanumeric() || *c == '_')
                {
                    i += 1;
                }
                let name: String = chars.get(start..i).unwrap_or_default().iter().collect();
                segments.push(Segment {
                    step: Step::Field(name),
                    column: start + 1,
                });
                want_name = false;
                continue;
            }
            match c {
                '.' | '/' => {
                    if i + 1 >= chars.len() {
                        return Err(err(i + 2, "expected a field name after the separator"));
                    }
                    want_name = true;
                    i += 1;
                }
                '[' => {
                    let start = i;
                    let close = chars
                        .iter()
                        .skip(i)
                        .position(|c| *c == ']')
                        .map(|p| p + i)
                        .ok_or_else(|| err(start + 1, "'[' without ']'"))?;
                    let inner: String =
                        chars.get(i + 1..close).unwrap_or_default().iter().collect();
                    let step = if inner == "*" {
                        Step::All
                    } else if !inner.is_empty() && inner.bytes().all(|b| b.is_ascii_digit()) {
                        Step::Index(
                            inner
                                .parse()
                                .map_err(|_| err(start + 2, "index too large"))?,
                        )
                    } else {
                        return Err(err(
                            start + 2,
                            &format!("expected an index or '*' in brackets, found '{inner}'"),
                        ));
                    };
                    segments.push(Segment {
                        step,
                        column: start + 1,
                    });
                    i = close + 1;
                }
                _ => {
                    return Err(err(
                        i + 1,
                        &format!("expected '.', '/' or '[' after a field, found '{c}'"),
                    ));
                }
            }
        }
        Ok(ParsedPath {
            text: text.to_string(),
            segments,
        })
    }

    /// The text as given.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The steps.
    pub fn segments(&self) -> &[Segment] {
        &self.segments
    }

    /// Resolves the path against a message type: every field must exist, indexes must land
    /// on arrays.
    pub fn resolve(&self, ty: &MsgType) -> Result<ResolvedPath, PathError> {
        let mut steps = Vec::with_capacity(self.segments.len());
        let mut at = Reached::Message(ty);
        for seg in &self.segments {
            at = match (&seg.step, at) {
                (Step::Field(name), Reached::Message(m)) => {
                    let Some((index, field)) = m.field(name) else {
                        return Err(PathError::UnknownField {
                            field: name.clone(),
                            datatype: m.name().to_string(),
                            column: seg.column,
                            available: m.fields().iter().map(|f| f.name().to_string()).collect(),
                        });
                    };
                    steps.push(RStep::Field(index));
                    let ft = field.ty();
                    match ft.array() {
                        ArrayKind::Single => Reached::elem(ft.elem()),
                        ArrayKind::Fixed(n) => Reached::Array(ft.elem(), Some(n)),
                        ArrayKind::Variable => Reached::Array(ft.elem(), None),
                    }
                }
                (Step::Field(name), Reached::Prim(p @ (Primitive::Time | Primitive::Duration)))
                    if name == "secs" || name == "nsecs" =>
                {
                    // genpy's Time and Duration have `secs` and `nsecs`, which rostopic
                    // echo takes as fields.
                    steps.push(RStep::TimePart(name == "nsecs"));
                    Reached::Prim(match p {
                        Primitive::Time => Primitive::UInt32,
                        _ => Primitive::Int32,
                    })
                }
                (Step::Field(name), Reached::Prim(p @ (Primitive::Time | Primitive::Duration))) => {
                    return Err(PathError::UnknownField {
                        field: name.clone(),
                        datatype: p.name().to_string(),
                        column: seg.column,
                        available: vec!["secs".to_string(), "nsecs".to_string()],
                    });
                }
                (Step::Field(name), other) => {
                    return Err(PathError::NotAMessage {
                        field: name.clone(),
                        column: seg.column,
                        what: other.describe(),
                    });
                }
                (Step::Index(i), Reached::Array(elem, len)) => {
                    if let Some(n) = len.filter(|n| i >= n) {
                        return Err(PathError::IndexOutOfRange {
                            index: *i,
                            len: n,
                            column: seg.column,
                            what: Reached::Array(elem, len).describe(),
                        });
                    }
                    steps.push(RStep::Index(*i));
                    Reached::elem(elem)
                }
                (Step::All, Reached::Array(elem, _)) => {
                    steps.push(RStep::All);
                    Reached::elem(elem)
                }
                (Step::Index(_) | Step::All, other) => {
                    return Err(PathError::NotAnArray {
                        column: seg.column,
                        what: other.describe(),
                    });
                }
            };
        }
        let leaf = match at {
            // A ROS 2 `builtin_interfaces/Time` or `Duration` is a time, as a ROS1 `time` is.
            Reached::Message(m) if time_type(m).is_some() => Leaf::Time,
            Reached::Message(_) => Leaf::Message,
            Reached::Array(..) => Leaf::Array,
            Reached::Prim(Primitive::String) => Leaf::String,
            Reached::Prim(Primitive::Time | Primitive::Duration) => Leaf::Time,
            Reached::Prim(Primitive::Bool) => Leaf::Bool,
            Reached::Prim(_) => Leaf::Number,
        };
        Ok(ResolvedPath {
            text: self.text.clone(),
            type_name: ty.name().to_string(),
            steps,
            leaf,
            leaf_type: at.describe(),
        })
    }
}

/// What a path has reached while resolving.
#[derive(Clone, Copy)]
enum Reached<'t> {
    Message(&'t MsgType),
    Prim(Primitive),
    Array(&'t Elem, Option<usize>),
}

impl<'t> Reached<'t> {
    fn elem(elem: &'t Elem) -> Self {
        match elem {
            Elem::Prim(p) => Reached::Prim(*p),
            Elem::Msg(m) => Reached::Message(m),
        }
    }

    fn describe(&self) -> String {
        let elem = |e: &Elem| match e {
            Elem::Prim(p) => p.name().to_string(),
            Elem::Msg(m) => m.name().to_string(),
        };
        match self {
            Reached::Message(m) => m.name().to_string(),
            Reached::Prim(p) => p.name().to_string(),
            Reached::Array(e, Some(n)) => format!("{}[{n}]", elem(e)),
            Reached::Array(e, None) => format!("{}[]", elem(e)),
        }
    }
}

/// What kind of value a resolved path ends on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Leaf {
    /// An integer or a float.
    Number,
    /// A `bool` (plotted as 0/1).
    Bool,
    /// A `time` or a `duration` (plotted as seconds).
    Time,
    /// A `string`.
    String,
    /// A whole array.
    Array,
    /// A whole message.
    Message,
}

impl Leaf {
    /// True when the values can be plotted (numbers, bools, times and durations).
    pub fn is_plottable(self) -> bool {
        matches!(self, Leaf::Number | Leaf::Bool | Leaf::Time)
    }
}

/// One step of a resolved path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum RStep {
    /// Field by position in its type.
    Field(usize),
    Index(usize),
    All,
    /// `secs` (false) or `nsecs` (true) of a time or duration.
    TimePart(bool),
}

/// A path resolved against one message type, ready to evaluate on its decoded messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolvedPath {
    text: String,
    type_name: String,
    steps: Vec<RStep>,
    leaf: Leaf,
    leaf_type: String,
}

impl fmt::Display for ResolvedPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl ResolvedPath {
    /// The path text as given.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The type the path was resolved against.
    pub fn type_name(&self) -> &str {
        &self.type_name
    }

    /// What the path ends on.
    pub fn leaf(&self) -> Leaf {
        self.leaf
    }

    /// The type of what the path ends on, as a definition names it (`float32`,
    /// `geometry_msgs/Vector3`, `float64[9]`).
    pub fn leaf_type(&self) -> &str {
        &self.leaf_type
    }

    /// True when the path holds a `[*]` (may give several values per message).
    pub fn has_wildcard(&self) -> bool {
        self.steps.contains(&RStep::All)
    }

    /// The (first) value the path names in `msg`, a message of the type it was resolved
    /// against; `None` when an index is past the end of the array in this message (or the
    /// message is not of that type).
    pub fn get<'d>(&self, msg: MessageRef<'d>) -> Option<ValueRef<'d>> {
        let mut out = None;
        walk(&self.steps, ValueRef::Message(msg), &mut |v| {
            out = Some(v);
            false
        });
        out
    }

    /// Calls `f` with every value the path names in `msg` (several with `[*]`), in order.
    pub fn for_each<'d>(&self, msg: MessageRef<'d>, mut f: impl FnMut(ValueRef<'d>)) {
        walk(&self.steps, ValueRef::Message(msg), &mut |v| {
            f(v);
            true
        });
    }

    /// True when `f` holds for some value the path names in `msg`; stops at the first.
    pub fn any<'d>(&self, msg: MessageRef<'d>, mut f: impl FnMut(ValueRef<'d>) -> bool) -> bool {
        let mut hit = false;
        walk(&self.steps, ValueRef::Message(msg), &mut |v| {
            hit = f(v);
            !hit
        });
        hit
    }

    /// Every value the path names in `msg`.
    pub fn collect<'d>(&self, msg: MessageRef<'d>) -> Vec<ValueRef<'d>> {
        let mut out = Vec::new();
        self.for_each(msg, |v| out.push(v));
        out
    }

    /// The (first) value as a number for plotting (see [`to_f64`]).
    pub fn get_f64(&self, msg: MessageRef<'_>) -> Option<f64> {
        self.get(msg).as_ref().and_then(to_f64)
    }
}

/// Walks `steps` from `value`, calling `f` on each value reached; `f` returns false to stop.
/// Returns false when stopped.
fn walk<'d>(steps: &[RStep], value: ValueRef<'d>, f: &mut dyn FnMut(ValueRef<'d>) -> bool) -> bool {
    let Some((first, rest)) = steps.split_first() else {
        return f(value);
    };
    match (*first, value) {
        (RStep::Field(i), ValueRef::Message(m)) => match m.values().nth(i) {
            Some(v) => walk(rest, v, f),
            None => true,
        },
        (RStep::TimePart(nsecs), ValueRef::Time(t)) => {
            walk(rest, ValueRef::U32(if nsecs { t.nsec } else { t.sec }), f)
        }
        (RStep::TimePart(nsecs), ValueRef::Duration(d)) => {
            walk(rest, ValueRef::I32(if nsecs { d.nsec } else { d.sec }), f)
        }
        (RStep::Index(i), v) => match element(&v, i) {
            Some(e) => walk(rest, e, f),
            None => true,
        },
        (RStep::All, v) => {
            let n = array_len(&v);
            match v {
                ValueRef::Array(a) => {
                    for e in a.iter() {
                        if !walk(rest, e, f) {
                            return false;
                        }
                    }
                }
                _ => {
                    for i in 0..n {
                        if let Some(e) = element(&v, i) {
                            if !walk(rest, e, f) {
                                return false;
                            }
                        }
                    }
                }
            }
            true
        }
        _ => true,
    }
}

fn array_len(v: &ValueRef<'_>) -> usize {
    match v {
        ValueRef::Array(a) => a.len(),
        ValueRef::PrimArray(a) => a.len(),
        ValueRef::Bytes(b) => b.len(),
        _ => 0,
    }
}

/// Element `i` of an array value.
fn element<'d>(v: &ValueRef<'d>, i: usize) -> Option<ValueRef<'d>> {
    match v {
        ValueRef::Array(a) => a.iter().nth(i),
        ValueRef::PrimArray(a) => ValueRef::scalar(&a.get(i)?),
        ValueRef::Bytes(b) => b.get(i).map(|b| ValueRef::U8(*b)),
        _ => None,
    }
}

/// A scalar as a number for plotting: integers and floats as they are (64-bit integers may
/// round), bools as 0/1, times and durations as seconds (`sec + nsec / 1e9`, bit for bit as
/// genpy's `to_sec`, so values equal what rqt_plot shows), ROS 2 `builtin_interfaces/Time`
/// and `Duration` messages alike (`sec + nanosec / 1e9`); `None` for strings, arrays and
/// other messages.
pub fn to_f64(v: &ValueRef<'_>) -> Option<f64> {
    Some(match *v {
        ValueRef::Message(ref m) => TimeMessage::of(m)?.as_secs_f64(),
        ValueRef::Bool(b) => f64::from(u8::from(b)),
        ValueRef::I8(x) => f64::from(x),
        ValueRef::U8(x) => f64::from(x),
        ValueRef::I16(x) => f64::from(x),
        ValueRef::U16(x) => f64::from(x),
        ValueRef::I32(x) => f64::from(x),
        ValueRef::U32(x) => f64::from(x),
        #[allow(clippy::cast_precision_loss)]
        ValueRef::I64(x) => x as f64,
        #[allow(clippy::cast_precision_loss)]
        ValueRef::U64(x) => x as f64,
        ValueRef::F32(x) => f64::from(x),
        ValueRef::F64(x) => x,
        ValueRef::Time(t) => f64::from(t.sec) + f64::from(t.nsec) / 1e9,
        ValueRef::Duration(d) => f64::from(d.sec) + f64::from(d.nsec) / 1e9,
        _ => return None,
    })
}

/// Splits `/topic/field/path` into the topic (one of `topics`) and the field path: the
/// longest topic that the text starts with, followed by the end, `/`, `.` or `[`. A missing
/// leading `/` is tolerated. `None` when no topic matches.
pub fn split_topic<'t, 's>(spec: &'s str, topics: &[&'t str]) -> Option<(&'t str, &'s str)> {
    let given = spec.trim_start_matches('/');
    let mut best: Option<(&'t str, &'s str)> = None;
    for &topic in topics {
        let bare = topic.trim_start_matches('/');
        if bare.is_empty() {
            continue;
        }
        let Some(rest) = given.strip_prefix(bare) else {
            continue;
        };
        let field = match rest.chars().next() {
            None => "",
            Some('/' | '.') => rest.get(1..).unwrap_or_default(),
            Some('[') => rest,
            Some(_) => continue,
        };
        if best.is_none_or(|(t, _)| t.trim_start_matches('/').len() < bare.len()) {
            best = Some((topic, field));
        }
    }
    best
}

#[cfg(test)]
#[path = "path_tests.rs"]
mod tests;
