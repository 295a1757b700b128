//! The health view's keys: opening it (`!`, which also dismisses the errors it lists), moving
//! through its lines, `Enter` on a topic or a gap, and rebuilding its lines when the report,
//! the width or the time format changes.

use super::super::action::Action;
use super::super::model::health::{self, Context};
use super::{App, Mode};

impl App {
    /// Rows of the health view's list (inside its border, above the status bar).
    pub fn health_rows(&self) -> usize {
        // The scan's banner takes the first lines while the bag is still being scanned.
        let width = self.area.width.saturating_sub(2) as usize;
        let banner = self
            .jobs
            .scan
            .banner()
            .map_or(0, |b| crate::tui::text::wrap(&b, width, 2).len());
        (self.area.height.saturating_sub(3) as usize)
            .saturating_sub(banner)
            .max(1)
    }

    /// `!`: opens the health view, its lines current (the session's messages first); the
    /// errors it lists are dismissed from the status bar.
    pub(crate) fn open_health(&mut self) {
        self.overlays.health.session.dismiss();
        self.flash = None;
        self.rebuild_health();
        self.overlays.mode = Mode::Health;
    }

    /// Lays the health report out again for the current width and time format.
    pub(crate) fn rebuild_health(&mut self) {
        let Some(report) = &self.overlays.health.report else {
            // No report yet: the session's messages only (under the progress line).
            let width = self.area.width.saturating_sub(2) as usize;
            self.overlays.health.lines =
                health::session_lines(&self.overlays.health.session, width);
            let rows = self.health_rows();
            self.overlays.health.scroll_into_view(rows);
            return;
        };
        let bags: Vec<String> = self
            .catalog
            .bags()
            .iter()
            .map(|b| b.path().display().to_string())
            .collect();
        let cx = Context {
            width: self.area.width.saturating_sub(2) as usize,
            time_format: self.settings.time_format,
            start: self.start(),
            bags: &bags,
            rows: self.views.topics.list.rows(),
            unopened: &self.settings.unopened,
            session: &self.overlays.health.session,
        };
        let built = health::build(report, &cx);
        self.overlays.health.lines = built.lines;
        self.overlays.health.name_width = built.name_width;
        self.overlays.health.topic_bags = built.topic_bags;
        let rows = self.health_rows();
        self.overlays.health.scroll_into_view(rows);
    }

    /// Keys in the health view.
    pub(crate) fn health_action(&mut self, action: Action) -> bool {
        match action {
            Action::Enter => return self.go_to_health_target(),
            Action::Resize(w, h) => return self.resize(w, h),
            _ => {}
        }
        let mut ctx = self.handle_ctx(self.health_rows());
        let handled = self.overlays.health_handle(action, &mut ctx);
        self.apply_effects(handled, ctx.effects)
    }

    /// `Enter` in the health view: selects the line's topic (clearing a filter that hides
    /// it), moves the cursor to its gap, and closes the view.
    fn go_to_health_target(&mut self) -> bool {
        let Some(target) = self.overlays.health.target() else {
            return false;
        };
        if !self.views.topics.list.select_topic(&target.topic) {
            self.views.topics.list.set_filter("");
            self.overlays.prompt.clear();
            self.views.topics.list.select_topic(&target.topic);
        }
        self.views
            .topics
            .list
            .scroll_into_view(self.layout.topics_rows());
        if let Some(t) = target.time {
            self.views.timeline.timeline.set_cursor(t);
        }
        self.overlays.mode = Mode::Normal;
        self.topic_changed();
        true
    }
}
