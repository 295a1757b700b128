//! IDL text → tokens with their positions. Comments (`//`, `/* */`) and preprocessor lines
//! (`#include ...`, any line whose first non-blank character is `#`) are skipped; string and
//! character literals are unescaped here.

use super::error::{Located, Pos};

/// One token.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Tok {
    /// An identifier or keyword.
    Ident(String),
    /// An integer literal, as written (decimal, `0x` hex or `0` octal).
    Int(String),
    /// A floating-point literal, as written (a fixed-point `d` suffix removed).
    Float(String),
    /// A string literal, unescaped.
    Str(String),
    /// A character literal, unescaped.
    Char(char),
    /// `::`.
    Scope,
    /// Any other punctuation character.
    Punct(char),
    /// The end of the text.
    Eof,
}

/// A token and where it starts.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Token {
    /// The token.
    pub tok: Tok,
    /// Where it starts.
    pub pos: Pos,
}

const PUNCT: &str = "{}();,<>[]=@+-*/%~|^&:";

struct Lexer {
    chars: Vec<char>,
    at: usize,
    line: usize,
    col: usize,
    /// Only blanks since the start of the line (a `#` here starts a preprocessor line).
    line_start: bool,
}

/// Splits `text` (whose first line is line `first_line` of the schema) into tokens, ending
/// with [`Tok::Eof`].
pub(crate) fn lex(text: &str, first_line: usize) -> Result<Vec<Token>, Located> {
    let mut lx = Lexer {
        chars: text.chars().collect(),
        at: 0,
        line: first_line,
        col: 1,
        line_start: true,
    };
    let mut out = Vec::new();
    loop {
        lx.skip_blanks()?;
        let pos = lx.pos();
        let Some(c) = lx.peek(0) else {
            out.push(Token { tok: Tok::Eof, pos });
            return Ok(out);
        };
        let tok = lx.token(c, pos)?;
        out.push(Token { tok, pos });
    }
}

impl Lexer {
    fn pos(&self) -> Pos {
        Pos {
            line: self.line,
            col: self.col,
        }
    }

    fn peek(&self, ahead: usize) -> Option<char> {
        self.chars.get(self.at + ahead).copied()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek(0)?;
        self.at += 1;
        if c == '\n' {
            self.line += 1;
            self.col = 1;
            self.line_start = true;
        } else {
            self.col += 1;
        }
        Some(c)
    }

    fn skip_line(&mut self) {
        while let Some(c) = self.peek(0) {
            if c == '\n' {
                return;
            }
            self.bump();
        }
    }

    fn skip_blanks(&mut self) -> Result<(), Located> {
        loop {
            match (self.peek(0), self.peek(1)) {
                (Some('\n'), _) => {
                    self.bump();
                }
                (Some(c), _) if c.is_whitespace() => {
                    self.bump();
                }
                (Some('#'), _) if self.line_start => self.skip_line(),
                (Some('/'), Some('/')) => self.skip_line(),
                (Some('/'), Some('*')) => {
                    let start = self.pos();
                    self.bump();
                    self.bump();
                    loop {
                        match (self.peek(0), self.peek(1)) {
                            (Some('*'), Some('/')) => {
                                self.bump();
                                self.bump();
                                break;
                            }
                            (Some(_), _) => {
                                self.bump();
                            }
                            (None, _) => {
                                return Err(Located::syntax(start, "unterminated /* comment"));
                            }
                        }
                    }
                }
                _ => return Ok(()),
            }
        }
    }

    fn token(&mut self, c: char, pos: Pos) -> Result<Tok, Located> {
        self.line_start = false;
        if c == 'L' && matches!(self.peek(1), Some('"' | '\'')) {
            self.bump();
            return self.token(self.peek(0).unwrap_or('"'), pos);
        }
        if c.is_ascii_alphabetic() || c == '_' {
            let mut s = String::new();
            while let Some(c) = self
                .peek(0)
                .filter(|c| c.is_ascii_alphanumeric() || *c == '_')
            {
                s.push(c);
                self.bump();
            }
            return Ok(Tok::Ident(s));
        }
        if c.is_ascii_digit() || (c == '.' && self.peek(1).is_some_and(|d| d.is_ascii_digit())) {
            return Ok(self.number());
        }
        match c {
            '"' => self.string(pos).map(Tok::Str),
            '\'' => self.character(pos).map(Tok::Char),
            ':' if self.peek(1) == Some(':') => {
                self.bump();
                self.bump();
                Ok(Tok::Scope)
            }
            c if PUNCT.contains(c) => {
                self.bump();
                Ok(Tok::Punct(c))
            }
            c => Err(Located::syntax(
                pos,
                format!("unexpected character {}", c.escape_debug()),
            )),
        }
    }

    fn digits(&mut self, s: &mut String, hex: bool) {
        while let Some(c) = self
            .peek(0)
            .filter(|c| c.is_ascii_digit() || (hex && c.is_ascii_hexdigit()))
        {
            s.push(c);
            self.bump();
        }
    }

    fn number(&mut self) -> Tok {
        let mut s = String::new();
        if self.peek(0) == Some('0') && matches!(self.peek(1), Some('x' | 'X')) {
            s.push_str("0x");
            self.bump();
            self.bump();
            self.digits(&mut s, true);
            return Tok::Int(s);
        }
        let mut float = false;
        self.digits(&mut s, false);
        if self.peek(0) == Some('.') {
            float = true;
            s.push('.');
            self.bump();
            self.digits(&mut s, false);
        }
        if matches!(self.peek(0), Some('e' | 'E')) {
            let sign = matches!(self.peek(1), Some('+' | '-'));
            let digit_at = if sign { 2 } else { 1 };
            if self.peek(digit_at).is_some_and(|c| c.is_ascii_digit()) {
                float = true;
                s.push('e');
                self.bump();
                if sign {
                    s.extend(self.bump());
                }
                self.digits(&mut s, false);
            }
        }
        if matches!(self.peek(0), Some('d' | 'D')) {
            float = true;
            self.bump();
        }
        if float { Tok::Float(s) } else { Tok::Int(s) }
    }

    fn escape(&mut self, pos: Pos) -> Result<char, Located> {
        let Some(c) = self.bump() else {
            return Err(Located::syntax(pos, "unterminated literal"));
        };
        let simple = match c {
            'n' => Some('\n'),
            't' => Some('\t'),
            'v' => Some('\u{b}'),
            'b' => Some('\u{8}'),
            'r' => Some('\r'),
            'f' => Some('\u{c}'),
            'a' => Some('\u{7}'),
            '\\' | '?' | '\'' | '"' => Some(c),
            _ => None,
        };
        if let Some(s) = simple {
            return Ok(s);
        }
        let (radix, max) = match c {
            'x' => (16, 2),
            'u' => (16, 4),
            '0'..='7' => (8, 3),
            _ => return Err(Located::syntax(pos, format!("unknown escape \\{c}"))),
        };
        let mut code = if radix == 8 {
            c.to_digit(8).unwrap_or(0)
        } else {
            0
        };
        let mut taken = u32::from(radix == 8);
        while taken < max {
            let Some(d) = self.peek(0).and_then(|d| d.to_digit(radix)) else {
                break;
            };
            code = code * radix + d;
            taken += 1;
            self.bump();
        }
        char::from_u32(code).ok_or_else(|| Located::syntax(pos, "invalid escaped character"))
    }

    fn string(&mut self, pos: Pos) -> Result<String, Located> {
        self.bump();
        let mut s = String::new();
        loop {
            match self.bump() {
                None => return Err(Located::syntax(pos, "unterminated string")),
                Some('"') => return Ok(s),
                Some('\\') => s.push(self.escape(pos)?),
                Some(c) => s.push(c),
            }
        }
    }

    fn character(&mut self, pos: Pos) -> Result<char, Located> {
        self.bump();
        let c = match self.bump() {
            Some('\\') => self.escape(pos)?,
            Some(c) if c != '\'' && c != '\n' => c,
            _ => return Err(Located::syntax(pos, "invalid character literal")),
        };
        if self.bump() == Some('\'') {
            Ok(c)
        } else {
            Err(Located::syntax(pos, "unterminated character literal"))
        }
    }
}
