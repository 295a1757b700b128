//! Camera thumbnails on the lanes: where the frames of an image lane go (slots at evenly
//! spaced columns of the visible window, as many as fit without overlapping), what each slot
//! shows, and the cache of decoded frames, bounded in bytes (the least recently used frame is
//! dropped first). UI-agnostic: no ratatui, no threads (the frames are found and decoded by
//! `jobs/thumbnailer.rs`).
//!
//! A slot covers the columns it is drawn on and the times of those columns: it shows the frame
//! nearest the time of its middle column, and only a frame whose time lies inside the slot, so
//! a frame is always drawn at its time (a camera that stopped leaves its slots empty).

use std::collections::HashMap;
use std::sync::Arc;

use crate::catalog::MsgRef;
use crate::picture::{Fit, Raster};
use crate::time::RosTime;

/// Fewest rows of frames an image lane needs to show thumbnails (six pixels high in
/// half-blocks); with its density row the lane is then four rows high.
pub const MIN_ROWS: usize = 3;

/// Most rows of frames an image lane takes (sixteen pixels high).
pub const MAX_ROWS: usize = 8;

/// The fewest frames a lane should show: frames are made smaller (down to [`MIN_ROWS`]) rather
/// than fewer than this.
pub const MIN_SLOTS: usize = 5;

/// Bytes of decoded frames the thumbnail cache keeps (pixels plus a small overhead each).
pub const CACHE_BYTES: usize = 16 << 20;

/// Bytes of frames one request may ask for (what is decoded and on its way to the screen
/// at once); slots beyond it stay empty until the view shrinks.
pub const IN_FLIGHT_BYTES: usize = 4 << 20;

/// What a cached frame costs besides its pixels (the entry, its key, the `Arc`).
const ENTRY_OVERHEAD: usize = 96;

/// What a slot shows.
#[derive(Clone, Debug, PartialEq)]
pub enum Shown {
    /// Asked for, not there yet.
    Loading,
    /// No message of the topic inside the slot's times.
    Empty,
    /// The frame at `time`.
    Frame {
        /// The message's receive time.
        time: RosTime,
        /// Its pixels, downscaled to the slot.
        raster: Arc<Raster>,
    },
    /// The message inside the slot could not be read or drawn (why, in one line).
    Failed(String),
    /// Not asked for: the request would have exceeded [`IN_FLIGHT_BYTES`].
    Skipped,
}

/// One thumbnail place on a lane.
#[derive(Clone, Debug, PartialEq)]
pub struct Slot {
    /// First column (of the lane's time axis).
    pub left: usize,
    /// Columns.
    pub width: usize,
    /// The times of those columns, `from..to`.
    pub span: (RosTime, RosTime),
    /// What it shows.
    pub shown: Shown,
}

impl Slot {
    /// The time the slot looks for a frame at: its middle column's.
    pub fn center(&self) -> RosTime {
        let half = self.span.1.nanos_since(self.span.0) / 2;
        self.span.0.saturating_add_nanos(half)
    }
}

/// Columns of a slot for frames `rows` rows high: a 4:3 frame in half-blocks (a cell is one
/// pixel across and two down).
pub fn slot_width(rows: usize) -> usize {
    (rows * 2 * 4).div_ceil(3)
}

/// The most rows of frames a lane `bars` columns wide takes: the tallest frames of which
/// [`MIN_SLOTS`] still fit (at least [`MIN_ROWS`], at most [`MAX_ROWS`]).
pub fn rows_for(bars: usize) -> usize {
    (MIN_ROWS..=MAX_ROWS)
        .rev()
        .find(|&r| (bars + 1) / (slot_width(r) + 1) >= MIN_SLOTS)
        .unwrap_or(MIN_ROWS)
}

/// The pixels a frame is downscaled to for a slot of `rows` rows.
pub fn fit(rows: usize) -> Fit {
    let w = u32::try_from(slot_width(rows)).unwrap_or(u32::MAX);
    let h = u32::try_from(rows * 2).unwrap_or(u32::MAX);
    Fit::new(w, h)
}

/// Bytes a frame fitted to `fit` takes at most (what is reserved for it in flight).
pub fn frame_bytes(fit: Fit) -> usize {
    let px = u64::from(fit.width) * u64::from(fit.height) * 3;
    usize::try_from(px)
        .unwrap_or(usize::MAX)
        .saturating_add(ENTRY_OVERHEAD)
}

/// The start time of column `col` of `bars` over `window` (as the timeline bins it).
pub fn column_time(window: (RosTime, RosTime), col: usize, bars: usize) -> RosTime {
    let per = window.1.nanos_since(window.0) as f64 / bars.max(1) as f64;
    #[allow(clippy::cast_possible_truncation)]
    window.0.saturating_add_nanos((per * col as f64) as i128)
}

/// The slots of a lane `bars` columns wide over `window` with frames `rows` rows high: as
/// many as fit with a column between them, spread evenly from the first column to the last.
/// None when the lane is too low ([`MIN_ROWS`]) or too narrow for one frame.
pub fn slots(window: (RosTime, RosTime), bars: usize, rows: usize) -> Vec<Slot> {
    let width = slot_width(rows);
    if rows < MIN_ROWS || width == 0 || bars < width {
        return Vec::new();
    }
    let n = (bars + 1) / (width + 1);
    let room = bars - width;
    (0..n)
        .map(|k| {
            let left = if n > 1 { k * room / (n - 1) } else { room / 2 };
            let end = left + width;
            let to = if end >= bars {
                window.1.saturating_add_nanos(1)
            } else {
                column_time(window, end, bars)
            };
            Slot {
                left,
                width,
                span: (column_time(window, left, bars), to),
                shown: Shown::Loading,
            }
        })
        .collect()
}

/// The frame, or why there is none, of one message at one size.
pub type Thumb = Result<Arc<Raster>, String>;

/// A cache key: the message and the size it was fitted to.
type Key = (MsgRef, (u32, u32));

/// Decoded frames by message and size, at most `budget` bytes of them: the least recently
/// used are dropped first. Failures are kept too (a frame that cannot be drawn is tried once).
#[derive(Debug)]
pub struct ThumbCache {
    budget: usize,
    used: usize,
    clock: u64,
    frames: HashMap<Key, (Thumb, u64)>,
}

impl Default for ThumbCache {
    fn default() -> Self {
        ThumbCache::new(CACHE_BYTES)
    }
}

impl ThumbCache {
    /// An empty cache of at most `budget` bytes.
    pub fn new(budget: usize) -> ThumbCache {
        ThumbCache {
            budget,
            used: 0,
            clock: 0,
            frames: HashMap::new(),
        }
    }

    /// The thumbnail of `msg` at `fit`, when cached (it becomes the most recently used).
    pub fn get(&mut self, msg: MsgRef, fit: Fit) -> Option<Thumb> {
        self.clock += 1;
        let clock = self.clock;
        let (thumb, used) = self.frames.get_mut(&(msg, (fit.width, fit.height)))?;
        *used = clock;
        Some(thumb.clone())
    }

    /// Keeps `thumb`, dropping the least recently used ones while over the budget (one larger
    /// than the whole budget is not kept).
    pub fn put(&mut self, msg: MsgRef, fit: Fit, thumb: Thumb) {
        let size = cost(&thumb);
        if size > self.budget {
            return;
        }
        self.clock += 1;
        let key = (msg, (fit.width, fit.height));
        if let Some((old, _)) = self.frames.insert(key, (thumb, self.clock)) {
            self.used = self.used.saturating_sub(cost(&old));
        }
        self.used += size;
        while self.used > self.budget {
            let Some(oldest) = self
                .frames
                .iter()
                .min_by_key(|(_, (_, used))| *used)
                .map(|(k, _)| *k)
            else {
                break;
            };
            if let Some((gone, _)) = self.frames.remove(&oldest) {
                self.used = self.used.saturating_sub(cost(&gone));
            }
        }
    }

    /// Bytes held.
    pub fn used(&self) -> usize {
        self.used
    }

    /// Frames held.
    pub fn len(&self) -> usize {
        self.frames.len()
    }

    /// True when nothing is held.
    pub fn is_empty(&self) -> bool {
        self.frames.is_empty()
    }
}

/// What `thumb` costs in the cache.
fn cost(thumb: &Thumb) -> usize {
    ENTRY_OVERHEAD
        + match thumb {
            Ok(r) => r.rgb.len(),
            Err(e) => e.len(),
        }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bag::IndexEntry;

    fn msg(n: u32) -> MsgRef {
        MsgRef {
            bag: 0,
            entry: IndexEntry {
                time: RosTime::new(n, 0),
                conn: 0,
                chunk: 0,
                offset: u64::from(n),
            },
        }
    }

    #[allow(clippy::unnecessary_wraps)] // A cache entry, as the cache keeps it.
    fn frame(px: usize) -> Thumb {
        let raster = Arc::new(Raster {
            width: u32::try_from(px).unwrap(),
            height: 1,
            rgb: vec![0; px * 3],
        });
        Thumb::Ok(raster)
    }

    #[test]
    fn slots_fit_without_overlap_and_cover_their_times() {
        let window = (RosTime::new(100, 0), RosTime::new(110, 0));
        assert!(slots(window, 80, 2).is_empty(), "too low");
        assert!(slots(window, 5, 3).is_empty(), "too narrow");
        let s = slots(window, 80, 3);
        assert_eq!(slot_width(3), 8);
        assert_eq!(s.len(), 9, "(80 + 1) / 9");
        assert_eq!(s.first().unwrap().left, 0);
        assert_eq!(s.last().unwrap().left + s.last().unwrap().width, 80);
        for w in s.windows(2) {
            assert!(w[0].left + w[0].width < w[1].left, "a column between");
            assert_eq!(w[0].span.1, w[1].span.0.min(w[0].span.1));
            assert!(w[0].span.1 <= w[1].span.0);
        }
        assert_eq!(s[0].span.0, window.0);
        assert!(
            s.last().unwrap().span.1 > window.1,
            "the end is inside the last"
        );
        let one = slots(window, 10, 3);
        assert_eq!(one.len(), 1);
        assert_eq!(one[0].left, 1, "a single slot is centred");
        assert!(one[0].center() > one[0].span.0 && one[0].center() < one[0].span.1);
    }

    #[test]
    fn the_cache_keeps_its_byte_budget_dropping_the_least_recently_used() {
        let fit = Fit::new(8, 6);
        let each = cost(&frame(100));
        let mut cache = ThumbCache::new(3 * each);
        for n in 0..3 {
            cache.put(msg(n), fit, frame(100));
        }
        assert_eq!((cache.len(), cache.used()), (3, 3 * each));
        // Using the first makes the second the oldest.
        assert!(cache.get(msg(0), fit).is_some());
        cache.put(msg(3), fit, frame(100));
        assert_eq!(cache.len(), 3);
        assert!(cache.used() <= 3 * each);
        assert!(
            cache.get(msg(1), fit).is_none(),
            "the least recently used went"
        );
        assert!(cache.get(msg(0), fit).is_some());
        assert!(cache.get(msg(3), fit).is_some());
        // Another size is another frame.
        assert!(cache.get(msg(0), Fit::new(4, 3)).is_none());
        // Failures are kept (and cost little); a frame larger than the budget is not.
        cache.put(msg(9), fit, Err("bad".into()));
        assert_eq!(cache.get(msg(9), fit), Some(Err("bad".into())));
        cache.put(msg(10), fit, frame(10_000));
        assert!(cache.get(msg(10), fit).is_none());
        assert!(cache.used() <= 3 * each);
        // Replacing an entry does not count it twice.
        let before = cache.used();
        cache.put(msg(9), fit, Err("bad".into()));
        assert_eq!(cache.used(), before);
    }

    #[test]
    fn frames_shrink_to_keep_five_on_a_lane() {
        assert_eq!(rows_for(64), 4, "five frames of 11 columns");
        assert_eq!(slots(TEN, 64, rows_for(64)).len(), 5);
        assert_eq!(rows_for(300), MAX_ROWS);
        assert_eq!(rows_for(20), MIN_ROWS, "never lower than the least");
    }

    const TEN: (RosTime, RosTime) = (RosTime::new(0, 0), RosTime::new(10, 0));

    #[test]
    fn frame_bytes_bound_a_fitted_frame() {
        let f = fit(3);
        assert_eq!((f.width, f.height), (8, 6));
        assert_eq!(frame_bytes(f), 8 * 6 * 3 + ENTRY_OVERHEAD);
        assert_eq!(cost(&frame(48)), frame_bytes(Fit::new(48, 1)));
    }
}
