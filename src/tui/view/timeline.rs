//! The timeline view's state: the time axis (cursor, zoom), the histogram or the lanes drawn
//! over it, the marked interval and the bandwidth over the visible window summed in the
//! background. `histogram.rs` and `lanes.rs` draw it.

use super::handle::{Ctx, Effect, Handled};
use crate::catalog::Catalog;
use crate::catalog::window_bytes::WindowBytes;
use crate::time::RosTime;
use crate::tui::action::{Action, Pane};
use crate::tui::jobs::job::Job;
use crate::tui::jobs::notify::Notify;
use crate::tui::model::histogram::Histogram;
use crate::tui::model::lanes::Lanes;
use crate::tui::model::timeline::Timeline;

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

    /// Keys while the timeline has the focus (or that the topic list passes on), over
    /// `ctx.cols` bins.
    pub fn handle(&mut self, action: Action, ctx: &mut Ctx) -> Handled {
        let (t, width) = (&mut self.timeline, ctx.cols);
        match action {
            Action::Left => t.step(-1, width),
            Action::Right => t.step(1, width),
            Action::BigLeft | Action::PageUp => t.step(-10, width),
            Action::BigRight | Action::PageDown => t.step(10, width),
            Action::Top => t.set_cursor(t.bounds().0),
            Action::Bottom => t.set_cursor(t.bounds().1),
            Action::Up => return ctx.then(Effect::TopicBy(-1)),
            Action::Down => return ctx.then(Effect::TopicBy(1)),
            Action::Enter => return ctx.then(Effect::Focus(Pane::Messages)),
            _ => return Handled::No,
        }
        ctx.then(Effect::CursorMoved)
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
    pub(crate) thread: Option<Job<WindowBytes, BandwidthRequest>>,
    /// The window asked for last (a sum for another window is dropped).
    pub(crate) asked: Option<(RosTime, RosTime)>,
}
