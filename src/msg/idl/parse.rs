//! The IDL subset rosidl writes → [`Defs`]: `module` nesting, `struct` (members with
//! annotations and array declarators), `typedef`, `const`. Constructs without a `.msg`
//! equivalent are parsed far enough to be skipped and remembered by name (`enum`, `union`,
//! `bitmask`, struct inheritance, ...) or kept as [`TypeSpec::Unsupported`] (`long double`,
//! `wchar`, `fixed`, `any`, `map`), so that they are an error only where a type uses them.

use super::ast::{Base, ConstDef, Defs, Member, StructDef, TypeSpec, Typedef};
use super::cursor::Cursor;
use super::error::{Located, Pos};
use super::expr::{self, Expr, Value};
use super::lex::{Tok, Token};

/// Declarations that have no `.msg` equivalent, skipped up to their `;`.
const OTHER_DECLARATIONS: &[&str] = &[
    "enum",
    "union",
    "bitmask",
    "bitset",
    "valuetype",
    "interface",
    "exception",
    "native",
    "abstract",
    "local",
    "custom",
    "eventtype",
    "component",
    "home",
    "porttype",
    "connector",
    "import",
    "typeid",
    "typeprefix",
];

/// The annotations that matter for `.msg`, still unevaluated.
#[derive(Default)]
struct Annotations {
    default: Option<Expr>,
    comment: Option<Expr>,
}

struct Parser<'t, 'd> {
    c: Cursor<'t>,
    defs: &'d mut Defs,
    scope: Vec<String>,
}

/// Parses one IDL text (its tokens) and adds what it defines to `defs`.
pub(crate) fn parse_into(toks: &[Token], defs: &mut Defs) -> Result<(), Located> {
    let mut p = Parser {
        c: Cursor::new(toks),
        defs,
        scope: Vec::new(),
    };
    while *p.c.peek() != Tok::Eof {
        p.definition()?;
    }
    Ok(())
}

impl Parser<'_, '_> {
    fn eval(&self, e: &Expr) -> Result<Value, Located> {
        let (defs, scope) = (&*self.defs, &self.scope);
        expr::eval(e, &|name| defs.const_value(scope, name))
    }

    fn eval_opt(&self, e: Option<&Expr>) -> Result<Option<Value>, Located> {
        e.map(|e| self.eval(e)).transpose()
    }

    fn comment(&self, ann: &Annotations) -> Option<String> {
        match self.eval_opt(ann.comment.as_ref()) {
            Ok(Some(Value::Str(s))) => Some(s),
            _ => None,
        }
    }

    fn qualified(&self, name: &str) -> String {
        let mut parts = self.scope.clone();
        parts.push(name.to_string());
        parts.join("/")
    }

    fn definition(&mut self) -> Result<(), Located> {
        self.c.enter()?;
        let ann = self.annotations()?;
        let word = match self.c.peek() {
            Tok::Ident(w) => w.as_str(),
            Tok::Punct(';') => {
                self.c.bump();
                self.c.leave();
                return Ok(());
            }
            _ => "",
        };
        match word {
            "module" => self.module()?,
            "struct" => self.structure(&ann)?,
            "typedef" => self.typedef(&ann)?,
            "const" => self.constant(&ann)?,
            w if OTHER_DECLARATIONS.contains(&w) => self.other(w)?,
            _ => return Err(self.c.unexpected("a module, struct, typedef or const")),
        }
        self.c.leave();
        Ok(())
    }

    fn module(&mut self) -> Result<(), Located> {
        self.c.bump();
        let (name, _) = self.c.expect_ident("a module name")?;
        self.c.expect_punct('{')?;
        self.scope.push(name);
        while !self.c.eat_punct('}') {
            if *self.c.peek() == Tok::Eof {
                return Err(self.c.unexpected("'}'"));
            }
            self.definition()?;
        }
        self.scope.pop();
        self.c.eat_punct(';');
        Ok(())
    }

    /// `@name`, `@name(expr)` or `@name(key=expr, ...)`, any number of them.
    fn annotations(&mut self) -> Result<Annotations, Located> {
        let mut ann = Annotations::default();
        while self.c.eat_punct('@') {
            let name = self.c.scoped_name()?;
            let mut params: Vec<(String, Expr)> = Vec::new();
            if self.c.eat_punct('(') {
                let keyed =
                    matches!(self.c.peek(), Tok::Ident(_)) && *self.c.peek_at(1) == Tok::Punct('=');
                if keyed {
                    loop {
                        let (key, _) = self.c.expect_ident("a parameter name")?;
                        self.c.expect_punct('=')?;
                        params.push((key, expr::parse(&mut self.c)?));
                        if !self.c.eat_punct(',') {
                            break;
                        }
                    }
                } else if *self.c.peek() != Tok::Punct(')') {
                    params.push((String::new(), expr::parse(&mut self.c)?));
                }
                self.c.expect_punct(')')?;
            }
            let param = |key: &str| {
                params
                    .iter()
                    .find(|(k, _)| k == key || k.is_empty())
                    .map(|(_, e)| e.clone())
            };
            match name.parts.last().map(String::as_str) {
                Some("default") => ann.default = param("value"),
                Some("verbatim") => {
                    let language = param("language").map(|e| self.eval(&e));
                    let is_comment = match language {
                        None => true,
                        Some(Ok(Value::Str(l))) => l == "comment",
                        Some(_) => false,
                    };
                    if is_comment {
                        ann.comment = params
                            .iter()
                            .find(|(k, _)| k == "text")
                            .map(|(_, e)| e.clone());
                    }
                }
                _ => {}
            }
        }
        Ok(ann)
    }

    fn structure(&mut self, ann: &Annotations) -> Result<(), Located> {
        let kw = self.c.bump().pos;
        let (name, _) = self.c.expect_ident("a struct name")?;
        if self.c.eat_punct(';') {
            return Ok(()); // a forward declaration
        }
        if *self.c.peek() == Tok::Punct(':') {
            let construct = format!("struct inheritance ({name} : ...)");
            self.defs
                .others
                .insert(self.qualified(&name), (construct, kw));
            return self.skip_declaration();
        }
        self.c.expect_punct('{')?;
        let mut members = Vec::new();
        while !self.c.eat_punct('}') {
            if *self.c.peek() == Tok::Eof {
                return Err(self.c.unexpected("'}'"));
            }
            self.members(&mut members)?;
        }
        self.c.eat_punct(';');
        let def = StructDef {
            scope: self.scope.clone(),
            name,
            comment: self.comment(ann),
            members,
        };
        self.defs.structs.push(def);
        Ok(())
    }

    fn members(&mut self, out: &mut Vec<Member>) -> Result<(), Located> {
        let ann = self.annotations()?;
        let ty = self.type_spec()?;
        let default = self.eval_opt(ann.default.as_ref())?;
        let comment = self.comment(&ann);
        loop {
            let (name, pos) = self.c.expect_ident("a member name")?;
            let dims = self.dims()?;
            out.push(Member {
                name,
                ty: ty.clone(),
                dims,
                default: default.clone(),
                comment: comment.clone(),
                pos,
            });
            if !self.c.eat_punct(',') {
                break;
            }
        }
        self.c.expect_punct(';')?;
        Ok(())
    }

    /// `[N]` any number of times.
    fn dims(&mut self) -> Result<Vec<u64>, Located> {
        let mut dims = Vec::new();
        while self.c.eat_punct('[') {
            dims.push(self.bound()?);
            self.c.expect_punct(']')?;
        }
        Ok(dims)
    }

    /// A positive integer constant expression (array size, string or sequence bound).
    fn bound(&mut self) -> Result<u64, Located> {
        let pos = self.c.pos();
        let e = expr::parse(&mut self.c)?;
        match self.eval(&e)? {
            Value::Int(n) if n > 0 => {
                u64::try_from(n).map_err(|_| Located::value(pos, format!("bound {n} is too large")))
            }
            v => Err(Located::value(
                pos,
                format!("a bound must be a positive integer, not {v}"),
            )),
        }
    }

    fn typedef(&mut self, ann: &Annotations) -> Result<(), Located> {
        self.c.bump();
        let ty = self.type_spec()?;
        let default = self.eval_opt(ann.default.as_ref())?;
        loop {
            let (name, _) = self.c.expect_ident("a typedef name")?;
            let dims = self.dims()?;
            let def = Typedef {
                scope: self.scope.clone(),
                ty: ty.clone(),
                dims,
                default: default.clone(),
            };
            self.defs.typedefs.insert(self.qualified(&name), def);
            if !self.c.eat_punct(',') {
                break;
            }
        }
        self.c.expect_punct(';')?;
        Ok(())
    }

    fn constant(&mut self, ann: &Annotations) -> Result<(), Located> {
        self.c.bump();
        let ty = self.type_spec()?;
        let (name, pos) = self.c.expect_ident("a constant name")?;
        self.c.expect_punct('=')?;
        let e = expr::parse(&mut self.c)?;
        let value = self.eval(&e)?;
        self.c.expect_punct(';')?;
        self.defs
            .values
            .insert(self.qualified(&name), value.clone());
        let def = ConstDef {
            scope: self.scope.clone(),
            name,
            ty,
            value,
            comment: self.comment(ann),
            pos,
        };
        self.defs.consts.push(def);
        Ok(())
    }

    /// `enum`, `union`, ...: remembered by name, skipped to the end of the declaration.
    fn other(&mut self, word: &str) -> Result<(), Located> {
        let pos = self.c.bump().pos;
        if let Tok::Ident(name) = self.c.peek() {
            let q = self.qualified(name);
            self.defs.others.insert(q, (word.to_string(), pos));
        }
        self.skip_declaration()
    }

    /// Skips to the `;` that ends the current declaration (outside braces) and past it.
    fn skip_declaration(&mut self) -> Result<(), Located> {
        let mut depth = 0usize;
        loop {
            match self.c.peek() {
                Tok::Eof => return Err(self.c.unexpected("';'")),
                Tok::Punct('{') => depth += 1,
                Tok::Punct('}') => {
                    if depth == 0 {
                        return Err(self.c.unexpected("';'"));
                    }
                    depth -= 1;
                }
                Tok::Punct(';') if depth == 0 => {
                    self.c.bump();
                    return Ok(());
                }
                _ => {}
            }
            self.c.bump();
        }
    }

    /// Skips `<...>` (with nesting).
    fn skip_angles(&mut self) -> Result<(), Located> {
        self.c.expect_punct('<')?;
        let mut depth = 1usize;
        while depth > 0 {
            match self.c.bump().tok {
                Tok::Punct('<') => depth += 1,
                Tok::Punct('>') => depth -= 1,
                Tok::Eof => return Err(self.c.unexpected("'>'")),
                _ => {}
            }
        }
        Ok(())
    }

    fn type_spec(&mut self) -> Result<TypeSpec, Located> {
        self.c.enter()?;
        let ty = self.type_spec_inner();
        self.c.leave();
        ty
    }

    fn type_spec_inner(&mut self) -> Result<TypeSpec, Located> {
        let pos = self.c.pos();
        let Tok::Ident(word) = self.c.peek() else {
            if *self.c.peek() == Tok::Scope {
                return self.c.scoped_name().map(TypeSpec::Named);
            }
            return Err(self.c.unexpected("a type"));
        };
        let base = match word.as_str() {
            "sequence" => return self.sequence(),
            "string" | "wstring" => {
                let wide = word == "wstring";
                self.c.bump();
                let bound = if *self.c.peek() == Tok::Punct('<') {
                    self.c.bump();
                    let b = self.bound()?;
                    self.c.expect_punct('>')?;
                    Some(b)
                } else {
                    None
                };
                return Ok(TypeSpec::Base(if wide {
                    Base::WStr(bound)
                } else {
                    Base::Str(bound)
                }));
            }
            "unsigned" | "short" | "long" => return self.c_integer(pos),
            "fixed" | "map" => {
                let what = word.clone();
                self.c.bump();
                self.skip_angles()?;
                return Ok(unsupported(&what, pos));
            }
            "wchar" | "any" => {
                let what = word.clone();
                self.c.bump();
                return Ok(unsupported(&what, pos));
            }
            "boolean" => Base::Bool,
            "octet" => Base::Octet,
            "char" => Base::Char,
            "int8" => Base::I8,
            "uint8" => Base::U8,
            "int16" => Base::I16,
            "uint16" => Base::U16,
            "int32" => Base::I32,
            "uint32" => Base::U32,
            "int64" => Base::I64,
            "uint64" => Base::U64,
            "float" => Base::F32,
            "double" => Base::F64,
            _ => return self.c.scoped_name().map(TypeSpec::Named),
        };
        self.c.bump();
        Ok(TypeSpec::Base(base))
    }

    /// `short`, `long`, `long long`, `unsigned ...`, `long double`.
    fn c_integer(&mut self, pos: Pos) -> Result<TypeSpec, Located> {
        let unsigned = self.c.eat_ident("unsigned");
        let base = if self.c.eat_ident("short") {
            if unsigned { Base::U16 } else { Base::I16 }
        } else if self.c.eat_ident("long") {
            if self.c.eat_ident("long") {
                if unsigned { Base::U64 } else { Base::I64 }
            } else if !unsigned && self.c.eat_ident("double") {
                return Ok(unsupported("long double", pos));
            } else if unsigned {
                Base::U32
            } else {
                Base::I32
            }
        } else {
            return Err(self.c.unexpected("'short' or 'long'"));
        };
        Ok(TypeSpec::Base(base))
    }

    fn sequence(&mut self) -> Result<TypeSpec, Located> {
        self.c.bump();
        self.c.expect_punct('<')?;
        let elem = self.type_spec()?;
        let bound = if self.c.eat_punct(',') {
            Some(self.bound()?)
        } else {
            None
        };
        self.c.expect_punct('>')?;
        Ok(TypeSpec::Sequence(Box::new(elem), bound))
    }
}

fn unsupported(construct: &str, pos: Pos) -> TypeSpec {
    let why = match construct {
        "long double" => "ROS 2 .msg has no 128-bit float (rosbags cannot decode it either)",
        "wchar" => {
            "ROS 2 .msg has no wchar type (rosbags parses it but cannot decode it: no size is \
             defined for it)"
        }
        "map" => "ROS 2 .msg has no maps",
        "any" => "ROS 2 .msg has no 'any' type",
        _ => "ROS 2 .msg has no fixed-point type",
    };
    TypeSpec::Unsupported {
        construct: construct.to_string(),
        why,
        pos,
    }
}
