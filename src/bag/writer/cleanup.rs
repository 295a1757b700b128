//! The temporary files of the outputs being written, so that a process stopped by a signal
//! leaves none behind: SIGINT/SIGTERM/SIGHUP remove them before the process ends as the
//! signal would end it, and SIGXFSZ (a file-size limit) is ignored so that the write fails
//! with `EFBIG` and the normal error path removes the file.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, PoisonError};

/// Temporary files being written.
static PENDING: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

fn pending() -> std::sync::MutexGuard<'static, Vec<PathBuf>> {
    PENDING.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Notes a temporary file being written.
pub(super) fn register(path: &Path) {
    pending().push(path.to_path_buf());
}

/// Forgets a temporary file (renamed into place or removed).
pub(super) fn unregister(path: &Path) {
    let mut list = pending();
    if let Some(i) = list.iter().position(|p| p == path) {
        list.swap_remove(i);
    }
}

/// True while `path` is registered (tests).
#[cfg(test)]
pub(super) fn is_pending(path: &Path) -> bool {
    pending().iter().any(|p| p == path)
}

/// Removes the temporary file of every output being written (the process is about to end).
pub fn remove_temp_files() {
    for p in pending().drain(..) {
        let _ = std::fs::remove_file(p);
    }
}

/// For commands that write files: ignores SIGXFSZ (a write past a file-size limit then fails
/// with `EFBIG`, and the error path removes the temporary file) and, on SIGINT, SIGTERM or
/// SIGHUP, removes every temporary file being written, then ends the process as the signal
/// would have (exit status 128 + signal). Not for commands with their own signal handling
/// (the explorer, `play`, `serve`).
#[cfg(unix)]
pub fn remove_temp_files_on_signals() -> std::io::Result<()> {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM, SIGXFSZ};
    signal_hook::flag::register(SIGXFSZ, Arc::new(AtomicBool::new(false)))?;
    let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP])?;
    std::thread::Builder::new()
        .name("cleanup-on-signal".into())
        .spawn(move || {
            if let Some(signal) = signals.forever().next() {
                remove_temp_files();
                let _ = signal_hook::low_level::emulate_default_handler(signal);
                std::process::exit(128 + signal);
            }
        })?;
    Ok(())
}

/// Elsewhere: nothing to install.
#[cfg(not(unix))]
pub fn remove_temp_files_on_signals() -> std::io::Result<()> {
    Ok(())
}
