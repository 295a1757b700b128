//! What an IDL schema defines, with qualified names (`pkg/msg/Type`): structures, typedefs,
//! constants, and the names of constructs `.msg` cannot express (enums, unions, ...).

use std::collections::HashMap;

use super::cursor::ScopedName;
use super::error::Pos;
use super::expr::Value;

/// A primitive IDL type (after `long` → `int32` and friends).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Base {
    /// `boolean`.
    Bool,
    /// `octet`.
    Octet,
    /// `char` (8-bit).
    Char,
    /// `int8`.
    I8,
    /// `uint8`.
    U8,
    /// `int16`, `short`.
    I16,
    /// `uint16`, `unsigned short`.
    U16,
    /// `int32`, `long`.
    I32,
    /// `uint32`, `unsigned long`.
    U32,
    /// `int64`, `long long`.
    I64,
    /// `uint64`, `unsigned long long`.
    U64,
    /// `float`.
    F32,
    /// `double`.
    F64,
    /// `string` or `string<N>`.
    Str(Option<u64>),
    /// `wstring` or `wstring<N>`.
    WStr(Option<u64>),
}

/// A type as written in a member, typedef or constant.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum TypeSpec {
    /// A primitive.
    Base(Base),
    /// A structure or typedef, by name.
    Named(ScopedName),
    /// `sequence<T>` or `sequence<T, N>`.
    Sequence(Box<TypeSpec>, Option<u64>),
    /// A valid IDL type with no `.msg` equivalent.
    Unsupported {
        /// The type as written (`long double`, `wchar`, ...).
        construct: String,
        /// Why.
        why: &'static str,
        /// Where.
        pos: Pos,
    },
}

/// One member of a structure.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Member {
    /// Its name.
    pub name: String,
    /// Its type.
    pub ty: TypeSpec,
    /// Array dimensions (`x[3]` → `[3]`).
    pub dims: Vec<u64>,
    /// `@default (value=...)`.
    pub default: Option<Value>,
    /// `@verbatim (language="comment", text=...)`.
    pub comment: Option<String>,
    /// Where its name is.
    pub pos: Pos,
}

/// A structure.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct StructDef {
    /// The enclosing modules.
    pub scope: Vec<String>,
    /// Its name.
    pub name: String,
    /// `@verbatim (language="comment", text=...)`.
    pub comment: Option<String>,
    /// The members, in order.
    pub members: Vec<Member>,
}

/// A `typedef`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Typedef {
    /// The modules it is defined in (names in its type are looked up from here).
    pub scope: Vec<String>,
    /// The aliased type.
    pub ty: TypeSpec,
    /// Array dimensions of the alias.
    pub dims: Vec<u64>,
    /// `@default (value=...)` on the typedef.
    pub default: Option<Value>,
}

/// A `const`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ConstDef {
    /// The enclosing modules (`pkg`, `msg`, `Type_Constants`).
    pub scope: Vec<String>,
    /// Its name.
    pub name: String,
    /// Its declared type.
    pub ty: TypeSpec,
    /// Its value.
    pub value: Value,
    /// `@verbatim (language="comment", text=...)`.
    pub comment: Option<String>,
    /// Where its name is.
    pub pos: Pos,
}

/// Everything the IDL texts of a schema define.
#[derive(Debug, Default)]
pub(crate) struct Defs {
    /// Structures, in order.
    pub structs: Vec<StructDef>,
    /// Typedefs by qualified name.
    pub typedefs: HashMap<String, Typedef>,
    /// Constants, in order.
    pub consts: Vec<ConstDef>,
    /// Constant values by qualified name.
    pub values: HashMap<String, Value>,
    /// Types `.msg` cannot express, by qualified name: what they are and where.
    pub others: HashMap<String, (String, Pos)>,
}

/// The qualified names `name` may mean when written inside `scope`, innermost first.
pub(crate) fn candidates(scope: &[String], name: &ScopedName) -> Vec<String> {
    let tail = name.parts.join("/");
    if name.absolute {
        return vec![tail];
    }
    (0..=scope.len())
        .rev()
        .map(|k| {
            let mut parts: Vec<&str> = scope.iter().take(k).map(String::as_str).collect();
            parts.push(&tail);
            parts.join("/")
        })
        .collect()
}

impl Defs {
    /// The value of the constant `name` written inside `scope`.
    pub fn const_value(&self, scope: &[String], name: &ScopedName) -> Option<Value> {
        candidates(scope, name)
            .iter()
            .find_map(|q| self.values.get(q).cloned())
    }
}
