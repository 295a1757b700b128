//! The focused plot pane's keys — select a series, stop plotting it or all of them, the
//! cursor to the selected series' maximum or minimum in view — and the `P` prompt: a field or
//! an expression to plot (`/topic: field.path`, `/topic: norm(twist.twist.linear)`), prefilled
//! with the inspector's selected field (the plot pane's selected series when it is focused)
//! for the user to edit; what is wrong with it stays under the prompt, `^` at its column.

use super::{App, Mode};
use crate::catalog::series::SeriesError;
use crate::msg::path::PathError;
use crate::time::RosTime;
use crate::tui::action::{Action, Pane};
use crate::tui::model::plot::names::{field_span, field_text};
use crate::tui::model::plot::numbers::exact;
use crate::tui::model::plot::time_ns;
use crate::tui::model::plots::SpecError;

impl App {
    /// `P`: opens the plot prompt, prefilled (see [`App::plot_prompt_text`]).
    pub(super) fn start_plot_prompt(&mut self) {
        self.overlays.prompt = self.plot_prompt_text();
        self.views.plot.prompt_error = None;
        self.overlays.mode = Mode::PlotPrompt;
        // The compact layout shows the focused pane only: the plot's, for the prompt.
        if self.layout.compact && self.focus != Pane::Plot {
            self.views.plot.prompt_return = Some(self.focus);
            self.focus = Pane::Plot;
        }
        self.relayout();
    }

    /// What the plot prompt opens with: the focused plot pane's selected series, else the
    /// inspector's selected field as `/topic: field.path`, else the selected topic as
    /// `/topic: ` (the field to be typed).
    pub fn plot_prompt_text(&self) -> String {
        let plots = &self.views.plot.plots;
        if self.focus == Pane::Plot
            && let Some(e) = plots.selected_entry()
        {
            return match &e.topic {
                Some(topic) if !e.label.contains(": ") => {
                    let field = field_text(topic, &e.label).replace('/', ".");
                    format!("{}: {field}", topic.trim_end_matches('/'))
                }
                _ => e.label.clone(),
            };
        }
        let tree = &self.views.inspector.tree;
        if let (Some(data), Some(row)) = (tree.data.as_ref(), tree.selected_row())
            && row.more.is_none()
            && !row.path.is_empty()
        {
            return format!("{}: {}", data.topic.trim_end_matches('/'), row.path);
        }
        self.views
            .topics
            .list
            .selected_row()
            .map(|r| format!("{}: ", r.topic.trim_end_matches('/')))
            .unwrap_or_default()
    }

    /// Keys while the plot prompt is open.
    pub(super) fn plot_prompt_action(&mut self, action: Action) -> bool {
        match action {
            _ if self.overlays.edit_prompt(action) => self.views.plot.prompt_error = None,
            Action::Back => self.close_plot_prompt(false),
            Action::Enter => self.submit_plot_prompt(),
            Action::Resize(w, h) => return self.resize(w, h),
            _ => return false,
        }
        true
    }

    /// Closes the prompt; `plotted`: something was added (the compact layout then stays on
    /// the plot).
    fn close_plot_prompt(&mut self, plotted: bool) {
        self.overlays.mode = Mode::Normal;
        self.overlays.prompt.clear();
        self.views.plot.prompt_error = None;
        if let Some(p) = self.views.plot.prompt_return.take()
            && (!plotted || self.views.plot.plots.is_empty())
        {
            self.focus = p;
        }
        self.relayout();
    }

    /// Enter at the plot prompt: plots what was typed, or says under it what is wrong.
    fn submit_plot_prompt(&mut self) {
        let text = self.overlays.prompt.clone();
        if text.trim().is_empty() {
            self.views.plot.prompt_error = Some(SpecError {
                column: 1,
                message: "type /topic: field.path or /topic: EXPRESSION".to_string(),
            });
            return;
        }
        let request = self.plot_request(&text);
        match request {
            Ok((_, label)) => {
                if let Some(i) = self.views.plot.plots.position(&label) {
                    self.views.plot.plots.selected = i;
                    self.close_plot_prompt(true);
                    self.flash(
                        format!("{label} is plotted already (x in the plot pane removes it)"),
                        false,
                    );
                    return;
                }
                match self.plot_field(&text) {
                    Ok(_) => self.close_plot_prompt(true),
                    Err(e) => self.views.plot.prompt_error = Some(spec_error(&text, &e)),
                }
            }
            Err(e) => self.views.plot.prompt_error = Some(spec_error(&text, &e)),
        }
    }

    /// Offers `action` to the focused plot pane: `None` when it is not one of its keys.
    pub(super) fn offer_plot(&mut self, action: Action) -> Option<bool> {
        let plots = &mut self.views.plot.plots;
        match action {
            Action::Up | Action::Down => {
                plots.select_by(if action == Action::Up { -1 } else { 1 });
                Some(true)
            }
            Action::PageUp | Action::PageDown => {
                plots.select_by(if action == Action::PageUp { -8 } else { 8 });
                Some(true)
            }
            Action::RemovePlotSeries => {
                let Some(label) = plots.selected_entry().map(|e| e.label.clone()) else {
                    return Some(false);
                };
                self.remove_plot(&label);
                self.flash(format!("removed {label} from the plot"), false);
                Some(true)
            }
            Action::ClearPlot => {
                let labels: Vec<String> = plots.entries.iter().map(|e| e.label.clone()).collect();
                for label in &labels {
                    self.remove_plot(label);
                }
                self.flash(
                    format!("removed every series ({}) from the plot", labels.len()),
                    false,
                );
                Some(true)
            }
            Action::PlotMax | Action::PlotMin => Some(self.plot_extreme(action == Action::PlotMax)),
            Action::Left
            | Action::Right
            | Action::BigLeft
            | Action::BigRight
            | Action::Top
            | Action::Bottom => Some(self.timeline_action(action)),
            _ => None,
        }
    }

    /// `]` / `[`: the cursor to the selected series' largest (smallest) value over the
    /// visible range; the status bar gives it exactly, and when.
    fn plot_extreme(&mut self, max: bool) -> bool {
        let plots = &self.views.plot.plots;
        let Some(entry) = plots.selected_entry() else {
            return false;
        };
        let name = plots
            .names()
            .get(plots.selected)
            .cloned()
            .unwrap_or_default();
        let (v0, v1) = self.views.timeline.timeline.view();
        let which = if max { "max" } else { "min" };
        let Some((t, v)) = entry.series.extreme(time_ns(v0), time_ns(v1), max) else {
            self.flash(format!("{name}: no values in view"), false);
            return true;
        };
        let value = exact(v, entry.precision);
        let at = RosTime::from_nanos(u64::try_from(t).unwrap_or(0));
        self.views.timeline.timeline.set_cursor(at);
        self.cursor_moved();
        let when = self.settings.time_format.format(at, self.start());
        self.flash(format!("{name}: {which} {value} at {when}"), false);
        true
    }
}

/// What is wrong with `text` (typed at the prompt), at its column in `text`.
#[allow(clippy::match_wildcard_for_single_variants)]
fn spec_error(text: &str, e: &SeriesError) -> SpecError {
    // The column (1-based, in characters) where the field or expression starts.
    let start = |topic: &str| {
        field_span(topic, text).map_or(0, |(at, _)| {
            text.get(..at).map_or(0, |head| head.chars().count())
        })
    };
    let lead = text.chars().take_while(|c| c.is_whitespace()).count();
    let (column, message) = match e {
        SeriesError::Path { topic, error } => {
            (start(topic) + path_column(error), error.to_string())
        }
        SeriesError::NotPlottable { topic, .. } | SeriesError::NoSchema { topic, .. } => {
            (start(topic) + 1, e.to_string())
        }
        // `/topic: EXPRESSION`: the expression's own column, counted from where it starts
        // after the colon.
        SeriesError::Expr { error, .. } => {
            let start = text.find(':').map_or(lead, |i| {
                let after = text.get(i + 1..).unwrap_or_default();
                let head = text.get(..=i).unwrap_or_default();
                head.chars().count() + after.chars().take_while(|c| c.is_whitespace()).count()
            });
            (start + error.column, error.kind.to_string())
        }
        // No such topic, and whatever else is wrong with the whole spec: at its start.
        other => (lead + 1, other.to_string()),
    };
    SpecError { column, message }
}

/// The 1-based column of a path error in the path's text.
fn path_column(e: &PathError) -> usize {
    match e {
        PathError::Syntax { column, .. }
        | PathError::UnknownField { column, .. }
        | PathError::NotAMessage { column, .. }
        | PathError::NotAnArray { column, .. }
        | PathError::IndexOutOfRange { column, .. } => *column,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::msg::expr::Expr;

    #[test]
    fn an_expression_error_points_at_its_column_in_the_prompt() {
        let text = "/odom:  norm(x,";
        let error = Expr::parse("norm(x,").unwrap_err();
        let e = SeriesError::Expr {
            topic: "/odom".into(),
            error: Box::new(error.clone()),
        };
        let got = spec_error(text, &e);
        assert_eq!(got.column, "/odom:  ".chars().count() + error.column);
        assert_eq!(got.message, error.kind.to_string());
    }
}
