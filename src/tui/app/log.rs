//! The log view (`r`): reading the log topics in the background from the start, its keys
//! (minimum level, node and text filters, `Enter` to go to a line) and its prompts.

use super::super::action::Action;
use super::super::jobs::gate::Gate;
use super::super::jobs::logger;
use super::super::jobs::notify::Notify;
use super::super::model::log::LogField;
use super::{App, Mode};
use crate::catalog::log::{LogPiece, log_topics};

impl App {
    /// Starts reading the log topics' lines in the background (when there are any) once
    /// `after` opens; each piece comes back through `notify` to [`App::log_piece`].
    pub fn start_log_reading(&mut self, notify: Notify<LogPiece>, after: Gate) {
        let topics = log_topics(&self.catalog);
        self.log.topics = topics.clone();
        if topics.topics.is_empty() {
            self.log.done = true;
            self.log.progress = 1.0;
            return;
        }
        match logger::start(
            self.catalog.clone(),
            topics.topics,
            self.registry.clone(),
            (notify, after),
        ) {
            Ok(job) => self.log_job = Some(job),
            Err(e) => self.flash(format!("cannot read the log lines: {e}"), true),
        }
    }

    /// A piece of log lines read in the background.
    pub fn log_piece(&mut self, piece: LogPiece) -> bool {
        self.log
            .add(piece.piece, piece.fraction, piece.stats, piece.done);
        if piece.done {
            self.log_job = None;
        }
        let rows = self.log_rows();
        self.log.scroll_into_view(rows);
        self.mode == Mode::Log || self.mode == Mode::LogPrompt
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
        if self.log.topics.topics.is_empty() {
            self.flash("no log topic (rosgraph_msgs/Log) in these bags", true);
            return;
        }
        self.mode = Mode::Log;
        // Open at the time cursor.
        let row = self.log.row_at(self.timeline.cursor());
        self.log.selected = row;
        self.log.scroll_into_view(self.log_rows());
    }

    /// Keys in the log view.
    pub(super) fn log_action(&mut self, action: Action) -> bool {
        let rows = self.log_rows();
        let page = isize::try_from(rows.saturating_sub(1).max(1)).unwrap_or(1);
        match action {
            Action::ToggleLog | Action::Back => self.mode = Mode::Normal,
            Action::Up => self.log.move_by(-1, rows),
            Action::Down => self.log.move_by(1, rows),
            Action::PageUp => self.log.move_by(-page, rows),
            Action::PageDown => self.log.move_by(page, rows),
            Action::Top => self.log.move_by(isize::MIN / 2, rows),
            Action::Bottom => self.log.move_by(isize::MAX / 2, rows),
            Action::LogLevel => {
                self.log.cycle_level();
                self.log.scroll_into_view(rows);
            }
            Action::LogNodeFilter | Action::LogTextFilter => {
                let field = if action == Action::LogNodeFilter {
                    LogField::Node
                } else {
                    LogField::Text
                };
                self.log.begin_edit(field);
                self.prompt = self.log.filter(field).to_string();
                self.mode = Mode::LogPrompt;
            }
            Action::Enter => return self.go_to_log_line(),
            Action::Resize(w, h) => {
                self.resize(w, h);
                self.log.scroll_into_view(self.log_rows());
            }
            Action::ToggleHelp => self.mode = Mode::Help,
            Action::Scroll(_, _, down) => self.log.move_by(if down { 3 } else { -3 }, rows),
            _ => return false,
        }
        true
    }

    /// Keys while typing a log filter: the list follows each character.
    pub(super) fn log_prompt_action(&mut self, action: Action) -> bool {
        match action {
            Action::Input(c) => self.prompt.push(c),
            Action::Backspace => {
                self.prompt.pop();
            }
            Action::ClearInput => self.prompt.clear(),
            Action::Enter | Action::Back => {
                self.log.end_edit(action == Action::Enter);
                self.prompt.clear();
                self.mode = Mode::Log;
                self.log.scroll_into_view(self.log_rows());
                return true;
            }
            Action::Resize(w, h) => return self.resize(w, h),
            _ => return false,
        }
        let text = self.prompt.clone();
        self.log.set_edited(&text);
        self.log.scroll_into_view(self.log_rows());
        true
    }

    /// `Enter` on a log line: selects its topic, moves the time cursor to the line (which
    /// selects its message) and closes the view.
    fn go_to_log_line(&mut self) -> bool {
        let Some(line) = self.log.selected_line() else {
            return false;
        };
        let time = line.time;
        let topic = self
            .log
            .topics
            .topics
            .get(line.topic as usize)
            .cloned()
            .unwrap_or_default();
        if !self.topics.select_topic(&topic) {
            self.topics.set_filter("");
            self.prompt.clear();
            self.topics.select_topic(&topic);
        }
        self.topics.scroll_into_view(self.layout.topics_rows());
        self.timeline.set_cursor(time);
        self.mode = Mode::Normal;
        self.set_focus(super::super::action::Pane::Messages);
        self.topic_changed();
        true
    }
}
