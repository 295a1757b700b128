//! Expression text → tokens, each with the 1-based column (in characters) where it starts.

use super::error::{ExprError, ExprErrorKind};

/// A comparison operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CmpOp {
    /// `==`.
    Eq,
    /// `!=`.
    Ne,
    /// `<`.
    Lt,
    /// `<=`.
    Le,
    /// `>`.
    Gt,
    /// `>=`.
    Ge,
    /// `~`: case-insensitive substring.
    Like,
    /// `=~`: regular expression search.
    Regex,
}

impl CmpOp {
    /// The operator as written.
    pub fn text(self) -> &'static str {
        match self {
            CmpOp::Eq => "==",
            CmpOp::Ne => "!=",
            CmpOp::Lt => "<",
            CmpOp::Le => "<=",
            CmpOp::Gt => ">",
            CmpOp::Ge => ">=",
            CmpOp::Like => "~",
            CmpOp::Regex => "=~",
        }
    }
}

/// An arithmetic operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArithOp {
    /// `+`.
    Add,
    /// `-`.
    Sub,
    /// `*`.
    Mul,
    /// `/` (true division, as Python's).
    Div,
}

impl ArithOp {
    /// The operator as written.
    pub fn text(self) -> &'static str {
        match self {
            ArithOp::Add => "+",
            ArithOp::Sub => "-",
            ArithOp::Mul => "*",
            ArithOp::Div => "/",
        }
    }
}

/// One token.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Tok {
    /// A name or field path: `header.frame_id`, `ranges[10]`, `WARN`, `and`, `len`.
    Word(String),
    /// A quoted string, escapes resolved.
    Str(String),
    /// A number as written (`-1.5`, `42`, `1e3`).
    Num(String),
    /// A comparison operator.
    Cmp(CmpOp),
    /// `(`.
    Open,
    /// `)`.
    Close,
    /// `+ - * /`.
    Arith(ArithOp),
    /// `,` between a function's arguments.
    Comma,
    /// The end of the text.
    End,
}

impl Tok {
    /// How the token reads in an error message.
    pub(super) fn describe(&self) -> String {
        match self {
            Tok::Word(w) => format!("'{w}'"),
            Tok::Str(s) => format!("the string \"{s}\""),
            Tok::Num(n) => format!("the number {n}"),
            Tok::Cmp(op) => format!("'{}'", op.text()),
            Tok::Open => "'('".into(),
            Tok::Close => "')'".into(),
            Tok::Arith(op) => format!("'{}'", op.text()),
            Tok::Comma => "','".into(),
            Tok::End => "the end of the expression".into(),
        }
    }
}

/// Longest expression accepted (one is typed by a person).
pub const MAX_EXPR_LEN: usize = 4096;

/// Splits `text` into tokens with their columns; the last is [`Tok::End`].
pub(super) fn tokens(text: &str) -> Result<Vec<(Tok, usize)>, ExprError> {
    let err = |column: usize, kind: ExprErrorKind| ExprError::new(text, column, kind);
    if text.len() > MAX_EXPR_LEN {
        return Err(err(
            1,
            ExprErrorKind::TooLong {
                limit: MAX_EXPR_LEN,
            },
        ));
    }
    let chars: Vec<char> = text.chars().collect();
    let at = |i: usize| chars.get(i).copied();
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(c) = at(i) {
        let column = i + 1;
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        let two = (c, at(i + 1).unwrap_or(' '));
        let cmp = match two {
            ('=', '=') => Some((CmpOp::Eq, 2)),
            ('!', '=') => Some((CmpOp::Ne, 2)),
            ('<', '=') => Some((CmpOp::Le, 2)),
            ('>', '=') => Some((CmpOp::Ge, 2)),
            ('=', '~') => Some((CmpOp::Regex, 2)),
            ('<', _) => Some((CmpOp::Lt, 1)),
            ('>', _) => Some((CmpOp::Gt, 1)),
            ('~', _) => Some((CmpOp::Like, 1)),
            _ => None,
        };
        if let Some((op, len)) = cmp {
            out.push((Tok::Cmp(op), column));
            i += len;
            continue;
        }
        match c {
            '(' => {
                out.push((Tok::Open, column));
                i += 1;
            }
            ')' => {
                out.push((Tok::Close, column));
                i += 1;
            }
            '"' | '\'' => {
                let (s, next) = string(&chars, i, c).map_err(|(col, k)| err(col, k))?;
                out.push((Tok::Str(s), column));
                i = next;
            }
            ',' => {
                out.push((Tok::Comma, column));
                i += 1;
            }
            '+' | '-' | '*' => {
                let op = match c {
                    '+' => ArithOp::Add,
                    '-' => ArithOp::Sub,
                    _ => ArithOp::Mul,
                };
                out.push((Tok::Arith(op), column));
                i += 1;
            }
            // After a value `/` divides; elsewhere it starts a path (`/header/seq`).
            '/' if ends_value(out.last()) || !at(i + 1).is_some_and(starts_name) => {
                out.push((Tok::Arith(ArithOp::Div), column));
                i += 1;
            }
            c if c.is_ascii_digit()
                || (c == '.' && at(i + 1).is_some_and(|d| d.is_ascii_digit())) =>
            {
                let start = i;
                i += 1;
                while let Some(d) = at(i) {
                    let exponent_sign =
                        matches!(d, '-' | '+') && matches!(at(i - 1), Some('e' | 'E'));
                    if d.is_ascii_alphanumeric() || d == '.' || d == '_' || exponent_sign {
                        i += 1;
                    } else {
                        break;
                    }
                }
                out.push((
                    Tok::Num(chars.get(start..i).unwrap_or_default().iter().collect()),
                    column,
                ));
            }
            c if c.is_ascii_alphabetic() || c == '_' || c == '/' => {
                let start = i;
                while let Some(d) = at(i) {
                    if d.is_ascii_alphanumeric() || matches!(d, '_' | '.') {
                        i += 1;
                    } else if d == '/' && at(i + 1).is_some_and(starts_name) && i > start {
                        // `pose/position/x`: a path with ROS separators (`a / b` divides).
                        i += 1;
                    } else if d == '[' {
                        // An index or `[*]`: taken whole, checked by the path parser.
                        match chars.iter().skip(i).position(|&e| e == ']') {
                            Some(p) => i += p + 1,
                            None => {
                                return Err(err(
                                    i + 1,
                                    ExprErrorKind::Expected {
                                        expected: "']' to close the index".into(),
                                        found: "the end of the expression".into(),
                                    },
                                ));
                            }
                        }
                    } else {
                        break;
                    }
                }
                out.push((
                    Tok::Word(chars.get(start..i).unwrap_or_default().iter().collect()),
                    column,
                ));
            }
            '&' | '|' | '!' => {
                let instead = match c {
                    '&' => "and",
                    '|' => "or",
                    _ => "not",
                };
                return Err(err(
                    column,
                    ExprErrorKind::Expected {
                        expected: format!("'{instead}' (the expression language spells it so)"),
                        found: format!("'{c}'"),
                    },
                ));
            }
            other => {
                return Err(err(
                    column,
                    ExprErrorKind::Expected {
                        expected: "a field, a value, an operator or a parenthesis".into(),
                        found: format!("'{}'", other.escape_debug()),
                    },
                ));
            }
        }
    }
    out.push((Tok::End, chars.len() + 1));
    Ok(out)
}

/// True when the token ends a value (a `/` after it divides).
fn ends_value(last: Option<&(Tok, usize)>) -> bool {
    matches!(
        last,
        Some((Tok::Word(_) | Tok::Num(_) | Tok::Str(_) | Tok::Close, _))
    )
}

fn starts_name(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_'
}

/// A quoted string starting at `start` (the quote), with `\\`, `\"`, `\'`, `\n`, `\t`
/// escapes; the string and the index after the closing quote.
fn string(
    chars: &[char],
    start: usize,
    quote: char,
) -> Result<(String, usize), (usize, ExprErrorKind)> {
    let mut s = String::new();
    let mut i = start + 1;
    loop {
        match chars.get(i) {
            None => {
                return Err((
                    start + 1,
                    ExprErrorKind::Expected {
                        expected: format!("a closing {quote} for this string"),
                        found: "the end of the expression".into(),
                    },
                ));
            }
            Some(&c) if c == quote => return Ok((s, i + 1)),
            Some('\\') => {
                let e = chars.get(i + 1).copied();
                match e {
                    Some('n') => s.push('\n'),
                    Some('t') => s.push('\t'),
                    Some(c @ ('\\' | '"' | '\'')) => s.push(c),
                    _ => {
                        // Unknown escapes stay as written (as Python keeps them), so that
                        // regular expressions such as "\d" read naturally.
                        s.push('\\');
                        i += 1;
                        continue;
                    }
                }
                i += 2;
            }
            Some(&c) => {
                s.push(c);
                i += 1;
            }
        }
    }
}
