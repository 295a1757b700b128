//! The content search of the explorer (`f`): the expression being typed and its error, the
//! matches and stretches found so far by the background search, which stretch `n` / `N` go
//! to, and what the status bar says.
//!
//! A stretch is a maximal run of consecutive matching messages of one topic
//! ([`crate::catalog::search::Stretch`]); a match alone is a stretch of one message. `n` / `N`
//! go from the start of one stretch to the next.

use crate::catalog::BagConn;
use crate::catalog::search::{Match, SearchStats, Stretch};
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
    /// The stretches so far, sorted by [`Stretch::order`] (those still open arrive with the
    /// last update).
    pub stretches: Vec<Stretch>,
    /// For each stretch, the latest end among it and those before it (to find the stretches
    /// over a time quickly).
    reach: Vec<RosTime>,
    /// The same, counting only the stretches of more than one message (the bars).
    long_reach: Vec<RosTime>,
    /// The stretch `n` / `N` went to last.
    pub current: Option<usize>,
    /// The error of the expression in the prompt, shown under it.
    pub prompt_error: Option<PromptError>,
    /// True when the search was stopped (`Esc`) before the end.
    pub stopped: bool,
    /// True when more than [`MAX_MATCHES`] matched: the later ones are not kept.
    pub capped: bool,
}

/// Where `n` / `N` go: the stretch's index, and whether the search wrapped around an end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Step {
    /// Index into [`Search::stretches`].
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

    /// Adds a batch of matches (each batch sorted; batches may overlap in time) and of
    /// stretches (sorted; one may start before those of earlier batches).
    pub fn add(
        &mut self,
        (matches, stretches): (&[Match], &[Stretch]),
        fraction: f64,
        stats: SearchStats,
        done: bool,
    ) {
        self.add_stretches(stretches);
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

    /// Adds stretches, keeping them sorted, and the reaches in step.
    fn add_stretches(&mut self, stretches: &[Stretch]) {
        if stretches.is_empty() {
            return;
        }
        let room = MAX_MATCHES.saturating_sub(self.stretches.len());
        let new = stretches
            .get(..room.min(stretches.len()))
            .unwrap_or_default();
        let sorted = match (self.stretches.last(), new.first()) {
            (Some(last), Some(first)) => Stretch::order(last, first).is_le(),
            _ => true,
        };
        self.stretches.extend_from_slice(new);
        if !sorted {
            self.stretches.sort_by(Stretch::order);
        }
        self.reach.clear();
        self.long_reach.clear();
        let (mut reach, mut long) = (RosTime::MIN, RosTime::MIN);
        for s in &self.stretches {
            reach = reach.max(s.end);
            if s.count > 1 {
                long = long.max(s.end);
            }
            self.reach.push(reach);
            self.long_reach.push(long);
        }
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

    /// True when every stretch is a single message (they are then called matches).
    fn singles(&self) -> bool {
        self.stretches.iter().all(|s| s.count == 1)
    }

    /// The stretch starting at the time cursor `cursor`: the one `n` / `N` went to when it
    /// still starts there, else the first starting there.
    pub fn at(&self, cursor: RosTime) -> Option<usize> {
        if let Some(i) = self.current
            && self.stretches.get(i).is_some_and(|s| s.start == cursor)
        {
            return Some(i);
        }
        let i = self.stretches.partition_point(|s| s.start < cursor);
        self.stretches
            .get(i)
            .is_some_and(|s| s.start == cursor)
            .then_some(i)
    }

    /// The stretch the time cursor is in: the one `n` / `N` went to when the cursor is still
    /// in it, else the latest starting one that holds it.
    pub fn containing(&self, cursor: RosTime) -> Option<usize> {
        let holds = |s: &Stretch| s.start <= cursor && cursor <= s.end;
        if let Some(i) = self.current
            && self.stretches.get(i).is_some_and(holds)
        {
            return Some(i);
        }
        let upto = self.stretches.partition_point(|s| s.start <= cursor);
        (0..upto)
            .rev()
            .take_while(|&j| self.reach.get(j).is_some_and(|&r| r >= cursor))
            .find(|&j| self.stretches.get(j).is_some_and(holds))
    }

    /// The stretch after the cursor (the next one starting at the same time when the cursor
    /// is on a stretch's start), wrapping to the first after the last.
    pub fn next(&self, cursor: RosTime) -> Option<Step> {
        if self.stretches.is_empty() {
            return None;
        }
        let i = match self.at(cursor) {
            Some(i) => i + 1,
            None => self.stretches.partition_point(|s| s.start <= cursor),
        };
        Some(if i < self.stretches.len() {
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

    /// The stretch before the cursor (the previous one starting at the same time when the
    /// cursor is on a stretch's start), wrapping to the last before the first.
    pub fn prev(&self, cursor: RosTime) -> Option<Step> {
        let last = self.stretches.len().checked_sub(1)?;
        let i = match self.at(cursor) {
            Some(i) => i.checked_sub(1),
            None => self
                .stretches
                .partition_point(|s| s.start < cursor)
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

    /// What `n` / `N` go between, for messages: "match" when every stretch is one message,
    /// else "stretch".
    pub fn unit(&self) -> &'static str {
        if self.singles() { "match" } else { "stretch" }
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

    /// The stretches of more than one message (on one of `conns`, when given) that overlap
    /// `[from, to]`, in the order they are listed: what the bars are drawn from.
    pub fn long_stretches_over(
        &self,
        (from, to): (RosTime, RosTime),
        conns: Option<&[BagConn]>,
    ) -> impl Iterator<Item = &Stretch> {
        // The first stretch whose reach gets to `from`; none before it ends at or after it.
        let first = self.long_reach.partition_point(|&r| r < from);
        let end = self.stretches.partition_point(|s| s.start <= to);
        self.stretches
            .get(first..end.max(first))
            .unwrap_or_default()
            .iter()
            .filter(move |s| {
                s.count > 1 && s.end >= from && conns.is_none_or(|c| c.contains(&s.conn))
            })
    }

    /// The status bar's part: `f: 12 stretches, 41.3 s in total (230 matches)`,
    /// `f: stretch 3/12, 2.1 s (41 matches)` while the cursor is in one (`f: stretch 4/12`
    /// for one of a single message); when every stretch is
    /// one message, `f: 42 matches`, `f: 3/42`; `f: 12… 40%` while it runs, `f: no match`.
    pub fn status(&self, cursor: RosTime) -> Option<String> {
        if !self.is_active() {
            return None;
        }
        if self.failed.is_some() {
            return Some("f: failed".into());
        }
        let n = self.matches.len();
        let k = self.stretches.len();
        let here = if self.singles() {
            self.at(cursor).map(|i| format!("{}/{k}", i + 1))
        } else {
            self.containing(cursor).and_then(|i| {
                let s = self.stretches.get(i)?;
                let matches = plural(s.count, "match", "matches");
                Some(if s.count == 1 {
                    format!("stretch {}/{k}", i + 1)
                } else {
                    format!("stretch {}/{k}, {} ({matches})", i + 1, seconds(s.nanos()))
                })
            })
        };
        let count = match here {
            Some(here) => here,
            None if self.capped => format!("{n}+ matches (first {n} kept)"),
            None if !self.done => n.to_string(),
            None if n == 0 => "no match".into(),
            None if self.singles() => plural(n as u64, "match", "matches"),
            None => {
                let total: i128 = self.stretches.iter().map(Stretch::nanos).sum();
                format!(
                    "{}, {} in total ({})",
                    plural(k as u64, "stretch", "stretches"),
                    seconds(total),
                    plural(n as u64, "match", "matches")
                )
            }
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

/// `1 match`, `2 matches`.
fn plural(n: u64, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}

/// A duration of `nanos` for the status bar: `41.3 s`, `2.1 s`, `40.0 ms` below 0.1 s.
fn seconds(nanos: i128) -> String {
    #[allow(clippy::cast_precision_loss)]
    let s = nanos as f64 / 1e9;
    if s >= 0.1 {
        format!("{s:.1} s")
    } else {
        format!("{:.1} ms", s * 1e3)
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

    /// A stretch of one message.
    fn one(m: Match) -> Stretch {
        Stretch {
            start: m.time,
            end: m.time,
            count: 1,
            conn: m.conn,
            topic: format!("/t{}", m.conn.conn).into(),
        }
    }

    /// A finished search whose matches are all single-message stretches.
    fn search(times: &[(u32, u32)]) -> Search {
        let mut s = Search::default();
        s.start(1, "x > 1", "/t".into());
        let ms: Vec<Match> = times.iter().map(|&(t, c)| m(t, c)).collect();
        let mut st: Vec<Stretch> = ms.iter().copied().map(one).collect();
        st.sort_by(Stretch::order);
        s.add((&ms, &st), 1.0, SearchStats::default(), true);
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
        s.add(
            (&[m(10, 0), m(30, 0)], &[one(m(10, 0))]),
            0.5,
            SearchStats::default(),
            false,
        );
        assert_eq!(s.status(t(0)).as_deref(), Some("f: 2… 50%"));
        s.add(
            (&[m(20, 1)], &[one(m(20, 1)), one(m(30, 0))]),
            1.0,
            SearchStats::default(),
            true,
        );
        assert!(
            s.stretches
                .is_sorted_by(|a, b| Stretch::order(a, b).is_le())
        );
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
        s.add((&[m(10, 0)], &[]), 0.25, SearchStats::default(), false);
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

    /// A stretch of `count` messages of connection `conn` from `a` to `b` seconds.
    fn run(a: u32, b: u32, count: u64, conn: u32) -> Stretch {
        Stretch {
            start: t(a),
            end: t(b),
            count,
            conn: BagConn::new(0, conn),
            topic: format!("/t{conn}").into(),
        }
    }

    fn stretched() -> Search {
        let mut s = Search::default();
        s.start(1, "x > 1", "/t".into());
        // /t0: 10..=20 (3 messages), 50 alone; /t1: 15..=40 (4), arriving late.
        let ms = [
            m(10, 0),
            m(15, 1),
            m(15, 0),
            m(20, 0),
            m(25, 1),
            m(30, 1),
            m(40, 1),
            m(50, 0),
        ];
        s.add(
            (&ms[..4], &[run(10, 20, 3, 0)]),
            0.5,
            SearchStats::default(),
            false,
        );
        s.add(
            (&ms[4..], &[run(15, 40, 4, 1), run(50, 50, 1, 0)]),
            1.0,
            SearchStats::default(),
            true,
        );
        s
    }

    #[test]
    fn stretches_are_counted_timed_and_named_where_the_cursor_is() {
        let s = stretched();
        let starts: Vec<u32> = s.stretches.iter().map(|x| x.start.sec).collect();
        assert_eq!(starts, [10, 15, 50]);
        assert_eq!(
            s.status(t(5)).as_deref(),
            Some("f: 3 stretches, 35.0 s in total (8 matches)")
        );
        assert_eq!(
            s.status(t(12)).as_deref(),
            Some("f: stretch 1/3, 10.0 s (3 matches)")
        );
        // In two stretches: the latest started.
        assert_eq!(s.containing(t(18)), Some(1));
        assert_eq!(
            s.status(t(35)).as_deref(),
            Some("f: stretch 2/3, 25.0 s (4 matches)")
        );
        assert_eq!(s.status(t(50)).as_deref(), Some("f: stretch 3/3"));
        assert_eq!(s.containing(t(45)), None);
        // The one `n` went to wins while the cursor is in it.
        let mut s = s;
        s.current = Some(0);
        assert_eq!(s.containing(t(18)), Some(0));
        assert_eq!(s.unit(), "stretch");
        let mut one = Search::default();
        one.start(1, "x", "/t".into());
        one.add(
            (&[m(1, 0), m(3, 0)], &[run(1, 3, 2, 0)]),
            1.0,
            SearchStats::default(),
            true,
        );
        assert_eq!(
            one.status(t(9)).as_deref(),
            Some("f: 1 stretch, 2.0 s in total (2 matches)")
        );
        assert_eq!(seconds(40_000_000), "40.0 ms");
    }

    #[test]
    fn next_and_prev_go_from_stretch_start_to_stretch_start() {
        let s = stretched();
        let step = |index, wrapped| Some(Step { index, wrapped });
        assert_eq!(s.next(t(0)), step(0, false));
        assert_eq!(s.next(t(10)), step(1, false));
        assert_eq!(s.next(t(12)), step(1, false));
        assert_eq!(s.next(t(20)), step(2, false));
        assert_eq!(s.next(t(50)), step(0, true));
        assert_eq!(s.prev(t(50)), step(1, false));
        assert_eq!(s.prev(t(30)), step(1, false));
        assert_eq!(s.prev(t(10)), step(2, true));
    }

    #[test]
    fn the_bars_are_the_long_stretches_over_a_window() {
        let s = stretched();
        let over = |a, b, conns: Option<&[BagConn]>| -> Vec<u32> {
            s.long_stretches_over((t(a), t(b)), conns)
                .map(|x| x.start.sec)
                .collect()
        };
        assert_eq!(over(0, 100, None), [10, 15]);
        assert_eq!(over(21, 100, None), [15]);
        assert_eq!(over(41, 100, None), Vec::<u32>::new(), "50 is one message");
        assert_eq!(over(0, 12, None), [10]);
        assert_eq!(over(0, 100, Some(&[BagConn::new(0, 1)])), [15]);
    }
}
