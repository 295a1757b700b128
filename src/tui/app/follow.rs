//! Following a growing bag (`F`, on by default for a `.active` file): the follow thread's
//! snapshots replace the bag in the catalog, the topic counts, rates, histogram and lanes
//! are recomputed from them, and a cursor at the end of the time axis stays at the end (the
//! newest message of the selected topic selected), like `tail -f`.

use std::sync::Arc;
use std::time::Duration;

use super::App;
use crate::catalog::Catalog;
use crate::catalog::time_index::BagTimes;
use crate::time::RosTime;
use crate::tui::jobs::gate::Gate;
use crate::tui::jobs::live::{self, LiveJob, LiveNews, LiveStatus};
use crate::tui::jobs::notify::Notify;
use crate::tui::jobs::worker::{Reply, Worker};
use crate::tui::model::topics::TopicRow;

/// The follow state of the app.
#[derive(Default)]
pub struct FollowState {
    job: Option<LiveJob>,
    /// Where the follow thread reports (set by the event loop).
    notify: Option<Notify<LiveNews>>,
    /// Where a worker over a new snapshot replies (set by the event loop).
    replies: Option<Notify<Reply>>,
    /// The latest status of the followed recording.
    status: Option<LiveStatus>,
    /// The followed recording was finished by its writer.
    finished: bool,
    /// A snapshot came since the health report was last asked for.
    health_stale: bool,
    next_id: u64,
}

impl std::fmt::Debug for FollowState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FollowState")
            .field("job", &self.job)
            .field("status", &self.status)
            .field("finished", &self.finished)
            .finish_non_exhaustive()
    }
}

impl FollowState {
    /// True while a recording is followed.
    pub fn is_following(&self) -> bool {
        self.job.is_some()
    }

    /// The latest status of the followed recording.
    pub fn status(&self) -> Option<&LiveStatus> {
        self.status.as_ref()
    }

    /// The status bar mark: `● live` and how far behind the writer the reader is, or that
    /// the recording finished; `None` when nothing is followed.
    pub fn mark(&self) -> Option<String> {
        if self.job.is_none() {
            return self.finished.then(|| "■ recording finished".to_string());
        }
        Some(match &self.status {
            Some(LiveStatus {
                stalled: Some(stall),
                ..
            }) => format!("■ {stall}"),
            Some(LiveStatus {
                unwritten: Some(d), ..
            }) => format!(
                "● live · newest {} not yet on disk: the recorder compresses chunks",
                secs(*d)
            ),
            Some(s) if s.behind_bytes > 0 => {
                format!(
                    "● live · {} behind",
                    crate::tui::text::bytes(s.behind_bytes)
                )
            }
            Some(LiveStatus { idle: Some(d), .. }) => format!("● live · idle {}", secs(*d)),
            None | Some(_) => "● live".to_string(),
        })
    }
}

fn secs(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s < 10.0 {
        format!("{s:.1} s")
    } else {
        format!("{s:.0} s")
    }
}

/// The topic rows of `catalog`: counts, and mean rates from the time spans of their chunks.
pub(super) fn topic_rows(catalog: &Catalog) -> Vec<TopicRow> {
    let topics = catalog.topics();
    let spans = catalog.topic_spans(&topics);
    topics
        .into_iter()
        .zip(spans)
        .map(|(t, span)| {
            let span = span.map(|(lo, hi)| hi.nanos_since(lo) as f64 / 1e9);
            let rate = span
                .filter(|s| *s > 0.0 && t.message_count > 1)
                .map(|s| (t.message_count - 1) as f64 / s);
            TopicRow {
                topic: t.topic,
                datatype: t.datatype,
                count: t.message_count,
                rate,
                bytes: None,
                bandwidth: None,
                view_bandwidth: None,
                connections: t.connections,
                bags: t.bags,
                conflicting: t.conflicting_types,
            }
        })
        .collect()
}

impl App {
    /// Where the follow thread and the workers over new snapshots report (the event loop's
    /// channel); then follows at once a bag whose name ends in `.active`.
    pub fn set_follow_notify(&mut self, notify: Notify<LiveNews>, replies: Notify<Reply>) {
        self.follow.notify = Some(notify);
        self.follow.replies = Some(replies);
        self.follow_active();
    }

    /// Follows a bag whose name ends in `.active` (not while it is still being scanned: then
    /// once the scan is done).
    pub(super) fn follow_active(&mut self) {
        if self.scan.is_scanning() || self.follow.job.is_some() {
            return;
        }
        let active = self
            .catalog
            .bags()
            .iter()
            .position(|b| b.path().to_string_lossy().ends_with(".active"));
        if let Some(index) = active {
            self.start_follow(index);
        }
    }

    /// `F`: follows the recording (the `.active` bag, else the first), or stops.
    pub(super) fn toggle_follow(&mut self) {
        if self.scan.is_scanning() {
            self.flash(
                "the bag is still being scanned: F works once the scan is done",
                true,
            );
            return;
        }
        if self.follow.job.take().is_some() {
            self.follow.status = None;
            self.flash("following stopped (F to follow again)", false);
            return;
        }
        let index = self
            .catalog
            .bags()
            .iter()
            .position(|b| b.path().to_string_lossy().ends_with(".active"))
            .unwrap_or(0);
        self.start_follow(index);
    }

    fn start_follow(&mut self, index: usize) {
        let Some(notify) = self.follow.notify.clone() else {
            self.flash("following needs the event loop", true);
            return;
        };
        let Some(bag) = self.catalog.bag(index) else {
            return;
        };
        let path = bag.path().to_path_buf();
        // A scanned recording is followed from where its scan ended, not read again.
        let scanned = bag.recovery().is_some().then(|| bag.clone());
        let id = self.follow.next_id;
        self.follow.next_id += 1;
        match live::start(path.clone(), (id, index), scanned, notify) {
            Ok(job) => {
                self.follow.job = Some(job);
                self.follow.status = None;
                self.follow.finished = false;
                let end = self.timeline.bounds().1;
                self.timeline.set_cursor(end);
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
        if self.follow.job.as_ref().is_none_or(|j| j.id != news.id) {
            return false;
        }
        if let Some(e) = news.error {
            self.follow.job = None;
            self.follow.status = None;
            self.flash(
                crate::printable::escape(&format!("follow stopped: {e}")),
                true,
            );
            return true;
        }
        let finished = news.status.finished;
        self.follow.status = Some(news.status);
        if let Some(bag) = news.snapshot {
            self.swap_bag(news.bag, bag, finished, news.times);
            self.follow.health_stale = !finished;
        }
        self.refresh_live_health();
        if finished {
            self.follow.job = None;
            self.follow.finished = true;
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
        let at_end = self.timeline.cursor() >= self.timeline.bounds().1;
        let cursor = self.timeline.cursor();
        let new = match times {
            Some(t) => self.catalog.with_grown(bags, index, &t),
            None => Catalog::new(bags),
        };
        let old = std::mem::replace(&mut self.catalog, new);
        // Freeing the previous snapshot's chunk list is work proportional to the recording.
        live::drop_elsewhere(old);
        if let Some(replies) = &self.follow.replies {
            let (catalog, registry) = (self.catalog.clone(), self.registry.clone());
            self.worker = if health {
                // The finished bag is indexed: its health scan starts again.
                Worker::start(catalog, registry, replies.clone(), Gate::opened())
            } else {
                Worker::start_serving(catalog, registry, replies.clone())
            };
        }
        self.topics.replace_rows(topic_rows(&self.catalog));
        self.keep_health_stats();
        let start = self.catalog.start_time().unwrap_or(RosTime::MIN);
        let end = self.catalog.end_time().unwrap_or(start);
        self.timeline.extend(start, end);
        self.timeline.set_cursor(if at_end { end } else { cursor });
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
        if !self.follow.health_stale || !self.scan_clock.health_due() {
            return;
        }
        let Some(replies) = self.follow.replies.clone() else {
            return;
        };
        self.follow.health_stale = false;
        live::refresh_health(self.catalog.clone(), replies);
    }

    /// The last health report's rates, sizes and bandwidths on the topic rows: when it
    /// arrives, and on the rows rebuilt from a new snapshot (until the next report, a few
    /// seconds later, brings newer ones), so the size columns do not fall back to `…` on
    /// each refresh.
    pub(super) fn keep_health_stats(&mut self) {
        let Some(report) = &self.health.report else {
            return;
        };
        let by_topic: std::collections::HashMap<&str, &crate::catalog::health::TopicHealth> =
            report
                .topics
                .iter()
                .map(|t| (t.topic.as_str(), t))
                .collect();
        self.topics.update_stats(|row| {
            if let Some(t) = by_topic.get(row.topic.as_str()) {
                row.rate = t.rate().or(row.rate);
                row.bytes = Some(t.bytes);
                row.bandwidth = t.bandwidth();
            }
        });
    }
}
