//! The one stream of events the loop blocks on: terminal input, worker replies, ROS
//! publishing reports, signals, ticks.

use super::publish::RosEvent;
use super::worker::Reply;

/// An event for the app.
#[derive(Debug)]
pub enum AppEvent {
    /// Keyboard, mouse, resize, paste.
    Input(crossterm::event::Event),
    /// A background result.
    Worker(Reply),
    /// A report of the ROS publisher thread (`p`).
    Ros(RosEvent),
    /// SIGINT, SIGTERM or SIGHUP: leave cleanly.
    Signal(i32),
    /// Time passes (only while something animates).
    Tick,
    /// News from the thread opening the bags.
    Opening(super::opening::Progress),
    /// The topic filter computed on the background thread.
    Filtered(super::model::topic_filter::Filtered),
}
