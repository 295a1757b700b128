//! The application ([`App`]): routing state only — the catalog, the session's [`Settings`],
//! the focus, the overlays, the [`Views`] (each owning its state, in `tui/view/`), the
//! background side ([`Jobs`]), the status message, the layout and the outbox. `App` routes
//! each action by the input mode (the open overlay, else the focused view, else the global
//! keys), asks the worker and the background threads for data, and applies their replies
//! while they are still current (replies to an older request are dropped). Views answer
//! movement keys themselves and queue [`Effect`](super::view::handle::Effect)s that `App`
//! applies (`input`). What crosses views has its own `impl App` block in a file beside:
//!
//! - keys, the mouse and the prompts (`input`); the timeline's scope, `a` (`lanes`);
//! - what the selection fetches and the worker's replies (`fetch`); reading in full, `d` and
//!   `w` (`reading`); comparing messages, `m` and `D` (`diff`); the picture preview (`picture`);
//! - the plot pane (`plot`), its keys and the `P` prompt (`plot_pane`), XY mode's picture
//!   (`xy_view`), series that grow with a followed recording (`plot_growth`), the bandwidth
//!   over the visible window (`view_bandwidth`);
//! - the topic filter's background results (`filter`), the content search (`search`), the log
//!   view (`log`), the health view (`health`);
//! - following a growing recording (`follow`), exploring a bag while its recovery scan runs
//!   (`scan`), and the background side's state (`background`);
//! - playback (`playback`), ROS publishing (`publishing`), export and clipboard (`output`).

mod background;
mod diff;
mod fetch;
mod filter;
mod follow;
mod health;
mod input;
mod lanes;
mod log;
mod output;
mod picture;
mod playback;
mod plot;
mod plot_growth;
mod plot_pane;
mod publishing;
mod reading;
mod scan;
mod search;
mod view_bandwidth;
mod xy_view;

use std::path::PathBuf;

use ratatui::layout::{Position, Rect};

use crate::catalog::Catalog;
use crate::time::RosTime;

use super::action::{Action, Pane};
use super::jobs::notify::Notify;
use super::jobs::publish::{self, RosEvent};
use super::jobs::worker::Worker;
use super::keymap::KeyMap;
use super::layout::{Layout, layout};
use super::model::messages::MessageList;
use super::model::timefmt::TimeFormat;
use super::model::topic_row::topic_rows;
use super::model::topics::TopicList;
use super::view::find::SearchView;
use super::view::inspector::InspectorView;
use super::view::log::LogPane;
use super::view::overlays::Overlays;
use super::view::plot::PlotView;
use super::view::timeline::TimelineView;
use super::view::topics::TopicsView;

pub use super::model::play::Play;

pub use super::view::overlays::Mode;
pub use super::view::status::Flash;
pub use background::{FollowState, Jobs};

/// What the user chose for this session: keys, how times are shown, where output goes, how
/// `p` publishes, the definitions to decode with, and what the title and status bar note.
pub struct Settings {
    /// Key bindings.
    pub keymap: KeyMap,
    /// How times are shown.
    pub time_format: TimeFormat,
    /// Where exported intervals and saved messages go (the current directory by default).
    pub output_dir: PathBuf,
    /// How `p` publishes into the ROS graph (namespace, rate, node configuration).
    pub publish: publish::Settings,
    /// Message definitions for decoding plotted fields (the `--msg-path` ones and bundled).
    pub registry: crate::msg::Registry,
    /// Shown in the title (e.g. that this is the bundled demo bag).
    pub note: Option<String>,
    /// Bags that could not be opened (`FILE: WHAT`), counted as warnings in the status bar.
    pub unopened: Vec<String>,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            keymap: KeyMap::default(),
            time_format: TimeFormat::default(),
            output_dir: PathBuf::from("."),
            publish: publish::Settings::default(),
            registry: crate::msg::Registry::bundled(),
            note: None,
            unopened: Vec::new(),
        }
    }
}

/// The views of the main screen, each owning its state.
pub struct Views {
    /// The topic list.
    pub topics: TopicsView,
    /// The timeline (histogram or lanes).
    pub timeline: TimelineView,
    /// Messages of the selected topic.
    pub messages: MessageList,
    /// The decoded message, its picture and the diff mark.
    pub inspector: InspectorView,
    /// The plot pane.
    pub plot: PlotView,
    /// The log view (`r`).
    pub log: LogPane,
    /// The content search (`f`).
    pub search: SearchView,
}

/// The whole application state: what routes actions and applies effects. Each view owns
/// its state ([`Views`]); the background side is in [`Jobs`].
pub struct App {
    /// The bags.
    pub catalog: Catalog,
    /// The session's settings.
    pub settings: Settings,
    /// Focused pane.
    pub focus: Pane,
    /// What is open over the main view, and its state.
    pub overlays: Overlays,
    /// The views of the main screen.
    pub views: Views,
    /// The worker and the other background threads.
    pub jobs: Jobs,
    /// Status bar message.
    pub flash: Option<Flash>,
    /// Terminal size.
    pub area: Rect,
    /// Where each pane is.
    pub layout: Layout,
    /// Escape sequences to write after the next draw (OSC 52 clipboard).
    pub outbox: Vec<String>,
    /// Set when the user quits.
    pub quit: bool,
}

impl App {
    /// A new app over `catalog` of `width`×`height`, asking `worker` for data.
    pub fn new(catalog: Catalog, worker: Worker, width: u16, height: u16) -> App {
        let rows = topic_rows(&catalog);
        let start = catalog.start_time().unwrap_or(RosTime::MIN);
        let end = catalog.end_time().unwrap_or(start);
        let area = Rect::new(0, 0, width, height);
        let mut app = App {
            catalog,
            settings: Settings::default(),
            focus: Pane::Topics,
            overlays: Overlays::default(),
            views: Views {
                topics: TopicsView {
                    list: TopicList::new(rows),
                    bytes: None,
                },
                timeline: TimelineView::new(start, end),
                messages: MessageList::default(),
                inspector: InspectorView::default(),
                plot: PlotView::default(),
                log: LogPane::default(),
                search: SearchView::default(),
            },
            jobs: Jobs::new(worker),
            flash: None,
            area,
            layout: layout(area, Pane::Topics, false),
            outbox: Vec::new(),
            quit: false,
        };
        let iw = app.layout.inspector.width.saturating_sub(2) as usize;
        app.views
            .inspector
            .tree
            .set_width(iw, app.settings.time_format, app.start());
        app.topic_changed();
        app
    }

    /// Where the ROS publisher thread started by `p` reports (the event loop's channel).
    pub fn set_ros_notify(&mut self, ros: Notify<RosEvent>) {
        self.jobs.ros = Some(ros);
    }

    /// Start of the catalog (for offsets).
    pub fn start(&self) -> RosTime {
        self.views.timeline.timeline.bounds().0
    }

    /// Applies an action; returns true when the screen must be redrawn.
    pub fn apply(&mut self, action: Action) -> bool {
        // What goes wrong now answers this key: shown at once, gone at the next key.
        self.overlays.health.session.set_answering(true);
        let redraw = self.apply_action(action);
        self.sync_xy();
        self.overlays.health.session.set_answering(false);
        redraw
    }

    /// [`App::apply`] without the follow-ups every change of state has.
    fn apply_action(&mut self, action: Action) -> bool {
        match (action, self.overlays.mode) {
            // `q` closes what is shown over the main view; it leaves only from there.
            (Action::ForceQuit, _) | (Action::Quit, Mode::Normal) => {
                self.quit = true;
                return true;
            }
            (Action::Quit, Mode::Help | Mode::Health | Mode::Log | Mode::Text) => {
                return self.apply_action(Action::Back);
            }
            _ => {}
        }
        match self.overlays.mode {
            Mode::Filter | Mode::Jump => return self.prompt_action(action),
            Mode::Help => return self.help_action(action),
            Mode::Health => return self.health_action(action),
            Mode::Log => return self.log_action(action),
            Mode::LogPrompt => return self.log_prompt_action(action),
            Mode::Text => return self.text_action(action),
            Mode::Find => return self.find_prompt_action(action),
            Mode::PlotPrompt => return self.plot_prompt_action(action),
            Mode::ConfirmPublish => return self.confirm_publish_action(action),
            Mode::ExportDir => return self.export_dir_action(action),
            Mode::Normal => {}
        }
        // A message goes at the next key; an error that came on its own stays until Esc (or
        // `!`, which lists it).
        self.flash = self.pending_error();
        if action == Action::Back && self.flash.is_some() {
            self.overlays.health.session.dismiss();
            self.flash = None;
            return true;
        }
        // The focused view first, then the global keys.
        if let Some(redraw) = self.offer_focused(action) {
            return redraw;
        }
        match action {
            Action::ToggleHelp => self.overlays.mode = Mode::Help,
            Action::ToggleHealth => self.open_health(),
            Action::FocusNext | Action::FocusPrev => self.cycle_focus(action == Action::FocusNext),
            Action::Focus(p) => self.set_focus(p),
            Action::StartFilter => {
                self.views.topics.list.begin_filter();
                self.overlays.mode = Mode::Filter;
                self.overlays.prompt = self.views.topics.list.filter().to_string();
                self.set_focus(Pane::Topics);
            }
            Action::StartJump => {
                self.overlays.mode = Mode::Jump;
                self.overlays.prompt.clear();
            }
            Action::CycleSort => self.views.topics.list.cycle_sort(),
            Action::CycleTimeFormat => {
                self.settings.time_format = self.settings.time_format.next();
                self.views
                    .inspector
                    .tree
                    .rebuild(self.settings.time_format, self.start());
                self.rebuild_health();
                self.flash(
                    format!("times shown as {}", self.settings.time_format.name()),
                    false,
                );
            }
            Action::ZoomIn | Action::ZoomOut | Action::ZoomReset => {
                match action {
                    Action::ZoomIn => self.views.timeline.timeline.zoom_in(),
                    Action::ZoomOut => self.views.timeline.timeline.zoom_out(),
                    _ => self.views.timeline.timeline.reset_zoom(),
                }
                self.refresh_histogram();
            }
            Action::ToggleHistogramScope => self.cycle_timeline_scope(),
            Action::ExpandAll | Action::CollapseAll => {
                self.views.inspector.tree.set_all(
                    action == Action::ExpandAll,
                    self.settings.time_format,
                    self.start(),
                );
            }
            Action::MarkStart | Action::MarkEnd => self.mark(action == Action::MarkStart),
            Action::ExportMarked => self.export_marked(),
            Action::TogglePublish => self.toggle_publish(),
            Action::TogglePlay => self.toggle_play(std::time::Instant::now()),
            Action::Faster | Action::Slower => self.change_speed(action == Action::Faster),
            Action::CopyYaml => self.copy_yaml(),
            Action::SaveYaml => self.save_yaml(),
            Action::PlotPrompt => self.start_plot_prompt(),
            Action::TogglePlotScale => self.toggle_plot_scale(),
            Action::ToggleLog => self.open_log(),
            Action::ShowDefinition => self.show_definition(),
            Action::ShowLongValue => self.show_long_value(),
            Action::MarkForDiff => self.mark_for_diff(),
            Action::ShowDiff => self.show_diff(),
            Action::TogglePicture => self.toggle_picture(),
            Action::TogglePlotXy => self.toggle_plot_xy(),
            Action::StartFind => self.start_find(),
            Action::NextMatch | Action::PrevMatch => {
                return self.go_to_match(action == Action::NextMatch);
            }
            Action::ToggleFollow => self.toggle_follow(),
            Action::Back => return self.back(),
            Action::Resize(w, h) => return self.resize(w, h),
            Action::Click(x, y) => return self.click(x, y),
            Action::Scroll(x, y, down) => {
                if let Some(p) = self.layout.pane_at(x, y) {
                    self.set_focus(p);
                }
                return self.navigate(if down { Action::Down } else { Action::Up });
            }
            _ => return false,
        }
        true
    }

    /// Tab / Shift-Tab: the next (or previous) pane.
    fn cycle_focus(&mut self, forward: bool) {
        let i = Pane::ORDER
            .iter()
            .position(|p| *p == self.focus)
            .unwrap_or(0);
        let n = Pane::ORDER.len();
        let mut next = i;
        for _ in 0..n {
            next = if forward {
                (next + 1) % n
            } else {
                (next + n - 1) % n
            };
            // The plot is a pane only while something is plotted.
            if Pane::ORDER.get(next) != Some(&Pane::Plot) || self.shows_plot() {
                break;
            }
        }
        self.set_focus(Pane::ORDER.get(next).copied().unwrap_or(Pane::Topics));
    }

    pub(super) fn set_focus(&mut self, pane: Pane) {
        if pane == Pane::Plot && !self.shows_plot() {
            self.flash(
                "nothing is plotted: P plots a field or an expression",
                false,
            );
            return;
        }
        self.focus = pane;
        let before = self.layout;
        self.layout = layout(self.area, pane, self.shows_plot());
        // In the compact layout a pane becomes visible (and gets its real height) here.
        if self.layout != before {
            self.fit_viewports();
            self.refresh_histogram();
        }
    }

    /// Keeps every list's selection inside its (new) viewport and fetches what became visible.
    pub(super) fn fit_viewports(&mut self) {
        let (th, mh, ih) = (
            self.layout.topics_rows(),
            self.layout.messages_rows(),
            self.layout.inspector_rows(),
        );
        self.views.topics.list.scroll_into_view(th);
        self.views.messages.scroll_into_view(mh);
        let iw = self.layout.inspector.width.saturating_sub(2) as usize;
        self.views
            .inspector
            .tree
            .set_width(iw, self.settings.time_format, self.start());
        self.views.inspector.tree.scroll_into_view(ih);
        self.request_sizes();
    }

    /// Shows `text` in the status bar (until the next key; an error that does not answer a
    /// key until dismissed) and lists it in the health view.
    pub(crate) fn flash(&mut self, text: impl Into<String>, error: bool) {
        let text = text.into();
        let pending = self.overlays.health.session.record(&text, error);
        self.flash = if pending {
            self.pending_error()
        } else {
            Some(Flash {
                text,
                error,
                more: 0,
            })
        };
    }

    /// The latest error not dismissed, with the count of the others.
    fn pending_error(&self) -> Option<Flash> {
        let (text, more) = self.overlays.health.session.pending()?;
        Some(Flash {
            text: text.to_string(),
            error: true,
            more,
        })
    }

    pub(crate) fn resize(&mut self, w: u16, h: u16) -> bool {
        self.area = Rect::new(0, 0, w, h);
        self.layout = layout(self.area, self.focus, self.shows_plot());
        self.fit_viewports();
        self.refresh_histogram();
        self.rebuild_health();
        self.request_picture();
        true
    }

    /// Hit-testing helper for tests: the pane at a position.
    pub fn pane_at(&self, p: Position) -> Option<Pane> {
        self.layout.pane_at(p.x, p.y)
    }
}
