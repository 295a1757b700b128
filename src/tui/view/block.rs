//! The bordered block every pane is drawn in, thick when the pane has the focus.

use ratatui::widgets::{Block, BorderType, Borders};

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
