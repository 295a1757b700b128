//! The content search of the explorer (`f`): the expression being typed and its error, the
//! matches found so far by the background search, and which match `n` / `N` go to.

use crate::catalog::BagConn;
use crate::catalog::search::{Match, SearchStats};
use crate::time::RosTime;

/// The most matches kept (24 bytes each); beyond, they are counted, not kept.
pub const MAX_MATCHES: usize = 2_000_000;

/// A wrong expression, as shown under the prompt.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PromptError {
    /// 1-based column (in characters) of the expression the error points at.
    pub column: usize,
    /// What is wrong (with the topic and type it was checked against).
    pub message: String,
}

/// The latest search and its matches.
#[derive(Clone, Debug, Default)]
pub struct Search {
    /// The expression searched (empty: no search yet).
    pub expr: String,
    /// What was searched: a topic, or `N topics`.
    pub scope: String,
    /// The id of the running search (news of older ones are dropped).
    pub id: u64,
    /// The matches so far, in time order.
    pub matches: Vec<Match>,
    /// Fraction of the searched messages read, 0..=1.
    pub fraction: f64,
    /// The counts so far.
    pub stats: SearchStats,
    /// True when the search finished (or failed).
    pub done: bool,
    /// Why the search failed, when it did.
    pub failed: Option<String>,
    /// The match `n` / `N` went to last.
    pub current: Option<usize>,
    /// The error of the expression in the prompt, shown under it.
    pub prompt_error: Option<PromptError>,
    /// True when the search was stopped (`Esc`) before the end.
    pub stopped: bool,
    /// True when more than [`MAX_MATCHES`] matched: the later ones are not kept.
    pub capped: bool,
}

/// Where `n` / `N` go: the match's index, and whether the search wrapped around an end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Step {
    /// Index into [`Search::matches`].
    pub index: usize,
    /// True when it went past the last (first) match back to the first (last).
    pub wrapped: bool,
}

impl Search {
    /// True once a search was started.
    pub fn is_active(&self) -> bool {
        !self.expr.is_empty()
    }

    /// Starts a new search `id` of `expr` over `scope`, forgetting the previous matches.
    pub fn start(&mut self, id: u64, expr: &str, scope: String) {
        *self = Search {
            expr: expr.to_string(),
            scope,
            id,
            ..Search::default()
        };
    }

    /// Adds a batch of matches (each batch sorted; batches may overlap in time).
    pub fn add(&mut self, matches: &[Match], fraction: f64, stats: SearchStats, done: bool) {
        let sorted = match (self.matches.last(), matches.first()) {
            (Some(last), Some(first)) => last <= first,
            _ => true,
        };
        let room = MAX_MATCHES.saturating_sub(self.matches.len());
        self.capped |= matches.len() > room;
        self.matches
            .extend_from_slice(matches.get(..room.min(matches.len())).unwrap_or_default());
        if !sorted {
            self.matches.sort_unstable();
        }
        self.fraction = fraction.clamp(0.0, 1.0);
        self.stats = stats;
        self.done = done;
    }

    /// The search was stopped before the end: what was found stays.
    pub fn stop(&mut self) {
        if !self.done {
            self.stopped = true;
            self.done = true;
        }
    }

    /// The search failed.
    pub fn fail(&mut self, why: String) {
        self.failed = Some(why);
        self.done = true;
    }

    /// The match at the time cursor `cursor`: the one `n` / `N` went to when it is still
    /// there, else the first at that time.
    pub fn at(&self, cursor: RosTime) -> Option<usize> {
        if let Some(i) = self.current
            && self.matches.get(i).is_some_and(|m| m.time == cursor)
        {
            return Some(i);
        }
        let i = self.matches.partition_point(|m| m.time < cursor);
        self.matches
            .get(i)
            .is_some_and(|m| m.time == cursor)
            .then_some(i)
    }

    /// The match after the cursor (the next one at the same time when the cursor is on a
    /// match), wrapping to the first after the last.
    pub fn next(&self, cursor: RosTime) -> Option<Step> {
        if self.matches.is_empty() {
            return None;
        }
        let i = match self.at(cursor) {
            Some(i) => i + 1,
            None => self.matches.partition_point(|m| m.time <= cursor),
        };
        Some(if i < self.matches.len() {
            Step {
                index: i,
                wrapped: false,
            }
        } else {
            Step {
                index: 0,
                wrapped: true,
            }
        })
    }

    /// The match before the cursor (the previous one at the same time when the cursor is on
    /// a match), wrapping to the last before the first.
    pub fn prev(&self, cursor: RosTime) -> Option<Step> {
        let last = self.matches.len().checked_sub(1)?;
        let i = match self.at(cursor) {
            Some(i) => i.checked_sub(1),
            None => self
                .matches
                .partition_point(|m| m.time < cursor)
                .checked_sub(1),
        };
        Some(match i {
            Some(index) => Step {
                index,
                wrapped: false,
            },
            None => Step {
                index: last,
                wrapped: true,
            },
        })
    }

    /// True when a match falls in `[from, to)`.
    pub fn any_in(&self, from: RosTime, to: RosTime) -> bool {
        let i = self.matches.partition_point(|m| m.time < from);
        self.matches.get(i).is_some_and(|m| m.time < to)
    }

    /// True when a match on one of `conns` falls in `from..to` (a lane's marks).
    pub fn any_of_in(&self, from: RosTime, to: RosTime, conns: &[BagConn]) -> bool {
        let i = self.matches.partition_point(|m| m.time < from);
        self.matches
            .get(i..)
            .unwrap_or_default()
            .iter()
            .take_while(|m| m.time < to)
            .any(|m| conns.contains(&m.conn))
    }

    /// The status bar's part: `f: 42 matches`, `f: 3/42`, `f: 12… 40%`, `f: no match`.
    pub fn status(&self, cursor: RosTime) -> Option<String> {
        if !self.is_active() {
            return None;
        }
        if self.failed.is_some() {
            return Some("f: failed".into());
        }
        let n = self.matches.len();
        let count = match (self.at(cursor), n) {
            (Some(i), _) => format!("{}/{n}", i + 1),
            (None, _) if self.capped => format!("{n}+ matches (first {n} kept)"),
            (None, 0) if self.done => "no match".into(),
            (None, 1) if self.done => "1 match".into(),
            (None, _) if self.done => format!("{n} matches"),
            (None, _) => n.to_string(),
        };
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let percent = (self.fraction * 100.0).floor() as u32;
        if self.stopped {
            Some(format!("f: {count} (stopped at {percent}%)"))
        } else if self.done {
            Some(format!("f: {count}"))
        } else {
            Some(format!("f: {count}… {percent}%"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::BagConn;

    fn m(s: u32, conn: u32) -> Match {
        Match {
            time: RosTime::new(s, 0),
            conn: BagConn::new(0, conn),
        }
    }

    fn search(times: &[(u32, u32)]) -> Search {
        let mut s = Search::default();
        s.start(1, "x > 1", "/t".into());
        let ms: Vec<Match> = times.iter().map(|&(t, c)| m(t, c)).collect();
        s.add(&ms, 1.0, SearchStats::default(), true);
        s
    }

    fn t(s: u32) -> RosTime {
        RosTime::new(s, 0)
    }

    #[test]
    fn next_and_prev_between_matches_and_wrapping() {
        let s = search(&[(10, 0), (20, 0), (30, 0)]);
        let step = |index, wrapped| Some(Step { index, wrapped });
        assert_eq!(s.next(t(5)), step(0, false));
        assert_eq!(s.next(t(10)), step(1, false));
        assert_eq!(s.next(t(15)), step(1, false));
        assert_eq!(s.next(t(30)), step(0, true));
        assert_eq!(s.next(t(99)), step(0, true));
        assert_eq!(s.prev(t(25)), step(1, false));
        assert_eq!(s.prev(t(20)), step(0, false));
        assert_eq!(s.prev(t(10)), step(2, true));
        assert_eq!(s.prev(t(1)), step(2, true));
        assert_eq!(Search::default().next(t(1)), None);
        assert_eq!(Search::default().prev(t(1)), None);
    }

    #[test]
    fn matches_at_the_same_time_are_visited_one_by_one() {
        let mut s = search(&[(10, 0), (10, 1), (20, 0)]);
        let first = s.next(t(0)).unwrap();
        assert_eq!(first.index, 0);
        s.current = Some(first.index);
        let second = s.next(t(10)).unwrap();
        assert_eq!(second.index, 1);
        s.current = Some(second.index);
        assert_eq!(s.at(t(10)), Some(1));
        assert_eq!(s.prev(t(10)).map(|x| x.index), Some(0));
        assert_eq!(s.next(t(10)).map(|x| x.index), Some(2));
        // The cursor moved elsewhere: the remembered match no longer counts.
        assert_eq!(s.at(t(11)), None);
    }

    #[test]
    fn overlapping_batches_stay_sorted() {
        let mut s = Search::default();
        s.start(1, "x", "/t".into());
        s.add(&[m(10, 0), m(30, 0)], 0.5, SearchStats::default(), false);
        assert_eq!(s.status(t(0)).as_deref(), Some("f: 2… 50%"));
        s.add(&[m(20, 1)], 1.0, SearchStats::default(), true);
        let times: Vec<u32> = s.matches.iter().map(|m| m.time.sec).collect();
        assert_eq!(times, [10, 20, 30]);
        assert!(s.any_in(t(15), t(21)));
        assert!(!s.any_in(t(21), t(30)));
        let on = |c: u32| [BagConn::new(0, c)];
        assert!(s.any_of_in(t(15), t(21), &on(1)));
        assert!(
            !s.any_of_in(t(15), t(21), &on(2)),
            "a match of another connection"
        );
        assert!(!s.any_of_in(t(21), t(30), &on(1)), "the end is excluded");
        assert_eq!(s.status(t(0)).as_deref(), Some("f: 3 matches"));
        assert_eq!(s.status(t(20)).as_deref(), Some("f: 2/3"));
    }

    #[test]
    fn status_without_matches_or_search() {
        assert_eq!(Search::default().status(t(0)), None);
        let s = search(&[]);
        assert_eq!(s.status(t(0)).as_deref(), Some("f: no match"));
        let one = search(&[(5, 0)]);
        assert_eq!(one.status(t(0)).as_deref(), Some("f: 1 match"));
    }

    #[test]
    fn a_stopped_search_says_so() {
        let mut s = Search::default();
        s.start(1, "x", "/t".into());
        s.add(&[m(10, 0)], 0.25, SearchStats::default(), false);
        s.stop();
        assert!(s.done);
        assert_eq!(
            s.status(t(0)).as_deref(),
            Some("f: 1 match (stopped at 25%)")
        );
        // Stopping a finished search changes nothing.
        let mut done = search(&[(5, 0)]);
        done.stop();
        assert!(!done.stopped);
    }
}
