//! Lanes: the timeline mode with one row per shown topic, each row the message density of its
//! topic over the visible window (scaled per lane, so a topic that stops, thins out or bursts
//! shows at a glance whatever its rate). Built from the histogram's data source (chunk infos,
//! exact once the index scan has loaded the index data), only for the lanes on screen.
//!
//! A camera topic's lane grows below its density row to show thumbnails ([`thumbs`]) when
//! there is room: rows left once every shown topic has its lane go to the image lanes (the
//! selected one first), and a selected image lane makes room for its frames by showing fewer
//! lanes ([`heights`]). A log topic's lane carries ERROR/FATAL ticks ([`ErrorTicks`]).
//!
//! [`thumbs`]: super::thumbs

use super::error_ticks::ErrorTicks;
use super::histogram::{self, Histogram};
use super::picture::ColorDepth;
use super::thumbs::{self, MAX_ROWS, MIN_ROWS, Shown, Slot};
use super::topics::TopicList;
use crate::catalog::log::LogLevel;
use crate::catalog::{BagConn, Catalog};
use crate::picture::is_image_type;
use crate::time::RosTime;

/// One lane: a topic and its density over the window.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Lane {
    /// Index of the topic in the topic list's visible rows.
    pub visible: usize,
    /// Topic name.
    pub topic: String,
    /// The topic's connections (a search's matches on them are marked in the lane).
    pub connections: Vec<BagConn>,
    /// Messages per column.
    pub hist: Histogram,
    /// Rows the lane takes (1, more for an image lane with thumbnails).
    pub rows: usize,
    /// The thumbnail places of an image lane (empty when it is one row high).
    pub slots: Vec<Slot>,
    /// The most severe ERROR/FATAL log line per column (empty when none is in the window).
    pub ticks: Vec<Option<LogLevel>>,
}

impl Lane {
    /// The glyph level (0 empty … 8 full) of column `col`, scaled to this lane's busiest
    /// column; a column with any message shows at least the lowest glyph.
    pub fn level(&self, col: usize) -> usize {
        level(
            self.hist.bins.get(col).copied().unwrap_or(0.0),
            self.hist.max(),
        )
    }
}

/// The lanes on screen.
#[derive(Clone, Debug, PartialEq)]
pub struct Lanes {
    /// The lanes shown, top to bottom.
    pub lanes: Vec<Lane>,
    /// First visible topic shown (scroll offset, follows the topic selection).
    pub offset: usize,
    /// Topics the list shows (lanes there could be).
    pub total: usize,
    /// True when every lane was built from exact times.
    pub exact: bool,
    /// How thumbnails are coloured (the picture preview's depth).
    pub depth: ColorDepth,
}

impl Default for Lanes {
    fn default() -> Lanes {
        Lanes {
            lanes: Vec::new(),
            offset: 0,
            total: 0,
            exact: false,
            depth: ColorDepth::from_env(),
        }
    }
}

impl Lanes {
    /// Rebuilds the lanes for `rows` rows of `width` columns over `window`: the topics the list
    /// shows (a `/` filter applies), scrolled so the selected topic has a lane, image lanes
    /// as tall as [`heights`] makes them. What slots showed before is kept where the new
    /// slot covers the same frame, so a moving view does not flicker while frames load.
    pub fn refresh(
        &mut self,
        catalog: &Catalog,
        topics: &TopicList,
        window: (RosTime, RosTime),
        (rows, width): (usize, usize),
    ) {
        let total = topics.visible().len();
        let selected = topics.selected();
        self.offset = scroll(self.offset, selected, total, rows);
        self.total = total;
        let candidates: Vec<(usize, &super::topic_row::TopicRow)> = (self.offset..total)
            .take(rows)
            .filter_map(|i| Some((i, topics.rows().get(topics.visible().get(i)?.row)?)))
            .collect();
        let image: Vec<bool> = candidates
            .iter()
            .map(|(_, r)| is_image_type(&r.datatype))
            .collect();
        let at = candidates.iter().position(|(i, _)| *i == selected);
        let (skip, tall) = heights(&image, at, (rows, thumbs::rows_for(width)));
        self.offset += skip;
        let old = std::mem::take(&mut self.lanes);
        self.lanes = candidates
            .iter()
            .skip(skip)
            .zip(tall)
            .map(|(&(i, row), h)| {
                let mut slots = thumbs::slots(window, width, h - 1);
                if let Some(before) = old.iter().find(|l| l.topic == row.topic) {
                    keep_shown(&mut slots, &before.slots);
                }
                Lane {
                    visible: i,
                    topic: row.topic.clone(),
                    connections: row.connections.clone(),
                    hist: histogram::compute(catalog, Some(&row.connections), window, width),
                    rows: h,
                    slots,
                    ticks: Vec::new(),
                }
            })
            .collect();
        self.exact = self.lanes.iter().all(|l| l.hist.exact);
    }

    /// Puts the ERROR/FATAL ticks of the log topics' lanes in their columns (those of the
    /// lane's density).
    pub fn set_ticks(&mut self, ticks: &ErrorTicks) {
        for lane in &mut self.lanes {
            lane.ticks = ticks.columns(&lane.topic, lane.hist.window, lane.hist.bins.len());
        }
    }

    /// Rows the lanes take.
    pub fn rows(&self) -> usize {
        self.lanes.iter().map(|l| l.rows).sum()
    }
}

/// What the slots of a lane showed before, kept in the new slots: all of it for a slot at
/// the same place and times; a frame for a slot of the same size whose times hold it (until
/// the frames of the new slots come).
fn keep_shown(slots: &mut [Slot], before: &[Slot]) {
    for slot in slots {
        if let Some(same) = before
            .iter()
            .find(|b| b.span == slot.span && b.width == slot.width)
        {
            slot.shown = same.shown.clone();
            continue;
        }
        let near = before.iter().find(|b| {
            b.width == slot.width
                && matches!(&b.shown, Shown::Frame { time, .. }
                    if *time >= slot.span.0 && *time < slot.span.1)
        });
        if let Some(b) = near {
            slot.shown = b.shown.clone();
        }
    }
}

/// How the lanes share `rows` rows, given which of the candidate lanes (those the scrolling
/// left on screen, one row each) are image lanes and which is selected: the number of lanes
/// left out at the start and the rows of each lane kept.
///
/// Rows left over go to image lanes, the selected one first, each getting at least
/// [`MIN_ROWS`] rows of frames (at most `film`, at most [`MAX_ROWS`]); when none is left
/// over, a selected image lane makes room for [`MIN_ROWS`] by leaving out lanes below it,
/// then above it.
pub fn heights(
    image: &[bool],
    selected: Option<usize>,
    (rows, film): (usize, usize),
) -> (usize, Vec<usize>) {
    let (mut start, mut end) = (0, image.len().min(rows));
    let sel_image = selected.filter(|&s| image.get(s) == Some(&true) && s < end);
    if let Some(s) = sel_image {
        while rows > MIN_ROWS && rows - (end - start) < MIN_ROWS {
            if end > s + 1 {
                end -= 1;
            } else if start < s {
                start += 1;
            } else {
                break;
            }
        }
    }
    let n = end - start;
    let mut tall = vec![1; n];
    let spare = rows.saturating_sub(n);
    let order: Vec<usize> = sel_image
        .into_iter()
        .chain((start..end).filter(|&i| Some(i) != sel_image))
        .filter(|&i| image.get(i) == Some(&true))
        .map(|i| i - start)
        .collect();
    let k = order.len().min(spare / MIN_ROWS);
    if let Some(each) = spare.checked_div(k) {
        let each = each.min(film.clamp(MIN_ROWS, MAX_ROWS));
        for i in order.into_iter().take(k) {
            if let Some(h) = tall.get_mut(i) {
                *h += each;
            }
        }
    }
    (start, tall)
}

/// The scroll offset that keeps `selected` among `rows` rows of `total`, moving as little as
/// possible from `offset`.
pub fn scroll(offset: usize, selected: usize, total: usize, rows: usize) -> usize {
    let rows = rows.max(1);
    let mut offset = offset.min(total.saturating_sub(rows));
    if selected < offset {
        offset = selected;
    } else if selected >= offset + rows {
        offset = selected + 1 - rows;
    }
    offset
}

/// The glyph level (0 … 8) of `v` messages in a lane whose busiest column holds `max`.
pub fn level(v: f64, max: f64) -> usize {
    if v <= 0.0 || max <= 0.0 {
        return 0;
    }
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let eighths = ((v / max) * 8.0).round() as usize;
    eighths.clamp(1, 8)
}

/// Rows of lanes in a timeline pane whose inside is `height` rows (one or two axis rows below).
pub fn lane_rows(height: usize) -> usize {
    height.saturating_sub(axis_rows(height)).max(1)
}

/// Axis rows under the lanes: one while space is short, two from 8 rows.
pub fn axis_rows(height: usize) -> usize {
    if height >= 8 { 2 } else { 1 }
}

/// Cells of the topic name column in a timeline pane `width` cells wide (the rest is the
/// density, on the same time axis as the histogram).
pub fn name_width(width: usize) -> usize {
    (width / 4).clamp(6, 28).min(width / 2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_scale_to_the_lane_and_keep_a_sliver() {
        assert_eq!(level(0.0, 10.0), 0);
        assert_eq!(level(10.0, 10.0), 8);
        assert_eq!(level(5.0, 10.0), 4);
        assert_eq!(level(0.01, 10.0), 1, "one message still shows");
        assert_eq!(level(3.0, 0.0), 0);
    }

    #[test]
    fn scrolling_follows_the_selection() {
        assert_eq!(scroll(0, 0, 20, 5), 0);
        assert_eq!(scroll(0, 4, 20, 5), 0);
        assert_eq!(scroll(0, 5, 20, 5), 1);
        assert_eq!(scroll(10, 12, 20, 5), 10, "inside the rows: no move");
        assert_eq!(scroll(10, 3, 20, 5), 3);
        assert_eq!(scroll(18, 19, 20, 5), 15, "never past the end");
        assert_eq!(scroll(3, 0, 2, 5), 0, "fewer topics than rows");
    }

    #[test]
    fn image_lanes_take_the_rows_left_over_or_make_room_when_selected() {
        // Rows to spare: the image lanes share them, at most MAX_ROWS of frames each.
        assert_eq!(
            heights(&[false, true, false], Some(0), (10, MAX_ROWS)),
            (0, vec![1, 8, 1])
        );
        assert_eq!(
            heights(&[true, true, false], None, (10, MAX_ROWS)),
            (0, vec![4, 4, 1]),
            "seven spare rows, two lanes of three frame rows"
        );
        assert_eq!(
            heights(&[true, true, false], Some(1), (7, MAX_ROWS)),
            (0, vec![1, 5, 1]),
            "too few for both: the selected first"
        );
        assert_eq!(
            heights(&[false, false], Some(0), (10, MAX_ROWS)),
            (0, vec![1, 1])
        );
        // No rows to spare: the selected image lane leaves out lanes below, then above it.
        assert_eq!(
            heights(&[false, true, false, false, false], Some(1), (5, MAX_ROWS)),
            (0, vec![1, 4])
        );
        assert_eq!(
            heights(&[false, false, false, false, true], Some(4), (5, MAX_ROWS)),
            (3, vec![1, 4])
        );
        assert_eq!(
            heights(&[false, true, false], Some(1), (3, MAX_ROWS)),
            (0, vec![1, 1, 1]),
            "three rows are too few for frames"
        );
        // A one-row image lane that is not selected stays one row.
        assert_eq!(
            heights(&[true, false, false], Some(1), (3, MAX_ROWS)),
            (0, vec![1, 1, 1])
        );
        // Frames no taller than the lane's width allows for five of them.
        assert_eq!(heights(&[false, true], None, (10, 4)), (0, vec![1, 5]));
    }

    #[test]
    fn columns_and_rows() {
        assert_eq!(lane_rows(4), 3);
        assert_eq!(lane_rows(12), 10);
        assert_eq!(lane_rows(1), 1);
        assert_eq!(name_width(78), 19);
        assert_eq!(name_width(200), 28);
        assert_eq!(name_width(8), 4);
    }
}
