//! What `echo --follow` and `info --follow` share: a bag or MCAP file that is still being
//! recorded (a ROS 2 bag directory: its last storage file), read as it grows (see [`crate::bag::follow`]), and how a follow stops. They end when the recording is finished (exit 0, or 1 when
//! damage was skipped), when it has not grown for `--idle-timeout` seconds with no process
//! writing it (exit 1: the recorder stopped without finishing it), when another file takes
//! its name or it is deleted (exit 2), or on SIGINT/SIGTERM/SIGHUP (exit 128 + the signal, as
//! shells report it).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use crate::bag::follow::{FollowError, Follower, POLL_INTERVAL, Update};

use super::error::CliError;
use super::term::print_warning;

/// Message bytes handed over per poll: a large backlog is printed in pieces.
pub const POLL_BUDGET: usize = 4 << 20;

/// The default `--idle-timeout` (seconds): a recording that has not grown for this long with
/// no process writing it is taken as stopped.
pub const IDLE_TIMEOUT: u64 = 300;

/// True (after saying so) when the recording has not grown for `timeout` seconds and no
/// process holds it open for writing (`0`: never).
pub fn gave_up(path: &Path, follower: &mut Follower, timeout: u64) -> bool {
    if timeout == 0 {
        return false;
    }
    let Some(stall) = follower.idle_for(Duration::from_secs(timeout)) else {
        return false;
    };
    print_warning(format_args!(
        "{}: {stall}; stopped waiting (--idle-timeout {timeout})",
        path.display()
    ));
    true
}

/// The signal that ended a follow (0: none yet).
pub struct Stop(Arc<AtomicUsize>);

impl Stop {
    pub fn watch() -> Stop {
        let flag = Arc::new(AtomicUsize::new(0));
        #[cfg(unix)]
        for sig in [
            signal_hook::consts::SIGINT,
            signal_hook::consts::SIGTERM,
            signal_hook::consts::SIGHUP,
        ] {
            let n = usize::try_from(sig).unwrap_or(127);
            let _ = signal_hook::flag::register_usize(sig, Arc::clone(&flag), n);
        }
        Stop(flag)
    }

    pub fn signal(&self) -> Option<u8> {
        match self.0.load(Ordering::SeqCst) {
            0 => None,
            n => Some(u8::try_from(n).unwrap_or(127)),
        }
    }

    /// Waits until the file changes, a signal arrives or `timeout` passes.
    pub fn wait(&self, follower: &Follower, timeout: Duration) -> Result<(), FollowError> {
        let start = std::time::Instant::now();
        while self.signal().is_none() && start.elapsed() < timeout {
            if follower.wait(POLL_INTERVAL)? {
                break;
            }
        }
        Ok(())
    }
}

/// Opens `path` to follow (keeping every message's entry when `keep_entries`).
pub fn open(path: &Path, keep_entries: bool) -> Result<Follower, CliError> {
    let opened = Follower::open(path);
    let opened = if keep_entries {
        opened.map(Follower::keep_entries)
    } else {
        opened
    };
    Ok(opened?)
}

/// The one file `--follow` takes; `Err` for none or several. A ROS 2 bag directory stands for
/// its last storage file: the one a recorder writes (earlier split files are finished).
pub fn single(bags: &[PathBuf]) -> Result<PathBuf, CliError> {
    let [one] = bags else {
        return Err(CliError::Usage(
            "--follow takes exactly one bag".to_string(),
        ));
    };
    match crate::bag::inputs::storage_files(one) {
        Some(files) => files.last().cloned().ok_or_else(|| {
            CliError::Usage(format!(
                "{}: a directory without storage files (.mcap, .db3) to follow",
                one.display()
            ))
        }),
        None => Ok(one.clone()),
    }
}

/// Reports an update's losses; true when there were some.
pub fn report_losses(path: &Path, update: &Update) -> bool {
    for l in &update.losses {
        print_warning(format_args!("{}: skipped {l}", path.display()));
    }
    !update.losses.is_empty()
}
