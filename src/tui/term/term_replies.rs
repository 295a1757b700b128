//! The terminal's answers to the explorer's graphics query, told apart from the keys typed
//! meanwhile. Both come on the same input, in any order: the answers are escape sequences
//! (kitty's `APC G…`, the device attributes `CSI ? … c`, the cell size `CSI 6 ; h ; w t`,
//! and last the status report `CSI 0 n`), the keys bytes and escape sequences of their own.
//! A [`Sorter`] takes the input one byte at a time, keeps the answers in [`Replies`] and
//! hands back each key as crossterm would have read it, so a key typed while the terminal
//! answers reaches the explorer instead of being eaten.
//!
//! Bytes are untrusted: a sequence longer than [`MAX_SEQUENCE`] is read to its end but not
//! kept, and anything that is neither an answer nor a key the explorer uses (mouse reports,
//! pastes, focus changes) is dropped.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// The longest escape sequence kept; answers and keys are far shorter.
pub const MAX_SEQUENCE: usize = 256;

/// What the terminal answered to the graphics query.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Replies {
    /// Kitty's graphics protocol answered `OK` to its query (image id 31).
    pub kitty: bool,
    /// The device attributes (DA1) list sixel graphics (attribute 4).
    pub sixel: bool,
    /// The cell size in pixels (width, height).
    pub cell: Option<(u16, u16)>,
    /// The status report came: every terminal answers it, after the answers to the queries
    /// before it, so nothing more is coming.
    pub status: bool,
}

/// Where the sorter is in the input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// Between sequences.
    Ground,
    /// Inside a UTF-8 character of this many bytes.
    Utf8(usize),
    /// After `ESC`.
    Escape,
    /// After `ESC [`.
    Csi,
    /// After `ESC O`.
    Ss3,
    /// Inside a string (`ESC _`, `ESC ]`, `ESC P`, `ESC X`, `ESC ^`), to `ST` or `BEL`.
    Text,
    /// An `ESC` inside a string (the first byte of `ST`).
    TextEscape,
}

/// Sorts the terminal's input into [`Replies`] and keys (see the module).
#[derive(Debug)]
pub struct Sorter {
    state: State,
    /// The sequence read so far (after its introducer), or the bytes of a character.
    seq: Vec<u8>,
    /// The introducer of the string being read (`_`, `]`, `P`, …).
    text_kind: u8,
    /// The sequence was longer than [`MAX_SEQUENCE`]: dropped at its end.
    overflow: bool,
    /// What the terminal answered so far.
    pub replies: Replies,
}

impl Default for Sorter {
    fn default() -> Self {
        Sorter {
            state: State::Ground,
            seq: Vec::new(),
            text_kind: 0,
            overflow: false,
            replies: Replies::default(),
        }
    }
}

impl Sorter {
    /// Takes the next byte of input; a key it completes is returned.
    pub fn push(&mut self, b: u8) -> Option<KeyEvent> {
        match self.state {
            State::Ground => self.ground(b),
            State::Utf8(len) => self.utf8(b, len),
            State::Escape => self.escape(b),
            State::Csi => self.csi(b),
            State::Ss3 => {
                self.state = State::Ground;
                ss3_key(b)
            }
            State::Text => {
                match b {
                    0x07 => self.end_text(),
                    0x1b => self.state = State::TextEscape,
                    _ => self.keep(b),
                }
                None
            }
            State::TextEscape => {
                if b == b'\\' {
                    self.end_text();
                    None
                } else {
                    // Not a string terminator: the string was cut short, a new sequence
                    // starts.
                    self.state = State::Escape;
                    self.escape(b)
                }
            }
        }
    }

    /// No more input came for a while: a lone `ESC` was the Escape key.
    pub fn idle(&mut self) -> Option<KeyEvent> {
        (self.state == State::Escape).then(|| {
            self.state = State::Ground;
            KeyCode::Esc.into()
        })
    }

    /// True inside a sequence or character (more of it is due).
    pub fn in_sequence(&self) -> bool {
        self.state != State::Ground
    }

    fn ground(&mut self, b: u8) -> Option<KeyEvent> {
        let len = match b {
            0x1b => {
                self.state = State::Escape;
                return None;
            }
            0x00..=0x7f => return Some(byte_key(b)),
            0xc0..=0xdf => 2,
            0xe0..=0xef => 3,
            0xf0..=0xf7 => 4,
            // A stray continuation byte or an invalid lead byte.
            _ => return None,
        };
        self.seq.clear();
        self.seq.push(b);
        self.state = State::Utf8(len);
        None
    }

    fn utf8(&mut self, b: u8, len: usize) -> Option<KeyEvent> {
        if b & 0xc0 != 0x80 {
            // Cut short: the character is dropped, this byte starts afresh.
            self.state = State::Ground;
            return self.ground(b);
        }
        self.seq.push(b);
        if self.seq.len() < len {
            return None;
        }
        self.state = State::Ground;
        let c = std::str::from_utf8(&self.seq).ok()?.chars().next()?;
        Some(char_key(c))
    }

    fn escape(&mut self, b: u8) -> Option<KeyEvent> {
        self.seq.clear();
        self.overflow = false;
        match b {
            b'[' => self.state = State::Csi,
            b'O' => self.state = State::Ss3,
            b'_' | b']' | b'P' | b'X' | b'^' => {
                self.state = State::Text;
                self.text_kind = b;
            }
            // `ESC ESC`: the first was the Escape key; the second starts a sequence.
            0x1b => return Some(KeyCode::Esc.into()),
            _ => {
                // Alt and a key (Alt+x is `ESC x`).
                self.state = State::Ground;
                let mut key = self.ground(b)?;
                key.modifiers |= KeyModifiers::ALT;
                return Some(key);
            }
        }
        None
    }

    fn csi(&mut self, b: u8) -> Option<KeyEvent> {
        match b {
            0x40..=0x7e => {
                self.state = State::Ground;
                if self.overflow {
                    return None;
                }
                let params = std::mem::take(&mut self.seq);
                self.csi_done(&params, b)
            }
            // Malformed: a new sequence starts.
            0x1b => {
                self.state = State::Escape;
                None
            }
            _ => {
                self.keep(b);
                None
            }
        }
    }

    /// A control sequence `CSI params final`: an answer, a key or nothing the explorer uses.
    fn csi_done(&mut self, params: &[u8], last: u8) -> Option<KeyEvent> {
        let params = std::str::from_utf8(params).ok()?;
        match (last, params) {
            (b'c', p) if p.starts_with('?') => {
                let mut attributes = p.trim_start_matches('?').split(';');
                self.replies.sixel |= attributes.any(|a| a == "4");
                None
            }
            (b't', p) => {
                self.replies.cell = cell_size(p).or(self.replies.cell);
                None
            }
            (b'n', "0") => {
                self.replies.status = true;
                None
            }
            // Cursor position reports, mouse reports, focus, pastes.
            (b'R' | b'M' | b'm' | b'I' | b'O', _) => None,
            _ => csi_key(params, last),
        }
    }

    fn end_text(&mut self) {
        self.state = State::Ground;
        if !self.overflow && self.text_kind == b'_' && self.seq == b"Gi=31;OK" {
            self.replies.kitty = true;
        }
    }

    fn keep(&mut self, b: u8) {
        if self.seq.len() < MAX_SEQUENCE {
            self.seq.push(b);
        } else {
            self.overflow = true;
        }
    }
}

/// `6 ; height ; width` (both positive) as (width, height).
fn cell_size(params: &str) -> Option<(u16, u16)> {
    let mut parts = params.split(';');
    if parts.next()? != "6" {
        return None;
    }
    let h: u16 = parts.next()?.parse().ok()?;
    let w: u16 = parts.next()?.parse().ok()?;
    (parts.next().is_none() && w > 0 && h > 0).then_some((w, h))
}

/// The key of a byte outside any sequence, as crossterm reads it.
fn byte_key(b: u8) -> KeyEvent {
    match b {
        b'\r' | b'\n' => KeyCode::Enter.into(),
        b'\t' => KeyCode::Tab.into(),
        0x7f => KeyCode::Backspace.into(),
        0x00 => KeyEvent::new(KeyCode::Char(' '), KeyModifiers::CONTROL),
        0x01..=0x1a => KeyEvent::new(
            KeyCode::Char(char::from(b - 1 + b'a')),
            KeyModifiers::CONTROL,
        ),
        0x1c..=0x1f => KeyEvent::new(
            KeyCode::Char(char::from(b - 0x1c + b'4')),
            KeyModifiers::CONTROL,
        ),
        _ => char_key(char::from(b)),
    }
}

/// A character's key (upper case with Shift, as crossterm has it).
fn char_key(c: char) -> KeyEvent {
    let modifiers = if c.is_uppercase() {
        KeyModifiers::SHIFT
    } else {
        KeyModifiers::empty()
    };
    KeyEvent::new(KeyCode::Char(c), modifiers)
}

/// The arrows, Home and End, by the last byte of their sequence (`ESC O x` or `CSI … x`).
fn cursor_key(b: u8) -> Option<KeyCode> {
    Some(match b {
        b'A' => KeyCode::Up,
        b'B' => KeyCode::Down,
        b'C' => KeyCode::Right,
        b'D' => KeyCode::Left,
        b'H' => KeyCode::Home,
        b'F' => KeyCode::End,
        _ => return None,
    })
}

/// `ESC O x`: arrows, Home, End, F1–F4.
fn ss3_key(b: u8) -> Option<KeyEvent> {
    let code = match b {
        b'P'..=b'S' => KeyCode::F(1 + b - b'P'),
        _ => cursor_key(b)?,
    };
    Some(code.into())
}

/// The key of `CSI params last` (`CSI 1 ; 5 A` is Ctrl+Up, `CSI 5 ~` Page Up), if it is one.
fn csi_key(params: &str, last: u8) -> Option<KeyEvent> {
    let mut parts = params.split(';');
    let first = parts.next().unwrap_or("");
    let modifiers = match parts.next() {
        Some(m) => modifiers(m.parse().ok()?),
        None => KeyModifiers::empty(),
    };
    let code = match last {
        b'Z' => return Some(KeyEvent::new(KeyCode::BackTab, KeyModifiers::SHIFT)),
        b'~' => tilde_key(first.parse().ok()?)?,
        _ => cursor_key(last)?,
    };
    Some(KeyEvent::new(code, modifiers))
}

/// `CSI n ~` keys.
fn tilde_key(n: u8) -> Option<KeyCode> {
    Some(match n {
        1 | 7 => KeyCode::Home,
        2 => KeyCode::Insert,
        3 => KeyCode::Delete,
        4 | 8 => KeyCode::End,
        5 => KeyCode::PageUp,
        6 => KeyCode::PageDown,
        11..=15 => KeyCode::F(n - 10),
        17..=21 => KeyCode::F(n - 11),
        23 | 24 => KeyCode::F(n - 12),
        _ => return None,
    })
}

/// The xterm modifier parameter (1 + Shift 1, Alt 2, Ctrl 4).
fn modifiers(m: u8) -> KeyModifiers {
    let bits = m.saturating_sub(1);
    let mut out = KeyModifiers::empty();
    if bits & 1 != 0 {
        out |= KeyModifiers::SHIFT;
    }
    if bits & 2 != 0 {
        out |= KeyModifiers::ALT;
    }
    if bits & 4 != 0 {
        out |= KeyModifiers::CONTROL;
    }
    out
}

#[path = "term_replies_late.rs"]
mod late;
pub use late::LateReplies;

#[cfg(test)]
#[path = "term_replies_tests.rs"]
mod tests;
