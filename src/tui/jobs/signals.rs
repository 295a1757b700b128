//! SIGINT, SIGTERM and SIGHUP as news: the event loop ends on them like on `q`, so the
//! terminal is restored on the way out.

use super::job::detach;
use super::notify::Notify;

/// Starts the thread that reports each signal's number to `notify` (until nobody listens).
/// Without it (no handler could be installed, no thread started) a signal ends the process
/// as it would anyway.
pub fn start(notify: Notify<i32>) {
    #[cfg(unix)]
    {
        use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
        if let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) {
            let _ = detach("signals", move || {
                for s in signals.forever() {
                    if !notify.send(s) {
                        break;
                    }
                }
            });
        }
    }
    #[cfg(not(unix))]
    let _ = notify;
}
