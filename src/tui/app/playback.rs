//! Playback: the time cursor moving through the bags at a chosen speed, within the marked
//! interval when there is one.

use crate::tui::model::play::Play;
use std::time::Instant;

use crate::time::RosTime;

use super::App;

impl App {
    /// `[` / `]`: marks the cursor as the start (or end) of the interval, keeping start <= end.
    pub(super) fn mark(&mut self, start: bool) {
        let t = self.views.timeline.timeline.cursor();
        if start {
            self.views.timeline.marks.0 = Some(t);
        } else {
            self.views.timeline.marks.1 = Some(t);
        }
        if let (Some(a), Some(b)) = self.views.timeline.marks {
            if a > b {
                self.views.timeline.marks = (Some(b), Some(a));
            }
        }
    }

    /// `+` / `-`: doubles or halves the playback speed (within 1/64× .. 1024×).
    pub(super) fn change_speed(&mut self, faster: bool) {
        let now = Instant::now();
        let factor = if faster { 2.0 } else { 0.5 };
        let current = self.jobs.play.map_or(1.0, |p| p.speed);
        self.set_speed((current * factor).clamp(1.0 / 64.0, 1024.0), now);
    }

    /// The bag time playback has reached at `now`.
    pub(super) fn play_position(&self, now: Instant) -> Option<RosTime> {
        let p = self.jobs.play?;
        if p.paused {
            return Some(p.from);
        }
        #[allow(clippy::cast_possible_truncation)]
        let elapsed = (now.saturating_duration_since(p.since).as_nanos() as f64 * p.speed) as i128;
        Some(p.from.saturating_add_nanos(elapsed))
    }

    /// True while the cursor is moving on its own (the loop then ticks).
    pub fn is_playing(&self) -> bool {
        self.jobs.play.is_some_and(|p| !p.paused)
    }

    /// Starts, pauses or resumes playback at `now`.
    pub fn toggle_play(&mut self, now: Instant) {
        match self.jobs.play {
            Some(p) if !p.paused => {
                self.jobs.play = Some(Play {
                    paused: true,
                    from: self.play_position(now).unwrap_or(p.from),
                    since: now,
                    ..p
                });
                self.flash("paused", false);
            }
            Some(p) => {
                self.jobs.play = Some(Play {
                    paused: false,
                    since: now,
                    from: self.views.timeline.timeline.cursor(),
                    ..p
                });
            }
            None => {
                // From the marked start when the cursor is before it, else from the cursor;
                // from the beginning when the cursor is at the end.
                let cursor = self.views.timeline.timeline.cursor();
                let from = self
                    .views
                    .timeline
                    .marks
                    .0
                    .filter(|m| *m > cursor)
                    .unwrap_or(cursor);
                let from = if from >= self.views.timeline.timeline.bounds().1 {
                    self.views.timeline.timeline.bounds().0
                } else {
                    from
                };
                self.jobs.play = Some(Play {
                    speed: 1.0,
                    since: now,
                    from,
                    paused: false,
                });
            }
        }
    }

    pub(super) fn set_speed(&mut self, speed: f64, now: Instant) {
        let from = self
            .play_position(now)
            .unwrap_or(self.views.timeline.timeline.cursor());
        let paused = self.jobs.play.is_some_and(|p| p.paused);
        self.jobs.play = Some(Play {
            speed,
            since: now,
            from,
            paused,
        });
        self.flash(format!("playing at {speed}×"), false);
    }

    /// Moves the cursor to where playback is at `now`; stops at the end (of the marked
    /// interval, or of the bags). Returns true when the screen changed.
    pub fn advance_play(&mut self, now: Instant) -> bool {
        if !self.is_playing() {
            return false;
        }
        let Some(t) = self.play_position(now) else {
            return false;
        };
        let from = self.jobs.play.map(|p| p.from);
        let stop = self
            .views
            .timeline
            .marks
            .1
            .filter(|e| Some(*e) > from)
            .unwrap_or(self.views.timeline.timeline.bounds().1);
        let t = if t >= stop {
            self.jobs.play = None;
            self.flash("end of playback", false);
            stop
        } else {
            t
        };
        self.views.timeline.timeline.set_cursor(t);
        self.cursor_moved();
        true
    }
}
