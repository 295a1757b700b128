//! Lanes: the timeline mode with one row per shown topic, each row the message density of its
//! topic over the visible window (scaled per lane, so a topic that stops, thins out or bursts
//! shows at a glance whatever its rate). Built from the histogram's data source (chunk infos,
//! exact once the index scan has loaded the index data), only for the lanes on screen.

use super::histogram::{self, Histogram};
use super::topics::TopicList;
use crate::catalog::{BagConn, Catalog};
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
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Lanes {
    /// The lanes shown, top to bottom.
    pub lanes: Vec<Lane>,
    /// First visible topic shown (scroll offset, follows the topic selection).
    pub offset: usize,
    /// Topics the list shows (lanes there could be).
    pub total: usize,
    /// True when every lane was built from exact times.
    pub exact: bool,
}

impl Lanes {
    /// Rebuilds the lanes for `rows` rows of `width` columns over `window`: the topics the list
    /// shows (a `/` filter applies), scrolled so the selected topic has a lane.
    pub fn refresh(
        &mut self,
        catalog: &Catalog,
        topics: &TopicList,
        window: (RosTime, RosTime),
        (rows, width): (usize, usize),
    ) {
        let total = topics.visible().len();
        self.offset = scroll(self.offset, topics.selected(), total, rows);
        self.total = total;
        self.lanes = (self.offset..total)
            .take(rows)
            .filter_map(|i| {
                let row = topics.rows().get(topics.visible().get(i)?.row)?;
                Some(Lane {
                    visible: i,
                    topic: row.topic.clone(),
                    connections: row.connections.clone(),
                    hist: histogram::compute(catalog, Some(&row.connections), window, width),
                })
            })
            .collect();
        self.exact = self.lanes.iter().all(|l| l.hist.exact);
    }
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
    fn columns_and_rows() {
        assert_eq!(lane_rows(4), 3);
        assert_eq!(lane_rows(12), 10);
        assert_eq!(lane_rows(1), 1);
        assert_eq!(name_width(78), 19);
        assert_eq!(name_width(200), 28);
        assert_eq!(name_width(8), 4);
    }
}
