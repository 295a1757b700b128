//! Scoring and ordering the topic rows for a filter (inline, or on the background thread of
//! `jobs::topic_filter`).
//!
//! Typing a filter over hundreds of thousands of names costs a tenth of a second or more per
//! character (skim's fuzzy score of every name that still matches). From
//! [`BACKGROUND_FROM`] rows on, and when a delivery callback is set, the topic list hands that
//! work to one background thread: the newest job wins, each carries a generation, and the list
//! keeps showing the previous result (marked as filtering) until the current one arrives.

use std::sync::Arc;

use fuzzy_matcher::FuzzyMatcher;
use fuzzy_matcher::skim::SkimMatcherV2;

use super::topic_row::{SortKey, TopicRow, VisibleRow};
use crate::tui::jobs::parallel;

/// Scoring this many names or more is spread over threads.
const PARALLEL_FROM: usize = 20_000;

/// Filtering this many rows or more runs on the background thread (when one is set up).
pub const BACKGROUND_FROM: usize = 20_000;

/// What to compute: the rows shown for `filter` in `sort` order.
pub struct FilterJob {
    /// Generation: only the newest job's result is applied.
    pub generation: u64,
    /// The rows (shared with the list; never changed while a job holds them).
    pub rows: Arc<Vec<TopicRow>>,
    /// The filter text.
    pub filter: String,
    /// The sort order.
    pub sort: SortKey,
    /// Only these rows can match (the filter extends the one of the rows shown).
    pub within: Option<Vec<usize>>,
}

/// A finished job.
#[derive(Debug)]
pub struct Filtered {
    /// The job's generation.
    pub generation: u64,
    /// The filter it was computed for.
    pub filter: String,
    /// The rows to show, in order.
    pub visible: Vec<VisibleRow>,
}

/// Where results go (the app turns them into events for its loop).
pub type Deliver = Arc<dyn Fn(Filtered) + Send + Sync>;

/// The rows of `rows` matching `filter` in `sort` order (with a filter and name order, best
/// matches first); `within`: only these rows can match.
pub fn compute(
    rows: &[TopicRow],
    filter: &str,
    sort: SortKey,
    within: Option<Vec<usize>>,
) -> Vec<VisibleRow> {
    let pattern: Vec<char> = filter.to_lowercase().chars().collect();
    let score = |matcher: &SkimMatcherV2, r: &TopicRow| -> Option<i64> {
        if pattern.is_empty() {
            return Some(0);
        }
        // A cheap subsequence test first: most names fail it for a longer filter.
        let on = |text: &str| -> Option<i64> {
            let mut want = pattern.iter().filter(|c| !c.is_whitespace()).peekable();
            for c in text.chars().flat_map(char::to_lowercase) {
                if want.peek() == Some(&&c) {
                    want.next();
                }
            }
            if want.peek().is_some() {
                return None;
            }
            matcher.fuzzy_match(text, filter)
        };
        // The name first; the type (`Laser` finds a `sensor_msgs/LaserScan` topic) ranks below.
        on(&r.topic).or_else(|| on(&r.datatype).map(|s| s / 2))
    };
    let candidates: Vec<usize> = within.unwrap_or_else(|| (0..rows.len()).collect());
    let score_all = |part: &[usize]| -> Vec<(i64, usize)> {
        let matcher = SkimMatcherV2::default().ignore_case();
        part.iter()
            .filter_map(|&i| Some((score(&matcher, rows.get(i)?)?, i)))
            .collect()
    };
    // Scoring hundreds of thousands of names: on every core.
    let threads = if pattern.is_empty() || candidates.len() < PARALLEL_FROM {
        1
    } else {
        std::thread::available_parallelism().map_or(1, |n| n.get().min(8))
    };
    let mut scored: Vec<(i64, usize)> = if threads > 1 {
        parallel::map_parts(&candidates, threads, score_all)
    } else {
        score_all(&candidates)
    };
    scored.sort_by(|&(sa, a), &(sb, b)| {
        let (Some(ra), Some(rb)) = (rows.get(a), rows.get(b)) else {
            return std::cmp::Ordering::Equal;
        };
        let by_sort = match sort {
            SortKey::Name => std::cmp::Ordering::Equal,
            SortKey::Count => rb.count.cmp(&ra.count),
            SortKey::Rate => rb.rate.unwrap_or(0.0).total_cmp(&ra.rate.unwrap_or(0.0)),
            SortKey::Size => rb.bytes.unwrap_or(0).cmp(&ra.bytes.unwrap_or(0)),
            SortKey::Bandwidth => rb
                .view_bandwidth
                .or(rb.bandwidth)
                .unwrap_or(0.0)
                .total_cmp(&ra.view_bandwidth.or(ra.bandwidth).unwrap_or(0.0)),
        };
        // With a filter and name order, the best matches come first.
        let by_score = if sort == SortKey::Name {
            sb.cmp(&sa)
        } else {
            std::cmp::Ordering::Equal
        };
        // Rows are in name order: their index breaks ties like the name would.
        by_score.then(by_sort).then(a.cmp(&b))
    });
    scored
        .into_iter()
        .map(|(_, row)| VisibleRow { row })
        .collect()
}
