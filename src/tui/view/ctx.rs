//! What every drawing is lent besides its own view's state ([`DrawCtx`]): the catalog, the
//! theme, how times are shown, the focus, the open prompt and playback.

use crate::catalog::Catalog;
use crate::time::RosTime;
use crate::tui::action::Pane;
use crate::tui::model::play::Play;
use crate::tui::model::timefmt::TimeFormat;
use crate::tui::theme::Theme;

use super::overlays::Mode;

/// The shared, read-only context of one frame.
#[derive(Clone, Copy)]
pub struct DrawCtx<'a> {
    /// The bags.
    pub catalog: &'a Catalog,
    /// Colours.
    pub theme: Theme,
    /// How times are shown.
    pub time_format: TimeFormat,
    /// Start of the catalog (for offsets).
    pub start: RosTime,
    /// The focused pane.
    pub focus: Pane,
    /// What keys currently do (which prompt or overlay is open).
    pub mode: Mode,
    /// Text of the open prompt.
    pub prompt: &'a str,
    /// Playback, when started.
    pub play: Option<Play>,
}
