//! Drawing the whole screen from `&App`.

use ratatui::Frame;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::action::Pane;
use super::app::{App, Mode};
use super::panes;
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
    panes::topics::draw(frame, app, theme, l.topics);
    panes::histogram::draw(frame, app, theme, l.histogram);
    panes::messages::draw(frame, app, theme, l.messages);
    panes::inspector::draw(frame, app, theme, l.inspector);
    panes::plot::draw(frame, app, theme, l.plot);
    panes::status::draw(frame, app, theme, l.status);
    let body = ratatui::layout::Rect::new(0, 0, app.area.width, app.area.height.saturating_sub(1));
    match app.mode {
        Mode::Help => panes::help::draw(frame, app, theme, body),
        Mode::Health => panes::health::draw(frame, app, theme, body),
        Mode::Log | Mode::LogPrompt => panes::log::draw(frame, app, theme, body),
        Mode::Text => panes::text_view::draw(frame, app, theme, body),
        Mode::ConfirmPublish => panes::confirm::draw(frame, app, theme, body),
        _ => {}
    }
}
