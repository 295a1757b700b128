//! Playback's state: the time cursor moving through the bags at a chosen speed, from a bag time
//! taken at a wall-clock instant.

use std::time::Instant;

use crate::time::RosTime;

/// Playback of the timeline: the cursor moves through time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Play {
    /// Speed factor (1.0 = real time).
    pub speed: f64,
    /// When (wall clock) the current speed took effect.
    pub since: Instant,
    /// Bag time at `since`.
    pub from: RosTime,
    /// Paused.
    pub paused: bool,
}
