//! A small XML tokenizer, enough for XML-RPC documents: elements (attributes are skipped),
//! character data with the predefined and numeric entities, CDATA sections, comments and
//! processing instructions (skipped). DOCTYPE declarations are refused, so no entity
//! expansion can be requested. Every step is bounds-checked; nothing here panics on input.

use std::borrow::Cow;

use super::error::XmlRpcError;

/// One token.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Token<'a> {
    /// `<name ...>` or `<name .../>` (`empty`).
    Start {
        /// Element name.
        name: &'a str,
        /// Self-closing.
        empty: bool,
    },
    /// `</name>`.
    End(&'a str),
    /// Character data with entities resolved.
    Text(Cow<'a, str>),
}

/// Tokenizer over a whole document.
pub(crate) struct Lexer<'a> {
    src: &'a str,
    pos: usize,
    peeked: Option<(usize, Token<'a>)>,
}

impl<'a> Lexer<'a> {
    /// Tokenizes `src`.
    pub(crate) fn new(src: &'a str) -> Self {
        Lexer {
            src,
            pos: 0,
            peeked: None,
        }
    }

    /// Offset of the next token (for errors).
    pub(crate) fn offset(&self) -> usize {
        self.peeked.as_ref().map_or(self.pos, |(o, _)| *o)
    }

    /// The next token without consuming it.
    pub(crate) fn peek(&mut self) -> Result<Option<&Token<'a>>, XmlRpcError> {
        if self.peeked.is_none() {
            let at = self.pos;
            if let Some(t) = self.scan()? {
                self.peeked = Some((at, t));
            }
        }
        Ok(self.peeked.as_ref().map(|(_, t)| t))
    }

    /// The next token.
    pub(crate) fn next_token(&mut self) -> Result<Option<Token<'a>>, XmlRpcError> {
        if let Some((_, t)) = self.peeked.take() {
            return Ok(Some(t));
        }
        self.scan()
    }

    fn rest(&self) -> &'a str {
        self.src.get(self.pos..).unwrap_or_default()
    }

    /// Moves past the next occurrence of `end`, or fails naming `what`.
    fn skip_past(&mut self, end: &str, what: &str) -> Result<&'a str, XmlRpcError> {
        let rest = self.rest();
        let i = rest
            .find(end)
            .ok_or_else(|| XmlRpcError::xml(self.pos, format!("unterminated {what}")))?;
        let inner = rest.get(..i).unwrap_or_default();
        self.pos += i + end.len();
        Ok(inner)
    }

    fn scan(&mut self) -> Result<Option<Token<'a>>, XmlRpcError> {
        loop {
            let rest = self.rest();
            if rest.is_empty() {
                return Ok(None);
            }
            if !rest.starts_with('<') {
                let len = rest.find('<').unwrap_or(rest.len());
                let raw = rest.get(..len).unwrap_or_default();
                let at = self.pos;
                self.pos += len;
                return Ok(Some(Token::Text(unescape(raw, at)?)));
            }
            if rest.starts_with("<?") {
                self.skip_past("?>", "processing instruction")?;
            } else if rest.starts_with("<!--") {
                self.skip_past("-->", "comment")?;
            } else if rest.starts_with("<![CDATA[") {
                self.pos += "<![CDATA[".len();
                let inner = self.skip_past("]]>", "CDATA section")?;
                return Ok(Some(Token::Text(Cow::Borrowed(inner))));
            } else if rest.starts_with("<!") {
                return Err(XmlRpcError::xml(
                    self.pos,
                    "DOCTYPE and other declarations are not accepted",
                ));
            } else if rest.starts_with("</") {
                let at = self.pos;
                self.pos += 2;
                let inner = self.skip_past(">", "end tag")?;
                let name = inner.trim_end();
                check_name(name, at)?;
                return Ok(Some(Token::End(name)));
            } else {
                let at = self.pos;
                self.pos += 1;
                let inner = self.tag_body(at)?;
                let (inner, empty) = match inner.strip_suffix('/') {
                    Some(i) => (i, true),
                    None => (inner, false),
                };
                let name = inner
                    .split(|c: char| c.is_ascii_whitespace())
                    .next()
                    .unwrap_or_default();
                check_name(name, at)?;
                return Ok(Some(Token::Start { name, empty }));
            }
        }
    }

    /// The inside of a start tag up to its `>`, honouring quoted attribute values.
    fn tag_body(&mut self, at: usize) -> Result<&'a str, XmlRpcError> {
        let rest = self.rest();
        let mut quote: Option<char> = None;
        for (i, c) in rest.char_indices() {
            match (quote, c) {
                (None, '>') => {
                    self.pos += i + 1;
                    return Ok(rest.get(..i).unwrap_or_default());
                }
                (None, '"' | '\'') => quote = Some(c),
                (None, '<') => break,
                (Some(q), c) if c == q => quote = None,
                _ => {}
            }
        }
        Err(XmlRpcError::xml(at, "unterminated start tag"))
    }
}

fn check_name(name: &str, at: usize) -> Result<(), XmlRpcError> {
    let ok = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | ':'));
    if ok {
        Ok(())
    } else {
        Err(XmlRpcError::xml(at, format!("bad element name '{name}'")))
    }
}

/// Resolves entities and normalises line ends (`\r\n` and `\r` become `\n`, as XML requires).
pub(crate) fn unescape(raw: &str, at: usize) -> Result<Cow<'_, str>, XmlRpcError> {
    if !raw.contains(['&', '\r']) {
        return Ok(Cow::Borrowed(raw));
    }
    let mut out = String::with_capacity(raw.len());
    let mut rest = raw;
    while let Some(i) = rest.find(['&', '\r']) {
        out.push_str(rest.get(..i).unwrap_or_default());
        let tail = rest.get(i..).unwrap_or_default();
        if let Some(after) = tail.strip_prefix('\r') {
            out.push('\n');
            rest = after.strip_prefix('\n').unwrap_or(after);
            continue;
        }
        let semi = tail
            .find(';')
            .filter(|&s| s <= 12)
            .ok_or_else(|| XmlRpcError::xml(at + raw.len() - rest.len() + i, "bad entity"))?;
        let entity = tail.get(1..semi).unwrap_or_default();
        let c = match entity {
            "lt" => '<',
            "gt" => '>',
            "amp" => '&',
            "quot" => '"',
            "apos" => '\'',
            _ => {
                let code = if let Some(hex) = entity
                    .strip_prefix("#x")
                    .or_else(|| entity.strip_prefix("#X"))
                {
                    u32::from_str_radix(hex, 16).ok()
                } else if let Some(dec) = entity.strip_prefix('#') {
                    dec.parse::<u32>().ok()
                } else {
                    None
                };
                code.and_then(char::from_u32).ok_or_else(|| {
                    XmlRpcError::xml(
                        at + raw.len() - rest.len() + i,
                        format!("unknown entity '&{entity};'"),
                    )
                })?
            }
        };
        out.push(c);
        rest = tail.get(semi + 1..).unwrap_or_default();
    }
    out.push_str(rest);
    Ok(Cow::Owned(out))
}

/// Escapes character data: `&`, `<`, `>` and `\r` (which XML would otherwise turn into `\n`).
pub(crate) fn escape_into(out: &mut String, text: &str) {
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '\r' => out.push_str("&#13;"),
            c => out.push(c),
        }
    }
}
