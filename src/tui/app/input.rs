//! Keys and the mouse: the help overlay, `Esc`, clicks, movement offered to the focused view
//! (whose effects are applied here), the time cursor, and the filter and jump prompts.

use super::super::action::{Action, Pane};
use super::super::model::timefmt::jump_target;
use super::{App, Mode};
use crate::tui::view;
use crate::tui::view::handle::{Ctx, Effect, Handled};

impl App {
    /// Keys while the help overlay is shown.
    pub(super) fn help_action(&mut self, action: Action) -> bool {
        if let Action::Resize(w, h) = action {
            return self.resize(w, h);
        }
        let mut ctx = self.handle_ctx(0);
        let handled = self.overlays.help_handle(action, &mut ctx);
        self.apply_effects(handled, ctx.effects)
    }

    /// What a view of `rows` rows is lent to handle an action.
    pub(super) fn handle_ctx(&self, rows: usize) -> Ctx {
        Ctx::new(rows, self.settings.time_format, self.start())
    }

    /// Applies what a view asked for after handling an action; true when the screen must be
    /// redrawn.
    pub(super) fn apply_effects(&mut self, handled: Handled, effects: Vec<Effect>) -> bool {
        let mut redraw = handled == Handled::Yes;
        for e in effects {
            match e {
                Effect::TopicChanged => self.topic_changed(),
                Effect::MessageChanged => self.message_changed(true),
                Effect::CursorToEdge(end) => {
                    let (a, b) = self.views.timeline.timeline.bounds();
                    self.views
                        .timeline
                        .timeline
                        .set_cursor(if end { b } else { a });
                    redraw = self.cursor_moved();
                }
                Effect::Focus(p) => self.set_focus(p),
                Effect::ToTimeline(a) => redraw = self.timeline_action(a),
                Effect::CursorMoved => redraw = self.cursor_moved(),
                Effect::TopicBy(d) => {
                    self.views.topics.list.move_by(d, self.layout.topics_rows());
                    self.topic_changed();
                }
                Effect::Close => self.overlays.mode = Mode::Normal,
                Effect::ShowHelp => self.overlays.mode = Mode::Help,
            }
        }
        redraw
    }

    /// `Esc`: undoes the last thing still in effect — playback, a finished publication's
    /// status, the marks, the filter, the focus —; false when there is nothing to undo.
    pub(super) fn back(&mut self) -> bool {
        if self.jobs.play.is_some() {
            self.jobs.play = None;
            self.flash("playback stopped", false);
        } else if self
            .jobs
            .publishing
            .as_ref()
            .is_some_and(|p| !p.is_active())
        {
            self.jobs.publishing = None;
        } else if self.views.timeline.marks != (None, None) {
            self.views.timeline.marks = (None, None);
        } else if !self.views.topics.list.filter().is_empty() {
            self.clear_filter(false);
        } else if self.focus != Pane::Topics {
            self.set_focus(Pane::Topics);
        } else {
            return false;
        }
        true
    }

    pub(super) fn click(&mut self, x: u16, y: u16) -> bool {
        let Some(pane) = self.layout.pane_at(x, y) else {
            return false;
        };
        self.set_focus(pane);
        let rect = self.layout.rect(pane);
        match pane {
            Pane::Topics => {
                let row = y.saturating_sub(rect.y + 2) as usize + self.views.topics.list.offset();
                if y >= rect.y + 2 {
                    self.views
                        .topics
                        .list
                        .select_index(row, self.layout.topics_rows());
                    self.topic_changed();
                }
            }
            Pane::Messages => {
                if y >= rect.y + 2 && !self.views.messages.window.entries.is_empty() {
                    let row = (y - rect.y - 2) as usize + self.views.messages.offset;
                    let delta = isize::try_from(row).unwrap_or(isize::MAX)
                        - isize::try_from(self.views.messages.selected).unwrap_or(0);
                    self.views
                        .messages
                        .move_by(delta, self.layout.messages_rows());
                    self.message_changed(true);
                }
            }
            Pane::Histogram => {
                let (skip, inner) = self.timeline_columns(rect.width.saturating_sub(2) as usize);
                if x > rect.x && inner > 0 {
                    let bin = ((x - rect.x - 1) as usize).saturating_sub(skip);
                    let t = self
                        .views
                        .timeline
                        .timeline
                        .time_of_bin(bin.min(inner - 1), inner);
                    self.views.timeline.timeline.set_cursor(t);
                    self.cursor_moved();
                }
            }
            Pane::Plot => {}
            Pane::Inspector => {
                if y > rect.y {
                    let row = (y - rect.y - 1) as usize + self.views.inspector.tree.offset;
                    if row < self.views.inspector.tree.rows().len() {
                        let was = self.views.inspector.tree.selected == row;
                        self.views.inspector.tree.selected = row;
                        if was {
                            self.views
                                .inspector
                                .tree
                                .toggle(self.settings.time_format, self.start());
                        }
                    }
                }
            }
        }
        true
    }

    /// Movement keys, interpreted by the focused pane.
    pub(super) fn navigate(&mut self, action: Action) -> bool {
        self.offer_focused(action).unwrap_or(false)
    }

    /// Offers `action` to the focused view: `None` when it is not one of its keys, else
    /// whether the screen must be redrawn once its effects are applied.
    pub(super) fn offer_focused(&mut self, action: Action) -> Option<bool> {
        if self.focus == Pane::Histogram {
            return self.offer_timeline(action);
        }
        if self.focus == Pane::Plot {
            return self.offer_plot(action);
        }
        let mut ctx = self.handle_ctx(self.layout.rows(self.focus));
        let v = &mut self.views;
        let handled = match self.focus {
            Pane::Topics => v.topics.handle(action, &mut ctx),
            Pane::Messages => view::messages::handle(&mut v.messages, action, &mut ctx),
            Pane::Inspector | Pane::Histogram | Pane::Plot => v.inspector.handle(action, &mut ctx),
        };
        (handled == Handled::Yes).then(|| self.apply_effects(handled, ctx.effects))
    }

    /// Offers `action` to the timeline (focused, or passed on by the topic list).
    fn offer_timeline(&mut self, action: Action) -> Option<bool> {
        let mut ctx = self.handle_ctx(0);
        ctx.cols = self.timeline_columns(self.layout.histogram_width()).1;
        let handled = self.views.timeline.handle(action, &mut ctx);
        (handled == Handled::Yes).then(|| self.apply_effects(handled, ctx.effects))
    }

    pub(super) fn timeline_action(&mut self, action: Action) -> bool {
        self.offer_timeline(action).unwrap_or(false)
    }

    pub(super) fn prompt_action(&mut self, action: Action) -> bool {
        match action {
            // A character, Backspace or clear: applied to the prompt by `edit_prompt`.
            _ if self.overlays.edit_prompt(action) => {}
            Action::Back => {
                if self.overlays.mode == Mode::Filter {
                    self.clear_filter(true);
                }
                self.overlays.mode = Mode::Normal;
                return true;
            }
            Action::Enter => {
                let mode = self.overlays.mode;
                self.overlays.mode = Mode::Normal;
                if mode == Mode::Jump {
                    let text = std::mem::take(&mut self.overlays.prompt);
                    match jump_target(
                        &text,
                        self.views.timeline.timeline.bounds(),
                        self.settings.time_format,
                    ) {
                        Ok(t) => {
                            self.views.timeline.timeline.set_cursor(t);
                            self.cursor_moved();
                        }
                        Err(e) => self.flash(e, true),
                    }
                }
                return true;
            }
            Action::Up | Action::Down if self.overlays.mode == Mode::Filter => {
                let d = if action == Action::Up { -1 } else { 1 };
                self.views.topics.list.move_by(d, self.layout.topics_rows());
                self.topic_changed();
                return true;
            }
            Action::Resize(w, h) => return self.resize(w, h),
            _ => return false,
        }
        if self.overlays.mode == Mode::Filter {
            let text = self.overlays.prompt.clone();
            self.views.topics.list.set_filter(&text);
            if !self.views.topics.list.is_filtering() {
                self.topic_changed();
            }
        }
        true
    }

    /// Clears the topic filter, keeping the selected topic (`cancel`: the one selected before
    /// filtering).
    pub(super) fn clear_filter(&mut self, cancel: bool) {
        self.views.topics.list.clear_filter(cancel);
        self.views
            .topics
            .list
            .scroll_into_view(self.layout.topics_rows());
        self.topic_changed();
    }
}
