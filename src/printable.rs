//! Text from outside (bags, indexes, the network) made safe for a terminal.
//!
//! A bag's topic, type, connection header or string field may hold terminal control
//! sequences (`ESC ] 0 ; … BEL` retitles the window, `ESC [ 2 J` clears it); printed raw, a file
//! could rewrite the user's terminal. Every place where such text reaches a terminal escapes
//! it with this one escaper: C0 controls other than newline and tab, DEL, the C1 controls
//! (U+0080–U+009F) and the bidirectional overrides become Rust-style escapes (`\u{1b}`,
//! `\r`), and bytes that are not UTF-8 become `\xNN`. Ordinary text is unchanged.
//! The command line's policy (always for diagnostics and summaries, on a terminal only for
//! data outputs) is in `docs/cli.md`.

use std::borrow::Cow;
use std::fmt::Write as _;
use std::io::{self, Write};

/// Whether `c` must not reach a terminal as it is: a C0 control other than `\n` and `\t`,
/// DEL, a C1 control, or a bidirectional formatting character (they reorder what follows).
#[must_use]
pub fn is_unsafe(c: char) -> bool {
    !matches!(c, '\n' | '\t')
        && matches!(c,
            '\u{0}'..='\u{1f}'
            | '\u{7f}'..='\u{9f}'
            | '\u{061c}'
            | '\u{200e}'
            | '\u{200f}'
            | '\u{202a}'..='\u{202e}'
            | '\u{2066}'..='\u{2069}')
}

/// Appends the escape of `c`: `\r`, `\0` and otherwise `\u{HEX}` (as Rust writes them).
pub fn push_escaped(out: &mut String, c: char) {
    match c {
        '\r' => out.push_str("\\r"),
        '\n' => out.push_str("\\n"),
        '\t' => out.push_str("\\t"),
        c => {
            let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
        }
    }
}

/// `text` with every [`is_unsafe`] character escaped (borrowed when there is none).
#[must_use]
pub fn escape(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_unsafe) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    push_str_escaped(&mut out, text);
    Cow::Owned(out)
}

/// `text` as one line: [`escape`], and newlines as `\n` too (a diagnostic whose topic holds a
/// newline cannot forge a second line).
#[must_use]
pub fn escape_line(text: &str) -> Cow<'_, str> {
    if !text.contains('\n') {
        return escape(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if c == '\n' || is_unsafe(c) {
            push_escaped(&mut out, c);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// Appends `text` to `out`, escaping every [`is_unsafe`] character.
pub fn push_str_escaped(out: &mut String, text: &str) {
    for c in text.chars() {
        if is_unsafe(c) {
            push_escaped(out, c);
        } else {
            out.push(c);
        }
    }
}

/// `bytes` as terminal-safe text: UTF-8 escaped as [`escape`] does, other bytes as `\xNN`.
#[must_use]
pub fn escape_bytes(bytes: &[u8]) -> Cow<'_, str> {
    if let Ok(s) = std::str::from_utf8(bytes) {
        return escape(s);
    }
    let mut out = String::with_capacity(bytes.len() + 16);
    let rest = push_bytes_escaped(&mut out, bytes);
    push_invalid(&mut out, rest);
    Cow::Owned(out)
}

/// Appends the escaped text of `bytes` and returns an incomplete UTF-8 sequence at its end
/// (to be completed by the bytes that follow).
fn push_bytes_escaped<'a>(out: &mut String, mut bytes: &'a [u8]) -> &'a [u8] {
    loop {
        match std::str::from_utf8(bytes) {
            Ok(s) => {
                push_str_escaped(out, s);
                return &[];
            }
            Err(e) => {
                let (valid, after) = bytes.split_at(e.valid_up_to());
                push_str_escaped(out, std::str::from_utf8(valid).unwrap_or_default());
                let Some(n) = e.error_len() else {
                    return after;
                };
                let (bad, rest) = after.split_at(n.min(after.len()));
                push_invalid(out, bad);
                bytes = rest;
            }
        }
    }
}

fn push_invalid(out: &mut String, bytes: &[u8]) {
    for b in bytes {
        let _ = write!(out, "\\x{b:02x}");
    }
}

/// A writer that escapes what passes through it (when enabled) as [`escape_bytes`] does; a
/// UTF-8 sequence split between two writes is kept until it is complete. Disabled, it passes
/// every byte through unchanged.
pub struct Escaping<W: Write> {
    inner: W,
    enabled: bool,
    /// The start of a UTF-8 sequence the last write cut (at most 3 bytes).
    pending: Vec<u8>,
}

impl<W: Write> Escaping<W> {
    /// Wraps `inner`; `enabled` false passes bytes through unchanged.
    pub fn new(inner: W, enabled: bool) -> Self {
        Escaping {
            inner,
            enabled,
            pending: Vec::new(),
        }
    }

    /// Whether this writer escapes.
    pub fn is_enabled(&self) -> bool {
        self.enabled
    }

    /// The wrapped writer.
    pub fn get_mut(&mut self) -> &mut W {
        &mut self.inner
    }
}

impl<W: Write> Write for Escaping<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if !self.enabled {
            return self.inner.write(buf);
        }
        let joined;
        let data = if self.pending.is_empty() {
            buf
        } else {
            let mut v = std::mem::take(&mut self.pending);
            v.extend_from_slice(buf);
            joined = v;
            &joined
        };
        if data.is_ascii()
            && !data
                .iter()
                .any(|&b| b.is_ascii_control() && b != b'\n' && b != b'\t')
        {
            self.inner.write_all(data)?;
            return Ok(buf.len());
        }
        let mut out = String::with_capacity(data.len() + 16);
        let rest = push_bytes_escaped(&mut out, data);
        self.inner.write_all(out.as_bytes())?;
        self.pending = rest.to_vec();
        Ok(buf.len())
    }

    /// Flushes; a UTF-8 sequence still incomplete is written as `\xNN` escapes.
    fn flush(&mut self) -> io::Result<()> {
        if !self.pending.is_empty() {
            let mut out = String::new();
            push_invalid(&mut out, &std::mem::take(&mut self.pending));
            self.inner.write_all(out.as_bytes())?;
        }
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinary_text_is_borrowed_unchanged() {
        let s = "/tf: tf2_msgs/TFMessage\tß ✓ 日本\n";
        assert!(matches!(escape(s), Cow::Borrowed(t) if t == s));
        assert!(matches!(escape_bytes(s.as_bytes()), Cow::Borrowed(t) if t == s));
    }

    #[test]
    fn controls_c1_del_and_bidi_are_escaped() {
        assert_eq!(
            escape("a\u{1b}]0;pwned\u{7}b\u{1b}[2J\r\0\u{7f}\u{9b}\u{85}\u{202e}x"),
            "a\\u{1b}]0;pwned\\u{7}b\\u{1b}[2J\\r\\u{0}\\u{7f}\\u{9b}\\u{85}\\u{202e}x"
        );
    }

    #[test]
    fn lines_escape_newlines() {
        assert_eq!(escape_line("a\nb\u{1b}\tc"), "a\\nb\\u{1b}\tc");
        assert!(matches!(escape_line("plain\t"), Cow::Borrowed("plain\t")));
    }

    #[test]
    fn invalid_utf8_is_hex() {
        assert_eq!(escape_bytes(b"a\x9b2Jb\xffc"), "a\\x9b2Jb\\xffc");
        assert_eq!(escape_bytes(b"cut\xe6\x97"), "cut\\xe6\\x97");
    }

    #[test]
    fn writer_escapes_across_writes_and_passes_through_when_disabled() {
        let text = "é\u{1b}[2J日\u{9b}".as_bytes();
        for split in 0..=text.len() {
            let mut w = Escaping::new(Vec::new(), true);
            w.write_all(&text[..split]).unwrap();
            w.write_all(&text[split..]).unwrap();
            w.flush().unwrap();
            assert_eq!(String::from_utf8(w.inner).unwrap(), "é\\u{1b}[2J日\\u{9b}");
        }
        let mut w = Escaping::new(Vec::new(), true);
        w.write_all(b"x\xe6\x97").unwrap();
        w.flush().unwrap();
        assert_eq!(w.inner, b"x\\xe6\\x97");
        let mut w = Escaping::new(Vec::new(), false);
        w.write_all(text).unwrap();
        assert_eq!(w.inner, text);
    }
}
