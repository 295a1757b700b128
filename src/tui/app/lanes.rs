//! The timeline's scope, cycled with `a`: the selected topic, all topics, lanes (one row per
//! shown topic). The lanes' camera thumbnails (asked from the thumbnail thread for the slots on
//! screen, newest request winning; made inline without background threads) and their
//! ERROR/FATAL ticks (read once, when the lanes first open).

use std::sync::Arc;
use std::sync::atomic::Ordering;

use super::super::jobs::error_ticks::{self, TickNews};
use super::super::jobs::job::Job;
use super::super::jobs::notify::Notify;
use super::super::jobs::thumbnailer::{self, Frames, LaneAsk, ThumbNews, ThumbRequest};
use super::super::model::error_ticks::ErrorTicks;
use super::super::model::lanes::{self, Lanes};
use super::super::model::thumbs::{self, IN_FLIGHT_BYTES, Shown};
use super::App;
use crate::catalog::log::log_topics;

impl App {
    /// Where the thumbnails and the ticks are reported (the event loop's channel); without
    /// it both are made inline.
    pub fn set_lanes_notify(&mut self, thumbs: Notify<ThumbNews>, ticks: Notify<TickNews>) {
        self.jobs.lanes.thumb_notify = Some(thumbs);
        self.jobs.lanes.tick_notify = Some(ticks);
    }

    /// `a`: selected topic → all topics → lanes → selected topic.
    pub(super) fn cycle_timeline_scope(&mut self) {
        match (
            self.views.timeline.hist_all,
            self.views.timeline.lanes.is_some(),
        ) {
            (false, false) => self.views.timeline.hist_all = true,
            (true, _) => {
                self.views.timeline.hist_all = false;
                self.views.timeline.lanes = Some(Lanes::default());
                self.start_error_ticks();
            }
            (false, true) => {
                self.views.timeline.lanes = None;
                // Nothing more is wanted; reopened lanes ask again.
                self.jobs.lanes.asked.clear();
                self.jobs.lanes.generation.fetch_add(1, Ordering::Relaxed);
            }
        }
        self.refresh_histogram();
    }

    /// The columns of a timeline pane `width` cells wide inside: those before the time axis
    /// (the lanes' names) and those on it.
    pub(super) fn timeline_columns(&self, width: usize) -> (usize, usize) {
        if self.views.timeline.lanes.is_some() {
            let names = lanes::name_width(width);
            (names, width.saturating_sub(names).max(1))
        } else {
            (0, width)
        }
    }

    /// Rebuilds the lanes (when shown) for the timeline pane's size and window, and asks for
    /// the thumbnails they show.
    pub(super) fn refresh_lanes(&mut self) {
        let Some(mut l) = self.views.timeline.lanes.take() else {
            return;
        };
        let inner = self.layout.histogram;
        let (w, h) = (
            inner.width.saturating_sub(2) as usize,
            inner.height.saturating_sub(2) as usize,
        );
        let w = if w == 0 {
            self.layout.histogram_width()
        } else {
            w
        };
        // (`self.views.timeline.lanes` is taken: the name column is the lanes' own.)
        let bars = w.saturating_sub(lanes::name_width(w)).max(1);
        l.refresh(
            &self.catalog,
            &self.views.topics.list,
            self.views.timeline.timeline.view(),
            (lanes::lane_rows(h), bars),
        );
        l.depth = self.views.inspector.picture.depth;
        if let Some(ticks) = &self.jobs.lanes.ticks {
            l.set_ticks(ticks);
        }
        self.views.timeline.lanes = Some(l);
        self.request_thumbnails();
    }

    /// Starts reading the ERROR/FATAL ticks of the log topics, once.
    fn start_error_ticks(&mut self) {
        if self.jobs.lanes.ticks.is_some() {
            return;
        }
        let topics = log_topics(&self.catalog).topics;
        let mut ticks = ErrorTicks {
            topics: topics.clone(),
            ..ErrorTicks::default()
        };
        if topics.is_empty() {
            ticks.done = true;
        } else if let Some(notify) = self.jobs.lanes.tick_notify.clone() {
            match error_ticks::start(
                self.catalog.clone(),
                topics,
                self.settings.registry.clone(),
                notify,
            ) {
                Ok(job) => self.jobs.lanes.tick_job = Some(job),
                Err(e) => self.flash(format!("cannot read the log's errors: {e}"), true),
            }
        } else {
            ticks.add(error_ticks::read_all(
                &self.catalog,
                &topics,
                &self.settings.registry,
            ));
            ticks.done = true;
        }
        self.jobs.lanes.ticks = Some(ticks);
    }

    /// Ticks read in the background: put on the lanes shown.
    pub(crate) fn tick_news(&mut self, news: TickNews) -> bool {
        let Some(ticks) = &mut self.jobs.lanes.ticks else {
            return false;
        };
        let any = !news.ticks.is_empty();
        ticks.add(news.ticks);
        if news.done {
            ticks.done = true;
            self.jobs.lanes.tick_job = None;
        }
        match (&mut self.views.timeline.lanes, &self.jobs.lanes.ticks) {
            (Some(l), Some(ticks)) if any => {
                l.set_ticks(ticks);
                true
            }
            _ => false,
        }
    }

    /// Asks for the frames of the lanes' slots, unless the same slots were asked for last;
    /// at most [`IN_FLIGHT_BYTES`] of frames per request (the other slots are skipped).
    fn request_thumbnails(&mut self) {
        let Some(l) = self.views.timeline.lanes.as_mut() else {
            return;
        };
        let mut budget = IN_FLIGHT_BYTES;
        let mut asks = Vec::new();
        for lane in &mut l.lanes {
            if lane.slots.is_empty() {
                continue;
            }
            let fit = thumbs::fit(lane.rows.saturating_sub(1));
            let each = thumbs::frame_bytes(fit);
            let mut slots = Vec::new();
            for (i, slot) in lane.slots.iter_mut().enumerate() {
                if let Some(left) = budget.checked_sub(each) {
                    budget = left;
                    slots.push((i, slot.span));
                } else {
                    slot.shown = Shown::Skipped;
                }
            }
            asks.push(LaneAsk {
                topic: lane.topic.clone(),
                connections: lane.connections.clone(),
                fit,
                slots,
            });
        }
        if asks == self.jobs.lanes.asked {
            return;
        }
        self.jobs.lanes.asked.clone_from(&asks);
        let generation = self.jobs.lanes.generation.fetch_add(1, Ordering::Relaxed) + 1;
        if asks.is_empty() {
            return;
        }
        let request = ThumbRequest {
            generation,
            catalog: self.catalog.clone(),
            lanes: asks,
        };
        // A thread that ended (its work panicked) is started again rather than asked in vain.
        if !self
            .jobs
            .lanes
            .thumbnailer
            .as_ref()
            .is_some_and(Job::is_running)
        {
            if let Some(notify) = self.jobs.lanes.thumb_notify.clone() {
                let current = Arc::clone(&self.jobs.lanes.generation);
                match thumbnailer::start(self.settings.registry.clone(), current, notify) {
                    Ok(t) => self.jobs.lanes.thumbnailer = Some(t),
                    Err(e) => self.flash(format!("cannot start a thread: {e}"), true),
                }
            }
        }
        if let Some(t) = &self.jobs.lanes.thumbnailer {
            t.request(request);
            return;
        }
        let registry = self.settings.registry.clone();
        let frames = self
            .jobs
            .lanes
            .inline
            .get_or_insert_with(|| Frames::new(registry));
        let mut done = Vec::new();
        frames.serve(
            &request,
            || false,
            |n| {
                done.push(n);
                true
            },
        );
        for news in done {
            self.thumb_news(news);
        }
    }

    /// A slot's frame from the thumbnail thread (dropped when a newer request was made).
    pub(crate) fn thumb_news(&mut self, news: ThumbNews) -> bool {
        let ThumbNews::Slot {
            generation,
            topic,
            slot,
            shown,
        } = news
        else {
            return false;
        };
        if generation != self.jobs.lanes.generation.load(Ordering::Relaxed) {
            return false;
        }
        let Some(s) = self
            .views
            .timeline
            .lanes
            .as_mut()
            .and_then(|l| l.lanes.iter_mut().find(|l| l.topic == topic))
            .and_then(|l| l.slots.get_mut(slot))
        else {
            return false;
        };
        if s.shown == shown {
            return false;
        }
        s.shown = shown;
        true
    }
}
