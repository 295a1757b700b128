//! Keys and the mouse: the help overlay, `Esc`, clicks, movement in the focused pane, the
//! time cursor, and the filter and jump prompts.

use super::super::action::{Action, Pane};
use super::super::model::timefmt::jump_target;
use super::{App, Mode};

impl App {
    /// Keys while the help overlay is shown.
    pub(super) fn help_action(&mut self, action: Action) -> bool {
        match action {
            Action::ToggleHelp | Action::Back | Action::Enter => {
                self.overlays.mode = Mode::Normal;
                self.overlays.help_scroll = 0;
                true
            }
            Action::Up | Action::PageUp => {
                self.overlays.help_scroll =
                    self.overlays.help_scroll
                        .saturating_sub(if action == Action::Up { 1 } else { 10 });
                true
            }
            Action::Down | Action::PageDown => {
                self.overlays.help_scroll =
                    (self.overlays.help_scroll + if action == Action::Down { 1 } else { 10 }).min(60);
                true
            }
            Action::Resize(w, h) => self.resize(w, h),
            _ => false,
        }
    }

    /// `Esc`: undoes the last thing still in effect — playback, a finished publication's
    /// status, the marks, the filter, the focus —; false when there is nothing to undo.
    pub(super) fn back(&mut self) -> bool {
        if self.jobs.play.is_some() {
            self.jobs.play = None;
            self.flash("playback stopped", false);
        } else if self.jobs.publishing.as_ref().is_some_and(|p| !p.is_active()) {
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
                    self.views.topics.list.select_index(row, self.layout.topics_rows());
                    self.topic_changed();
                }
            }
            Pane::Messages => {
                if y >= rect.y + 2 && !self.views.messages.window.entries.is_empty() {
                    let row = (y - rect.y - 2) as usize + self.views.messages.offset;
                    let delta = isize::try_from(row).unwrap_or(isize::MAX)
                        - isize::try_from(self.views.messages.selected).unwrap_or(0);
                    self.views.messages.move_by(delta, self.layout.messages_rows());
                    self.message_changed(true);
                }
            }
            Pane::Histogram => {
                let (skip, inner) = self.timeline_columns(rect.width.saturating_sub(2) as usize);
                if x > rect.x && inner > 0 {
                    let bin = ((x - rect.x - 1) as usize).saturating_sub(skip);
                    let t = self.views.timeline.timeline.time_of_bin(bin.min(inner - 1), inner);
                    self.views.timeline.timeline.set_cursor(t);
                    self.cursor_moved();
                }
            }
            Pane::Inspector => {
                if y > rect.y {
                    let row = (y - rect.y - 1) as usize + self.views.inspector.tree.offset;
                    if row < self.views.inspector.tree.rows().len() {
                        let was = self.views.inspector.tree.selected == row;
                        self.views.inspector.tree.selected = row;
                        if was {
                            self.views.inspector.tree.toggle(self.settings.time_format, self.start());
                        }
                    }
                }
            }
        }
        true
    }

    /// Movement keys, interpreted by the focused pane.
    pub(super) fn navigate(&mut self, action: Action) -> bool {
        let page = |rows: usize| isize::try_from(rows.saturating_sub(1).max(1)).unwrap_or(1);
        match self.focus {
            Pane::Topics => {
                let h = self.layout.topics_rows();
                let before = self.views.topics.list.selected_row().map(|r| r.topic.clone());
                match action {
                    Action::Up => self.views.topics.list.move_by(-1, h),
                    Action::Down => self.views.topics.list.move_by(1, h),
                    Action::PageUp => self.views.topics.list.move_by(-page(h), h),
                    Action::PageDown => self.views.topics.list.move_by(page(h), h),
                    Action::Top => self.views.topics.list.jump(false, h),
                    Action::Bottom => self.views.topics.list.jump(true, h),
                    Action::Enter | Action::Right => {
                        self.set_focus(Pane::Messages);
                        return true;
                    }
                    Action::Left | Action::BigLeft | Action::BigRight => {
                        return self.timeline_action(action);
                    }
                    _ => return false,
                }
                if self.views.topics.list.selected_row().map(|r| r.topic.clone()) != before {
                    self.topic_changed();
                }
                true
            }
            Pane::Histogram => self.timeline_action(action),
            Pane::Messages => {
                let h = self.layout.messages_rows();
                match action {
                    Action::Up => self.views.messages.move_by(-1, h),
                    Action::Down => self.views.messages.move_by(1, h),
                    Action::PageUp => self.views.messages.move_by(-page(h), h),
                    Action::PageDown => self.views.messages.move_by(page(h), h),
                    Action::Top => {
                        self.views.timeline.timeline.set_cursor(self.views.timeline.timeline.bounds().0);
                        return self.cursor_moved();
                    }
                    Action::Bottom => {
                        self.views.timeline.timeline.set_cursor(self.views.timeline.timeline.bounds().1);
                        return self.cursor_moved();
                    }
                    Action::Enter | Action::Right => {
                        self.set_focus(Pane::Inspector);
                        return true;
                    }
                    Action::Left => {
                        self.set_focus(Pane::Topics);
                        return true;
                    }
                    _ => return false,
                }
                self.message_changed(true);
                true
            }
            Pane::Inspector => {
                let h = self.layout.inspector_rows();
                let (fmt, start) = (self.settings.time_format, self.start());
                match action {
                    Action::Up => self.views.inspector.tree.move_by(-1, h),
                    Action::Down => self.views.inspector.tree.move_by(1, h),
                    Action::PageUp => self.views.inspector.tree.move_by(-page(h), h),
                    Action::PageDown => self.views.inspector.tree.move_by(page(h), h),
                    Action::Top => self.views.inspector.tree.move_by(isize::MIN / 2, h),
                    Action::Bottom => self.views.inspector.tree.move_by(isize::MAX / 2, h),
                    Action::Enter => self.views.inspector.tree.toggle(fmt, start),
                    Action::Right => self.views.inspector.tree.set_expanded(true, fmt, start),
                    Action::Left => self.views.inspector.tree.set_expanded(false, fmt, start),
                    _ => return false,
                }
                self.views.inspector.tree.scroll_into_view(h);
                true
            }
        }
    }

    pub(super) fn timeline_action(&mut self, action: Action) -> bool {
        let width = self.timeline_columns(self.layout.histogram_width()).1;
        match action {
            Action::Left => self.views.timeline.timeline.step(-1, width),
            Action::Right => self.views.timeline.timeline.step(1, width),
            Action::BigLeft | Action::PageUp => self.views.timeline.timeline.step(-10, width),
            Action::BigRight | Action::PageDown => self.views.timeline.timeline.step(10, width),
            Action::Top => self.views.timeline.timeline.set_cursor(self.views.timeline.timeline.bounds().0),
            Action::Bottom => self.views.timeline.timeline.set_cursor(self.views.timeline.timeline.bounds().1),
            Action::Up => {
                self.views.topics.list.move_by(-1, self.layout.topics_rows());
                self.topic_changed();
                return true;
            }
            Action::Down => {
                self.views.topics.list.move_by(1, self.layout.topics_rows());
                self.topic_changed();
                return true;
            }
            Action::Enter => {
                self.set_focus(Pane::Messages);
                return true;
            }
            _ => return false,
        }
        self.cursor_moved()
    }

    pub(super) fn prompt_action(&mut self, action: Action) -> bool {
        match action {
            Action::Input(c) => self.overlays.prompt.push(c),
            Action::Backspace => {
                self.overlays.prompt.pop();
            }
            Action::ClearInput => self.overlays.prompt.clear(),
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
                    match jump_target(&text, self.views.timeline.timeline.bounds(), self.settings.time_format) {
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
        self.views.topics.list.scroll_into_view(self.layout.topics_rows());
        self.topic_changed();
    }
}
