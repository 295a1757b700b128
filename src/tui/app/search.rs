//! The content search (`f`): its prompt, checking the expression against the searched topics'
//! types and starting the search in the background (a new one replaces the previous one once
//! its expression is found to fit; the prompt stays open meanwhile, showing what is wrong if
//! it does not), its news, and `n` / `N` going to the start of the next / previous stretch
//! (a run of consecutive matching messages of one topic; a match alone is a stretch of one).
//!
//! What is searched: every topic the list shows while the topic filter (`/`) is set, else the
//! selected topic.

use super::super::action::Action;
use super::super::jobs::notify::Notify;
use super::super::jobs::searcher::{self, SearchNews, SearchReport};
use super::super::model::search::PromptError;
use super::{App, Mode};
use crate::catalog::search::{SearchError, SearchRequest};
use crate::msg::expr::Expr;
use crate::tui::view::find::Checking;

impl App {
    /// Where search threads report (set by the event loop; without it `f` cannot search).
    pub fn set_search_notify(&mut self, notify: Notify<SearchNews>) {
        self.views.search.finder.notify = Some(notify);
    }

    /// True while the expression typed in the prompt is being checked against the searched
    /// topics' types (in the background; the prompt says so).
    pub fn search_checking(&self) -> bool {
        self.views.search.finder.checking.is_some()
    }

    /// `f`: opens the prompt with the last expression.
    pub(super) fn start_find(&mut self) {
        self.overlays.mode = Mode::Find;
        self.overlays.prompt = self.views.search.search.expr.clone();
        self.views.search.search.prompt_error = None;
    }

    /// Keys while typing an expression.
    pub(super) fn find_prompt_action(&mut self, action: Action) -> bool {
        match action {
            // A character, Backspace or clear: applied to the prompt by `edit_prompt`.
            _ if self.overlays.edit_prompt(action) => {}
            Action::Back => {
                // Closes the prompt; a search still running (or being checked) stops where
                // it is.
                self.views.search.finder.checking = None;
                self.views.search.finder.job = None;
                if self.views.search.search.is_active() && !self.views.search.search.done {
                    self.views.search.search.stop();
                    self.flash("search stopped", false);
                }
                self.views.search.search.prompt_error = None;
                self.overlays.prompt.clear();
                self.overlays.mode = Mode::Normal;
            }
            Action::Enter => self.run_find(),
            Action::Resize(w, h) => return self.resize(w, h),
            _ => return false,
        }
        if matches!(
            action,
            Action::Input(_) | Action::Backspace | Action::ClearInput
        ) {
            // The expression changed: its error, or its check, no longer applies.
            self.views.search.search.prompt_error = None;
            self.views.search.finder.checking = None;
        }
        true
    }

    /// The searched topics (empty when there is none) and how the status names them.
    fn search_scope(&self) -> (Vec<String>, String) {
        match self.views.topics.list.filtered_topics() {
            Some(topics) if topics.len() == 1 => {
                let name = topics.first().cloned().unwrap_or_default();
                (topics, name)
            }
            Some(topics) => {
                let name = format!("{} topics", topics.len());
                (topics, name)
            }
            None => match self.views.topics.list.selected_row() {
                Some(r) => (vec![r.topic.clone()], r.topic.clone()),
                None => (Vec::new(), String::new()),
            },
        }
    }

    /// `Enter` in the prompt: checks the syntax, then starts checking the expression against
    /// the searched topics' types in the background (the prompt stays open until it fits, or
    /// shows what is wrong under it). An empty expression clears the search.
    fn run_find(&mut self) {
        let text = self.overlays.prompt.trim().to_string();
        self.views.search.finder.checking = None;
        if text.is_empty() {
            self.views.search.finder.job = None;
            self.views.search.search = super::super::model::search::Search::default();
            self.overlays.mode = Mode::Normal;
            return;
        }
        let expr = match Expr::parse(&text) {
            Ok(e) => e,
            Err(e) => {
                self.views.search.search.prompt_error = Some(PromptError {
                    column: e.column,
                    message: e.kind.to_string(),
                });
                return;
            }
        };
        let (topics, scope) = self.search_scope();
        if topics.is_empty() {
            self.views.search.search.prompt_error = Some(PromptError {
                column: 1,
                message: "no topic to search: select one, or filter the list with /".into(),
            });
            return;
        }
        let Some(notify) = self.views.search.finder.notify.clone() else {
            self.views.search.search.prompt_error = Some(PromptError {
                column: 1,
                message: "cannot search here (no event loop)".into(),
            });
            return;
        };
        self.views.search.finder.next_id += 1;
        let id = self.views.search.finder.next_id;
        let request = SearchRequest { topics, expr };
        match searcher::start(
            self.catalog.clone(),
            request,
            self.settings.registry.clone(),
            id,
            notify,
        ) {
            Ok(job) => self.views.search.finder.checking = Some(Checking { job, text, scope }),
            Err(e) => {
                self.views.search.search.prompt_error = Some(PromptError {
                    column: 1,
                    message: format!("cannot start the search: {e}"),
                });
            }
        }
    }

    /// The expression being checked fits: it replaces the previous search (whose thread
    /// stops), and the prompt closes.
    fn search_checked(&mut self, checking: Checking) {
        self.views
            .search
            .search
            .start(checking.job.id, &checking.text, checking.scope);
        self.views.search.finder.job = Some(checking.job);
        if self.overlays.mode == Mode::Find {
            self.overlays.prompt.clear();
            self.overlays.mode = Mode::Normal;
        }
    }

    /// The expression being checked does not fit: what is wrong, under the prompt.
    fn search_refused(&mut self, scope: &str, e: SearchError) {
        let error = match e {
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
        };
        if self.overlays.mode == Mode::Find {
            self.views.search.search.prompt_error = Some(error);
        } else {
            self.flash(format!("search not started: {}", error.message), true);
        }
    }

    /// News of a background search: its expression checked (or refused), a batch of
    /// matches, or its failure.
    pub(crate) fn search_news(&mut self, news: SearchNews) -> bool {
        if self
            .views
            .search
            .finder
            .checking
            .as_ref()
            .is_some_and(|c| c.job.id == news.id)
        {
            let Some(checking) = self.views.search.finder.checking.take() else {
                return false;
            };
            match news.report {
                SearchReport::Checked => self.search_checked(checking),
                SearchReport::Failed(e) => self.search_refused(&checking.scope, e),
                SearchReport::Update(u) => {
                    self.search_checked(checking);
                    self.search_update(&u);
                }
            }
            return true;
        }
        if news.id != self.views.search.search.id || self.views.search.search.done {
            return false;
        }
        match news.report {
            SearchReport::Checked => return false,
            SearchReport::Update(u) => self.search_update(&u),
            SearchReport::Failed(e) => {
                self.views.search.finder.job = None;
                let why = e.to_string();
                self.views.search.search.fail(why.clone());
                self.flash(format!("search failed: {why}"), true);
            }
        }
        true
    }

    /// A batch of matches of the running search.
    fn search_update(&mut self, u: &crate::catalog::search::SearchUpdate) {
        self.views
            .search
            .search
            .add((&u.matches, &u.stretches), u.fraction, u.stats, u.done);
        if u.done {
            self.views.search.finder.job = None;
        }
    }

    /// `n` / `N`: moves the time cursor to the start of the next (previous) stretch and
    /// selects its first message (and its topic); past the last (first) one it wraps around,
    /// and says so.
    pub(super) fn go_to_match(&mut self, forward: bool) -> bool {
        if !self.views.search.search.is_active() {
            self.flash("no search: f to find messages by content", false);
            return true;
        }
        let cursor = self.views.timeline.timeline.cursor();
        let step = if forward {
            self.views.search.search.next(cursor)
        } else {
            self.views.search.search.prev(cursor)
        };
        let Some(step) = step else {
            let search = &self.views.search.search;
            let text = match (search.done, search.matches.is_empty()) {
                (true, _) => "no match",
                (false, true) => "no match yet",
                // Matches, but their stretches are still open (they end with the search).
                (false, false) => "no stretch ended yet",
            };
            self.flash(text, false);
            return true;
        };
        let Some(m) = self
            .views
            .search
            .search
            .stretches
            .get(step.index)
            .map(crate::catalog::search::Stretch::first)
        else {
            return false;
        };
        let topic = self
            .catalog
            .bag(m.conn.bag)
            .and_then(|b| b.connection(m.conn.conn))
            .map(|c| c.topic.clone());
        self.views.search.search.current = Some(step.index);
        let view = self.views.timeline.timeline.view();
        self.views.timeline.timeline.set_cursor(m.time);
        let selected = self
            .views
            .topics
            .list
            .selected_row()
            .map(|r| r.topic.clone());
        match topic {
            Some(topic) if selected.as_ref() != Some(&topic) => {
                if !self.views.topics.list.select_topic(&topic) {
                    self.views.topics.list.set_filter("");
                    self.views.topics.list.select_topic(&topic);
                }
                self.views
                    .topics
                    .list
                    .scroll_into_view(self.layout.topics_rows());
                self.topic_changed();
            }
            _ => {
                if self.views.timeline.timeline.view() != view {
                    self.refresh_histogram();
                }
                self.cursor_moved();
            }
        }
        if step.wrapped {
            let unit = self.views.search.search.unit();
            let end = if forward {
                format!("wrapped to the first {unit}")
            } else {
                format!("wrapped to the last {unit}")
            };
            self.flash(end, false);
        }
        true
    }
}
