//! The content search on the timeline: the `f` prompt with the expression's error under it
//! (a `^` at the column it points at), and the row of marks where matches fall.

use ratatui::text::{Line, Span};

use super::ctx::DrawCtx;
use super::overlays::Mode;
use crate::time::RosTime;
use crate::tui::jobs::notify::Notify;
use crate::tui::jobs::searcher::{SearchJob, SearchNews};
use crate::tui::model::search::Search;
use crate::tui::model::timeline::Timeline;
use crate::tui::text::{fit, width, wrap};
use crate::tui::theme::Theme;

/// The content search's view: the matches and the search running or being checked.
#[derive(Default)]
pub struct SearchView {
    /// The content search (`f`, `n`, `N`) and its matches.
    pub search: Search,
    /// The running search.
    pub(crate) finder: Finder,
}

/// The running search, the one whose expression is being checked, and where their threads
/// report.
#[derive(Default)]
pub struct Finder {
    pub(crate) job: Option<SearchJob>,
    pub(crate) checking: Option<Checking>,
    pub(crate) notify: Option<Notify<SearchNews>>,
    pub(crate) next_id: u64,
}

/// A search started from the prompt whose expression is being checked in the background.
pub struct Checking {
    pub(crate) job: SearchJob,
    pub(crate) text: String,
    pub(crate) scope: String,
}

/// What the prompt starts with.
const PREFIX: &str = "f ";
/// The glyph of a column holding a match.
const MARK: char = '▼';

/// The prompt's lines `w` wide, at most `rows` (the prompt, then the error wrapped under
/// it, starting with a `^` under the column it points at); empty when the prompt is not open.
pub(super) fn prompt_lines(
    search: &SearchView,
    ctx: &DrawCtx<'_>,
    w: usize,
    rows: usize,
) -> Vec<Line<'static>> {
    if ctx.mode != Mode::Find {
        return Vec::new();
    }
    let theme = ctx.theme;
    let hint = if search.finder.checking.is_some() {
        "checking…; Esc: cancel"
    } else {
        "expression; Enter: search, Esc: cancel"
    };
    let prompt = format!("{PREFIX}{}█  ({hint})", ctx.prompt);
    let mut lines = vec![Line::styled(fit(&prompt, w), theme.matched())];
    if let Some(e) = &search.search.prompt_error {
        let caret = (width(PREFIX) + e.column.saturating_sub(1)).min(w.saturating_sub(1));
        let text = format!("{}^ {}", " ".repeat(caret), e.message);
        let wrapped = wrap(&text, w, caret + 2);
        let room = rows.saturating_sub(1).max(1);
        let cut = wrapped.len() > room;
        for (i, l) in wrapped.into_iter().take(room).enumerate() {
            let l = if cut && i + 1 == room {
                fit(&format!("{l} …"), w)
            } else {
                l
            };
            lines.push(Line::styled(l, theme.error()));
        }
    }
    lines
}

/// The row of marks `w` wide: `▼` over each column where a match falls, the cursor's column
/// as in the bars.
pub(super) fn marks_row(
    search: &SearchView,
    timeline: &Timeline,
    theme: Theme,
    w: usize,
    cursor_col: Option<usize>,
) -> Line<'static> {
    let spans: Vec<Span> = (0..w)
        .map(|col| {
            let (from, to) = column_span(timeline, col, w);
            let hit = search.search.any_in(from, to);
            match (hit, cursor_col == Some(col)) {
                (true, cursor) => mark_cell(cursor, theme),
                (false, true) => Span::styled("│", theme.cursor()),
                (false, false) => Span::raw(" "),
            }
        })
        .collect();
    Line::from(spans)
}

/// The times `from..to` of column `col` of `w` on the timeline (the last one includes the
/// view's end).
pub(super) fn column_span(timeline: &Timeline, col: usize, w: usize) -> (RosTime, RosTime) {
    let to = if col + 1 >= w {
        timeline.view().1.saturating_add_nanos(1)
    } else {
        timeline.time_of_bin(col + 1, w)
    };
    (timeline.time_of_bin(col, w), to)
}

/// The cell of a column holding a match (`cursor`: the cursor's column too).
pub(super) fn mark_cell(cursor: bool, theme: Theme) -> Span<'static> {
    let style = if cursor {
        theme.cursor()
    } else {
        theme.matched()
    };
    Span::styled(MARK.to_string(), style)
}
