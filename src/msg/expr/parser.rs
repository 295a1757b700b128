//! Tokens → syntax tree, by recursive descent, with Python's precedences:
//!
//! ```text
//! or      := and ("or" and)*
//! and     := not ("and" not)*
//! not     := "not" not | compare
//! compare := STRING "in" sum             Python's substring test (case-sensitive)
//!          | sum [CMP sum]               without CMP: the value is true / non-zero / non-empty
//! sum     := product (("+" | "-") product)*
//! product := unary (("*" | "/") unary)*
//! unary   := ("-" | "+") unary | atom
//! atom    := NUMBER | STRING | WORD | WORD "(" [or ("," or)*] ")" | "(" or ")"
//! ```
//!
//! A WORD is a field path, a constant's name, `true`/`false` or `topic`: what it is depends
//! on the message type, and is decided when compiling. A bare STRING as a condition searches
//! every string field.

use super::error::{ExprError, ExprErrorKind};
use super::lexer::{ArithOp, CmpOp, Tok, tokens};

/// A function applied to a field's value in the forms that test every element of `[*]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Func {
    /// The value itself.
    None,
    /// `len(path)`: the length of an array or a string.
    Len,
    /// `abs(path)`: the absolute value of a number.
    Abs,
}

/// The syntax tree of an expression; every node knows the column it starts at.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Ast {
    Or(Vec<Ast>),
    And(Vec<Ast>),
    Not(Box<Ast>, usize),
    Compare {
        lhs: Box<Ast>,
        op: CmpOp,
        op_column: usize,
        rhs: Box<Ast>,
    },
    /// `"text" in operand`.
    In {
        needle: String,
        column: usize,
        operand: Box<Ast>,
    },
    /// A number as written.
    Num(String, usize),
    /// A quoted string (as a condition: any string field contains it, ignoring case).
    Str(String, usize),
    /// A field path, a constant, `true`/`false` or `topic`.
    Word(String, usize),
    /// `-x` (the column of the `-`).
    Neg(Box<Ast>, usize),
    /// `a op b` (the column of the operator).
    Arith {
        op: ArithOp,
        column: usize,
        lhs: Box<Ast>,
        rhs: Box<Ast>,
    },
    /// `name(args)` (the column of the name).
    Call {
        name: String,
        column: usize,
        args: Vec<Ast>,
    },
}

impl Ast {
    /// The column the node's text starts at.
    pub(super) fn start(&self) -> usize {
        match self {
            Ast::Or(items) | Ast::And(items) => items.first().map_or(1, Ast::start),
            Ast::Compare { lhs, .. } | Ast::Arith { lhs, .. } => lhs.start(),
            Ast::Not(_, c)
            | Ast::In { column: c, .. }
            | Ast::Num(_, c)
            | Ast::Str(_, c)
            | Ast::Word(_, c)
            | Ast::Neg(_, c)
            | Ast::Call { column: c, .. } => *c,
        }
    }
}

/// Parses `text` into a syntax tree.
pub(super) fn parse(text: &str) -> Result<Ast, ExprError> {
    let toks = tokens(text)?;
    let mut p = Parser {
        text,
        toks: &toks,
        at: 0,
        depth: 0,
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
    /// Nesting of parentheses, calls and prefix operators (bounded: no stack overflow).
    depth: usize,
}

/// Deepest nesting accepted.
const MAX_DEPTH: usize = 200;

const END: (Tok, usize) = (Tok::End, 0);

fn is_word(t: &Tok, w: &str) -> bool {
    matches!(t, Tok::Word(x) if x == w)
}

/// Words that cannot be field paths.
const KEYWORDS: [&str; 5] = ["and", "or", "not", "in", "None"];

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

    fn deeper(&mut self, column: usize) -> Result<(), ExprError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(ExprError::new(
                self.text,
                column,
                ExprErrorKind::Mismatch(format!("nested more than {MAX_DEPTH} deep")),
            ));
        }
        Ok(())
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
        let mut items = vec![self.not()?];
        while is_word(self.peek().0, "and") {
            self.next();
            items.push(self.not()?);
        }
        Ok(if items.len() == 1 {
            items.pop().unwrap_or(Ast::And(Vec::new()))
        } else {
            Ast::And(items)
        })
    }

    fn not(&mut self) -> Result<Ast, ExprError> {
        let (t, column) = self.peek();
        if is_word(t, "not") {
            self.next();
            self.deeper(column)?;
            let inner = self.not()?;
            self.depth -= 1;
            return Ok(Ast::Not(Box::new(inner), column));
        }
        self.compare()
    }

    fn compare(&mut self) -> Result<Ast, ExprError> {
        if let (Tok::Str(s), column) = self.peek() {
            if self
                .toks
                .get(self.at + 1)
                .is_some_and(|(t, _)| is_word(t, "in"))
            {
                let needle = s.clone();
                self.next();
                self.next();
                let operand = self.sum()?;
                return Ok(Ast::In {
                    needle,
                    column,
                    operand: Box::new(operand),
                });
            }
        }
        let lhs = self.sum()?;
        let (op, op_column) = match self.peek() {
            (Tok::Cmp(op), c) => (*op, c),
            _ => return Ok(lhs),
        };
        self.next();
        let rhs = match self.peek() {
            (Tok::Word(w), _) if KEYWORDS.contains(&w.as_str()) => None,
            (Tok::Num(_) | Tok::Str(_) | Tok::Word(_) | Tok::Open | Tok::Arith(_), _) => {
                Some(self.sum()?)
            }
            _ => None,
        };
        let Some(rhs) = rhs else {
            let (t, c) = self.peek();
            return Err(self.expected(
                c,
                &format!(
                    "a number, a \"string\", true, false, a constant's name or a computation after '{}'",
                    op.text()
                ),
                t,
            ));
        };
        Ok(Ast::Compare {
            lhs: Box::new(lhs),
            op,
            op_column,
            rhs: Box::new(rhs),
        })
    }

    fn sum(&mut self) -> Result<Ast, ExprError> {
        self.left_assoc([ArithOp::Add, ArithOp::Sub], Self::product)
    }

    fn product(&mut self) -> Result<Ast, ExprError> {
        self.left_assoc([ArithOp::Mul, ArithOp::Div], Self::unary)
    }

    /// `operand (OP operand)*` for the two operators `ops` of one precedence, grouped from the
    /// left (`a - b - c` is `(a - b) - c`).
    fn left_assoc(
        &mut self,
        ops: [ArithOp; 2],
        operand: fn(&mut Self) -> Result<Ast, ExprError>,
    ) -> Result<Ast, ExprError> {
        let mut lhs = operand(self)?;
        while let (Tok::Arith(op), column) = self.peek() {
            let op = *op;
            if !ops.contains(&op) {
                break;
            }
            self.next();
            let rhs = operand(self)?;
            lhs = Ast::Arith {
                op,
                column,
                lhs: Box::new(lhs),
                rhs: Box::new(rhs),
            };
        }
        Ok(lhs)
    }

    fn unary(&mut self) -> Result<Ast, ExprError> {
        match self.peek() {
            (Tok::Arith(op @ (ArithOp::Sub | ArithOp::Add)), column) => {
                let negate = *op == ArithOp::Sub;
                self.next();
                self.deeper(column)?;
                let inner = self.unary()?;
                self.depth -= 1;
                Ok(if negate {
                    Ast::Neg(Box::new(inner), column)
                } else {
                    inner
                })
            }
            _ => self.atom(),
        }
    }

    fn atom(&mut self) -> Result<Ast, ExprError> {
        let (tok, column) = self.next();
        match tok {
            Tok::Open => {
                self.deeper(column)?;
                let inner = self.or()?;
                self.depth -= 1;
                match self.next() {
                    (Tok::Close, _) => Ok(inner),
                    (t, c) => Err(self.expected(c, "')'", &t)),
                }
            }
            Tok::Num(n) => Ok(Ast::Num(n, column)),
            Tok::Str(s) => Ok(Ast::Str(s, column)),
            Tok::Word(w) if KEYWORDS.contains(&w.as_str()) => Err(self.expected(
                column,
                "a field, a value, \"text\", 'not' or '('",
                &Tok::Word(w),
            )),
            Tok::Word(w) => {
                if *self.peek().0 != Tok::Open {
                    return Ok(Ast::Word(w, column));
                }
                self.next();
                self.deeper(column)?;
                let mut args = Vec::new();
                if *self.peek().0 == Tok::Close {
                    self.next();
                } else {
                    loop {
                        args.push(self.or()?);
                        match self.next() {
                            (Tok::Comma, _) => {}
                            (Tok::Close, _) => break,
                            (t, c) => return Err(self.expected(c, "',' or ')'", &t)),
                        }
                    }
                }
                self.depth -= 1;
                Ok(Ast::Call {
                    name: w,
                    column,
                    args,
                })
            }
            t => Err(self.expected(column, "a field, a value, \"text\", 'not' or '('", &t)),
        }
    }
}

impl Ast {
    /// True when a word is `topic` or a path starting with `topic` or `m.topic`.
    pub(super) fn mentions_topic(&self) -> bool {
        match self {
            Ast::Or(items) | Ast::And(items) => items.iter().any(Ast::mentions_topic),
            Ast::Not(inner, _) | Ast::Neg(inner, _) => inner.mentions_topic(),
            Ast::Compare { lhs, rhs, .. } | Ast::Arith { lhs, rhs, .. } => {
                lhs.mentions_topic() || rhs.mentions_topic()
            }
            Ast::In { operand, .. } => operand.mentions_topic(),
            Ast::Call { args, .. } => args.iter().any(Ast::mentions_topic),
            Ast::Word(w, _) => {
                let p = w.strip_prefix("m.").unwrap_or(w);
                p.strip_prefix("topic")
                    .is_some_and(|rest| rest.is_empty() || rest.starts_with(['.', '[']))
            }
            Ast::Num(..) | Ast::Str(..) => false,
        }
    }
}
