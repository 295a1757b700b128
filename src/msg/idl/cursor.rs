//! A cursor over the tokens of one IDL text, with the nesting guard every recursive parse
//! step passes through ([`MAX_NESTING`]).

use super::error::{IdlError, Located, Pos};
use super::lex::{Tok, Token};

/// How deeply modules, types and expressions may nest. rosidl writes two or three levels; the
/// limit keeps a hostile schema from exhausting the stack.
pub(crate) const MAX_NESTING: usize = 64;

/// A scoped name as written: `a::b::C` (or `::a::b::C`, `absolute`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ScopedName {
    /// The parts, `["a", "b", "C"]`.
    pub parts: Vec<String>,
    /// Written with a leading `::`.
    pub absolute: bool,
    /// Where it starts.
    pub pos: Pos,
}

/// Tokens and a position in them. The last token is always [`Tok::Eof`].
pub(crate) struct Cursor<'t> {
    toks: &'t [Token],
    at: usize,
    depth: usize,
}

static EOF: Token = Token {
    tok: Tok::Eof,
    pos: Pos { line: 0, col: 0 },
};

impl<'t> Cursor<'t> {
    /// A cursor at the first of `toks`.
    pub fn new(toks: &'t [Token]) -> Self {
        Cursor {
            toks,
            at: 0,
            depth: 0,
        }
    }

    fn token(&self, ahead: usize) -> &'t Token {
        self.toks
            .get(self.at + ahead)
            .or_else(|| self.toks.last())
            .unwrap_or(&EOF)
    }

    /// The current token.
    pub fn peek(&self) -> &'t Tok {
        &self.token(0).tok
    }

    /// The token `ahead` places after the current one.
    pub fn peek_at(&self, ahead: usize) -> &'t Tok {
        &self.token(ahead).tok
    }

    /// Where the current token starts.
    pub fn pos(&self) -> Pos {
        self.token(0).pos
    }

    /// Where the token `ahead` places on starts.
    pub fn pos_at(&self, ahead: usize) -> Pos {
        self.token(ahead).pos
    }

    /// Moves past the current token (never past the end) and returns it.
    pub fn bump(&mut self) -> &'t Token {
        let t = self.token(0);
        if self.at < self.toks.len() {
            self.at += 1;
        }
        t
    }

    /// True (and moves on) if the current token is the punctuation `c`.
    pub fn eat_punct(&mut self, c: char) -> bool {
        if *self.peek() == Tok::Punct(c) {
            self.bump();
            true
        } else {
            false
        }
    }

    /// The punctuation `c`, or a syntax error.
    pub fn expect_punct(&mut self, c: char) -> Result<Pos, Located> {
        let pos = self.pos();
        if self.eat_punct(c) {
            Ok(pos)
        } else {
            Err(self.unexpected(&format!("'{c}'")))
        }
    }

    /// True if the current token is the identifier (or keyword) `word`.
    pub fn is_ident(&self, word: &str) -> bool {
        matches!(self.peek(), Tok::Ident(s) if s == word)
    }

    /// True (and moves on) if the current token is the identifier `word`.
    pub fn eat_ident(&mut self, word: &str) -> bool {
        if self.is_ident(word) {
            self.bump();
            true
        } else {
            false
        }
    }

    /// An identifier, or a syntax error naming what was `wanted`.
    pub fn expect_ident(&mut self, wanted: &str) -> Result<(String, Pos), Located> {
        let pos = self.pos();
        match self.peek() {
            Tok::Ident(s) => {
                self.bump();
                Ok((s.clone(), pos))
            }
            _ => Err(self.unexpected(wanted)),
        }
    }

    /// `[::] IDENT (:: IDENT)*`.
    pub fn scoped_name(&mut self) -> Result<ScopedName, Located> {
        let pos = self.pos();
        let absolute = *self.peek() == Tok::Scope;
        if absolute {
            self.bump();
        }
        let mut parts = vec![self.expect_ident("a name")?.0];
        while *self.peek() == Tok::Scope {
            self.bump();
            parts.push(self.expect_ident("a name after '::'")?.0);
        }
        Ok(ScopedName {
            parts,
            absolute,
            pos,
        })
    }

    /// A syntax error at the current token: "expected {wanted}, found ...".
    pub fn unexpected(&self, wanted: &str) -> Located {
        Located::syntax(
            self.pos(),
            format!("expected {wanted}, found {}", describe(self.peek())),
        )
    }

    /// Enters one level of nesting; an error past [`MAX_NESTING`].
    pub fn enter(&mut self) -> Result<(), Located> {
        self.depth += 1;
        if self.depth > MAX_NESTING {
            return Err(Located::new(
                self.pos(),
                IdlError::Limit(format!("nests more than {MAX_NESTING} levels deep")),
            ));
        }
        Ok(())
    }

    /// Leaves a level entered with [`Cursor::enter`].
    pub fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }
}

/// A token as an error message shows it.
pub(crate) fn describe(tok: &Tok) -> String {
    match tok {
        Tok::Ident(s) | Tok::Int(s) | Tok::Float(s) => format!("'{s}'"),
        Tok::Str(_) => "a string".to_string(),
        Tok::Char(_) => "a character literal".to_string(),
        Tok::Scope => "'::'".to_string(),
        Tok::Punct(c) => format!("'{c}'"),
        Tok::Eof => "the end of the text".to_string(),
    }
}
