//! The bordered block every pane is drawn in, thick when the pane has the focus, and the
//! overlay drawn over the panes (help, health, text).

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Block, BorderType, Borders, Clear, Paragraph};

use crate::tui::text::fit;
use crate::tui::theme::Theme;

/// The bordered block of a pane, highlighted when `focused`.
pub fn block<'a>(focused: bool, theme: Theme, title: String) -> Block<'a> {
    Block::default()
        .borders(Borders::ALL)
        .border_type(if focused {
            BorderType::Thick
        } else {
            BorderType::Plain
        })
        .border_style(theme.border(focused))
        .title(title)
}

/// An overlay over `area`: what was drawn there cleared, then `lines` in a bordered block
/// titled `title` (cut to the width).
pub fn overlay(frame: &mut Frame, area: Rect, lines: Vec<Line<'_>>, title: &str, theme: Theme) {
    let w = usize::from(area.width.saturating_sub(2));
    frame.render_widget(Clear, area);
    frame.render_widget(
        Paragraph::new(lines).block(
            Block::default()
                .borders(Borders::ALL)
                .title(fit(title, w))
                .border_style(theme.border(true)),
        ),
        area,
    );
}
