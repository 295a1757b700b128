//! The status bar: file(s), version, size, time at the cursor, warnings and messages.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::tui::app::App;
use crate::tui::text::{bytes, fit, width};
use crate::tui::theme::Theme;

/// Draws the status bar.
pub fn draw(frame: &mut Frame<'_>, app: &App, theme: Theme, area: Rect) {
    if area.width == 0 || area.height == 0 {
        return;
    }
    let w = area.width as usize;
    let bags = app.catalog.bags();
    let files = match bags {
        [one] => {
            let name = one.path().file_name().map_or_else(
                || one.path().display().to_string(),
                |n| n.to_string_lossy().to_string(),
            );
            let indexed = if one.is_indexed() { "" } else { " recovered" };
            format!(
                "{name} · v{}{indexed} · {}",
                one.version(),
                bytes(one.size())
            )
        }
        many => format!(
            "{} bags · {}",
            many.len(),
            bytes(many.iter().map(crate::bag::Bag::size).sum())
        ),
    };
    let files = match &app.note {
        Some(n) => format!("{n} · {files}"),
        None => files,
    };
    let cursor = format!(
        "@ {}",
        app.time_format.format(app.timeline.cursor(), app.start())
    );
    let warnings: usize = bags
        .iter()
        .map(|b| b.warnings().len() + usize::from(b.recovery().is_some_and(|r| !r.is_lossless())))
        .sum();
    let right = match (&app.flash, warnings) {
        (Some(f), _) => f.text.clone(),
        (None, 0) => "? help".to_string(),
        (None, n) => format!(
            "⚠ {n} warning{} (! health) · ? help",
            if n == 1 { "" } else { "s" }
        ),
    };
    let right_style = match &app.flash {
        Some(f) if f.error => theme.error(),
        None if warnings > 0 => theme.warning(),
        _ => theme.status(),
    };
    let right = fit(&right, w / 2);
    let left_room = w.saturating_sub(width(&right) + 1);
    let mut left = fit(&format!(" {files}  {cursor}"), left_room);
    if width(&left) < left_room {
        left.push_str(&" ".repeat(left_room - width(&left)));
    }
    let line = Line::from(vec![
        Span::styled(left, theme.status()),
        Span::styled(format!("{right} "), right_style.patch(theme.status())),
    ]);
    frame.render_widget(Paragraph::new(line).style(theme.status()), area);
}
