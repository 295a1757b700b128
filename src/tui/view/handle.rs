//! How a view answers an action ([`Handled`]) and what it asks the app to do afterwards
//! ([`Effect`]), through the [`Ctx`] it is lent: a view never calls another view; the app
//! applies the effects in order.

use crate::time::RosTime;
use crate::tui::action::{Action, Pane};
use crate::tui::model::timefmt::TimeFormat;

/// Whether a view used an action.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Handled {
    /// Used: the screen changed (plus the effects queued).
    Yes,
    /// Not a key of this view: offered to the next one.
    No,
}

/// What a view asks the app to do after handling an action.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Effect {
    /// The selected topic changed: fetch its messages, histogram, plot.
    TopicChanged,
    /// The selected message changed: decode it (and move the time cursor to it).
    MessageChanged,
    /// Move the time cursor to the start (`false`) or the end (`true`) of the bags.
    CursorToEdge(bool),
    /// Move the focus to a pane.
    Focus(Pane),
    /// The action belongs to the timeline (keys the topic list shares with it).
    ToTimeline(Action),
    /// The time cursor moved: fetch what it selects.
    CursorMoved,
    /// Move the topic selection by this many rows (the timeline's `Up` / `Down`).
    TopicBy(isize),
    /// Close the overlay shown (back to browsing).
    Close,
    /// Show the help overlay.
    ShowHelp,
}

/// What a view is lent while it handles an action.
#[derive(Debug)]
pub struct Ctx {
    /// Rows of the view's viewport.
    pub rows: usize,
    /// Columns of the view's drawing area (the timeline's bins).
    pub cols: usize,
    /// How times are shown.
    pub time_format: TimeFormat,
    /// Start of the catalog (for offsets).
    pub start: RosTime,
    /// What the view asks for, in order.
    pub effects: Vec<Effect>,
}

impl Ctx {
    /// A context for a view of `rows` rows.
    pub fn new(rows: usize, time_format: TimeFormat, start: RosTime) -> Ctx {
        Ctx {
            rows,
            cols: 0,
            time_format,
            start,
            effects: Vec::new(),
        }
    }

    /// Queues `effect` and says the action was used.
    pub fn then(&mut self, effect: Effect) -> Handled {
        self.effects.push(effect);
        Handled::Yes
    }
}

/// The line a scrolling key moves to, as a move of `rows` rows: `Some(delta)` for `Up`,
/// `Down`, the page keys, `Top`, `Bottom` and the mouse wheel (3 lines).
pub fn scroll_delta(action: Action, rows: usize) -> Option<isize> {
    Some(match action {
        Action::Up => -1,
        Action::Down => 1,
        Action::PageUp => -page(rows),
        Action::PageDown => page(rows),
        Action::Top => isize::MIN / 2,
        Action::Bottom => isize::MAX / 2,
        Action::Scroll(_, _, down) => {
            if down {
                3
            } else {
                -3
            }
        }
        _ => return None,
    })
}

/// Lines a page key moves in a viewport of `rows` rows.
pub fn page(rows: usize) -> isize {
    isize::try_from(rows.saturating_sub(1).max(1)).unwrap_or(1)
}
