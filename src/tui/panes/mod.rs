//! One file per pane. Each draws from `&App` and never changes it.

pub mod braille;
pub mod confirm;
pub mod find;
pub mod health;
pub mod help;
pub mod histogram;
pub mod inspector;
pub mod lanes;
pub mod log;
pub mod messages;
pub mod opening;
pub mod picture;
pub mod plot;
pub mod plot_xy;
pub mod status;
pub mod text_view;
pub mod topics;

use ratatui::layout::Rect;
use ratatui::widgets::{Block, BorderType, Borders};

use super::action::Pane;
use super::app::App;
use super::theme::Theme;

/// The bordered block of a pane, highlighted when focused.
pub fn block<'a>(app: &App, theme: Theme, pane: Pane, title: String) -> Block<'a> {
    let focused = app.focus == pane;
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

/// The area inside a block's border.
pub fn inner(area: Rect) -> Rect {
    Rect::new(
        area.x.saturating_add(1),
        area.y.saturating_add(1),
        area.width.saturating_sub(2),
        area.height.saturating_sub(2),
    )
}
