//! Parsing `<methodCall>` and `<methodResponse>` documents.

use base64::Engine;

use super::error::XmlRpcError;
use super::value::{Fault, MethodCall, MethodResponse, Value};
use super::xml::{Lexer, Token};

/// Deepest nesting of arrays and structs accepted (the ROS APIs need four levels).
pub const MAX_DEPTH: usize = 32;

/// Parses a `<methodCall>` document.
pub fn parse_call(doc: &[u8]) -> Result<MethodCall, XmlRpcError> {
    let mut p = Parser::new(doc)?;
    p.expect_start("methodCall")?;
    p.expect_start("methodName")?;
    let method = p.text_until_end("methodName")?;
    let mut params = Vec::new();
    if p.optional_start("params")? {
        while p.optional_start("param")? {
            p.expect_start_value()?;
            params.push(p.value(0)?);
            p.expect_end("param")?;
        }
        p.expect_end("params")?;
    }
    p.expect_end("methodCall")?;
    p.expect_eof()?;
    Ok(MethodCall {
        method: method.trim().to_string(),
        params,
    })
}

/// Parses a `<methodResponse>` document: the single value, or the fault.
pub fn parse_response(doc: &[u8]) -> Result<MethodResponse, XmlRpcError> {
    let mut p = Parser::new(doc)?;
    p.expect_start("methodResponse")?;
    let result = if p.optional_start("fault")? {
        p.expect_start_value()?;
        let v = p.value(0)?;
        p.expect_end("fault")?;
        let code = v.member("faultCode").and_then(Value::as_int).unwrap_or(0);
        let message = v
            .member("faultString")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        Err(Fault { code, message })
    } else {
        p.expect_start("params")?;
        p.expect_start("param")?;
        p.expect_start_value()?;
        let v = p.value(0)?;
        p.expect_end("param")?;
        p.expect_end("params")?;
        Ok(v)
    };
    p.expect_end("methodResponse")?;
    p.expect_eof()?;
    Ok(result)
}

struct Parser<'a> {
    lx: Lexer<'a>,
}

/// What follows a start tag: its content, or nothing when it was self-closing.
enum Opened {
    Content,
    Empty,
}

impl<'a> Parser<'a> {
    fn new(doc: &'a [u8]) -> Result<Self, XmlRpcError> {
        let text = std::str::from_utf8(doc)
            .map_err(|e| XmlRpcError::xml(e.valid_up_to(), "the document is not valid UTF-8"))?;
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        Ok(Parser {
            lx: Lexer::new(text),
        })
    }

    fn error(&self, what: impl Into<String>) -> XmlRpcError {
        XmlRpcError::xml(self.lx.offset(), what)
    }

    /// Skips character data that is only whitespace; fails on other text.
    fn skip_space(&mut self) -> Result<(), XmlRpcError> {
        while let Some(Token::Text(t)) = self.lx.peek()? {
            if !t.trim().is_empty() {
                return Err(self.error("unexpected text between elements"));
            }
            self.lx.next_token()?;
        }
        Ok(())
    }

    fn open(&mut self, want: &str) -> Result<Opened, XmlRpcError> {
        self.skip_space()?;
        match self.lx.next_token()? {
            Some(Token::Start { name, empty }) if name == want => Ok(if empty {
                Opened::Empty
            } else {
                Opened::Content
            }),
            other => Err(self.error(format!(
                "expected <{want}>, found {}",
                describe(other.as_ref())
            ))),
        }
    }

    /// Expects `<want>` with content.
    fn expect_start(&mut self, want: &str) -> Result<(), XmlRpcError> {
        match self.open(want)? {
            Opened::Content => Ok(()),
            Opened::Empty => Err(self.error(format!("<{want}/> must not be empty"))),
        }
    }

    /// Expects `<value>` with content (an empty `<value/>` is the empty string, handled by
    /// [`Parser::value_or_empty`]).
    fn expect_start_value(&mut self) -> Result<(), XmlRpcError> {
        self.skip_space()?;
        match self.lx.peek()? {
            Some(Token::Start { name: "value", .. }) => Ok(()),
            other => {
                let found = describe(other);
                Err(self.error(format!("expected <value>, found {found}")))
            }
        }
    }

    /// Consumes `<want>` if it is next; false if the next element is something else.
    fn optional_start(&mut self, want: &str) -> Result<bool, XmlRpcError> {
        self.skip_space()?;
        match self.lx.peek()? {
            Some(Token::Start { name, empty }) if *name == want => {
                if *empty {
                    return Err(self.error(format!("<{want}/> must not be empty")));
                }
                self.lx.next_token()?;
                Ok(true)
            }
            _ => Ok(false),
        }
    }

    fn expect_end(&mut self, want: &str) -> Result<(), XmlRpcError> {
        self.skip_space()?;
        match self.lx.next_token()? {
            Some(Token::End(name)) if name == want => Ok(()),
            other => Err(self.error(format!(
                "expected </{want}>, found {}",
                describe(other.as_ref())
            ))),
        }
    }

    fn expect_eof(&mut self) -> Result<(), XmlRpcError> {
        self.skip_space()?;
        match self.lx.next_token()? {
            None => Ok(()),
            other => Err(self.error(format!(
                "expected the end of the document, found {}",
                describe(other.as_ref())
            ))),
        }
    }

    /// Character data up to `</end>` (no elements inside).
    fn text_until_end(&mut self, end: &str) -> Result<String, XmlRpcError> {
        let mut out = String::new();
        loop {
            match self.lx.next_token()? {
                Some(Token::Text(t)) => out.push_str(&t),
                Some(Token::End(name)) if name == end => return Ok(out),
                other => {
                    return Err(self.error(format!(
                        "expected text and </{end}>, found {}",
                        describe(other.as_ref())
                    )));
                }
            }
        }
    }

    /// Parses `<value>...</value>`; the next token is `<value>` (checked by the caller).
    fn value(&mut self, depth: usize) -> Result<Value, XmlRpcError> {
        if depth > MAX_DEPTH {
            return Err(self.error(format!("values nested deeper than {MAX_DEPTH}")));
        }
        if let Opened::Empty = self.open("value")? {
            return Ok(Value::Str(String::new()));
        }
        let mut text = String::new();
        loop {
            match self.lx.next_token()? {
                Some(Token::Text(t)) => text.push_str(&t),
                Some(Token::End("value")) => return Ok(Value::Str(text)),
                Some(Token::Start { name, empty }) => {
                    if !text.trim().is_empty() {
                        return Err(self.error("text beside a typed value"));
                    }
                    let v = self.typed(name, empty, depth)?;
                    self.expect_end("value")?;
                    return Ok(v);
                }
                other => {
                    return Err(self.error(format!(
                        "expected a value, found {}",
                        describe(other.as_ref())
                    )));
                }
            }
        }
    }

    fn scalar_text(&mut self, name: &str, empty: bool) -> Result<String, XmlRpcError> {
        if empty {
            Ok(String::new())
        } else {
            self.text_until_end(name)
        }
    }

    fn typed(&mut self, name: &str, empty: bool, depth: usize) -> Result<Value, XmlRpcError> {
        match name {
            "string" => Ok(Value::Str(self.scalar_text(name, empty)?)),
            "i4" | "int" | "i8" => {
                let t = self.scalar_text(name, empty)?;
                let n: i64 = t
                    .trim()
                    .parse()
                    .map_err(|_| self.error(format!("bad integer '{}'", t.trim())))?;
                i32::try_from(n)
                    .map(Value::Int)
                    .map_err(|_| self.error(format!("integer {n} out of the 32-bit range")))
            }
            "boolean" => match self.scalar_text(name, empty)?.trim() {
                "1" | "true" => Ok(Value::Bool(true)),
                "0" | "false" => Ok(Value::Bool(false)),
                other => Err(self.error(format!("bad boolean '{other}'"))),
            },
            "double" => {
                let t = self.scalar_text(name, empty)?;
                t.trim()
                    .parse::<f64>()
                    .map(Value::Double)
                    .map_err(|_| self.error(format!("bad double '{}'", t.trim())))
            }
            "base64" => {
                let t = self.scalar_text(name, empty)?;
                let compact: String = t.chars().filter(|c| !c.is_ascii_whitespace()).collect();
                base64::engine::general_purpose::STANDARD
                    .decode(compact)
                    .map(Value::Base64)
                    .map_err(|e| self.error(format!("bad base64: {e}")))
            }
            "nil" => {
                if !empty {
                    self.expect_end("nil")?;
                }
                Ok(Value::Nil)
            }
            "array" => {
                if empty {
                    return Ok(Value::Array(Vec::new()));
                }
                let mut items = Vec::new();
                match self.open("data")? {
                    Opened::Empty => {}
                    Opened::Content => {
                        loop {
                            self.skip_space()?;
                            if let Some(Token::Start { name: "value", .. }) = self.lx.peek()? {
                                items.push(self.value(depth + 1)?);
                            } else {
                                break;
                            }
                        }
                        self.expect_end("data")?;
                    }
                }
                self.expect_end("array")?;
                Ok(Value::Array(items))
            }
            "struct" => {
                if empty {
                    return Ok(Value::Struct(Vec::new()));
                }
                let mut members = Vec::new();
                while self.optional_start("member")? {
                    self.expect_start("name")?;
                    let key = self.text_until_end("name")?;
                    self.expect_start_value()?;
                    let v = self.value(depth + 1)?;
                    self.expect_end("member")?;
                    members.push((key, v));
                }
                self.expect_end("struct")?;
                Ok(Value::Struct(members))
            }
            other => Err(self.error(format!("unsupported value type <{other}>"))),
        }
    }
}

fn describe(t: Option<&Token<'_>>) -> String {
    match t {
        None => "the end of the document".to_string(),
        Some(Token::Start { name, .. }) => format!("<{name}>"),
        Some(Token::End(name)) => format!("</{name}>"),
        Some(Token::Text(_)) => "text".to_string(),
    }
}
