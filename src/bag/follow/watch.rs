//! The [`Follower`]'s look at its file: whether the name still names the open file, when it
//! last grew, whether it has stalled and who writes it (the rules are in [`super::stall`]).

use std::time::{Duration, Instant, SystemTime};

use super::Follower;
use super::error::FollowError;
use super::stall::{Gone, STALL_AFTER, Stall, WRITER_CHECK_EVERY, Writer, find_writer, identity};

impl Follower {
    /// Whether the followed name still names the open file: `None` when it does (or the
    /// recorder renamed `X.bag.active` to `X.bag`, its finished name), else what happened.
    pub(super) fn name_moved(&self) -> Result<Option<Gone>, FollowError> {
        match std::fs::metadata(&self.path) {
            Ok(m) if identity(&m) == self.identity => Ok(None),
            Ok(_) => Ok(Some(Gone::Replaced)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let done = self.final_path();
                let renamed = done != self.path
                    && std::fs::metadata(&done).is_ok_and(|m| identity(&m) == self.identity);
                Ok((!renamed).then_some(Gone::Deleted))
            }
            Err(source) => Err(FollowError::Io {
                path: self.path.clone(),
                source,
            }),
        }
    }

    /// The file's modification time now.
    pub fn modified(&self) -> Option<SystemTime> {
        self.stat().ok().and_then(|s| s.1)
    }

    /// The recording has not grown for [`STALL_AFTER`] (by the file's modification time, so
    /// that a file left by a recorder that died long ago is stalled at once) and no process
    /// is seen holding it open for writing: since when. `None` while it grows, while a
    /// process writes it, or once it is finished. Looks for a writer at most every few
    /// seconds, only once the file has been quiet that long.
    pub fn stalled(&mut self) -> Option<Stall> {
        self.idle_for(STALL_AFTER)
    }

    /// [`Follower::stalled`] after `quiet` without growth instead of [`STALL_AFTER`]
    /// (`--idle-timeout`).
    pub fn idle_for(&mut self, quiet: Duration) -> Option<Stall> {
        if self.finished {
            return None;
        }
        let since = self.modified()?;
        let idle = SystemTime::now().duration_since(since).ok()?;
        if idle < quiet {
            return None;
        }
        (self.writer() != Writer::Found).then_some(Stall { since })
    }

    /// Whether a process holds the file open for writing (looked up again at most every
    /// `WRITER_CHECK_EVERY`).
    pub fn writer(&mut self) -> Writer {
        if let Some((at, w)) = self.writer_check {
            if at.elapsed() < WRITER_CHECK_EVERY {
                return w;
            }
        }
        let w = find_writer(self.identity);
        self.writer_check = Some((Instant::now(), w));
        w
    }

    /// The recorder compresses its chunks and holds the one it is writing in memory: how
    /// long ago the newest message on disk was received (by the wall clock; since the open
    /// chunk was first seen when the receive times are not the wall clock's). `None` when no
    /// compressed chunk is open.
    pub fn unwritten(&self) -> Option<Duration> {
        let seen = self.pending_seen?;
        let by_clock = self
            .last_time
            .and_then(super::super::recovery::not_on_disk_for);
        Some(by_clock.unwrap_or_else(|| seen.elapsed()))
    }
}
