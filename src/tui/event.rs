//! The one stream of events the loop blocks on: terminal input, worker replies, signals, ticks.

use super::worker::Reply;

/// An event for the app.
#[derive(Debug)]
pub enum AppEvent {
    /// Keyboard, mouse, resize, paste.
    Input(crossterm::event::Event),
    /// A background result.
    Worker(Reply),
    /// SIGINT, SIGTERM or SIGHUP: leave cleanly.
    Signal(i32),
    /// Time passes (only while something animates).
    Tick,
}
