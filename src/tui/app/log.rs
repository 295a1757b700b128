//! The log view (`r`): reading the log topics in the background from the start, its keys
//! (minimum or exact level, the node picker, the text filter, `Enter` to go to a line) and
//! its prompts (the picker and the text filter are typed in `Mode::LogPrompt`).

use super::super::action::Action;
use super::super::jobs::gate::Gate;
use super::super::jobs::logger;
use super::super::jobs::notify::Notify;
use super::{App, Mode};
use crate::catalog::log::{LogPiece, log_topics};

impl App {
    /// Starts reading the log topics' lines in the background (when there are any) once
    /// `after` opens; each piece comes back through `notify` to [`App::log_piece`].
    pub fn start_log_reading(&mut self, notify: Notify<LogPiece>, after: Gate) {
        let topics = log_topics(&self.catalog);
        self.views.log.view.topics = topics.clone();
        if topics.topics.is_empty() {
            self.views.log.view.done = true;
            self.views.log.view.progress = 1.0;
            return;
        }
        match logger::start(
            self.catalog.clone(),
            topics.topics,
            self.settings.registry.clone(),
            (notify, after),
        ) {
            Ok(job) => self.views.log.job = Some(job),
            Err(e) => self.flash(format!("cannot read the log lines: {e}"), true),
        }
    }

    /// A piece of log lines read in the background.
    pub fn log_piece(&mut self, piece: LogPiece) -> bool {
        self.views
            .log
            .view
            .add(piece.piece, piece.fraction, piece.stats, piece.done);
        if piece.done {
            self.views.log.job = None;
        }
        let rows = self.log_rows();
        self.views.log.view.scroll_into_view(rows);
        self.overlays.mode == Mode::Log || self.overlays.mode == Mode::LogPrompt
    }

    /// Rows of the log view's list: the body less its borders and the detail area.
    pub fn log_rows(&self) -> usize {
        let body = self.area.height.saturating_sub(1) as usize;
        body.saturating_sub(2 + self.log_detail_rows() + 1).max(1)
    }

    /// Rows of the detail area under the list (the selected line, wrapped).
    pub fn log_detail_rows(&self) -> usize {
        let body = self.area.height.saturating_sub(1) as usize;
        (body / 4).clamp(2, 8)
    }

    /// `r`: opens the log view (or says there is no log topic).
    pub(super) fn open_log(&mut self) {
        if self.views.log.view.topics.topics.is_empty() {
            self.flash("no log topic (rosgraph_msgs/Log) in these bags", true);
            return;
        }
        self.overlays.mode = Mode::Log;
        // Open at the time cursor.
        let row = self
            .views
            .log
            .view
            .row_at(self.views.timeline.timeline.cursor());
        self.views.log.view.selected = row;
        self.views.log.view.scroll_into_view(self.log_rows());
    }

    /// Keys in the log view.
    pub(super) fn log_action(&mut self, action: Action) -> bool {
        match action {
            Action::LogNodeFilter => {
                self.views.log.view.open_picker();
                self.overlays.prompt.clear();
                self.overlays.mode = Mode::LogPrompt;
                self.scroll_picker();
                true
            }
            Action::LogTextFilter => {
                self.views.log.view.begin_edit();
                self.overlays.prompt = self.views.log.view.text_filter.clone();
                self.overlays.mode = Mode::LogPrompt;
                true
            }
            Action::Enter => self.go_to_log_line(),
            Action::Resize(w, h) => {
                self.resize(w, h);
                self.views.log.view.scroll_into_view(self.log_rows());
                true
            }
            _ => {
                let mut ctx = self.handle_ctx(self.log_rows());
                let handled = self.views.log.handle(action, &mut ctx);
                self.apply_effects(handled, ctx.effects)
            }
        }
    }

    /// Rows of the node picker's list (inside its box over the log list).
    pub fn log_picker_rows(&self) -> usize {
        self.log_rows().saturating_sub(2).max(1)
    }

    fn scroll_picker(&mut self) {
        let rows = self.log_picker_rows();
        let view = &mut self.views.log.view;
        if let Some(p) = view.picker.as_mut() {
            p.scroll_into_view(rows, &view.lines);
        }
    }

    /// Keys in the node picker: typing narrows, `↑↓` move, `Space` checks, `Enter` shows,
    /// `Esc` cancels.
    fn log_picker_action(&mut self, action: Action) -> bool {
        let page = isize::try_from(self.log_picker_rows()).unwrap_or(1);
        let view = &mut self.views.log.view;
        let Some(picker) = view.picker.as_mut() else {
            return false;
        };
        match action {
            Action::Input(' ') => picker.toggle(&view.lines),
            Action::Input(c) => {
                self.overlays.prompt.push(c);
                picker.set_query(&self.overlays.prompt, &view.lines);
            }
            Action::Backspace => {
                self.overlays.prompt.pop();
                picker.set_query(&self.overlays.prompt, &view.lines);
            }
            Action::ClearInput => {
                self.overlays.prompt.clear();
                picker.set_query("", &view.lines);
            }
            Action::Up | Action::Down | Action::PageUp | Action::PageDown => {
                let delta = match action {
                    Action::Up => -1,
                    Action::Down => 1,
                    Action::PageUp => -page,
                    _ => page,
                };
                picker.move_by(delta, &view.lines);
            }
            Action::Enter | Action::Back => {
                view.close_picker(action == Action::Enter);
                self.overlays.prompt.clear();
                self.overlays.mode = Mode::Log;
                self.views.log.view.scroll_into_view(self.log_rows());
                return true;
            }
            Action::Resize(w, h) => return self.resize(w, h),
            _ => return false,
        }
        self.scroll_picker();
        true
    }

    /// Keys while typing a log filter: the list follows each character.
    pub(super) fn log_prompt_action(&mut self, action: Action) -> bool {
        if self.views.log.view.picker.is_some() {
            return self.log_picker_action(action);
        }
        match action {
            Action::Input(c) => self.overlays.prompt.push(c),
            Action::Backspace => {
                self.overlays.prompt.pop();
            }
            Action::ClearInput => self.overlays.prompt.clear(),
            Action::Enter | Action::Back => {
                self.views.log.view.end_edit(action == Action::Enter);
                self.overlays.prompt.clear();
                self.overlays.mode = Mode::Log;
                self.views.log.view.scroll_into_view(self.log_rows());
                return true;
            }
            Action::Resize(w, h) => return self.resize(w, h),
            _ => return false,
        }
        let text = self.overlays.prompt.clone();
        self.views.log.view.set_edited(&text);
        self.views.log.view.scroll_into_view(self.log_rows());
        true
    }

    /// `Enter` on a log line: selects its topic, moves the time cursor to the line (which
    /// selects its message) and closes the view.
    fn go_to_log_line(&mut self) -> bool {
        let Some(line) = self.views.log.view.selected_line() else {
            return false;
        };
        let time = line.time;
        let topic = self
            .views
            .log
            .view
            .topics
            .topics
            .get(line.topic as usize)
            .cloned()
            .unwrap_or_default();
        if !self.views.topics.list.select_topic(&topic) {
            self.views.topics.list.set_filter("");
            self.overlays.prompt.clear();
            self.views.topics.list.select_topic(&topic);
        }
        self.views
            .topics
            .list
            .scroll_into_view(self.layout.topics_rows());
        self.views.timeline.timeline.set_cursor(time);
        self.overlays.mode = Mode::Normal;
        self.set_focus(super::super::action::Pane::Messages);
        self.topic_changed();
        true
    }
}
