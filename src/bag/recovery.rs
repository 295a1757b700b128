//! The report of a bag read without (a usable) index: why, what was found, what was lost.

use std::fmt;

use crate::time::RosTime;

/// A stretch of the file that could not be used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Loss {
    /// File offset where it starts.
    pub offset: u64,
    /// Bytes lost (to the next readable record or the end of the file); 0 when not known
    /// (the missing end of a truncated file) or not a stretch of the file.
    pub bytes: u64,
    /// Messages known to be lost there (from index data), when known.
    pub messages: Option<u64>,
    /// What was wrong.
    pub reason: String,
}

impl fmt::Display for Loss {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Bytes 0: the size is not known (the end of a truncated file) or not the point (a
        // connection without its record).
        if self.bytes == 0 {
            write!(f, "at byte {}", self.offset)?;
        } else {
            write!(f, "{} bytes at byte {}", self.bytes, self.offset)?;
        }
        if let Some(m) = self.messages {
            write!(f, " ({})", crate::wording::count(m, "message"))?;
        }
        write!(f, ": {}", self.reason)
    }
}

/// How a bag without a usable index was read.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Recovery {
    /// Why the file was scanned (e.g. "index_pos is 0: the recording was not closed").
    pub reason: String,
    /// Chunks found intact.
    pub complete_chunks: u64,
    /// Chunks found cut short or never closed, read as far as their data goes.
    pub partial_chunks: u64,
    /// Parts of the file that could not be read.
    pub losses: Vec<Loss>,
    /// `(bytes scanned, file size)` when this is a partial result of a scan still running
    /// (see `OpenOptions::partial`): the counts and losses are those found so far. `None` once
    /// the scan is done.
    pub scanned: Option<(u64, u64)>,
    /// The end of a recording still being written (a `.active` file) that the writer has not
    /// finished: a record cut off by the end of the file, or the compressed chunk the recorder
    /// is writing. Not a loss (the same bytes in a closed bag are one).
    pub unfinished: Option<Unfinished>,
}

/// The end of a `.active` file that its writer has not finished (see
/// [`Recovery::unfinished`]). Its `Display` is the note the commands print.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unfinished {
    /// File offset where it starts.
    pub offset: u64,
    /// Its bytes in the file (to the end of the file).
    pub bytes: u64,
    /// What is being written there.
    pub what: Writing,
}

/// What a recording's writer has not finished (see [`Unfinished`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Writing {
    /// A record: its header or data is not all in the file yet (or the writer stopped).
    Record,
    /// A compressed chunk: its header says size 0 (or a size past the end of the file)
    /// until the recorder closes it, and its messages are read only then (a compressed
    /// stream is not decoded from part of its bytes).
    Chunk {
        /// Its compression.
        compression: crate::format::Compression,
        /// Receive time of the newest message in the file, if any.
        newest: Option<RosTime>,
    },
}

impl fmt::Display for Unfinished {
    /// `N bytes at the end still being written (or cut off), from byte X`, or for a
    /// compressed chunk `newest N s not yet on disk: the recorder compresses chunks (…)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Unfinished {
            offset,
            bytes,
            what,
        } = self;
        match what {
            // The writer holds the rest (an MCAP writer's open chunk): nothing is cut yet.
            Writing::Record if *bytes == 0 => write!(
                f,
                "still being written after byte {offset} (the writer has not written the rest yet)"
            ),
            Writing::Record => write!(
                f,
                "{bytes} bytes at the end still being written (or cut off), from byte {offset}"
            ),
            Writing::Chunk {
                compression,
                newest,
            } => {
                match newest.and_then(not_on_disk_for) {
                    Some(d) => write!(f, "newest {} not yet on disk", ago(d))?,
                    None => f.write_str("the newest messages are not yet on disk")?,
                }
                write!(
                    f,
                    ": the recorder compresses chunks (the {compression} chunk at byte {offset}, \
                     {bytes} bytes so far, is read once it is closed; lost if the recorder stopped)"
                )
            }
        }
    }
}

/// How long ago, by the wall clock, a message received at `newest` was: `None` when the
/// receive times are not the wall clock's (in the future, or more than a day ago), as the
/// follower judges it.
pub(crate) fn not_on_disk_for(newest: RosTime) -> Option<std::time::Duration> {
    let t = std::time::SystemTime::UNIX_EPOCH
        + std::time::Duration::new(u64::from(newest.sec), newest.nsec.min(999_999_999));
    std::time::SystemTime::now()
        .duration_since(t)
        .ok()
        .filter(|d| *d < std::time::Duration::from_secs(86_400))
}

impl Recovery {
    /// True when nothing was lost.
    pub fn is_lossless(&self) -> bool {
        self.losses.is_empty()
    }

    /// Total bytes that could not be read.
    pub fn lost_bytes(&self) -> u64 {
        self.losses.iter().map(|l| l.bytes).sum()
    }

    /// Settles what is true of a 2.0 bag whose header places its index section at
    /// `index_pos`, past the end of the file (`file_len` bytes), once the file was scanned:
    ///
    /// - the scan met chunk info records (`chunk_infos`): the index section is in the file,
    ///   the header's `index_pos` is damaged, nothing is missing;
    /// - every chunk the header counts (`header_chunks`) was read whole: only the index
    ///   section is missing (rebuilt by the scan), no message is;
    /// - else the end of the recording is missing (a truncated copy): a loss at the end of
    ///   the file, of unknown size (`index_pos` is not trusted to measure it), naming `last`,
    ///   the receive time of the last message read, and the chunks the header counts that
    ///   are not there. A loss already starting at the end of the file (a chunk cut off)
    ///   takes the explanation.
    pub(crate) fn note_index_past_end(
        &mut self,
        file_len: u64,
        index_pos: u64,
        header_chunks: Option<u32>,
        chunk_infos: usize,
        last: Option<RosTime>,
    ) {
        let place = format!(
            "the bag header places its index section at byte {index_pos}, past the end of the \
             file ({file_len} bytes)"
        );
        if chunk_infos > 0 {
            self.reason = format!(
                "{place}, but the file holds an index section ({chunk_infos} chunk info \
                 record(s)): the header's index_pos is damaged; the file was read record by \
                 record"
            );
            return;
        }
        let found = self.complete_chunks;
        if let Some(n) = header_chunks.map(u64::from)
            && n > 0
            && found >= n
            && self.partial_chunks == 0
        {
            self.reason = format!(
                "{place}, but holds all {n} chunks its header counts, whole: only the index \
                 section is missing (rebuilt by reading the file)"
            );
            return;
        }
        let since = match last {
            Some(t) => format!("every message after {t} (the last one read)"),
            None => "every message".to_string(),
        };
        let chunks = match header_chunks.map(u64::from) {
            Some(n) if n > found => {
                format!("; the header counts {n} chunks, {found} were found whole")
            }
            _ => String::new(),
        };
        let what = format!(
            "the file is truncated before its index section (at byte {index_pos}): the end of \
             the recording is missing, {since}{chunks}"
        );
        if let Some(tail) = self.losses.iter_mut().find(|l| l.offset >= file_len) {
            tail.reason = format!("{}; {what}", tail.reason);
            return;
        }
        self.losses.push(Loss {
            offset: file_len,
            // How much is missing is not known: the header's index_pos may be damaged too.
            bytes: 0,
            messages: None,
            reason: what,
        });
    }
}

/// Records the stretch from `pos` to `next` (or to `len`, the end of the file) as lost and
/// returns where to go on, if anywhere.
pub(crate) fn skip_damaged(
    losses: &mut Vec<Loss>,
    pos: usize,
    next: Option<usize>,
    len: usize,
    reason: String,
) -> Option<usize> {
    let end = next.unwrap_or(len);
    losses.push(Loss {
        offset: pos as u64,
        bytes: end.saturating_sub(pos) as u64,
        messages: None,
        reason,
    });
    next
}

/// Where a recovery scan is (see [`ProgressFn`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecoveryProgress {
    /// Walking the file record by record: bytes walked of the file's size.
    Scanning {
        /// Bytes walked.
        done: u64,
        /// File size.
        total: u64,
    },
    /// Decompressing the chunks that must be walked: chunks done of those to do.
    Decoding {
        /// Chunks done.
        done: u64,
        /// Chunks to do.
        total: u64,
    },
}

impl RecoveryProgress {
    /// True when `later`, reported after `self`, goes backwards within the same stage (the
    /// decompression workers may report out of order): such a report is to be ignored.
    pub fn is_ahead_of(&self, later: &RecoveryProgress) -> bool {
        match (*self, *later) {
            (
                RecoveryProgress::Scanning { done, total },
                RecoveryProgress::Scanning {
                    done: next,
                    total: of,
                },
            )
            | (
                RecoveryProgress::Decoding { done, total },
                RecoveryProgress::Decoding {
                    done: next,
                    total: of,
                },
            ) => total == of && done > next,
            _ => false,
        }
    }
}

/// A callback told how a recovery scan advances (a few hundred calls at most per stage), from
/// the thread that opens the bag or from its decompression workers. Set in
/// [`OpenOptions::progress`](crate::bag::OpenOptions::progress); indexed bags never call it.
#[derive(Clone)]
pub struct ProgressFn(pub std::sync::Arc<dyn Fn(RecoveryProgress) + Send + Sync>);

impl fmt::Debug for ProgressFn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ProgressFn")
    }
}

/// `5 s`, `20 s`, `40 min`, `3 h 5 min`: past ten seconds in steps of ten, so that a text
/// redrawn on each change (`info --follow`) changes at most every ten seconds.
pub fn ago(d: std::time::Duration) -> String {
    let s = d.as_secs();
    match s {
        0..10 => format!("{s} s"),
        10..60 => format!("{} s", s / 10 * 10),
        60..3600 => format!("{} min", s / 60),
        _ => format!("{} h {} min", s / 3600, s % 3600 / 60),
    }
}
