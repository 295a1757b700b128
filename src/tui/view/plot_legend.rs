//! The plot pane's text: one legend line per series (its marker, short name, value at the
//! cursor, min and max over the visible range, in six significant digits; the selected series
//! of the focused pane marked `▸` with its exact value at the cursor — the readout), and the
//! `P` prompt with what is wrong under it.

use ratatui::text::Line;

use super::ctx::DrawCtx;
use super::overlays::Mode;
use crate::tui::model::plot::Legend;
use crate::tui::model::plot::numbers::{Precision, exact, short};
use crate::tui::model::plots::SpecError;
use crate::tui::text::{fit, fit_left, width, wrap};
use crate::tui::theme::SERIES_GLYPHS;

/// The marker of the selected series in the focused pane's legend.
pub const SELECTED: char = '▸';

/// The marker of series `i`.
pub fn glyph(i: usize) -> char {
    SERIES_GLYPHS
        .get(i % SERIES_GLYPHS.len())
        .copied()
        .unwrap_or('●')
}

/// What one legend line shows.
#[derive(Debug, Clone, Copy)]
pub struct LegendRow<'a> {
    /// The series' index (its marker and colour).
    pub index: usize,
    /// Its short name (escaped).
    pub name: &'a str,
    /// Its numbers.
    pub legend: &'a Legend,
    /// How its values print.
    pub precision: Precision,
    /// `None` while the pane is not focused; else whether it is the selected series.
    pub selected: Option<bool>,
}

/// One legend line `w` wide. In full: `● name  now 1.25  min -1.5  max 3.5`. When that does
/// not fit, `now` goes first (`● name  [-1.5, 3.5]`), then the name is cut from the left; the
/// selected series keeps its `now` (exact: the cursor readout; in six digits when the exact
/// value leaves no room for the whole name) instead of min and max.
pub fn legend_line(row: &LegendRow<'_>, w: usize) -> String {
    let LegendRow {
        index,
        name,
        legend,
        precision,
        selected,
    } = *row;
    let readout = selected == Some(true);
    let prefix = match selected {
        None => String::new(),
        Some(true) => SELECTED.to_string(),
        Some(false) => " ".to_string(),
    };
    let g = glyph(index);
    let value = |exactly: bool| {
        legend.at_cursor.map_or_else(
            || "–".to_string(),
            |(_, v)| {
                if exactly {
                    exact(v, precision)
                } else {
                    short(v, precision)
                }
            },
        )
    };
    let now = format!("  now {}", value(readout));
    // The readout in six digits, when the exact value leaves no room for the name.
    let now_short = format!("  now {}", value(false));
    let (range, bracket) = match legend.min_max {
        Some((lo, hi)) => {
            let (lo, hi) = (short(lo, precision), short(hi, precision));
            (format!("  min {lo}  max {hi}"), format!("  [{lo}, {hi}]"))
        }
        None => (
            "  (no values in view)".to_string(),
            "  (none in view)".to_string(),
        ),
    };
    let head = format!("{prefix}{g} ");
    let tiers: &[&[&str]] = if readout {
        &[&[&now, &range], &[&now, &bracket], &[&now], &[&now_short]]
    } else {
        &[&[&now, &range], &[&now, &bracket], &[&bracket]]
    };
    for tail in tiers {
        let line = format!("{head}{name}{}", tail.concat());
        if width(&line) <= w {
            return line;
        }
    }
    // The name cut from the left, if enough of it stays.
    let tail = tiers.last().map(|t| t.concat()).unwrap_or_default();
    let room = w.saturating_sub(width(&head) + width(&tail));
    if room >= 6 {
        return format!("{head}{}{tail}", fit_left(name, room));
    }
    fit(&format!("{head}{}", tail.trim_start()), w)
}

/// The `P` prompt's lines `w` wide, at most `rows` (the prompt, then what is wrong with what
/// was typed, `^` under its column); none when the prompt is not open.
pub fn prompt_lines(
    error: Option<&SpecError>,
    ctx: &DrawCtx<'_>,
    w: usize,
    rows: usize,
) -> Vec<Line<'static>> {
    const PREFIX: &str = "plot ";
    if ctx.mode != Mode::PlotPrompt || rows == 0 {
        return Vec::new();
    }
    let theme = ctx.theme;
    let text = crate::printable::escape_line(ctx.prompt);
    let prompt =
        format!("{PREFIX}{text}█  (/topic: field or expression; Enter: plot, Esc: cancel)");
    let mut lines = vec![Line::styled(fit(&prompt, w), theme.matched())];
    if let Some(e) = error {
        // `^` under the column, the message beside it when it fits, else below it.
        let caret = (width(PREFIX) + e.column.saturating_sub(1)).min(w.saturating_sub(1));
        let message = crate::printable::escape_line(&e.message);
        let beside = format!("{}^ {message}", " ".repeat(caret));
        let mut text = if width(&beside) <= w {
            vec![beside]
        } else {
            let mut t = vec![format!("{}^", " ".repeat(caret))];
            t.extend(wrap(&message, w, 0));
            t
        };
        let room = rows.saturating_sub(1);
        if text.len() > room {
            text.truncate(room);
            if let Some(last) = text.last_mut() {
                *last = fit(&format!("{last} …"), w);
            }
        }
        lines.extend(text.into_iter().map(|l| Line::styled(l, theme.error())));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row<'a>(name: &'a str, legend: &'a Legend, selected: Option<bool>) -> LegendRow<'a> {
        LegendRow {
            index: 0,
            name,
            legend,
            precision: Precision::F64,
            selected,
        }
    }

    #[test]
    fn legend_keeps_the_name_and_six_digits() {
        let l = Legend {
            at_cursor: Some((0, 1.25)),
            min_max: Some((-1.499_999_998_655_011_9, 3.499_999_999_999_999_6)),
        };
        let name = "linear_acceleration/z";
        assert_eq!(
            legend_line(&row(name, &l, None), 120),
            "● linear_acceleration/z  now 1.25  min -1.5  max 3.5"
        );
        assert_eq!(
            legend_line(&row(name, &l, None), 48),
            "● linear_acceleration/z  now 1.25  [-1.5, 3.5]"
        );
        assert_eq!(
            legend_line(&row(name, &l, None), 40),
            "● linear_acceleration/z  [-1.5, 3.5]"
        );
        assert_eq!(
            legend_line(&row(name, &l, None), 24),
            "● …ration/z  [-1.5, 3.5]"
        );
        assert_eq!(legend_line(&row(name, &l, None), 14), "● [-1.5, 3.5]");
        let none = Legend {
            at_cursor: None,
            min_max: None,
        };
        assert_eq!(
            legend_line(&row("a", &none, Some(false)), 80),
            " ● a  now –  (no values in view)"
        );
    }

    #[test]
    fn the_selected_series_reads_exactly_at_the_cursor() {
        let v = f64::from(2.117_887_5_f32);
        let l = Legend {
            at_cursor: Some((0, v)),
            min_max: Some((v, 3.0)),
        };
        let mut r = row("voltage", &l, Some(true));
        r.precision = Precision::F32;
        assert_eq!(
            legend_line(&r, 80),
            "▸● voltage  now 2.1178875  min 2.11789  max 3"
        );
        assert_eq!(legend_line(&r, 30), "▸● voltage  now 2.1178875");
        assert_eq!(legend_line(&r, 23), "▸● voltage  now 2.11789");
        r.selected = Some(false);
        assert_eq!(
            legend_line(&r, 80),
            " ● voltage  now 2.11789  min 2.11789  max 3"
        );
        r.precision = Precision::F64;
        r.selected = None;
        assert_eq!(
            legend_line(&r, 80),
            "● voltage  now 2.11789  min 2.11789  max 3"
        );
    }
}
