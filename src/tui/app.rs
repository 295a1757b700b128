//! The application state and how actions and worker replies change it. Panes own their logic
//! (in `model/`); `App` routes actions to them and asks the worker for data.

use std::path::PathBuf;

use crossterm::event::{Event, KeyEventKind, MouseButton, MouseEventKind};
use ratatui::layout::{Position, Rect};

use crate::catalog::{Catalog, MsgRef};
use crate::time::RosTime;

use super::action::{Action, Pane};
use super::event::AppEvent;
use super::keymap::{Context, KeyMap};
use super::layout::{Layout, layout};
use super::model::histogram::{self, Histogram};
use super::model::inspector::Inspector;
use super::model::messages::MessageList;
use super::model::timefmt::TimeFormat;
use super::model::timeline::Timeline;
use super::model::topics::{TopicList, TopicRow};
use super::publish::{self, Job, Phase, Publisher, Publishing, RosEvent, Scope};
use super::worker::{Reply, Request, Worker, YamlDone};

/// Messages fetched on each side of the cursor when a topic is selected.
const WINDOW_SIDE: usize = 200;
/// Fetch more when the selection comes this close to an edge of the window.
const WINDOW_MARGIN: usize = 20;

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

/// Playback of the timeline: the cursor moves through time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Play {
    /// Speed factor (1.0 = real time).
    pub speed: f64,
    /// When (wall clock) the current speed took effect.
    pub since: std::time::Instant,
    /// Bag time at `since`.
    pub from: RosTime,
    /// Paused.
    pub paused: bool,
}

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
    publisher: Option<Publisher>,
    events: Option<std::sync::mpsc::Sender<AppEvent>>,
    worker: Worker,
    next_id: u64,
    window_id: u64,
    sizes_id: u64,
    decode_id: u64,
    yaml_id: u64,
    export_id: u64,
}

impl App {
    /// A new app over `catalog` of `width`×`height`, asking `worker` for data.
    pub fn new(catalog: Catalog, worker: Worker, width: u16, height: u16) -> App {
        let topics = catalog.topics();
        let spans = catalog.topic_spans(&topics);
        let rows = topics
            .into_iter()
            .zip(spans)
            .map(|(t, span)| {
                let span = span.map(|(lo, hi)| hi.nanos_since(lo) as f64 / 1e9);
                let rate = span
                    .filter(|s| *s > 0.0 && t.message_count > 1)
                    .map(|s| (t.message_count - 1) as f64 / s);
                TopicRow {
                    topic: t.topic,
                    datatype: t.datatype,
                    count: t.message_count,
                    rate,
                    bytes: None,
                    connections: t.connections,
                    bags: t.bags,
                    conflicting: t.conflicting_types,
                }
            })
            .collect();
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
            messages: MessageList::default(),
            inspector: Inspector::default(),
            health: HealthView::default(),
            focus: Pane::Topics,
            mode: Mode::Normal,
            prompt: String::new(),
            flash: None,
            area,
            layout: layout(area, Pane::Topics),
            quit: false,
            outbox: Vec::new(),
            marks: (None, None),
            play: None,
            output_dir: PathBuf::from("."),
            publish_settings: publish::Settings::default(),
            publishing: None,
            unopened: Vec::new(),
            publisher: None,
            events: None,
            help_scroll: 0,
            worker,
            next_id: 0,
            window_id: 0,
            sizes_id: 0,
            decode_id: 0,
            yaml_id: 0,
            export_id: 0,
            catalog,
        };
        app.topic_changed();
        app
    }

    fn id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }

    /// Where background threads other than the worker (the ROS publisher) send their
    /// reports: the event channel of the loop. Without it, `p` cannot publish and the topic
    /// filter is always applied inline.
    pub fn set_events(&mut self, events: std::sync::mpsc::Sender<AppEvent>) {
        self.filter_in_background(events.clone());
        self.events = Some(events);
    }

    /// Start of the catalog (for offsets).
    pub fn start(&self) -> RosTime {
        self.timeline.bounds().0
    }

    /// Handles one event; returns true when the screen must be redrawn.
    pub fn handle(&mut self, event: AppEvent) -> bool {
        match event {
            AppEvent::Input(Event::Key(k)) if k.kind != KeyEventKind::Release => {
                let context = match self.mode {
                    Mode::Filter | Mode::Jump => Context::Prompt,
                    _ => Context::Global,
                };
                match self.keymap.action(k, context) {
                    Some(a) => self.apply(a),
                    None => false,
                }
            }
            AppEvent::Input(Event::Mouse(m)) => match m.kind {
                MouseEventKind::Down(MouseButton::Left) => {
                    self.apply(Action::Click(m.column, m.row))
                }
                MouseEventKind::ScrollDown => self.apply(Action::Scroll(m.column, m.row, true)),
                MouseEventKind::ScrollUp => self.apply(Action::Scroll(m.column, m.row, false)),
                _ => false,
            },
            AppEvent::Input(Event::Resize(w, h)) => self.apply(Action::Resize(w, h)),
            AppEvent::Input(Event::Paste(text))
                if matches!(self.mode, Mode::Filter | Mode::Jump) =>
            {
                for c in text.chars().filter(|c| !c.is_control()) {
                    self.apply(Action::Input(c));
                }
                true
            }
            AppEvent::Worker(reply) => self.reply(reply),
            AppEvent::Ros(event) => self.ros_event(event),
            AppEvent::Signal(_) => {
                self.quit = true;
                true
            }
            AppEvent::Tick => self.advance_play(std::time::Instant::now()),
            AppEvent::Filtered(done) => self.filtered(done),
            AppEvent::Input(_) | AppEvent::Opening(_) => false,
        }
    }

    /// Applies an action; returns true when the screen must be redrawn.
    pub fn apply(&mut self, action: Action) -> bool {
        if action == Action::Quit {
            self.quit = true;
            return true;
        }
        match self.mode {
            Mode::Filter | Mode::Jump => return self.prompt_action(action),
            Mode::Help => {
                return match action {
                    Action::ToggleHelp | Action::Back | Action::Enter => {
                        self.mode = Mode::Normal;
                        self.help_scroll = 0;
                        true
                    }
                    Action::Up | Action::PageUp => {
                        self.help_scroll = self
                            .help_scroll
                            .saturating_sub(if action == Action::Up { 1 } else { 10 });
                        true
                    }
                    Action::Down | Action::PageDown => {
                        self.help_scroll = (self.help_scroll
                            + if action == Action::Down { 1 } else { 10 })
                        .min(60);
                        true
                    }
                    Action::Resize(w, h) => self.resize(w, h),
                    _ => false,
                };
            }
            Mode::Health => return self.health_action(action),
            Mode::Normal => {}
        }
        self.flash = None;
        match action {
            Action::ToggleHelp => self.mode = Mode::Help,
            Action::ToggleHealth => self.mode = Mode::Health,
            Action::FocusNext | Action::FocusPrev => {
                let i = Pane::ORDER
                    .iter()
                    .position(|p| *p == self.focus)
                    .unwrap_or(0);
                let n = Pane::ORDER.len();
                let next = if action == Action::FocusNext {
                    (i + 1) % n
                } else {
                    (i + n - 1) % n
                };
                self.set_focus(Pane::ORDER.get(next).copied().unwrap_or(Pane::Topics));
            }
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
            Action::ZoomIn => {
                self.timeline.zoom_in();
                self.refresh_histogram();
            }
            Action::ZoomOut => {
                self.timeline.zoom_out();
                self.refresh_histogram();
            }
            Action::ZoomReset => {
                self.timeline.reset_zoom();
                self.refresh_histogram();
            }
            Action::ToggleHistogramScope => {
                self.hist_all = !self.hist_all;
                self.refresh_histogram();
            }
            Action::ExpandAll | Action::CollapseAll => {
                self.inspector
                    .set_all(action == Action::ExpandAll, self.time_format, self.start());
            }
            Action::MarkStart | Action::MarkEnd => {
                let t = self.timeline.cursor();
                if action == Action::MarkStart {
                    self.marks.0 = Some(t);
                } else {
                    self.marks.1 = Some(t);
                }
                if let (Some(a), Some(b)) = self.marks {
                    if a > b {
                        self.marks = (Some(b), Some(a));
                    }
                }
            }
            Action::ExportMarked => self.export_marked(),
            Action::TogglePublish => self.toggle_publish(),
            Action::TogglePlay => self.toggle_play(std::time::Instant::now()),
            Action::Faster | Action::Slower => {
                let now = std::time::Instant::now();
                let factor = if action == Action::Faster { 2.0 } else { 0.5 };
                let current = self.play.map_or(1.0, |p| p.speed);
                self.set_speed((current * factor).clamp(1.0 / 64.0, 1024.0), now);
            }
            Action::CopyYaml => self.copy_yaml(),
            Action::SaveYaml => self.save_yaml(),
            Action::Back => {
                if self.play.is_some() {
                    self.play = None;
                    self.flash("playback stopped", false);
                } else if self.publishing.as_ref().is_some_and(|p| !p.is_active()) {
                    self.publishing = None;
                } else if self.marks != (None, None) {
                    self.marks = (None, None);
                } else if !self.topics.filter().is_empty() {
                    self.clear_filter(false);
                } else if self.focus != Pane::Topics {
                    self.set_focus(Pane::Topics);
                } else {
                    return false;
                }
            }
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

    fn set_focus(&mut self, pane: Pane) {
        self.focus = pane;
        let before = self.layout;
        self.layout = layout(self.area, pane);
        // In the compact layout a pane becomes visible (and gets its real height) here.
        if self.layout != before {
            self.fit_viewports();
        }
    }

    /// Keeps every list's selection inside its (new) viewport and fetches what became visible.
    fn fit_viewports(&mut self) {
        let (th, mh, ih) = (
            self.layout.topics_rows(),
            self.layout.messages_rows(),
            self.layout.inspector_rows(),
        );
        self.topics.scroll_into_view(th);
        self.messages.scroll_into_view(mh);
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
        self.layout = layout(self.area, self.focus);
        self.fit_viewports();
        self.refresh_histogram();
        self.rebuild_health();
        true
    }

    fn click(&mut self, x: u16, y: u16) -> bool {
        let Some(pane) = self.layout.pane_at(x, y) else {
            return false;
        };
        self.set_focus(pane);
        let rect = self.layout.rect(pane);
        match pane {
            Pane::Topics => {
                let row = y.saturating_sub(rect.y + 2) as usize + self.topics.offset();
                if y >= rect.y + 2 {
                    self.topics.select_index(row, self.layout.topics_rows());
                    self.topic_changed();
                }
            }
            Pane::Messages => {
                if y >= rect.y + 2 && !self.messages.window.entries.is_empty() {
                    let row = (y - rect.y - 2) as usize + self.messages.offset;
                    let delta = isize::try_from(row).unwrap_or(isize::MAX)
                        - isize::try_from(self.messages.selected).unwrap_or(0);
                    self.messages.move_by(delta, self.layout.messages_rows());
                    self.message_changed(true);
                }
            }
            Pane::Histogram => {
                let inner = rect.width.saturating_sub(2) as usize;
                if x > rect.x && inner > 0 {
                    let bin = (x - rect.x - 1) as usize;
                    let t = self.timeline.time_of_bin(bin.min(inner - 1), inner);
                    self.timeline.set_cursor(t);
                    self.cursor_moved();
                }
            }
            Pane::Inspector => {
                if y > rect.y {
                    let row = (y - rect.y - 1) as usize + self.inspector.offset;
                    if row < self.inspector.rows().len() {
                        let was = self.inspector.selected == row;
                        self.inspector.selected = row;
                        if was {
                            self.inspector.toggle(self.time_format, self.start());
                        }
                    }
                }
            }
        }
        true
    }

    /// Movement keys, interpreted by the focused pane.
    fn navigate(&mut self, action: Action) -> bool {
        let page = |rows: usize| isize::try_from(rows.saturating_sub(1).max(1)).unwrap_or(1);
        match self.focus {
            Pane::Topics => {
                let h = self.layout.topics_rows();
                let before = self.topics.selected_row().map(|r| r.topic.clone());
                match action {
                    Action::Up => self.topics.move_by(-1, h),
                    Action::Down => self.topics.move_by(1, h),
                    Action::PageUp => self.topics.move_by(-page(h), h),
                    Action::PageDown => self.topics.move_by(page(h), h),
                    Action::Top => self.topics.jump(false, h),
                    Action::Bottom => self.topics.jump(true, h),
                    Action::Enter | Action::Right => {
                        self.set_focus(Pane::Messages);
                        return true;
                    }
                    Action::Left | Action::BigLeft | Action::BigRight => {
                        return self.timeline_action(action);
                    }
                    _ => return false,
                }
                if self.topics.selected_row().map(|r| r.topic.clone()) != before {
                    self.topic_changed();
                }
                true
            }
            Pane::Histogram => self.timeline_action(action),
            Pane::Messages => {
                let h = self.layout.messages_rows();
                match action {
                    Action::Up => self.messages.move_by(-1, h),
                    Action::Down => self.messages.move_by(1, h),
                    Action::PageUp => self.messages.move_by(-page(h), h),
                    Action::PageDown => self.messages.move_by(page(h), h),
                    Action::Top => {
                        self.timeline.set_cursor(self.timeline.bounds().0);
                        return self.cursor_moved();
                    }
                    Action::Bottom => {
                        self.timeline.set_cursor(self.timeline.bounds().1);
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
                let (fmt, start) = (self.time_format, self.start());
                match action {
                    Action::Up => self.inspector.move_by(-1, h),
                    Action::Down => self.inspector.move_by(1, h),
                    Action::PageUp => self.inspector.move_by(-page(h), h),
                    Action::PageDown => self.inspector.move_by(page(h), h),
                    Action::Top => self.inspector.move_by(isize::MIN / 2, h),
                    Action::Bottom => self.inspector.move_by(isize::MAX / 2, h),
                    Action::Enter => self.inspector.toggle(fmt, start),
                    Action::Right => self.inspector.set_expanded(true, fmt, start),
                    Action::Left => self.inspector.set_expanded(false, fmt, start),
                    _ => return false,
                }
                self.inspector.scroll_into_view(h);
                true
            }
        }
    }

    fn timeline_action(&mut self, action: Action) -> bool {
        let width = self.layout.histogram_width();
        match action {
            Action::Left => self.timeline.step(-1, width),
            Action::Right => self.timeline.step(1, width),
            Action::BigLeft | Action::PageUp => self.timeline.step(-10, width),
            Action::BigRight | Action::PageDown => self.timeline.step(10, width),
            Action::Top => self.timeline.set_cursor(self.timeline.bounds().0),
            Action::Bottom => self.timeline.set_cursor(self.timeline.bounds().1),
            Action::Up => {
                self.topics.move_by(-1, self.layout.topics_rows());
                self.topic_changed();
                return true;
            }
            Action::Down => {
                self.topics.move_by(1, self.layout.topics_rows());
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

    fn prompt_action(&mut self, action: Action) -> bool {
        match action {
            Action::Input(c) => self.prompt.push(c),
            Action::Backspace => {
                self.prompt.pop();
            }
            Action::ClearInput => self.prompt.clear(),
            Action::Back => {
                if self.mode == Mode::Filter {
                    self.clear_filter(true);
                }
                self.mode = Mode::Normal;
                return true;
            }
            Action::Enter => {
                let mode = self.mode;
                self.mode = Mode::Normal;
                if mode == Mode::Jump {
                    let text = std::mem::take(&mut self.prompt);
                    match super::model::timefmt::jump_target(
                        &text,
                        self.timeline.bounds(),
                        self.time_format,
                    ) {
                        Ok(t) => {
                            self.timeline.set_cursor(t);
                            self.cursor_moved();
                        }
                        Err(e) => self.flash(e, true),
                    }
                }
                return true;
            }
            Action::Up | Action::Down if self.mode == Mode::Filter => {
                let d = if action == Action::Up { -1 } else { 1 };
                self.topics.move_by(d, self.layout.topics_rows());
                self.topic_changed();
                return true;
            }
            Action::Resize(w, h) => return self.resize(w, h),
            _ => return false,
        }
        if self.mode == Mode::Filter {
            let text = self.prompt.clone();
            self.topics.set_filter(&text);
            if !self.topics.is_filtering() {
                self.topic_changed();
            }
        }
        true
    }

    /// Clears the topic filter, keeping the selected topic (`cancel`: the one selected before
    /// filtering).
    fn clear_filter(&mut self, cancel: bool) {
        self.topics.clear_filter(cancel);
        self.topics.scroll_into_view(self.layout.topics_rows());
        self.topic_changed();
    }

    /// The selected topic changed: new histogram, new message window.
    pub(crate) fn topic_changed(&mut self) {
        self.refresh_histogram();
        let Some(row) = self.topics.selected_row().cloned() else {
            self.messages = MessageList::default();
            return;
        };
        self.messages = MessageList {
            topic: Some(row.topic.clone()),
            loading: true,
            ..MessageList::default()
        };
        let id = self.id();
        self.window_id = id;
        self.worker.send(Request::Window {
            id,
            topic: row.topic,
            connections: row.connections,
            center: self.timeline.cursor(),
            before: WINDOW_SIDE,
            after: WINDOW_SIDE,
            extend: None,
        });
    }

    /// The time cursor moved: follow it in the message list.
    fn cursor_moved(&mut self) -> bool {
        let t = self.timeline.cursor();
        let w = &self.messages.window;
        let inside = !w.entries.is_empty() && t >= w.from && t <= w.to;
        if inside {
            self.messages.select_time(t, self.layout.messages_rows());
            self.message_changed(false);
        } else if self.messages.topic.is_some() {
            self.topic_changed();
        }
        true
    }

    /// The selected message changed: decode it, keep sizes and the window topped up.
    fn message_changed(&mut self, move_cursor: bool) {
        let Some(sel) = self.messages.selected_ref() else {
            return;
        };
        if move_cursor {
            self.timeline.set_cursor(sel.entry.time);
        }
        if self.inspector.data.as_ref().is_none_or(|d| d.msg != sel) {
            let id = self.id();
            self.decode_id = id;
            self.inspector.loading = Some(sel);
            self.worker.send(Request::Decode { id, msg: sel });
        }
        self.request_sizes();
        if let Some(later) = self.messages.needs_more(WINDOW_MARGIN) {
            self.extend_window(later);
        }
    }

    fn extend_window(&mut self, later: bool) {
        let Some(row) = self.topics.selected_row().cloned() else {
            return;
        };
        let w = &self.messages.window;
        let center = if later { w.to } else { w.from };
        let id = self.id();
        self.window_id = id;
        self.messages.loading = true;
        self.worker.send(Request::Window {
            id,
            topic: row.topic,
            connections: row.connections,
            center,
            before: if later { 0 } else { WINDOW_SIDE },
            after: if later { WINDOW_SIDE } else { 0 },
            extend: Some(later),
        });
    }

    fn request_sizes(&mut self) {
        let h = self.layout.messages_rows();
        let refs: Vec<MsgRef> = self
            .messages
            .window
            .entries
            .iter()
            .skip(self.messages.offset)
            .take(h)
            .filter(|r| !self.messages.sizes.contains_key(r))
            .copied()
            .collect();
        if refs.is_empty() {
            return;
        }
        let id = self.id();
        self.sizes_id = id;
        self.worker.send(Request::Sizes { id, refs });
    }

    fn refresh_histogram(&mut self) {
        let width = self.layout.histogram_width();
        let conns = if self.hist_all {
            None
        } else {
            self.topics.selected_row().map(|r| r.connections.clone())
        };
        self.histogram =
            histogram::compute(&self.catalog, conns.as_deref(), self.timeline.view(), width);
    }

    /// Applies a worker reply; stale replies are dropped.
    fn reply(&mut self, reply: Reply) -> bool {
        match reply {
            Reply::Window {
                id,
                topic,
                window,
                extend,
            } => {
                if id != self.window_id || self.messages.topic.as_deref() != Some(topic.as_str()) {
                    return false;
                }
                let h = self.layout.messages_rows();
                match extend {
                    None => {
                        self.messages.set_window(window, self.timeline.cursor(), h);
                        self.message_changed(false);
                    }
                    Some(_) => self.messages.extend(window, h),
                }
                self.request_sizes();
                true
            }
            Reply::Sizes { id: _, sizes } => {
                for (r, s) in sizes {
                    if let Some(s) = s {
                        self.messages.sizes.insert(r, s);
                    }
                }
                true
            }
            Reply::Decoded { id, msg, result } => {
                if id != self.decode_id || self.messages.selected_ref() != Some(msg) {
                    return false;
                }
                self.inspector.set(*result, self.time_format, self.start());
                self.inspector
                    .scroll_into_view(self.layout.inspector_rows());
                true
            }
            Reply::Exported { id, result } => {
                if id != self.export_id {
                    return false;
                }
                match result {
                    Ok(text) => self.flash(text, false),
                    Err(e) => self.flash(e, true),
                }
                true
            }
            Reply::Yaml { id, topic, result } => {
                if id != self.yaml_id {
                    return false;
                }
                self.yaml_done(&topic, result);
                true
            }
            Reply::ScanProgress(p) => {
                self.health.progress = p;
                self.mode == Mode::Health
            }
            Reply::Scanned(report) => {
                let by_topic: std::collections::HashMap<
                    &str,
                    &crate::catalog::health::TopicHealth,
                > = report
                    .topics
                    .iter()
                    .map(|t| (t.topic.as_str(), t))
                    .collect();
                self.topics.update_stats(|row| {
                    if let Some(t) = by_topic.get(row.topic.as_str()) {
                        row.rate = t.rate().or(row.rate);
                        row.bytes = Some(t.bytes);
                    }
                });
                self.health.report = Some(*report);
                self.health.progress = 1.0;
                self.rebuild_health();
                // Index data is in memory now: the histogram can be exact.
                self.refresh_histogram();
                true
            }
        }
    }

    /// The bag time playback has reached at `now`.
    fn play_position(&self, now: std::time::Instant) -> Option<RosTime> {
        let p = self.play?;
        if p.paused {
            return Some(p.from);
        }
        #[allow(clippy::cast_possible_truncation)]
        let elapsed = (now.saturating_duration_since(p.since).as_nanos() as f64 * p.speed) as i128;
        Some(p.from.saturating_add_nanos(elapsed))
    }

    /// True while the cursor is moving on its own (the loop then ticks).
    pub fn is_playing(&self) -> bool {
        self.play.is_some_and(|p| !p.paused)
    }

    /// Starts, pauses or resumes playback at `now`.
    pub fn toggle_play(&mut self, now: std::time::Instant) {
        match self.play {
            Some(p) if !p.paused => {
                self.play = Some(Play {
                    paused: true,
                    from: self.play_position(now).unwrap_or(p.from),
                    since: now,
                    ..p
                });
                self.flash("paused", false);
            }
            Some(p) => {
                self.play = Some(Play {
                    paused: false,
                    since: now,
                    from: self.timeline.cursor(),
                    ..p
                });
            }
            None => {
                // From the marked start when the cursor is before it, else from the cursor;
                // from the beginning when the cursor is at the end.
                let cursor = self.timeline.cursor();
                let from = self.marks.0.filter(|m| *m > cursor).unwrap_or(cursor);
                let from = if from >= self.timeline.bounds().1 {
                    self.timeline.bounds().0
                } else {
                    from
                };
                self.play = Some(Play {
                    speed: 1.0,
                    since: now,
                    from,
                    paused: false,
                });
            }
        }
    }

    fn set_speed(&mut self, speed: f64, now: std::time::Instant) {
        let from = self.play_position(now).unwrap_or(self.timeline.cursor());
        let paused = self.play.is_some_and(|p| p.paused);
        self.play = Some(Play {
            speed,
            since: now,
            from,
            paused,
        });
        self.flash(format!("playing at {speed}×"), false);
    }

    /// Moves the cursor to where playback is at `now`; stops at the end (of the marked
    /// interval, or of the bags). Returns true when the screen changed.
    pub fn advance_play(&mut self, now: std::time::Instant) -> bool {
        if !self.is_playing() {
            return false;
        }
        let Some(t) = self.play_position(now) else {
            return false;
        };
        let from = self.play.map(|p| p.from);
        let stop = self
            .marks
            .1
            .filter(|e| Some(*e) > from)
            .unwrap_or(self.timeline.bounds().1);
        let t = if t >= stop {
            self.play = None;
            self.flash("end of playback", false);
            stop
        } else {
            t
        };
        self.timeline.set_cursor(t);
        self.cursor_moved();
        true
    }

    /// `E`: writes the marked interval — the topics the topic list shows, as `p` publishes
    /// them — to a new bag beside the first bag (`BAG-START-END.bag`), in the background.
    fn export_marked(&mut self) {
        let (Some(a), Some(b)) = self.marks else {
            self.flash("mark an interval first: [ at its start, ] at its end", true);
            return;
        };
        if self.still_filtering() {
            return;
        }
        let topics = match self.topics.filtered_topics() {
            None => Vec::new(),
            Some(shown) if shown.is_empty() => {
                self.flash("no topic matches the filter: nothing to export", true);
                return;
            }
            Some(shown) => shown,
        };
        let first = self.catalog.bags().first().map(|b| b.path().to_path_buf());
        let stem = first
            .as_ref()
            .and_then(|p| p.file_stem())
            .map_or_else(|| "bag".to_string(), |s| s.to_string_lossy().to_string());
        // Beside the first bag, unless another directory was set (or the bag has none: the
        // bundled demo).
        let dir = match first.as_ref().and_then(|p| p.parent()) {
            Some(d) if self.output_dir == std::path::Path::new(".") && d.is_dir() => {
                d.to_path_buf()
            }
            _ => self.output_dir.clone(),
        };
        let dir = std::path::absolute(&dir).unwrap_or(dir);
        let base = format!(
            "{stem}-{}.{:03}-{}.{:03}",
            a.sec,
            a.nsec / 1_000_000,
            b.sec,
            b.nsec / 1_000_000
        );
        let mut path = dir.join(format!("{base}.bag"));
        let mut n = 1;
        while path.exists() {
            n += 1;
            path = dir.join(format!("{base}-{n}.bag"));
        }
        let id = self.id();
        self.export_id = id;
        self.flash(format!("writing {}…", path.display()), false);
        self.worker
            .send(Request::Export(super::worker::ExportRequest {
                id,
                start: a,
                end: b,
                topics,
                path,
            }));
    }

    /// `p`: stops the running publication, or publishes the marked interval (the topics
    /// the topic list shows) from a new thread.
    fn toggle_publish(&mut self) {
        if let Some(p) = &self.publishing {
            if p.phase == Phase::Stopping {
                self.flash("still stopping the ROS publisher…", false);
                return;
            }
            if p.is_active() {
                self.stop_publishing();
                return;
            }
        }
        let (Some(a), Some(b)) = self.marks else {
            self.flash(
                "mark an interval first: [ at its start, ] at its end; then p publishes it",
                true,
            );
            return;
        };
        let Some(events) = self.events.clone() else {
            self.flash("publishing to ROS is not available here", true);
            return;
        };
        if self.still_filtering() {
            return;
        }
        let (topics, scope) = match self.topics.filtered_topics() {
            None => (Vec::new(), Scope::All),
            Some(topics) => {
                let scope = Scope::Filtered {
                    shown: topics.len(),
                    of: self.topics.rows().len(),
                };
                (topics, scope)
            }
        };
        if topics.is_empty() && scope != Scope::All {
            self.flash("no topic matches the filter: nothing to publish", true);
            return;
        }
        let run = self.id();
        let job = Job {
            run,
            selection: crate::catalog::Selection {
                topics,
                start: Some(a),
                end: Some(b),
                parallel: true,
            },
        };
        let mut state = Publishing::new(run, scope, &self.publish_settings);
        match Publisher::start(
            self.catalog.clone(),
            job,
            self.publish_settings.clone(),
            events,
        ) {
            Ok(p) => self.publisher = Some(p),
            Err(e) => state.phase = Phase::Failed(format!("cannot start a thread: {e}")),
        }
        self.publishing = Some(state);
    }

    /// Asks the running publication to stop (it unregisters on its thread and reports
    /// when done). False when none runs.
    pub fn stop_publishing(&mut self) -> bool {
        let Some(p) = self.publishing.as_mut().filter(|p| p.is_active()) else {
            return false;
        };
        if let Some(publisher) = &self.publisher {
            publisher.stop();
        }
        p.phase = Phase::Stopping;
        true
    }

    /// True while a publisher thread runs (until its last report arrived).
    pub fn is_publishing(&self) -> bool {
        self.publishing.as_ref().is_some_and(Publishing::is_active)
    }

    fn ros_event(&mut self, event: RosEvent) -> bool {
        let Some(p) = self.publishing.as_mut().filter(|p| p.run == event.run) else {
            return false;
        };
        let changed = p.apply(event.update);
        if !p.is_active() {
            self.publisher = None;
        }
        changed
    }

    fn copy_yaml(&mut self) {
        self.request_yaml(None);
    }

    fn save_yaml(&mut self) {
        let Some(d) = self.inspector.data.as_ref() else {
            self.flash("no decoded message to save", true);
            return;
        };
        let name: String = d
            .topic
            .trim_start_matches('/')
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect();
        let path = self
            .output_dir
            .join(format!("{name}-{}.{:09}.yaml", d.time.sec, d.time.nsec));
        self.request_yaml(Some(path));
    }

    /// YAML is rendered (and saved) by the worker: a big message must not stall the UI.
    fn request_yaml(&mut self, save_to: Option<PathBuf>) {
        let Some(msg) = self
            .inspector
            .data
            .as_ref()
            .filter(|d| d.value.is_ok())
            .map(|d| d.msg)
        else {
            self.flash("no decoded message", true);
            return;
        };
        let id = self.id();
        self.yaml_id = id;
        self.flash(
            if save_to.is_some() {
                "saving…"
            } else {
                "copying…"
            },
            false,
        );
        self.worker.send(Request::Yaml { id, msg, save_to });
    }

    fn yaml_done(&mut self, _topic: &str, result: Result<YamlDone, String>) {
        const CLIPBOARD_LIMIT: usize = 1 << 20;
        match result {
            Err(e) => self.flash(e, true),
            Ok(YamlDone::Saved(path, n)) => self.flash(
                format!(
                    "saved {} ({})",
                    path.display(),
                    crate::tui::text::bytes(n as u64)
                ),
                false,
            ),
            Ok(YamlDone::Text(text)) if text.len() > CLIPBOARD_LIMIT => self.flash(
                format!(
                    "message is {} as YAML, too large for the clipboard: Y saves it to a file",
                    crate::tui::text::bytes(text.len() as u64)
                ),
                true,
            ),
            Ok(YamlDone::Text(text)) => {
                use base64::Engine;
                let b64 = base64::engine::general_purpose::STANDARD.encode(text.as_bytes());
                self.outbox.push(format!("\x1b]52;c;{b64}\x07"));
                // The terminal gives no answer: say where the text went and where it works.
                self.flash(
                    format!(
                        "YAML {} sent via OSC 52 (tmux: set-clipboard on); Y saves",
                        crate::tui::text::bytes(text.len() as u64)
                    ),
                    false,
                );
            }
        }
    }

    /// Hit-testing helper for tests: the pane at a position.
    pub fn pane_at(&self, p: Position) -> Option<Pane> {
        self.layout.pane_at(p.x, p.y)
    }
}
