//! What is shown over the main view and what keys do meanwhile ([`Mode`]): the help, the
//! health view, the log view, the text overlay, the prompts and the question before `p`
//! publishes, with their state ([`Overlays`]).

use super::handle::{Ctx, Effect, Handled, scroll_delta};
use crate::tui::action::Action;
use crate::tui::model::health::HealthView;
use crate::tui::model::publish_plan::PublishPlan;
use crate::tui::model::text_view::TextView;

/// What keys currently do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Browsing.
    Normal,
    /// Typing a topic filter.
    Filter,
    /// Typing a time to jump to.
    Jump,
    /// The help overlay.
    Help,
    /// The health view.
    Health,
    /// The log view.
    Log,
    /// Typing a filter of the log view.
    LogPrompt,
    /// The text overlay (`d`, `w`).
    Text,
    /// Typing a search expression (`f`).
    Find,
    /// Typing a series to plot (`P`).
    PlotPrompt,
    /// The question before `p` publishes ([`Overlays::publish_plan`]).
    ConfirmPublish,
    /// Typing the directory `E` writes to (the default one cannot be written).
    ExportDir,
}

/// The overlays' state.
pub struct Overlays {
    /// Input mode: which overlay or prompt is open, if any.
    pub mode: Mode,
    /// Text of the filter or jump prompt.
    pub prompt: String,
    /// First line of the help overlay shown.
    pub help_scroll: usize,
    /// The health view.
    pub health: HealthView,
    /// The text overlay (`d`, `w`).
    pub text: TextView,
    /// What `p` would publish, while the user is asked.
    pub publish_plan: Option<PublishPlan>,
}

impl Default for Overlays {
    fn default() -> Overlays {
        Overlays {
            mode: Mode::Normal,
            prompt: String::new(),
            help_scroll: 0,
            health: HealthView::default(),
            text: TextView::default(),
            publish_plan: None,
        }
    }
}

impl Overlays {
    /// Edits the prompt's text when `action` is a text edit (a character, Backspace, clear);
    /// false for any other action.
    pub fn edit_prompt(&mut self, action: Action) -> bool {
        match action {
            Action::Input(c) => self.prompt.push(c),
            Action::Backspace => {
                self.prompt.pop();
            }
            Action::ClearInput => self.prompt.clear(),
            _ => return false,
        }
        true
    }

    /// Keys while the help overlay is shown.
    pub fn help_handle(&mut self, action: Action, ctx: &mut Ctx) -> Handled {
        match action {
            Action::ToggleHelp | Action::Back | Action::Enter => {
                self.help_scroll = 0;
                ctx.then(Effect::Close)
            }
            Action::Up | Action::PageUp => {
                let by = if action == Action::Up { 1 } else { 10 };
                self.help_scroll = self.help_scroll.saturating_sub(by);
                Handled::Yes
            }
            Action::Down | Action::PageDown => {
                let by = if action == Action::Down { 1 } else { 10 };
                self.help_scroll = (self.help_scroll + by).min(60);
                Handled::Yes
            }
            _ => Handled::No,
        }
    }

    /// Keys while the text overlay (`d`, `w`, `D`) is shown, in a viewport of `ctx.rows`.
    pub fn text_handle(&mut self, action: Action, ctx: &mut Ctx) -> Handled {
        match action {
            Action::Back
            | Action::ShowDefinition
            | Action::ShowLongValue
            | Action::ShowDiff
            | Action::Enter => ctx.then(Effect::Close),
            a => match scroll_delta(a, ctx.rows) {
                Some(d) => {
                    self.text.scroll_by(d, ctx.rows);
                    Handled::Yes
                }
                None => Handled::No,
            },
        }
    }

    /// Keys while the health view is shown, in a viewport of `ctx.rows` (`Enter`, which
    /// leaves for a topic, is the app's).
    pub fn health_handle(&mut self, action: Action, ctx: &mut Ctx) -> Handled {
        match action {
            Action::ToggleHealth | Action::Back => ctx.then(Effect::Close),
            Action::ToggleHelp => ctx.then(Effect::ShowHelp),
            Action::Scroll(..) => Handled::No,
            a => match scroll_delta(a, ctx.rows) {
                Some(d) => {
                    self.health.move_by(d, ctx.rows);
                    Handled::Yes
                }
                None => Handled::No,
            },
        }
    }
}
