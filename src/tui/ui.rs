//! Drawing the whole screen from `&App`: the frame lends each view its state and a
//! [`DrawCtx`] (catalog, theme, time format, focus, prompt), and draws the overlay on top.

use ratatui::Frame;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::action::Pane;
use super::app::{App, Mode};
use super::theme::Theme;
use super::view;
use super::view::ctx::DrawCtx;
use super::view::status::StatusParts;

/// Draws every visible pane, the status bar and overlays.
pub fn draw(frame: &mut Frame<'_>, app: &App, theme: Theme) {
    let l = &app.layout;
    if l.compact {
        let tabs: Vec<Span> = Pane::ORDER
            .iter()
            .filter(|p| **p != Pane::Plot || app.shows_plot())
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
    let ctx = DrawCtx {
        catalog: &app.catalog,
        theme,
        time_format: app.settings.time_format,
        start: app.start(),
        focus: app.focus,
        mode: app.overlays.mode,
        prompt: &app.overlays.prompt,
        play: app.jobs.play,
    };
    let v = &app.views;
    view::topics::draw(frame, &v.topics, &ctx, l.topics);
    view::histogram::draw(
        frame,
        &v.timeline,
        (&v.topics.list, &v.search),
        &ctx,
        l.histogram,
    );
    let total = v.topics.list.selected_row().map_or(0, |r| r.count);
    view::messages::draw(frame, &v.messages, total, &ctx, l.messages);
    let picture = (app.picture_on(), v.messages.selected_ref());
    view::inspector::draw(frame, &v.inspector, picture, &ctx, l.inspector);
    view::plot::draw(
        frame,
        &v.plot,
        (&v.timeline, app.xy_pending()),
        &ctx,
        l.plot,
    );
    let cursor = v.timeline.timeline.cursor();
    let parts = StatusParts {
        flash: app.flash.as_ref(),
        note: app.settings.note.as_deref(),
        follow: app.jobs.follow.mark(),
        scan: app.jobs.scan.mark(),
        unopened: app.settings.unopened.len(),
        publishing: app.jobs.publishing.as_ref(),
        cursor,
        search: v.search.search.status(cursor),
    };
    view::status::draw(frame, &parts, &ctx, l.status);
    let body = ratatui::layout::Rect::new(0, 0, app.area.width, app.area.height.saturating_sub(1));
    let o = &app.overlays;
    match o.mode {
        Mode::Help => view::help::draw(frame, (&app.settings.keymap, o.help_scroll), theme, body),
        Mode::Health => view::health::draw(frame, (&o.health, app.jobs.scan.banner()), theme, body),
        Mode::Log | Mode::LogPrompt => {
            let rows = (app.log_rows(), app.log_detail_rows());
            view::log::draw(frame, &v.log, rows, &ctx, body);
        }
        Mode::Text => view::text_view::draw(frame, &o.text, &ctx, body),
        Mode::ConfirmPublish => view::confirm::draw(frame, o.publish_plan.as_ref(), &ctx, body),
        _ => {}
    }
}
