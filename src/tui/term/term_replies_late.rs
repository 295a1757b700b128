//! Answers that come after the wait for them, as crossterm reads them.
//!
//! Once the wait for the graphics query's answers is over, crossterm reads the input. It
//! drops the control sequences it does not know (the cell size `CSI 6 ; h ; w t`, the window
//! size `CSI 4 ; h ; w t`, the status `CSI 0 n`) and keeps the device attributes
//! (`CSI ? … c`) and cursor reports (`CSI … R`) to itself, but it reads a string sequence —
//! kitty's `APC G … ST`, a `DCS`, `OSC`, `SOS` or `PM` — as keys: `ESC _` becomes Alt+`_`,
//! then every character of the string is a key (`ESC _Gi=31;EINVAL… ESC \` types `G`, `i`,
//! `E`…, and `E` writes a bag).
//!
//! [`LateReplies`] drops such strings from the events: an introducer (Alt with `_`, `P`,
//! `]`, `X` or `^`) with more input right behind it (a terminal writes its answer at once; a
//! person does not type within [`super::super::term::input`]'s escape wait), then the characters
//! up to the terminator (Alt+`\` for `ESC \`, or Ctrl+G for `BEL`). An introducer with
//! nothing right behind it is a key and goes through; so does any event that cannot be part
//! of a string (an arrow, a mouse report, a resize), which also ends it; a string longer
//! than [`MAX_SEQUENCE`] characters is not an answer, and the rest goes through.

use crossterm::event::{Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use super::MAX_SEQUENCE;

/// Drops the terminal's late answers from crossterm's events (see the module).
#[derive(Debug, Default)]
pub struct LateReplies {
    /// Inside a string: how many of its characters were dropped.
    inside: Option<usize>,
}

impl LateReplies {
    /// True when the filter is inside a string: the caller tells, with the next event,
    /// whether it came right behind this one.
    pub fn in_string(&self) -> bool {
        self.inside.is_some()
    }

    /// Takes the next event; `more_behind` says whether another event came right behind
    /// it (asked only for introducers, and inside a string). Returns the event when it
    /// is not part of an answer.
    pub fn push(&mut self, ev: Event, more_behind: impl FnOnce() -> bool) -> Option<Event> {
        let Some(count) = self.inside else {
            if introducer(&ev) && more_behind() {
                self.inside = Some(0);
                return None;
            }
            return Some(ev);
        };
        let Event::Key(key) = &ev else {
            // A mouse report, a resize, a paste, a focus change: not in a string.
            self.inside = None;
            return Some(ev);
        };
        match string_part(key) {
            Part::End => {
                self.inside = None;
                None
            }
            Part::Char if count < MAX_SEQUENCE => {
                // Its end is due right behind; if nothing comes, it was cut short.
                self.inside = more_behind().then_some(count + 1);
                None
            }
            Part::Char | Part::Other => {
                self.inside = None;
                Some(ev)
            }
        }
    }
}

/// What a key is inside a string.
enum Part {
    /// Its terminator.
    End,
    /// One of its characters.
    Char,
    /// Not part of a string.
    Other,
}

/// `ESC _`, `ESC P`, `ESC ]`, `ESC X`, `ESC ^` as crossterm reads them (Alt and the
/// character).
fn introducer(ev: &Event) -> bool {
    matches!(ev, Event::Key(KeyEvent {
            code: KeyCode::Char('_' | 'P' | ']' | 'X' | '^'),
            modifiers,
            kind: KeyEventKind::Press,
            ..
        }) if modifiers.contains(KeyModifiers::ALT)
            && !modifiers.intersects(KeyModifiers::CONTROL))
}

fn string_part(key: &KeyEvent) -> Part {
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    let alt = key.modifiers.contains(KeyModifiers::ALT);
    match key.code {
        // `ESC \` (ST), `BEL`.
        KeyCode::Char('\\') if alt => Part::End,
        KeyCode::Char('g') if ctrl => Part::End,
        // Another escape inside: the string was cut short, this is something else.
        KeyCode::Char(_) if alt => Part::Other,
        // Printable characters (Shift for capitals) and other control bytes.
        KeyCode::Char(_) | KeyCode::Tab | KeyCode::Enter | KeyCode::Backspace => Part::Char,
        _ => Part::Other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ch(c: char) -> Event {
        let m = if c.is_uppercase() {
            KeyModifiers::SHIFT
        } else {
            KeyModifiers::NONE
        };
        Event::Key(KeyEvent::new(KeyCode::Char(c), m))
    }

    fn alt(c: char) -> Event {
        let mut m = KeyModifiers::ALT;
        if c.is_uppercase() {
            m |= KeyModifiers::SHIFT;
        }
        Event::Key(KeyEvent::new(KeyCode::Char(c), m))
    }

    /// The events crossterm reads from `bytes` (printable ASCII, `ESC x` as Alt+x, `BEL`).
    fn as_crossterm(bytes: &[u8]) -> Vec<Event> {
        let mut out = Vec::new();
        let mut it = bytes.iter().copied();
        while let Some(b) = it.next() {
            out.push(match b {
                0x1b => alt(char::from(it.next().unwrap())),
                0x07 => Event::Key(KeyEvent::new(KeyCode::Char('g'), KeyModifiers::CONTROL)),
                b => ch(char::from(b)),
            });
        }
        out
    }

    /// Feeds `events` arriving together (each but the last has another right behind).
    fn burst(f: &mut LateReplies, events: &[Event]) -> Vec<Event> {
        let n = events.len();
        events
            .iter()
            .enumerate()
            .filter_map(|(i, e)| f.push(e.clone(), || i + 1 < n))
            .collect()
    }

    #[test]
    fn late_string_answers_are_dropped() {
        for answer in [
            &b"\x1b_Gi=31;OK\x1b\\"[..],
            b"\x1b_Gi=31;EINVAL:bad payload\x1b\\",
            b"\x1b]11;rgb:0000/0000/0000\x07",
            b"\x1bP1+r544e=787465726d\x1b\\",
            b"\x1bX\x1b\\",
            b"\x1b^x\x07",
        ] {
            let mut f = LateReplies::default();
            assert_eq!(burst(&mut f, &as_crossterm(answer)), vec![], "{answer:?}");
            assert!(!f.in_string());
            // A key typed afterwards goes through.
            assert_eq!(f.push(ch('E'), || false), Some(ch('E')));
        }
    }

    #[test]
    fn keys_are_not_eaten() {
        let mut f = LateReplies::default();
        // Typed one at a time: nothing right behind each.
        for e in [alt('_'), ch('E'), alt('P'), ch('q'), alt(']'), ch('G')] {
            assert_eq!(f.push(e.clone(), || false), Some(e));
        }
        // An arrow, a resize or a mouse report in a string ends it, and goes through.
        let up = Event::Key(KeyCode::Up.into());
        let mut events = as_crossterm(b"\x1b_Gi=31");
        events.push(up.clone());
        events.push(ch('j'));
        assert_eq!(burst(&mut f, &events), vec![up, ch('j')]);
        let mut events = as_crossterm(b"\x1b_G");
        events.push(Event::Resize(80, 24));
        assert_eq!(burst(&mut f, &events), vec![Event::Resize(80, 24)]);
        // A string cut short (nothing behind its last character): the next key counts.
        assert_eq!(burst(&mut f, &as_crossterm(b"\x1b_Gi=31;O")), vec![]);
        assert!(!f.in_string());
        assert_eq!(f.push(ch('q'), || false), Some(ch('q')));
        // Another escape inside a string ends it and is read afresh.
        assert_eq!(
            burst(&mut f, &as_crossterm(b"\x1b_Gi\x1bj")),
            vec![alt('j')]
        );
        // Too long to be an answer: the rest goes through.
        let mut long = b"\x1b_G".to_vec();
        long.extend(std::iter::repeat_n(b'x', MAX_SEQUENCE + 3));
        let got = burst(&mut f, &as_crossterm(&long));
        assert_eq!(got.len(), 4, "{got:?}");
    }
}
