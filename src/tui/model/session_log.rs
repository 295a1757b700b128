//! What the explorer said in this session: every status-bar message, in order (the health
//! view, `!`, lists them), and the errors not yet dismissed (they stay in the status bar
//! until `Esc`, or until `!` has shown them).

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
}

impl SessionLog {
    /// Records a message (a repeat of the previous one is counted, not listed again).
    pub fn record(&mut self, text: &str, error: bool) {
        if error {
            self.undismissed += 1;
            self.latest_error = Some(text.to_string());
        }
        if let Some(last) = self
            .entries
            .back_mut()
            .filter(|l| l.text == text && l.error == error)
        {
            last.repeats = last.repeats.saturating_add(1);
            return;
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
        log.dismiss();
        assert_eq!(log.pending(), None);
        assert_eq!(log.entries().len(), 3, "dismissed errors stay listed");
        for i in 0..MAX_ENTRIES + 5 {
            log.record(&format!("m{i}"), false);
        }
        assert_eq!(log.entries().len(), MAX_ENTRIES);
        assert_eq!(log.dropped(), 8);
    }
}
