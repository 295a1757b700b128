//! The content search (`f`): its prompt, checking the expression against the searched topics'
//! types, starting the search in the background (a new one replaces the previous one), its
//! news, and `n` / `N` going to the next / previous match.
//!
//! What is searched: every topic the list shows while the topic filter (`/`) is set, else the
//! selected topic.

use super::super::action::Action;
use super::super::model::search::PromptError;
use super::super::notify::Notify;
use super::super::searcher::{self, SearchJob, SearchNews};
use super::{App, Mode};
use crate::catalog::search::{SearchError, SearchRequest, validate};
use crate::msg::expr::Expr;

/// The running search and where its thread reports.
#[derive(Default)]
pub(super) struct Finder {
    job: Option<SearchJob>,
    notify: Option<Notify<SearchNews>>,
    next_id: u64,
}

impl App {
    /// Where search threads report (set by the event loop; without it `f` cannot search).
    pub fn set_search_notify(&mut self, notify: Notify<SearchNews>) {
        self.finder.notify = Some(notify);
    }

    /// `f`: opens the prompt with the last expression.
    pub(super) fn start_find(&mut self) {
        self.mode = Mode::Find;
        self.prompt = self.search.expr.clone();
        self.search.prompt_error = None;
    }

    /// Keys while typing an expression.
    pub(super) fn find_prompt_action(&mut self, action: Action) -> bool {
        match action {
            Action::Input(c) => self.prompt.push(c),
            Action::Backspace => {
                self.prompt.pop();
            }
            Action::ClearInput => self.prompt.clear(),
            Action::Back => {
                // Closes the prompt; a search still running stops where it is.
                self.finder.job = None;
                if self.search.is_active() && !self.search.done {
                    self.search.stop();
                    self.flash("search stopped", false);
                }
                self.search.prompt_error = None;
                self.prompt.clear();
                self.mode = Mode::Normal;
            }
            Action::Enter => self.run_find(),
            Action::Resize(w, h) => return self.resize(w, h),
            _ => return false,
        }
        if matches!(
            action,
            Action::Input(_) | Action::Backspace | Action::ClearInput
        ) {
            self.search.prompt_error = None;
        }
        true
    }

    /// The searched topics (empty when there is none) and how the status names them.
    fn search_scope(&self) -> (Vec<String>, String) {
        match self.topics.filtered_topics() {
            Some(topics) if topics.len() == 1 => {
                let name = topics.first().cloned().unwrap_or_default();
                (topics, name)
            }
            Some(topics) => {
                let name = format!("{} topics", topics.len());
                (topics, name)
            }
            None => match self.topics.selected_row() {
                Some(r) => (vec![r.topic.clone()], r.topic.clone()),
                None => (Vec::new(), String::new()),
            },
        }
    }

    /// `Enter` in the prompt: checks the expression and starts the search, or shows what is
    /// wrong under the prompt. An empty expression clears the search.
    fn run_find(&mut self) {
        let text = self.prompt.trim().to_string();
        if text.is_empty() {
            self.finder.job = None;
            self.search = super::super::model::search::Search::default();
            self.mode = Mode::Normal;
            return;
        }
        let expr = match Expr::parse(&text) {
            Ok(e) => e,
            Err(e) => {
                self.search.prompt_error = Some(PromptError {
                    column: e.column,
                    message: e.kind.to_string(),
                });
                return;
            }
        };
        let (topics, scope) = self.search_scope();
        if topics.is_empty() {
            self.search.prompt_error = Some(PromptError {
                column: 1,
                message: "no topic to search: select one, or filter the list with /".into(),
            });
            return;
        }
        let request = SearchRequest { topics, expr };
        if let Err(e) = validate(&self.catalog, &request, &self.registry) {
            self.search.prompt_error = Some(match e {
                SearchError::Expr {
                    topic,
                    datatype,
                    error,
                } => PromptError {
                    column: error.column,
                    message: format!("{} (in {topic}, {datatype})", error.kind),
                },
                SearchError::NoTopic => PromptError {
                    column: 1,
                    message: format!("{scope}: no message type that can be decoded"),
                },
            });
            return;
        }
        let Some(notify) = self.finder.notify.clone() else {
            self.search.prompt_error = Some(PromptError {
                column: 1,
                message: "cannot search here (no event loop)".into(),
            });
            return;
        };
        // The previous search stops here (its job is dropped) and its news are ignored.
        self.finder.job = None;
        self.finder.next_id += 1;
        let id = self.finder.next_id;
        self.search.start(id, &text, scope);
        match searcher::start(
            self.catalog.clone(),
            request,
            self.registry.clone(),
            id,
            notify,
        ) {
            Ok(job) => self.finder.job = Some(job),
            Err(e) => {
                self.search.fail(e.to_string());
                self.flash(format!("cannot start the search: {e}"), true);
            }
        }
        self.prompt.clear();
        self.mode = Mode::Normal;
    }

    /// A batch of matches (or the failure) of a background search.
    pub(crate) fn search_news(&mut self, news: SearchNews) -> bool {
        if news.id != self.search.id || self.search.done {
            return false;
        }
        match news.update {
            Ok(u) => {
                self.search.add(&u.matches, u.fraction, u.stats, u.done);
                if u.done {
                    self.finder.job = None;
                }
            }
            Err(e) => {
                self.finder.job = None;
                let why = e.to_string();
                self.search.fail(why.clone());
                self.flash(format!("search failed: {why}"), true);
            }
        }
        true
    }

    /// `n` / `N`: moves the time cursor to the next (previous) match and selects its message
    /// (and its topic); past the last (first) match it wraps around, and says so.
    pub(super) fn go_to_match(&mut self, forward: bool) -> bool {
        if !self.search.is_active() {
            self.flash("no search: f to find messages by content", false);
            return true;
        }
        let cursor = self.timeline.cursor();
        let step = if forward {
            self.search.next(cursor)
        } else {
            self.search.prev(cursor)
        };
        let Some(step) = step else {
            let text = if self.search.done {
                "no match"
            } else {
                "no match yet"
            };
            self.flash(text, false);
            return true;
        };
        let Some(m) = self.search.matches.get(step.index).copied() else {
            return false;
        };
        let topic = self
            .catalog
            .bag(m.conn.bag)
            .and_then(|b| b.connection(m.conn.conn))
            .map(|c| c.topic.clone());
        self.search.current = Some(step.index);
        let view = self.timeline.view();
        self.timeline.set_cursor(m.time);
        let selected = self.topics.selected_row().map(|r| r.topic.clone());
        match topic {
            Some(topic) if selected.as_ref() != Some(&topic) => {
                if !self.topics.select_topic(&topic) {
                    self.topics.set_filter("");
                    self.topics.select_topic(&topic);
                }
                self.topics.scroll_into_view(self.layout.topics_rows());
                self.topic_changed();
            }
            _ => {
                if self.timeline.view() != view {
                    self.refresh_histogram();
                }
                self.cursor_moved();
            }
        }
        if step.wrapped {
            let end = if forward {
                "wrapped to the first match"
            } else {
                "wrapped to the last match"
            };
            self.flash(end, false);
        }
        true
    }
}
