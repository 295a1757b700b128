//! Exploring a bag while its recovery scan runs: the opening thread's partial results
//! replace the bag as a followed recording's snapshots do (same path: counts, histogram,
//! lanes and plots recomputed), the scan's reports keep the status bar's and the health
//! view's progress current, and the finished bag replaces the last partial one.

use super::background::ScanClock;
use std::time::{Duration, Instant};

use super::App;
use crate::tui::jobs::opening::{self, Progress};
use crate::wording::count;

impl App {
    /// Bag `bag` of the catalog is shown as found so far while its scan, started at
    /// `started`, goes on (`done` of `total` bytes walked).
    pub fn start_scan(&mut self, bag: usize, started: Instant, (done, total): (u64, u64)) {
        self.jobs.scan.bag = Some(bag);
        self.jobs.scan.failed = None;
        // The app's first worker computes the health report of the first partial result.
        self.jobs.scan_clock = ScanClock {
            started: Some(started),
            health: Some(Instant::now()),
            health_running: true,
        };
        self.jobs.scan.note(
            crate::bag::RecoveryProgress::Scanning { done, total },
            started.elapsed(),
        );
    }

    /// Applies news of the opening thread once the explorer is shown; true when the screen
    /// must be redrawn.
    pub(crate) fn opening_news(&mut self, news: Progress) -> bool {
        let Some(index) = self.jobs.scan.bag else {
            return false;
        };
        let elapsed = self
            .jobs
            .scan_clock
            .started
            .map_or(Duration::ZERO, |s| s.elapsed());
        match news {
            Progress::Recovery(p) => self.jobs.scan.note(p, elapsed),
            Progress::Partial(p) => {
                let Some(bag) = p.bags.into_iter().nth(index) else {
                    return false;
                };
                let health = self.jobs.scan_clock.health_due();
                self.swap_bag(index, bag, health, None);
                let now = crate::bag::RecoveryProgress::Scanning {
                    done: p.done,
                    total: p.total,
                };
                self.jobs.scan.note(now, elapsed);
                true
            }
            Progress::Scanned(result) => {
                self.jobs.scan.bag = None;
                match *result {
                    Ok(bag) => {
                        let lost = bag.recovery().map_or(0, |r| r.losses.len());
                        let chunks = bag.chunks().len();
                        self.swap_bag(index, bag, true, None);
                        // The chunks by time, as after opening (off this thread): later
                        // zooms' histogram and lanes then cost O(bins · log chunks).
                        opening::index_by_time(self.catalog.clone());
                        let text = if lost == 0 {
                            format!(
                                "scan finished: {}, nothing lost",
                                count(chunks as u64, "chunk")
                            )
                        } else {
                            format!(
                                "scan finished: {}, {} (! health)",
                                count(chunks as u64, "chunk"),
                                count(lost as u64, "damaged part")
                            )
                        };
                        self.flash(text, lost > 0);
                    }
                    Err(e) => {
                        let what = crate::printable::escape(&e.what()).into_owned();
                        self.flash(
                            crate::printable::escape(&format!("scan stopped: {e}")),
                            true,
                        );
                        self.jobs.scan.failed = Some(what);
                    }
                }
                // A `.active` recording is followed once its scan is done.
                self.follow_active();
                self.rebuild_health();
                true
            }
            Progress::Bag(_) | Progress::Preparing(_) => false,
        }
    }
}
