//! The lanes' background side as the app holds it ([`LaneJobs`]): the thumbnail thread and the
//! generation of the newest request, what was asked last (a view that did not change asks
//! nothing), the read of the ERROR/FATAL ticks and the ticks themselves (read once, kept while
//! the explorer runs), and the frames made inline when there are no background threads.

use std::sync::Arc;
use std::sync::atomic::AtomicU64;

use super::error_ticks::{TickJob, TickNews};
use super::notify::Notify;
use super::thumbnailer::{Frames, LaneAsk, ThumbNews, Thumbnailer};
use crate::tui::model::error_ticks::ErrorTicks;

/// What the app holds of the lanes' background work.
#[derive(Debug, Default)]
pub struct LaneJobs {
    /// Where thumbnails are reported (set by the event loop; without it they are made inline).
    pub(crate) thumb_notify: Option<Notify<ThumbNews>>,
    /// Where ticks are reported (set by the event loop; without it they are read inline).
    pub(crate) tick_notify: Option<Notify<TickNews>>,
    /// The thumbnail thread, started on the first request.
    pub(crate) thumbnailer: Option<Thumbnailer>,
    /// The generation of the newest thumbnail request.
    pub(crate) generation: Arc<AtomicU64>,
    /// The slots asked for last.
    pub(crate) asked: Vec<LaneAsk>,
    /// Frames made inline (no background threads).
    pub(crate) inline: Option<Frames>,
    /// The read of the ticks, while it runs.
    pub(crate) tick_job: Option<TickJob>,
    /// The ticks read (so far); `None` until the lanes first open.
    pub ticks: Option<ErrorTicks>,
}
