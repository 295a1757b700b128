//! The screen shown while the bags are opened: which bag, its size, how far a recovery scan
//! is, for how long, and that `q` leaves.

use std::time::Duration;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Block, Borders, Paragraph};

use crate::tui::jobs::opening::Opening;
use crate::tui::text::{bytes, fit_middle, wrap};
use crate::tui::theme::Theme;

/// Draws the opening screen over `area`, `elapsed` after opening started.
pub fn draw(frame: &mut Frame<'_>, opening: &Opening, elapsed: Duration, theme: Theme, area: Rect) {
    let w = area.width.saturating_sub(2) as usize;
    let secs = elapsed.as_secs_f64();
    let n = opening.bags.len();
    let mut text: Vec<(String, bool)> = Vec::new();
    if let Some(c) = opening.preparing {
        text.push((
            format!(
                "preparing the topics of {}… {secs:.1} s",
                crate::wording::count(c as u64, "connection")
            ),
            false,
        ));
    } else {
        let (path, size) = opening
            .bags
            .get(opening.current)
            .cloned()
            .unwrap_or_default();
        let size = size.map_or(String::new(), |s| format!(" ({})", bytes(s)));
        let which = if n > 1 {
            format!(", bag {} of {n}", opening.current + 1)
        } else {
            String::new()
        };
        let name = fit_middle(&path, w.saturating_sub(30).max(12), None).0;
        text.push((
            format!("opening {name}{size}{which}: reading its index or scanning it… {secs:.1} s"),
            false,
        ));
        if let Some(stage) = opening.stage() {
            text.push((format!("{stage}…"), false));
        }
        text.push((String::new(), true));
        text.push((
            "A bag without a usable index (not closed, cut short, damaged) is read record \
             by record and its chunks decompressed: this can take a while for a large bag."
                .to_string(),
            true,
        ));
    }
    text.push((String::new(), true));
    text.push(("q or Ctrl-C quits.".to_string(), true));
    let lines: Vec<Line> = text
        .iter()
        .flat_map(|(t, dim)| {
            wrap(t, w, 0).into_iter().map(move |l| {
                if *dim {
                    Line::styled(l, theme.dim())
                } else {
                    Line::raw(l)
                }
            })
        })
        .collect();
    frame.render_widget(
        Paragraph::new(lines).block(
            Block::default()
                .borders(Borders::ALL)
                .title(" bagscope ")
                .border_style(theme.border(true)),
        ),
        area,
    );
}
