//! The content search on the timeline: the `f` prompt with the expression's error under it
//! (a `^` at the column it points at), and the row of marks: a bar `━` over the columns a
//! stretch of several messages covers (at least one column, at any zoom), a `▼` where a match
//! falls outside them. Lanes draw the same in each topic's lane.

use ratatui::text::{Line, Span};

use super::ctx::DrawCtx;
use super::overlays::Mode;
use crate::catalog::BagConn;
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
/// The glyph of a column a stretch of several messages covers (a shape, not only a colour:
/// readable with `NO_COLOR`).
const BAR: char = '━';

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

/// The row of marks `w` wide: `━` over the columns stretches of several messages cover,
/// `▼` over the other columns where a match falls, the cursor's column as in the bars.
pub(super) fn marks_row(
    search: &SearchView,
    timeline: &Timeline,
    theme: Theme,
    w: usize,
    cursor_col: Option<usize>,
) -> Line<'static> {
    let bars = bar_columns(&search.search, timeline, w, None);
    let spans: Vec<Span> = (0..w)
        .map(|col| {
            if bars.get(col) == Some(&true) {
                return bar_cell(cursor_col == Some(col), theme);
            }
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

/// Which of the `w` columns of the timeline's view the stretches of several messages (on
/// one of `conns`, when given: a lane) cover; each covers at least the column it starts in.
pub(super) fn bar_columns(
    search: &Search,
    timeline: &Timeline,
    w: usize,
    conns: Option<&[BagConn]>,
) -> Vec<bool> {
    let mut cols = vec![false; w];
    if search.stretches.is_empty() {
        return cols;
    }
    let (v0, v1) = timeline.view();
    for s in search.long_stretches_over((v0, v1), conns) {
        let from = timeline.bin_of(s.start.max(v0), w);
        let to = timeline.bin_of(s.end.min(v1), w);
        if let (Some(a), Some(b)) = (from, to) {
            for c in cols.get_mut(a..=b.max(a)).unwrap_or_default() {
                *c = true;
            }
        }
    }
    cols
}

/// The cell of a column a stretch covers (`cursor`: the cursor's column too).
pub(super) fn bar_cell(cursor: bool, theme: Theme) -> Span<'static> {
    let style = if cursor {
        theme.cursor()
    } else {
        theme.matched()
    };
    Span::styled(BAR.to_string(), style)
}
