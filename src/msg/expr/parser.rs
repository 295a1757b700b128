//! Tokens → syntax tree, by recursive descent:
//!
//! ```text
//! expr    := and ("or" and)*
//! and     := unary ("and" unary)*
//! unary   := "not" unary | primary
//! primary := "(" expr ")"
//!          | STRING                      any string field contains it (case-insensitive)
//!          | STRING "in" operand         Python's substring test (case-sensitive)
//!          | operand [CMP value]         without CMP: the value is true / non-zero / non-empty
//! operand := PATH | ("len" | "abs") "(" PATH ")"
//! value   := NUMBER | STRING | true | false | NAME   (NAME: a constant of the type)
//! ```

use super::error::{ExprError, ExprErrorKind};
use super::lexer::{CmpOp, Tok, tokens};

/// A function applied to a field's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Func {
    /// The value itself.
    None,
    /// `len(path)`: the length of an array or a string.
    Len,
    /// `abs(path)`: the absolute value of a number.
    Abs,
}

/// A field path, maybe inside `len()` or `abs()`.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Operand {
    pub(super) func: Func,
    pub(super) path: String,
    /// Column of the path text.
    pub(super) column: usize,
    /// Column of the operand (the function name, or the path).
    pub(super) start: usize,
}

/// A value to compare with.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Literal {
    Num(String),
    Str(String),
    Bool(bool),
    /// A constant's name, maybe with a path to the type holding it (`m.WARN`, `status.STATUS_FIX`).
    Name(String),
}

/// The syntax tree of an expression.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Ast {
    Or(Vec<Ast>),
    And(Vec<Ast>),
    Not(Box<Ast>),
    Compare {
        operand: Operand,
        op: CmpOp,
        op_column: usize,
        value: Literal,
        value_column: usize,
    },
    Truthy(Operand),
    /// A bare string: any string field contains it, ignoring case.
    Text(String),
    /// `"text" in path`.
    In {
        needle: String,
        operand: Operand,
    },
}

/// Parses `text` into a syntax tree.
pub(super) fn parse(text: &str) -> Result<Ast, ExprError> {
    let toks = tokens(text)?;
    let mut p = Parser {
        text,
        toks: &toks,
        at: 0,
    };
    let ast = p.or()?;
    match p.peek() {
        (Tok::End, _) => Ok(ast),
        (t, column) => Err(p.expected(column, "'and', 'or' or the end", t)),
    }
}

struct Parser<'a> {
    text: &'a str,
    toks: &'a [(Tok, usize)],
    at: usize,
}

const END: (Tok, usize) = (Tok::End, 0);

fn is_word(t: &Tok, w: &str) -> bool {
    matches!(t, Tok::Word(x) if x == w)
}

const KEYWORDS: [&str; 9] = [
    "and", "or", "not", "in", "len", "abs", "true", "false", "None",
];

impl Parser<'_> {
    fn peek(&self) -> (&Tok, usize) {
        let (t, c) = self.toks.get(self.at).unwrap_or(&END);
        let c = if *c == 0 {
            self.text.chars().count() + 1
        } else {
            *c
        };
        (t, c)
    }

    fn next(&mut self) -> (Tok, usize) {
        let (t, c) = self.peek();
        let t = t.clone();
        self.at += 1;
        (t, c)
    }

    fn expected(&self, column: usize, what: &str, found: &Tok) -> ExprError {
        ExprError::new(
            self.text,
            column,
            ExprErrorKind::Expected {
                expected: what.to_string(),
                found: found.describe(),
            },
        )
    }

    fn or(&mut self) -> Result<Ast, ExprError> {
        let mut items = vec![self.and()?];
        while is_word(self.peek().0, "or") {
            self.next();
            items.push(self.and()?);
        }
        Ok(if items.len() == 1 {
            items.pop().unwrap_or(Ast::Or(Vec::new()))
        } else {
            Ast::Or(items)
        })
    }

    fn and(&mut self) -> Result<Ast, ExprError> {
        let mut items = vec![self.unary()?];
        while is_word(self.peek().0, "and") {
            self.next();
            items.push(self.unary()?);
        }
        Ok(if items.len() == 1 {
            items.pop().unwrap_or(Ast::And(Vec::new()))
        } else {
            Ast::And(items)
        })
    }

    fn unary(&mut self) -> Result<Ast, ExprError> {
        if is_word(self.peek().0, "not") {
            self.next();
            return Ok(Ast::Not(Box::new(self.unary()?)));
        }
        self.primary()
    }

    fn primary(&mut self) -> Result<Ast, ExprError> {
        let (tok, column) = self.next();
        match tok {
            Tok::Open => {
                let inner = self.or()?;
                match self.next() {
                    (Tok::Close, _) => Ok(inner),
                    (t, c) => Err(self.expected(c, "')'", &t)),
                }
            }
            Tok::Str(s) => {
                if is_word(self.peek().0, "in") {
                    self.next();
                    let (t, c) = self.next();
                    let operand = self.operand(t, c)?;
                    return Ok(Ast::In { needle: s, operand });
                }
                Ok(Ast::Text(s))
            }
            t @ Tok::Word(_) => {
                let operand = self.operand(t, column)?;
                let (op, op_column) = match self.peek() {
                    (Tok::Cmp(op), c) => (*op, c),
                    _ => return Ok(Ast::Truthy(operand)),
                };
                self.next();
                let (t, value_column) = self.next();
                let value = match t {
                    Tok::Num(n) => Literal::Num(n),
                    Tok::Str(s) => Literal::Str(s),
                    Tok::Word(w) if w == "true" || w == "True" => Literal::Bool(true),
                    Tok::Word(w) if w == "false" || w == "False" => Literal::Bool(false),
                    Tok::Word(w) if !KEYWORDS.contains(&w.as_str()) => Literal::Name(w),
                    t => {
                        return Err(self.expected(
                            value_column,
                            &format!(
                                "a number, a \"string\", true, false or a constant's name after '{}'",
                                op.text()
                            ),
                            &t,
                        ));
                    }
                };
                Ok(Ast::Compare {
                    operand,
                    op,
                    op_column,
                    value,
                    value_column,
                })
            }
            t => Err(self.expected(column, "a field, \"text\", 'not' or '('", &t)),
        }
    }

    /// A path or `len(path)` / `abs(path)`, starting with token `tok`.
    fn operand(&mut self, tok: Tok, column: usize) -> Result<Operand, ExprError> {
        let Tok::Word(w) = tok else {
            return Err(self.expected(column, "a field", &tok));
        };
        let func = match w.as_str() {
            "len" => Func::Len,
            "abs" => Func::Abs,
            w if KEYWORDS.contains(&w) => {
                return Err(self.expected(column, "a field", &Tok::Word(w.to_string())));
            }
            _ => {
                return Ok(Operand {
                    func: Func::None,
                    path: w,
                    column,
                    start: column,
                });
            }
        };
        if *self.peek().0 != Tok::Open {
            let (t, c) = self.peek();
            return Err(self.expected(c, &format!("'(' after {w}"), t));
        }
        self.next();
        let (t, c) = self.next();
        let path = match t {
            Tok::Word(p) if !KEYWORDS.contains(&p.as_str()) => p,
            t => return Err(self.expected(c, &format!("a field inside {w}( )"), &t)),
        };
        match self.next() {
            (Tok::Close, _) => Ok(Operand {
                func,
                path,
                column: c,
                start: column,
            }),
            (t, c) => Err(self.expected(c, "')'", &t)),
        }
    }
}

impl Ast {
    /// True when an operand's path is `topic` or starts with `topic` or `m.topic`.
    pub(super) fn mentions_topic(&self) -> bool {
        let names = |o: &Operand| {
            let p = o.path.strip_prefix("m.").unwrap_or(&o.path);
            p.strip_prefix("topic")
                .is_some_and(|rest| rest.is_empty() || rest.starts_with(['.', '[']))
        };
        match self {
            Ast::Or(items) | Ast::And(items) => items.iter().any(Ast::mentions_topic),
            Ast::Not(inner) => inner.mentions_topic(),
            Ast::Compare { operand, .. } | Ast::Truthy(operand) | Ast::In { operand, .. } => {
                names(operand)
            }
            Ast::Text(_) => false,
        }
    }
}
