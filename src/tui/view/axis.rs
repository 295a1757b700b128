//! What the two drawings of the timeline (the histogram and the lanes) share: the start of the
//! title, the axis line, the bar glyphs and how the prompt replaces the last lines.

use std::fmt::Write as _;

use ratatui::text::{Line, Span};

use super::ctx::DrawCtx;
use super::find::SearchView;
use super::overlays::Mode;
use super::timeline::TimelineView;
use crate::tui::model::play::Play;
use crate::tui::text::{fit, width};
use crate::tui::theme::Theme;

/// The eighth-block glyphs of a bar, empty to full.
pub const LEVELS: [char; 9] = [' ', '▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];

/// The start of the timeline's title (histogram or lanes): what the user started (playing,
/// marking) comes first, so that it stays visible when the title is cut at 80 columns.
pub fn started(tl: &TimelineView, play: Option<Play>) -> String {
    let mut title = String::from(" ");
    if let Some(p) = play {
        let _ = write!(
            title,
            "{} {}× · ",
            if p.paused { "paused" } else { "▶" },
            p.speed
        );
    }
    match tl.marks {
        (Some(a), Some(b)) => {
            let _ = write!(title, "marked {:.3} s · ", b.nanos_since(a) as f64 / 1e9);
        }
        (Some(_), None) => title.push_str("marking… · "),
        _ => {}
    }
    title
}

/// An axis line `w` wide: `[left, mid, right]` labels, the middle one at the cursor's column
/// (`marker`: with `▲` under the cursor).
pub fn axis(
    (w, cursor_col): (usize, Option<usize>),
    [left, mid, right]: [String; 3],
    marker: bool,
) -> Line<'static> {
    let mut s = vec![' '; w];
    let put = |s: &mut Vec<char>, at: usize, text: &str| {
        for (i, c) in text.chars().enumerate() {
            if let Some(slot) = s.get_mut(at + i) {
                *slot = c;
            }
        }
    };
    let (lw, rw) = (width(&left), width(&right));
    // The cursor's label starts at the cursor's column (`▲` under it), or ends there when
    // it would run past the right edge.
    let mid_at = cursor_col.map(|col| {
        let mw = width(&mid) + usize::from(marker);
        let text = if col + mw <= w {
            if marker {
                format!("▲{mid}")
            } else {
                mid.clone()
            }
        } else if marker {
            format!("{mid}▲")
        } else {
            mid.clone()
        };
        let at = if col + mw <= w {
            col
        } else {
            (col + 1).saturating_sub(mw)
        };
        (at, mw, text)
    });
    // The ends give way to the cursor's label.
    let clear_of = |a: usize, aw: usize| {
        mid_at
            .as_ref()
            .is_none_or(|(m, mw, _)| a + aw < *m || *m + mw < a)
    };
    if clear_of(0, lw) {
        put(&mut s, 0, &left);
    }
    if clear_of(w.saturating_sub(rw), rw) {
        put(&mut s, w.saturating_sub(rw), &right);
    }
    if let Some((at, _, text)) = &mid_at {
        put(&mut s, *at, text);
    }
    Line::from(s.into_iter().collect::<String>())
}

/// The prompts over the last lines of the timeline: the `:` jump prompt, and the `f` search
/// prompt with its error (`height` rows in all).
pub fn prompts(
    lines: &mut Vec<Line<'static>>,
    search: &SearchView,
    ctx: &DrawCtx<'_>,
    w: usize,
    height: usize,
) {
    if ctx.mode == Mode::Jump {
        let prompt = format!(":{}█  (epoch, +offset, date or time of day)", ctx.prompt);
        if let Some(last) = lines.last_mut() {
            *last = Line::styled(fit(&prompt, w), ctx.theme.matched());
        }
    }
    replace_last(lines, super::find::prompt_lines(search, ctx, w, height));
}

/// Puts `new` in place of the last lines of `lines` (the prompt over the axis labels).
pub fn replace_last(lines: &mut Vec<Line<'static>>, new: Vec<Line<'static>>) {
    let n = new.len().min(lines.len());
    lines.truncate(lines.len() - n);
    lines.extend(new.into_iter().take(n));
}

/// One column of a bar row: the glyph for `level` eighths (`│` for an empty column under the
/// cursor), styled as the cursor, inside the `[`/`]` marks, or plain.
pub fn bar_cell(
    tl: &TimelineView,
    col: usize,
    bins: usize,
    level: usize,
    cursor_col: Option<usize>,
    theme: Theme,
) -> Span<'static> {
    let is_cursor = cursor_col == Some(col);
    let t = tl.timeline.time_of_bin(col, bins);
    let marked = match tl.marks {
        (Some(a), Some(b)) => t >= a && t <= b,
        (Some(a), None) => t >= a && t <= tl.timeline.cursor(),
        _ => false,
    };
    let c = match (level, is_cursor) {
        (0, true) => '│',
        (l, _) => LEVELS.get(l).copied().unwrap_or(' '),
    };
    let style = match (is_cursor, marked) {
        (true, _) => theme.cursor(),
        (false, true) => theme.marked(),
        (false, false) => theme.bars(),
    };
    Span::styled(c.to_string(), style)
}
