//! The application state ([`App`]) and how actions change it. What each pane shows is a model
//! in `model/` (plain data, drawn by `panes/`); `App` holds them, routes each action by the
//! input mode, asks the worker and the background threads for data, and applies their replies
//! while they are still current (replies to an older request are dropped). The routing and the
//! layout are here; each concern has its own `impl App` block in a file beside:
//!
//! - keys, the mouse and the prompts (`input`); the timeline's scope, `a` (`lanes`);
//! - what the selection fetches and the worker's replies (`fetch`); reading in full, `d` and
//!   `w` (`reading`); comparing messages, `m` and `D` (`diff`); the picture preview (`picture`);
//! - the plot pane (`plot`), XY mode's picture (`xy_view`), series that grow with a followed
//!   recording (`plot_growth`), the bandwidth over the visible window (`view_bandwidth`);
//! - the topic filter's background results (`filter`), the content search (`search`), the log
//!   view (`log`), the health view (`health`);
//! - following a growing recording (`follow`), exploring a bag while its recovery scan runs
//!   (`scan`);
//! - playback (`playback`), ROS publishing (`publishing`), export and clipboard (`output`).

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
mod publishing;
mod reading;
mod scan;
mod search;
mod view_bandwidth;
mod xy_view;
pub use follow::FollowState;

use std::path::PathBuf;

use ratatui::layout::{Position, Rect};

use crate::catalog::Catalog;
use crate::time::RosTime;

use super::action::{Action, Pane};
use super::jobs::notify::Notify;
use super::jobs::publish::{self, Publisher, Publishing, RosEvent};
use super::jobs::worker::Worker;
use super::jobs::worker::pending::Pending;
use super::keymap::KeyMap;
use super::layout::{Layout, layout};
use super::model::histogram::Histogram;
use super::model::inspector::Inspector;
use super::model::messages::MessageList;
use super::model::plots::Plots;
use super::model::timefmt::TimeFormat;
use super::model::timeline::Timeline;
use super::model::topics::TopicList;

pub use playback::Play;

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
    /// The question before `p` publishes ([`App::publish_plan`]).
    ConfirmPublish,
}

/// A short message in the status bar.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Flash {
    /// Text.
    pub text: String,
    /// Shown as an error.
    pub error: bool,
}

pub use super::model::health::HealthView;

/// The whole application state.
pub struct App {
    /// The bags.
    pub catalog: Catalog,
    /// Shown in the title (e.g. that this is the bundled demo bag).
    pub note: Option<String>,
    /// Key bindings.
    pub keymap: KeyMap,
    /// Topic list.
    pub topics: TopicList,
    /// Time axis.
    pub timeline: Timeline,
    /// How times are shown.
    pub time_format: TimeFormat,
    /// Histogram of all topics instead of the selected one.
    pub hist_all: bool,
    /// The histogram for the current window and width.
    pub histogram: Histogram,
    /// One lane per shown topic instead of the histogram (`a`'s third state), when shown.
    pub lanes: Option<super::model::lanes::Lanes>,
    /// Messages of the selected topic.
    pub messages: MessageList,
    /// The decoded message.
    pub inspector: Inspector,
    /// The health view.
    pub health: HealthView,
    /// Focused pane.
    pub focus: Pane,
    /// Input mode.
    pub mode: Mode,
    /// Text of the filter or jump prompt.
    pub prompt: String,
    /// Status bar message.
    pub flash: Option<Flash>,
    /// Terminal size.
    pub area: Rect,
    /// Where each pane is.
    pub layout: Layout,
    /// Set when the user quits.
    pub quit: bool,
    /// Escape sequences to write after the next draw (OSC 52 clipboard).
    pub outbox: Vec<String>,
    /// Marked interval (start, end), either end possibly unset.
    pub marks: (Option<RosTime>, Option<RosTime>),
    /// Playback, when started.
    pub play: Option<Play>,
    /// First line of the help overlay shown.
    pub help_scroll: usize,
    /// Where exported intervals and saved messages go (the current directory by default).
    pub output_dir: PathBuf,
    /// How `p` publishes into the ROS graph (namespace, rate, node configuration).
    pub publish_settings: publish::Settings,
    /// Bags that could not be opened (`FILE: WHAT`), counted as warnings in the status bar.
    pub unopened: Vec<String>,
    /// The latest ROS publishing run, as shown in the status bar.
    pub publishing: Option<Publishing>,
    /// What `p` would publish, while the user is asked.
    pub publish_plan: Option<super::model::publish_plan::PublishPlan>,
    /// The plotted series (the plot pane under the timeline).
    pub plots: Plots,
    /// Message definitions for decoding plotted fields (the `--msg-path` ones and bundled).
    pub registry: crate::msg::Registry,
    /// The series still being computed, by label.
    plot_jobs: std::collections::HashMap<String, crate::tui::jobs::plotter::PlotJob>,
    /// Where series threads report (set by the event loop).
    plot_notify: Option<Notify<crate::tui::jobs::plotter::PlotNews>>,
    next_plot_id: u64,
    /// XY mode's picture, made in the background.
    xy_view: xy_view::XyView,
    /// The bandwidth over the window, summed in the background.
    view_bandwidth: view_bandwidth::ViewBandwidth,
    publisher: Option<Publisher>,
    /// Where the ROS publisher reports (set by the event loop; without it `p` cannot publish).
    ros: Option<Notify<RosEvent>>,
    worker: Worker,
    /// The log view (`r`).
    pub log: super::model::log::LogView,
    /// The message marked with `m` to compare others with.
    pub diff_mark: Option<super::jobs::worker::decode::Inspected>,
    /// The text overlay (`d`, `w`).
    pub text_view: super::model::text_view::TextView,
    /// The log lines being read in the background.
    log_job: Option<super::jobs::logger::LogJob>,
    /// The latest worker request of each kind: replies to older ones are dropped.
    requests: Pending,
    /// The picture preview in the inspector (`i`).
    pub picture: super::model::picture::PicturePreview,
    /// The content search (`f`, `n`, `N`) and its matches.
    pub search: super::model::search::Search,
    /// The running search.
    finder: search::Finder,
    /// Following a growing recording (`F`).
    pub follow: FollowState,
    /// Bytes per topic over the visible window while zoomed (the topic list's bandwidth).
    pub view_bytes: Option<crate::catalog::window_bytes::WindowBytes>,
    /// The plotted series extended as a followed recording grows.
    plot_growth: plot_growth::PlotGrowth,
    /// The recovery scan of a bag shown while it runs.
    pub scan: super::model::scan::ScanState,
    scan_clock: scan::ScanClock,
}

impl App {
    /// A new app over `catalog` of `width`×`height`, asking `worker` for data.
    pub fn new(catalog: Catalog, worker: Worker, width: u16, height: u16) -> App {
        let rows = follow::topic_rows(&catalog);
        let start = catalog.start_time().unwrap_or(RosTime::MIN);
        let end = catalog.end_time().unwrap_or(start);
        let area = Rect::new(0, 0, width, height);
        let mut app = App {
            note: None,
            keymap: KeyMap::default(),
            topics: TopicList::new(rows),
            timeline: Timeline::new(start, end),
            time_format: TimeFormat::default(),
            hist_all: false,
            histogram: Histogram::default(),
            lanes: None,
            messages: MessageList::default(),
            inspector: Inspector::default(),
            health: HealthView::default(),
            focus: Pane::Topics,
            mode: Mode::Normal,
            prompt: String::new(),
            flash: None,
            area,
            layout: layout(area, Pane::Topics, false),
            quit: false,
            outbox: Vec::new(),
            marks: (None, None),
            play: None,
            output_dir: PathBuf::from("."),
            publish_settings: publish::Settings::default(),
            publishing: None,
            publish_plan: None,
            plots: Plots::default(),
            registry: crate::msg::Registry::bundled(),
            plot_jobs: std::collections::HashMap::new(),
            plot_notify: None,
            next_plot_id: 0,
            xy_view: xy_view::XyView::default(),
            view_bandwidth: view_bandwidth::ViewBandwidth::default(),
            unopened: Vec::new(),
            publisher: None,
            ros: None,
            help_scroll: 0,
            worker,
            log: super::model::log::LogView::default(),
            log_job: None,
            text_view: super::model::text_view::TextView::default(),
            diff_mark: None,
            requests: Pending::default(),
            picture: super::model::picture::PicturePreview::default(),
            search: super::model::search::Search::default(),
            finder: search::Finder::default(),
            follow: FollowState::default(),
            view_bytes: None,
            plot_growth: plot_growth::PlotGrowth::default(),
            scan: super::model::scan::ScanState::default(),
            scan_clock: scan::ScanClock::default(),
            catalog,
        };
        let iw = app.layout.inspector.width.saturating_sub(2) as usize;
        app.inspector.set_width(iw, app.time_format, app.start());
        app.topic_changed();
        app
    }

    /// Where the ROS publisher thread started by `p` reports (the event loop's channel).
    pub fn set_ros_notify(&mut self, ros: Notify<RosEvent>) {
        self.ros = Some(ros);
    }

    /// Start of the catalog (for offsets).
    pub fn start(&self) -> RosTime {
        self.timeline.bounds().0
    }

    /// Applies an action; returns true when the screen must be redrawn.
    pub fn apply(&mut self, action: Action) -> bool {
        let redraw = self.apply_action(action);
        self.sync_xy();
        redraw
    }

    /// [`App::apply`] without the follow-ups every change of state has.
    fn apply_action(&mut self, action: Action) -> bool {
        match (action, self.mode) {
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
        match self.mode {
            Mode::Filter | Mode::Jump => return self.prompt_action(action),
            Mode::Help => return self.help_action(action),
            Mode::Health => return self.health_action(action),
            Mode::Log => return self.log_action(action),
            Mode::LogPrompt => return self.log_prompt_action(action),
            Mode::Text => return self.text_action(action),
            Mode::Find => return self.find_prompt_action(action),
            Mode::ConfirmPublish => return self.confirm_publish_action(action),
            Mode::Normal => {}
        }
        self.flash = None;
        match action {
            Action::ToggleHelp => self.mode = Mode::Help,
            Action::ToggleHealth => self.mode = Mode::Health,
            Action::FocusNext | Action::FocusPrev => self.cycle_focus(action == Action::FocusNext),
            Action::Focus(p) => self.set_focus(p),
            Action::StartFilter => {
                self.topics.begin_filter();
                self.mode = Mode::Filter;
                self.prompt = self.topics.filter().to_string();
                self.set_focus(Pane::Topics);
            }
            Action::StartJump => {
                self.mode = Mode::Jump;
                self.prompt.clear();
            }
            Action::CycleSort => self.topics.cycle_sort(),
            Action::CycleTimeFormat => {
                self.time_format = self.time_format.next();
                self.inspector.rebuild(self.time_format, self.start());
                self.rebuild_health();
                self.flash(format!("times shown as {}", self.time_format.name()), false);
            }
            Action::ZoomIn | Action::ZoomOut | Action::ZoomReset => {
                match action {
                    Action::ZoomIn => self.timeline.zoom_in(),
                    Action::ZoomOut => self.timeline.zoom_out(),
                    _ => self.timeline.reset_zoom(),
                }
                self.refresh_histogram();
            }
            Action::ToggleHistogramScope => self.cycle_timeline_scope(),
            Action::ExpandAll | Action::CollapseAll => {
                self.inspector
                    .set_all(action == Action::ExpandAll, self.time_format, self.start());
            }
            Action::MarkStart | Action::MarkEnd => self.mark(action == Action::MarkStart),
            Action::ExportMarked => self.export_marked(),
            Action::TogglePublish => self.toggle_publish(),
            Action::TogglePlay => self.toggle_play(std::time::Instant::now()),
            Action::Faster | Action::Slower => self.change_speed(action == Action::Faster),
            Action::CopyYaml => self.copy_yaml(),
            Action::SaveYaml => self.save_yaml(),
            Action::TogglePlotField => self.plot_selected_field(),
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
            other => return self.navigate(other),
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
        let next = if forward {
            (i + 1) % n
        } else {
            (i + n - 1) % n
        };
        self.set_focus(Pane::ORDER.get(next).copied().unwrap_or(Pane::Topics));
    }

    pub(super) fn set_focus(&mut self, pane: Pane) {
        self.focus = pane;
        let before = self.layout;
        self.layout = layout(self.area, pane, !self.plots.is_empty());
        // In the compact layout a pane becomes visible (and gets its real height) here.
        if self.layout != before {
            self.fit_viewports();
        }
    }

    /// Keeps every list's selection inside its (new) viewport and fetches what became visible.
    pub(super) fn fit_viewports(&mut self) {
        let (th, mh, ih) = (
            self.layout.topics_rows(),
            self.layout.messages_rows(),
            self.layout.inspector_rows(),
        );
        self.topics.scroll_into_view(th);
        self.messages.scroll_into_view(mh);
        let iw = self.layout.inspector.width.saturating_sub(2) as usize;
        self.inspector.set_width(iw, self.time_format, self.start());
        self.inspector.scroll_into_view(ih);
        self.request_sizes();
    }

    pub(crate) fn flash(&mut self, text: impl Into<String>, error: bool) {
        self.flash = Some(Flash {
            text: text.into(),
            error,
        });
    }

    pub(crate) fn resize(&mut self, w: u16, h: u16) -> bool {
        self.area = Rect::new(0, 0, w, h);
        self.layout = layout(self.area, self.focus, !self.plots.is_empty());
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
