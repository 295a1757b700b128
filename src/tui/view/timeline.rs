//! The timeline view's state: the time axis (cursor, zoom), the histogram or the lanes drawn
//! over it, the marked interval and the bandwidth over the visible window summed in the
//! background. `histogram.rs` and `lanes.rs` draw it.

use crate::catalog::Catalog;
use crate::catalog::window_bytes::WindowBytes;
use crate::time::RosTime;
use crate::tui::latest::Latest;
use crate::tui::model::histogram::Histogram;
use crate::tui::model::lanes::Lanes;
use crate::tui::model::timeline::Timeline;
use crate::tui::notify::Notify;

/// The timeline pane's state.
pub struct TimelineView {
    /// Time axis.
    pub timeline: Timeline,
    /// The histogram for the current window and width.
    pub histogram: Histogram,
    /// One lane per shown topic instead of the histogram (`a`'s third state), when shown.
    pub lanes: Option<Lanes>,
    /// Histogram of all topics instead of the selected one.
    pub hist_all: bool,
    /// Marked interval (start, end), either end possibly unset.
    pub marks: (Option<RosTime>, Option<RosTime>),
    /// The bandwidth over the window, summed in the background.
    pub(crate) bandwidth: ViewBandwidth,
}

impl TimelineView {
    /// A timeline from `start` to `end`, nothing marked.
    pub fn new(start: RosTime, end: RosTime) -> TimelineView {
        TimelineView {
            timeline: Timeline::new(start, end),
            histogram: Histogram::default(),
            lanes: None,
            hist_all: false,
            marks: (None, None),
            bandwidth: ViewBandwidth::default(),
        }
    }
}

/// A window to sum, over the catalog as it was when asked.
#[derive(Debug)]
pub struct BandwidthRequest {
    pub(crate) catalog: Catalog,
    pub(crate) window: (RosTime, RosTime),
}

/// The state of the background sum.
#[derive(Debug, Default)]
pub struct ViewBandwidth {
    /// Where sums are reported (set by the event loop).
    pub(crate) notify: Option<Notify<WindowBytes>>,
    /// The summing thread, started on the first request.
    pub(crate) thread: Option<Latest<BandwidthRequest>>,
    /// The window asked for last (a sum for another window is dropped).
    pub(crate) asked: Option<(RosTime, RosTime)>,
}
