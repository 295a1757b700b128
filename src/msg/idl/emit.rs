//! [`Defs`] → `.msg` texts: the main structure and every structure it uses, each as the
//! ROS 2 `.msg` rosidl would have generated it from (comments, constants, fields with
//! bounds, arrays and default values). Typedefs are resolved here; a type `.msg` cannot
//! express is an error where a used field or constant needs it.

use std::collections::{HashMap, HashSet, VecDeque};
use std::fmt::Write as _;

use super::ast::{Base, Defs, StructDef, TypeSpec, candidates};
use super::cursor::{MAX_NESTING, ScopedName};
use super::error::{IdlError, Located, Pos};
use super::expr::Value;

/// One structure as `.msg` text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Emitted {
    /// Its qualified name, `pkg/msg/Type`.
    pub name: String,
    /// The `.msg` text (no trailing newline).
    pub text: String,
}

/// The element of a resolved field type.
#[derive(Clone, Debug, PartialEq)]
enum Elem {
    Base(Base),
    /// A structure, by qualified name.
    Msg(String),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Array {
    Scalar,
    Fixed(u64),
    Unbounded,
    Bounded(u64),
}

/// A field or constant type with typedefs resolved.
#[derive(Clone, Debug, PartialEq)]
struct Resolved {
    elem: Elem,
    array: Array,
    /// A default value the type carries (`@default` on a typedef).
    default: Option<Value>,
}

fn qualified(s: &StructDef) -> String {
    let mut parts = s.scope.clone();
    parts.push(s.name.clone());
    parts.join("/")
}

/// The index in `defs.structs` of the first structure named by one of `names`.
pub(crate) fn find(defs: &Defs, names: &[String]) -> Option<usize> {
    names
        .iter()
        .find_map(|n| defs.structs.iter().position(|s| qualified(s) == *n))
}

struct Emitter<'d> {
    defs: &'d Defs,
    /// Structures by qualified name (the first definition wins).
    index: HashMap<String, usize>,
}

/// The structure at `main` and every structure it uses (breadth first), as `.msg` texts.
pub(crate) fn emit(defs: &Defs, main: usize) -> Result<Vec<Emitted>, Located> {
    let mut index = HashMap::new();
    for (i, s) in defs.structs.iter().enumerate() {
        index.entry(qualified(s)).or_insert(i);
    }
    let em = Emitter { defs, index };
    let mut queue = VecDeque::from([main]);
    let mut seen = HashSet::from([main]);
    let mut out = Vec::new();
    while let Some(i) = queue.pop_front() {
        let Some(s) = defs.structs.get(i) else {
            continue;
        };
        let mut deps = Vec::new();
        let text = em.struct_text(s, &mut deps)?;
        for dep in deps {
            if let Some(&j) = em.index.get(&dep) {
                if seen.insert(j) {
                    queue.push_back(j);
                }
            }
        }
        out.push(Emitted {
            name: qualified(s),
            text,
        });
    }
    Ok(out)
}

impl Emitter<'_> {
    fn struct_text(&self, s: &StructDef, deps: &mut Vec<String>) -> Result<String, Located> {
        let mut lines = Vec::new();
        comment_lines(&mut lines, s.comment.as_deref());
        let mut const_scope = s.scope.clone();
        const_scope.push(format!("{}_Constants", s.name));
        for c in self.defs.consts.iter().filter(|c| c.scope == const_scope) {
            comment_lines(&mut lines, c.comment.as_deref());
            let r = self.resolve(&c.ty, &[], &c.scope, c.pos, 0)?;
            let (Elem::Base(base), Array::Scalar) = (&r.elem, r.array) else {
                return Err(Located::unsupported(
                    c.pos,
                    format!("constant {} of type {}", c.name, type_text(&r)),
                    "ROS 2 .msg constants are primitives",
                ));
            };
            let value = scalar_text(&c.value, *base, c.pos)?;
            lines.push(format!("{} {}={value}", type_text(&r), c.name));
        }
        for m in &s.members {
            comment_lines(&mut lines, m.comment.as_deref());
            let r = self.resolve(&m.ty, &m.dims, &s.scope, m.pos, 0)?;
            if let Elem::Msg(q) = &r.elem {
                deps.push(q.clone());
            }
            let mut line = format!("{} {}", type_text(&r), m.name);
            if let Some(v) = m.default.as_ref().or(r.default.as_ref()) {
                let text = match (&r.elem, r.array) {
                    (Elem::Base(b), Array::Scalar) => scalar_text(v, *b, m.pos)?,
                    (Elem::Base(b), _) => array_default(v, *b, m.pos)?,
                    (Elem::Msg(_), _) => {
                        return Err(Located::unsupported(
                            m.pos,
                            format!("a default value for {} (a message field)", m.name),
                            "ROS 2 .msg has default values only for primitive fields",
                        ));
                    }
                };
                line.push(' ');
                line.push_str(&text);
            }
            lines.push(line);
        }
        Ok(lines.join("\n"))
    }

    fn resolve(
        &self,
        ty: &TypeSpec,
        dims: &[u64],
        scope: &[String],
        pos: Pos,
        depth: usize,
    ) -> Result<Resolved, Located> {
        if depth > MAX_NESTING {
            return Err(Located::new(
                pos,
                IdlError::Limit(format!("typedefs nest more than {MAX_NESTING} levels deep")),
            ));
        }
        if dims.len() > 1 {
            let shape = dims.iter().fold(String::new(), |mut s, d| {
                let _ = write!(s, "[{d}]");
                s
            });
            return Err(Located::unsupported(
                pos,
                format!("the multi-dimensional array {shape}"),
                "ROS 2 .msg arrays have one dimension",
            ));
        }
        let mut r = match ty {
            TypeSpec::Base(b) => Resolved {
                elem: Elem::Base(*b),
                array: Array::Scalar,
                default: None,
            },
            TypeSpec::Unsupported {
                construct,
                why,
                pos,
            } => return Err(Located::unsupported(*pos, construct.clone(), why)),
            TypeSpec::Sequence(elem, bound) => {
                let inner = self.resolve(elem, &[], scope, pos, depth + 1)?;
                if inner.array != Array::Scalar {
                    return Err(nested(pos, "a sequence of arrays or sequences"));
                }
                Resolved {
                    elem: inner.elem,
                    array: bound.map_or(Array::Unbounded, Array::Bounded),
                    default: None,
                }
            }
            TypeSpec::Named(name) => self.named(name, scope, depth)?,
        };
        if let Some(&n) = dims.first() {
            if r.array != Array::Scalar {
                return Err(nested(pos, "an array of a sequence or array typedef"));
            }
            r.array = Array::Fixed(n);
            r.default = None;
        }
        Ok(r)
    }

    fn named(
        &self,
        name: &ScopedName,
        scope: &[String],
        depth: usize,
    ) -> Result<Resolved, Located> {
        for q in candidates(scope, name) {
            if let Some(t) = self.defs.typedefs.get(&q) {
                let mut r = self.resolve(&t.ty, &t.dims, &t.scope, name.pos, depth + 1)?;
                if t.default.is_some() {
                    r.default.clone_from(&t.default);
                }
                return Ok(r);
            }
            if let Some((construct, at)) = self.defs.others.get(&q) {
                return Err(Located::unsupported(
                    name.pos,
                    format!("{construct} {q} (line {})", at.line),
                    "ROS 2 .msg has only structures, primitives, strings and arrays",
                ));
            }
            if self.index.contains_key(&q) {
                return Ok(msg(q));
            }
        }
        let q = if name.absolute || name.parts.len() > 1 {
            name.parts.join("/")
        } else {
            let mut parts = scope.to_vec();
            parts.extend(name.parts.iter().cloned());
            parts.join("/")
        };
        Ok(msg(q))
    }
}

fn msg(q: String) -> Resolved {
    Resolved {
        elem: Elem::Msg(q),
        array: Array::Scalar,
        default: None,
    }
}

fn nested(pos: Pos, what: &str) -> Located {
    Located::unsupported(pos, what, "ROS 2 .msg has no nested arrays")
}

/// The `.msg` spelling of a resolved type: `float64[9]`, `string<=10[<=5]`, `pkg/Type[]`.
fn type_text(r: &Resolved) -> String {
    let elem = match &r.elem {
        Elem::Base(b) => base_text(*b),
        Elem::Msg(q) => msg_type_text(q),
    };
    match r.array {
        Array::Scalar => elem,
        Array::Fixed(n) => format!("{elem}[{n}]"),
        Array::Unbounded => format!("{elem}[]"),
        Array::Bounded(n) => format!("{elem}[<={n}]"),
    }
}

/// `pkg/msg/Type` → `pkg/Type` (as `.msg` files name types); other names as they are.
fn msg_type_text(q: &str) -> String {
    let parts: Vec<&str> = q.split('/').collect();
    match parts.as_slice() {
        [pkg, "msg", name] => format!("{pkg}/{name}"),
        _ => q.to_string(),
    }
}

fn base_text(b: Base) -> String {
    let s = match b {
        Base::Bool => "bool",
        Base::Octet => "byte",
        Base::Char => "char",
        Base::I8 => "int8",
        Base::U8 => "uint8",
        Base::I16 => "int16",
        Base::U16 => "uint16",
        Base::I32 => "int32",
        Base::U32 => "uint32",
        Base::I64 => "int64",
        Base::U64 => "uint64",
        Base::F32 => "float32",
        Base::F64 => "float64",
        Base::Str(None) => "string",
        Base::WStr(None) => "wstring",
        Base::Str(Some(n)) => return format!("string<={n}"),
        Base::WStr(Some(n)) => return format!("wstring<={n}"),
    };
    s.to_string()
}

fn int_range(b: Base) -> Option<(i128, i128)> {
    Some(match b {
        Base::Octet | Base::Char | Base::U8 => (0, 255),
        Base::I8 => (-128, 127),
        Base::I16 => (i128::from(i16::MIN), i128::from(i16::MAX)),
        Base::U16 => (0, i128::from(u16::MAX)),
        Base::I32 => (i128::from(i32::MIN), i128::from(i32::MAX)),
        Base::U32 => (0, i128::from(u32::MAX)),
        Base::I64 => (i128::from(i64::MIN), i128::from(i64::MAX)),
        Base::U64 => (0, i128::from(u64::MAX)),
        _ => return None,
    })
}

/// A value as `.msg` writes it for a field or constant of type `b`.
fn scalar_text(v: &Value, b: Base, pos: Pos) -> Result<String, Located> {
    let bad = || Located::value(pos, format!("{v} is not a valid {} value", base_text(b)));
    match (b, v) {
        (Base::Bool, Value::Bool(x)) => Ok(x.to_string()),
        (Base::Bool, Value::Int(i @ (0 | 1))) => Ok((*i == 1).to_string()),
        (Base::Str(_) | Base::WStr(_), Value::Str(s)) => {
            if s.contains(['\n', '\r']) {
                return Err(Located::unsupported(
                    pos,
                    "a string value with a line break",
                    "a .msg value is one line",
                ));
            }
            Ok(format!("\"{}\"", s.replace('"', "\\\"")))
        }
        (Base::F32 | Base::F64, Value::Int(i)) => Ok(i.to_string()),
        (Base::F32 | Base::F64, Value::Float(f)) if f.is_finite() => Ok(format!("{f:?}")),
        (_, Value::Int(_) | Value::Char(_)) => {
            let i = match v {
                Value::Char(c) => i128::from(u32::from(*c)),
                Value::Int(i) => *i,
                _ => return Err(bad()),
            };
            let (lo, hi) = int_range(b).ok_or_else(bad)?;
            if (lo..=hi).contains(&i) {
                Ok(i.to_string())
            } else {
                Err(Located::value(
                    pos,
                    format!("{i} does not fit {}", base_text(b)),
                ))
            }
        }
        _ => Err(bad()),
    }
}

/// An array field's default: rosidl writes the Python tuple as a string (`"(1, 2, 3)"`,
/// `"('a', 'b')"`, `"(5, )"`); `.msg` writes `[1, 2, 3]`.
fn array_default(v: &Value, b: Base, pos: Pos) -> Result<String, Located> {
    let bad = || Located::value(pos, "an array default must be a tuple such as \"(1, 2)\"");
    let Value::Str(s) = v else {
        return Err(bad());
    };
    let t = s.trim();
    let inner = t
        .strip_prefix('(')
        .and_then(|t| t.strip_suffix(')'))
        .or_else(|| t.strip_prefix('[').and_then(|t| t.strip_suffix(']')))
        .ok_or_else(bad)?;
    if inner.contains(['\n', '\r']) {
        return Err(bad());
    }
    let items: Vec<String> = split_items(inner)
        .into_iter()
        .map(str::trim)
        .filter(|i| !i.is_empty())
        .map(|i| match (b, i) {
            (Base::Bool, "True") => "true".to_string(),
            (Base::Bool, "False") => "false".to_string(),
            _ => i.to_string(),
        })
        .collect();
    Ok(format!("[{}]", items.join(", ")))
}

/// Splits at the commas outside quotes (`'a, b', 'c'` is two items).
fn split_items(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut quote: Option<char> = None;
    let mut escaped = false;
    let mut start = 0;
    for (i, c) in s.char_indices() {
        match (quote, c) {
            (Some(_), _) if escaped => escaped = false,
            (Some(_), '\\') => escaped = true,
            (Some(q), c) if c == q => quote = None,
            (None, '\'' | '"') => quote = Some(c),
            (None, ',') => {
                out.push(s.get(start..i).unwrap_or(""));
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(s.get(start..).unwrap_or(""));
    out
}

/// `# ` comment lines for a `@verbatim` comment.
fn comment_lines(lines: &mut Vec<String>, comment: Option<&str>) {
    let Some(text) = comment.filter(|t| !t.trim().is_empty()) else {
        return;
    };
    for line in text.split('\n') {
        let line = line.trim_end_matches('\r');
        if line.is_empty() {
            lines.push("#".to_string());
        } else if line.starts_with([' ', '\t']) {
            lines.push(format!("#{line}"));
        } else {
            lines.push(format!("# {line}"));
        }
    }
}
