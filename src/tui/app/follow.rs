//! Following a growing bag (`F`, on by default for a `.active` file and an MCAP file being
//! written): the follow thread's
//! snapshots replace the bag in the catalog, the topic counts, rates, histogram and lanes
//! are recomputed from them, and a cursor at the end of the time axis stays at the end (the
//! newest message of the selected topic selected), like `tail -f`.

use crate::tui::model::topic_row::topic_rows;
use std::sync::Arc;

use super::App;
use crate::catalog::Catalog;
use crate::catalog::time_index::BagTimes;
use crate::time::RosTime;
use crate::tui::jobs::gate::Gate;
use crate::tui::jobs::live::{self, LiveNews};
use crate::tui::jobs::notify::Notify;
use crate::tui::jobs::worker::{Reply, Worker};

impl App {
    /// Where the follow thread and the workers over new snapshots report (the event loop's
    /// channel); then follows at once a bag whose name ends in `.active`.
    pub fn set_follow_notify(&mut self, notify: Notify<LiveNews>, replies: Notify<Reply>) {
        self.jobs.follow.notify = Some(notify);
        self.jobs.follow.replies = Some(replies);
        self.follow_active();
    }

    /// Follows a bag whose name ends in `.active`, or an MCAP file a process is writing (its
    /// scan found its end unfinished), not while it is still being scanned: then once the
    /// scan is done.
    pub(super) fn follow_active(&mut self) {
        if self.jobs.scan.is_scanning() || self.jobs.follow.job.is_some() {
            return;
        }
        let active = self.catalog.bags().iter().position(|b| {
            b.path().to_string_lossy().ends_with(".active")
                || (b.mcap().is_some() && b.recovery().is_some_and(|r| r.unfinished.is_some()))
        });
        if let Some(index) = active {
            self.start_follow(index);
        }
    }

    /// `F`: follows the recording (the `.active` bag, else the first read by a scan, else the
    /// first), or stops.
    pub(super) fn toggle_follow(&mut self) {
        if self.jobs.scan.is_scanning() {
            self.flash(
                "the bag is still being scanned: F works once the scan is done",
                true,
            );
            return;
        }
        if self.jobs.follow.job.take().is_some() {
            self.jobs.follow.status = None;
            self.flash("following stopped (F to follow again)", false);
            return;
        }
        // The `.active` bag, else the first read by a scan (a file without its index or
        // summary: the one a recorder is writing, as the last file of a ROS 2 bag
        // directory being recorded), else the first.
        let bags = self.catalog.bags();
        let index = bags
            .iter()
            .position(|b| b.path().to_string_lossy().ends_with(".active"))
            .or_else(|| bags.iter().position(|b| b.recovery().is_some()))
            .unwrap_or(0);
        self.start_follow(index);
    }

    fn start_follow(&mut self, index: usize) {
        let Some(notify) = self.jobs.follow.notify.clone() else {
            self.flash("following needs the event loop", true);
            return;
        };
        let Some(bag) = self.catalog.bag(index) else {
            return;
        };
        let path = bag.path().to_path_buf();
        // A scanned recording is followed from where its scan ended, not read again.
        let scanned = bag.recovery().is_some().then(|| bag.clone());
        let id = self.jobs.follow.next_id;
        self.jobs.follow.next_id += 1;
        match live::start(path.clone(), (id, index), scanned, notify) {
            Ok(job) => {
                self.jobs.follow.job = Some(job);
                self.jobs.follow.status = None;
                self.jobs.follow.finished = false;
                let end = self.views.timeline.timeline.bounds().1;
                self.views.timeline.timeline.set_cursor(end);
                self.cursor_moved();
                let name = path.file_name().map_or_else(
                    || path.display().to_string(),
                    |n| n.to_string_lossy().to_string(),
                );
                self.flash(
                    crate::printable::escape(&format!("following {name} (F to stop)")),
                    false,
                );
            }
            Err(e) => self.flash(format!("cannot follow: {e}"), true),
        }
    }

    /// Applies a report of the follow thread; true when the screen must be redrawn.
    pub(crate) fn live_news(&mut self, news: LiveNews) -> bool {
        if self
            .jobs
            .follow
            .job
            .as_ref()
            .is_none_or(|j| j.id != news.id)
        {
            return false;
        }
        if let Some(e) = news.error {
            self.jobs.follow.job = None;
            self.jobs.follow.status = None;
            self.flash(
                crate::printable::escape(&format!("follow stopped: {e}")),
                true,
            );
            return true;
        }
        let finished = news.status.finished;
        self.jobs.follow.status = Some(news.status);
        if let Some(bag) = news.snapshot {
            self.swap_bag(news.bag, bag, finished, news.times);
            self.jobs.follow.health_stale = !finished;
        }
        self.refresh_live_health();
        if finished {
            self.jobs.follow.job = None;
            self.jobs.follow.finished = true;
            let name = self
                .catalog
                .bag(news.bag)
                .and_then(|b| b.path().file_name())
                .map(|n| n.to_string_lossy().to_string())
                .unwrap_or_default();
            self.flash(
                crate::printable::escape(&format!("recording finished: now showing {name}")),
                false,
            );
        }
        true
    }

    /// Puts `bag` in place of bag `index` and recomputes what depends on the catalog; `health`:
    /// the health report is computed again (a finished bag), else kept; `times`: the bag's
    /// chunks by time, when built already (by the follow thread).
    pub(super) fn swap_bag(
        &mut self,
        index: usize,
        bag: crate::bag::Bag,
        health: bool,
        times: Option<Arc<BagTimes>>,
    ) {
        let mut bags = self.catalog.bags().to_vec();
        let Some(slot) = bags.get_mut(index) else {
            return;
        };
        *slot = bag;
        let at_end =
            self.views.timeline.timeline.cursor() >= self.views.timeline.timeline.bounds().1;
        let cursor = self.views.timeline.timeline.cursor();
        let new = match times {
            Some(t) => self.catalog.with_grown(bags, index, &t),
            None => Catalog::new(bags),
        };
        let old = std::mem::replace(&mut self.catalog, new);
        // Freeing the previous snapshot's chunk list is work proportional to the recording.
        live::drop_elsewhere(old);
        if let Some(replies) = &self.jobs.follow.replies {
            let (catalog, registry) = (self.catalog.clone(), self.settings.registry.clone());
            self.jobs.worker = if health {
                // The finished bag is indexed: its health scan starts again.
                Worker::start(catalog, registry, replies.clone(), Gate::opened())
            } else {
                Worker::start_serving(catalog, registry, replies.clone())
            };
        }
        self.views
            .topics
            .list
            .replace_rows(topic_rows(&self.catalog));
        self.keep_health_stats();
        let start = self.catalog.start_time().unwrap_or(RosTime::MIN);
        let end = self.catalog.end_time().unwrap_or(start);
        self.views.timeline.timeline.extend(start, end);
        self.views
            .timeline
            .timeline
            .set_cursor(if at_end { end } else { cursor });
        if at_end {
            // Sticks to the end: the newest message of the selected topic is selected.
            self.topic_changed();
        } else {
            self.refresh_histogram();
        }
        self.grow_plots();
    }

    /// Recomputes the health report (the health view, the warning count it lists, the
    /// topics' sizes) over the recording so far when a snapshot came since the last one:
    /// one at a time, every few seconds at most, on a thread of its own (its reply is the
    /// health scan's). Called on every report of the follow thread, so that the report
    /// catches up once the recording pauses.
    fn refresh_live_health(&mut self) {
        if !self.jobs.follow.health_stale || !self.jobs.scan_clock.health_due() {
            return;
        }
        let Some(replies) = self.jobs.follow.replies.clone() else {
            return;
        };
        self.jobs.follow.health_stale = false;
        live::refresh_health(self.catalog.clone(), replies);
    }

    /// The last health report's rates, sizes and bandwidths on the topic rows: when it
    /// arrives, and on the rows rebuilt from a new snapshot (until the next report, a few
    /// seconds later, brings newer ones), so the size columns do not fall back to `…` on
    /// each refresh.
    pub(super) fn keep_health_stats(&mut self) {
        let Some(report) = &self.overlays.health.report else {
            return;
        };
        let by_topic: std::collections::HashMap<&str, &crate::catalog::health::TopicHealth> =
            report
                .topics
                .iter()
                .map(|t| (t.topic.as_str(), t))
                .collect();
        self.views.topics.list.update_stats(|row| {
            if let Some(t) = by_topic.get(row.topic.as_str()) {
                row.rate = t.rate().or(row.rate);
                row.bytes = Some(t.bytes);
                row.bandwidth = t.bandwidth();
            }
        });
    }
}
