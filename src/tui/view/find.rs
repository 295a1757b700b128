//! The content search on the timeline: the `f` prompt with the expression's error under it
//! (a `^` at the column it points at), and the row of marks where matches fall.

use ratatui::text::{Line, Span};

use crate::time::RosTime;
use crate::tui::app::{App, Mode};
use crate::tui::text::{fit, width, wrap};
use crate::tui::theme::Theme;

/// What the prompt starts with.
const PREFIX: &str = "f ";
/// The glyph of a column holding a match.
const MARK: char = '▼';

/// The prompt's lines `w` wide, at most `rows` (the prompt, then the error wrapped under
/// it, starting with a `^` under the column it points at); empty when the prompt is not open.
pub(super) fn prompt_lines(app: &App, theme: Theme, w: usize, rows: usize) -> Vec<Line<'static>> {
    if app.mode != Mode::Find {
        return Vec::new();
    }
    let hint = if app.search_checking() {
        "checking…; Esc: cancel"
    } else {
        "expression; Enter: search, Esc: cancel"
    };
    let prompt = format!("{PREFIX}{}█  ({hint})", app.prompt);
    let mut lines = vec![Line::styled(fit(&prompt, w), theme.matched())];
    if let Some(e) = &app.search.prompt_error {
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
    app: &App,
    theme: Theme,
    w: usize,
    cursor_col: Option<usize>,
) -> Line<'static> {
    let spans: Vec<Span> = (0..w)
        .map(|col| {
            let (from, to) = column_span(app, col, w);
            let hit = app.search.any_in(from, to);
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
pub(super) fn column_span(app: &App, col: usize, w: usize) -> (RosTime, RosTime) {
    let to = if col + 1 >= w {
        app.timeline.view().1.saturating_add_nanos(1)
    } else {
        app.timeline.time_of_bin(col + 1, w)
    };
    (app.timeline.time_of_bin(col, w), to)
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
