//! What the explorer said in this session: every status-bar message, in order (the health
//! view, `!`, lists them), and the errors not yet dismissed. An error that answers the key
//! just pressed is seen at once and goes at the next key, like any message; one that comes
//! later, on its own (a `--plot` that cannot be plotted, a failed export or scan), stays in the
//! status bar until `Esc`, or until `!` has shown it.

use std::collections::VecDeque;

/// The most messages kept (the oldest go first).
pub const MAX_ENTRIES: usize = 500;

/// One message of the session.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// Its text.
    pub text: String,
    /// An error (else information).
    pub error: bool,
    /// How many times in a row it was said.
    pub repeats: u32,
}

/// The session's messages and the errors still to be dismissed.
#[derive(Clone, Debug, Default)]
pub struct SessionLog {
    entries: VecDeque<Entry>,
    /// Errors said since the last dismissal.
    undismissed: usize,
    /// The latest of them.
    latest_error: Option<String>,
    /// Entries dropped to stay within [`MAX_ENTRIES`].
    dropped: u64,
    /// A key is being answered: its errors are not kept pending.
    answering: bool,
}

impl SessionLog {
    /// Whether what is recorded answers the key just pressed (set while a key is handled).
    pub fn set_answering(&mut self, answering: bool) {
        self.answering = answering;
    }

    /// Records a message (a repeat of the previous one is counted, not listed again); an
    /// error that does not answer a key is pending until dismissed. True when it is pending.
    pub fn record(&mut self, text: &str, error: bool) -> bool {
        let pending = error && !self.answering;
        if pending {
            self.undismissed += 1;
            self.latest_error = Some(text.to_string());
        }
        if let Some(last) = self
            .entries
            .back_mut()
            .filter(|l| l.text == text && l.error == error)
        {
            last.repeats = last.repeats.saturating_add(1);
            return pending;
        }
        if self.entries.len() == MAX_ENTRIES {
            self.entries.pop_front();
            self.dropped += 1;
        }
        self.entries.push_back(Entry {
            text: text.to_string(),
            error,
            repeats: 1,
        });
        pending
    }

    /// The latest error not dismissed and how many others came before it since the last
    /// dismissal.
    pub fn pending(&self) -> Option<(&str, usize)> {
        let text = self.latest_error.as_deref()?;
        (self.undismissed > 0).then_some((text, self.undismissed - 1))
    }

    /// Dismisses the errors (they stay listed).
    pub fn dismiss(&mut self) {
        self.undismissed = 0;
        self.latest_error = None;
    }

    /// The messages, oldest first.
    pub fn entries(&self) -> impl ExactSizeIterator<Item = &Entry> {
        self.entries.iter()
    }

    /// Whether nothing was said.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// How many errors are listed.
    pub fn errors(&self) -> usize {
        self.entries.iter().filter(|e| e.error).count()
    }

    /// Messages no longer listed (beyond [`MAX_ENTRIES`]).
    pub fn dropped(&self) -> u64 {
        self.dropped
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_stay_pending_until_dismissed_and_repeats_are_counted() {
        let mut log = SessionLog::default();
        assert_eq!(log.pending(), None);
        log.record("--plot /a/x: no topic /a", true);
        log.record("copying…", false);
        log.record("--plot /b/y: no topic /b", true);
        log.record("--plot /b/y: no topic /b", true);
        assert_eq!(log.pending(), Some(("--plot /b/y: no topic /b", 2)));
        assert_eq!(log.entries().len(), 3);
        assert_eq!(log.entries().last().unwrap().repeats, 2);
        assert_eq!(log.errors(), 2);
        // An error answering a key is listed, not pending.
        log.set_answering(true);
        assert!(!log.record("mark an interval first", true));
        log.set_answering(false);
        assert_eq!(log.pending(), Some(("--plot /b/y: no topic /b", 2)));
        assert_eq!(log.errors(), 3);
        log.record("x", false);
        log.dismiss();
        assert_eq!(log.pending(), None);
        assert_eq!(log.entries().len(), 5, "dismissed errors stay listed");
        for i in 0..MAX_ENTRIES + 5 {
            log.record(&format!("m{i}"), false);
        }
        assert_eq!(log.entries().len(), MAX_ENTRIES);
        assert_eq!(log.dropped(), 10);
    }
}
