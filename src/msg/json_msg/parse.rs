//! JSON text → a [`Json`] tree, read as Python's `json.loads` reads it (the reference the
//! decoded values are compared with), bounded for text taken from a file.
//!
//! - The text must be UTF-8; whitespace is space, tab, CR and LF; after the value only
//!   whitespace may follow.
//! - Numbers keep their kind: an integer literal (no fraction, no exponent) is an integer —
//!   `i64`, or `u64` above `i64::MAX`; a larger one is an error rather than a float that
//!   would not be the same number — anything else is an `f64` (correctly rounded; `1e400` is
//!   infinity, as in Python). `NaN`, `Infinity` and `-Infinity` are accepted, as Python does.
//! - Strings: the escapes of RFC 8259, `\u` surrogate pairs joined; a lone surrogate (which
//!   Python keeps and UTF-8 cannot hold) becomes U+FFFD; raw control characters are errors
//!   (Python's `strict` default).
//! - Objects keep their members in text order; a repeated key keeps its first position and
//!   its last value (a Python `dict`).
//! - Nesting deeper than [`MAX_NESTING`] is an error (the walks are recursive). Every value
//!   takes at least one byte of text, so the tree is bounded by the text's size.

use std::collections::HashMap;

/// How deeply arrays and objects may nest (as message types may).
pub(crate) const MAX_NESTING: usize = crate::msg::schema::MAX_DEPTH;

/// Objects with more members than this find repeated keys through a hash map.
const LINEAR_KEYS: usize = 16;

/// One JSON value and where it starts in the text.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Json {
    /// Byte offset of the value's first character.
    pub(crate) at: usize,
    /// The value.
    pub(crate) kind: Kind,
}

/// What a JSON value is.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Kind {
    /// `null`.
    Null,
    /// `true` / `false`.
    Bool(bool),
    /// An integer literal that fits `i64`.
    Int(i64),
    /// An integer literal above `i64::MAX` that fits `u64`.
    UInt(u64),
    /// Any other number.
    Float(f64),
    /// A string.
    Str(String),
    /// An array.
    Array(Vec<Json>),
    /// An object: `(key, value)` in text order, keys unique.
    Object(Vec<(String, Json)>),
}

impl Kind {
    /// What the value is, for messages: `null`, `a boolean`, `an integer`, ...
    pub(crate) fn what(&self) -> &'static str {
        match self {
            Kind::Null => "null",
            Kind::Bool(_) => "a boolean",
            Kind::Int(_) | Kind::UInt(_) => "an integer",
            Kind::Float(_) => "a number",
            Kind::Str(_) => "a string",
            Kind::Array(_) => "an array",
            Kind::Object(_) => "an object",
        }
    }
}

/// Why a text is not JSON: where and what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ParseError {
    /// Byte offset of the problem.
    pub(crate) at: usize,
    /// What is wrong.
    pub(crate) what: String,
}

/// Parses `text` (one JSON value, whitespace around it allowed).
pub(crate) fn parse(text: &[u8]) -> Result<Json, ParseError> {
    if let Err(e) = std::str::from_utf8(text) {
        return Err(ParseError {
            at: e.valid_up_to(),
            what: "not UTF-8".into(),
        });
    }
    let mut p = Parser { text, pos: 0 };
    p.skip_ws();
    let value = p.value(0)?;
    p.skip_ws();
    if p.pos < text.len() {
        return Err(p.error("extra data after the JSON value"));
    }
    Ok(value)
}

struct Parser<'t> {
    text: &'t [u8],
    pos: usize,
}

impl Parser<'_> {
    fn error(&self, what: impl Into<String>) -> ParseError {
        ParseError {
            at: self.pos,
            what: what.into(),
        }
    }

    fn peek(&self) -> Option<u8> {
        self.text.get(self.pos).copied()
    }

    fn skip_ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
    }

    fn eat(&mut self, word: &[u8]) -> bool {
        let end = self.pos.saturating_add(word.len());
        if self.text.get(self.pos..end) == Some(word) {
            self.pos = end;
            true
        } else {
            false
        }
    }

    fn value(&mut self, depth: usize) -> Result<Json, ParseError> {
        let at = self.pos;
        let kind = match self.peek() {
            None => return Err(self.error("the text ends where a value was expected")),
            Some(b'{') => self.object(depth)?,
            Some(b'[') => self.array(depth)?,
            Some(b'"') => Kind::Str(self.string()?),
            Some(b'-' | b'0'..=b'9') => self.number()?,
            Some(_) if self.eat(b"true") => Kind::Bool(true),
            Some(_) if self.eat(b"false") => Kind::Bool(false),
            Some(_) if self.eat(b"null") => Kind::Null,
            Some(_) if self.eat(b"NaN") => Kind::Float(f64::NAN),
            Some(_) if self.eat(b"Infinity") => Kind::Float(f64::INFINITY),
            Some(_) => return Err(self.error("expected a JSON value")),
        };
        Ok(Json { at, kind })
    }

    fn nest(&self, depth: usize) -> Result<usize, ParseError> {
        if depth >= MAX_NESTING {
            return Err(self.error(format!(
                "arrays and objects nest more than {MAX_NESTING} levels deep"
            )));
        }
        Ok(depth + 1)
    }

    fn array(&mut self, depth: usize) -> Result<Kind, ParseError> {
        let depth = self.nest(depth)?;
        self.pos += 1;
        let mut items = Vec::new();
        self.skip_ws();
        if self.eat(b"]") {
            return Ok(Kind::Array(items));
        }
        loop {
            self.skip_ws();
            items.push(self.value(depth)?);
            self.skip_ws();
            if self.eat(b",") {
                continue;
            }
            if self.eat(b"]") {
                return Ok(Kind::Array(items));
            }
            return Err(self.error("expected ',' or ']' in an array"));
        }
    }

    fn object(&mut self, depth: usize) -> Result<Kind, ParseError> {
        let depth = self.nest(depth)?;
        self.pos += 1;
        let mut members: Vec<(String, Json)> = Vec::new();
        let mut index: HashMap<String, usize> = HashMap::new();
        self.skip_ws();
        if self.eat(b"}") {
            return Ok(Kind::Object(members));
        }
        loop {
            self.skip_ws();
            if self.peek() != Some(b'"') {
                return Err(self.error("expected a property name in double quotes"));
            }
            let key = self.string()?;
            self.skip_ws();
            if !self.eat(b":") {
                return Err(self.error("expected ':' after a property name"));
            }
            self.skip_ws();
            let value = self.value(depth)?;
            let seen = if members.len() < LINEAR_KEYS {
                members.iter().position(|(k, _)| *k == key)
            } else {
                if index.is_empty() {
                    index = members
                        .iter()
                        .enumerate()
                        .map(|(i, (k, _))| (k.clone(), i))
                        .collect();
                }
                index.get(&key).copied()
            };
            if let Some(slot) = seen.and_then(|i| members.get_mut(i)) {
                slot.1 = value;
            } else {
                if !index.is_empty() {
                    index.insert(key.clone(), members.len());
                }
                members.push((key, value));
            }
            self.skip_ws();
            if self.eat(b",") {
                continue;
            }
            if self.eat(b"}") {
                return Ok(Kind::Object(members));
            }
            return Err(self.error("expected ',' or '}' in an object"));
        }
    }

    fn number(&mut self) -> Result<Kind, ParseError> {
        let start = self.pos;
        if self.eat(b"-Infinity") {
            return Ok(Kind::Float(f64::NEG_INFINITY));
        }
        self.eat(b"-");
        let digits = |p: &mut Self| {
            let from = p.pos;
            while matches!(p.peek(), Some(b'0'..=b'9')) {
                p.pos += 1;
            }
            p.pos - from
        };
        let int_start = self.pos;
        let n = digits(self);
        if n == 0 {
            return Err(self.error("expected a digit"));
        }
        if n > 1 && self.text.get(int_start) == Some(&b'0') {
            // Python reads `01` as `0` followed by extra data.
            self.pos = int_start + 1;
            return Err(self.error("extra data after the JSON value (a number with a leading 0)"));
        }
        let mut float = false;
        if self.peek() == Some(b'.') && matches!(self.text.get(self.pos + 1), Some(b'0'..=b'9')) {
            self.pos += 1;
            digits(self);
            float = true;
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            let back = self.pos;
            self.pos += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            if digits(self) == 0 {
                // Not an exponent: Python stops the number before the `e`.
                self.pos = back;
            } else {
                float = true;
            }
        }
        let text = std::str::from_utf8(self.text.get(start..self.pos).unwrap_or_default())
            .map_err(|_| self.error("not UTF-8"))?;
        if float {
            return text
                .parse::<f64>()
                .map(Kind::Float)
                .map_err(|_| self.error(format!("'{text}' is not a number")));
        }
        if let Ok(i) = text.parse::<i64>() {
            return Ok(Kind::Int(i));
        }
        if let Ok(u) = text.parse::<u64>() {
            return Ok(Kind::UInt(u));
        }
        self.pos = start;
        Err(self.error(format!(
            "the integer {} does not fit 64 bits (not decoded as a float, which would change it)",
            crate::printable::escape(text)
        )))
    }

    fn hex4(&mut self) -> Result<u32, ParseError> {
        let digits = self
            .text
            .get(self.pos..self.pos.saturating_add(4))
            .filter(|d| d.iter().all(u8::is_ascii_hexdigit))
            .ok_or_else(|| self.error("expected 4 hex digits after \\u"))?;
        let value = digits.iter().fold(0u32, |acc, d| {
            acc * 16 + char::from(*d).to_digit(16).unwrap_or_default()
        });
        self.pos += 4;
        Ok(value)
    }

    fn string(&mut self) -> Result<String, ParseError> {
        self.pos += 1;
        let mut out: Vec<u8> = Vec::new();
        loop {
            let run = self.pos;
            while matches!(self.peek(), Some(c) if c != b'"' && c != b'\\' && c >= 0x20) {
                self.pos += 1;
            }
            out.extend_from_slice(self.text.get(run..self.pos).unwrap_or_default());
            match self.peek() {
                None => return Err(self.error("the text ends inside a string")),
                Some(b'"') => {
                    self.pos += 1;
                    // The text is UTF-8 and escapes add whole characters.
                    return String::from_utf8(out).map_err(|_| self.error("not UTF-8"));
                }
                Some(b'\\') => {
                    self.pos += 1;
                    let c = match self.peek() {
                        Some(b'"') => '"',
                        Some(b'\\') => '\\',
                        Some(b'/') => '/',
                        Some(b'b') => '\u{8}',
                        Some(b'f') => '\u{c}',
                        Some(b'n') => '\n',
                        Some(b'r') => '\r',
                        Some(b't') => '\t',
                        Some(b'u') => {
                            self.pos += 1;
                            let c = self.unicode_escape()?;
                            let mut buf = [0u8; 4];
                            out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                            continue;
                        }
                        _ => return Err(self.error("invalid escape in a string")),
                    };
                    self.pos += 1;
                    let mut buf = [0u8; 4];
                    out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                }
                Some(_) => return Err(self.error("a control character inside a string")),
            }
        }
    }

    /// The character of a `\uXXXX` escape (the `\u` already read), joining a surrogate pair.
    fn unicode_escape(&mut self) -> Result<char, ParseError> {
        let first = self.hex4()?;
        if (0xD800..0xDC00).contains(&first) && self.eat(b"\\u") {
            let back = self.pos - 2;
            let second = self.hex4()?;
            if (0xDC00..0xE000).contains(&second) {
                let c = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00);
                return Ok(char::from_u32(c).unwrap_or(char::REPLACEMENT_CHARACTER));
            }
            // A high surrogate alone; the next escape is read on its own.
            self.pos = back;
        }
        Ok(char::from_u32(first).unwrap_or(char::REPLACEMENT_CHARACTER))
    }
}
