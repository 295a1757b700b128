//! Drawing the whole screen from `&App`.

use ratatui::Frame;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::action::Pane;
use super::app::{App, Mode};
use super::view;
use super::theme::Theme;

/// Draws every visible pane, the status bar and overlays.
pub fn draw(frame: &mut Frame<'_>, app: &App, theme: Theme) {
    let l = &app.layout;
    if l.compact {
        let tabs: Vec<Span> = Pane::ORDER
            .iter()
            .enumerate()
            .flat_map(|(i, p)| {
                let style = if *p == app.focus {
                    theme.selected(true)
                } else {
                    theme.dim()
                };
                [
                    Span::styled(format!(" {} {} ", i + 1, p.title()), style),
                    Span::raw(" "),
                ]
            })
            .collect();
        frame.render_widget(Paragraph::new(Line::from(tabs)), l.tabs);
    }
    view::topics::draw(frame, app, theme, l.topics);
    view::histogram::draw(frame, app, theme, l.histogram);
    view::messages::draw(frame, app, theme, l.messages);
    view::inspector::draw(frame, app, theme, l.inspector);
    view::plot::draw(frame, app, theme, l.plot);
    view::status::draw(frame, app, theme, l.status);
    let body = ratatui::layout::Rect::new(0, 0, app.area.width, app.area.height.saturating_sub(1));
    match app.overlays.mode {
        Mode::Help => view::help::draw(frame, app, theme, body),
        Mode::Health => view::health::draw(frame, app, theme, body),
        Mode::Log | Mode::LogPrompt => view::log::draw(frame, app, theme, body),
        Mode::Text => view::text_view::draw(frame, app, theme, body),
        Mode::ConfirmPublish => view::confirm::draw(frame, app, theme, body),
        _ => {}
    }
}
