//! The one stream of events the loop blocks on: terminal input, worker replies, ROS
//! publishing reports, the opening thread's news, signals, ticks. This is the one file that
//! names both sides: the background threads report their own types through a [`Notify`],
//! wrapped here into [`AppEvent`]s, and [`App::handle`] routes each event back to the app.

use std::sync::mpsc::Sender;

use crossterm::event::{Event, KeyEventKind, MouseButton, MouseEventKind};

use crate::bag::BagError;
use crate::catalog::Catalog;

use super::super::action::{Action, Pane};
use super::super::app::{App, Mode};
use super::super::jobs::gate::Gate;
use super::super::jobs::notify::Notify;
use super::super::jobs::opening::Progress;
use super::super::jobs::publish::RosEvent;
use super::super::jobs::worker::{Reply, Worker};
use super::super::keymap::Context;
use super::super::model::topic_filter::Filtered;

/// An event for the app.
#[derive(Debug)]
pub enum AppEvent {
    /// Keyboard, mouse, resize, paste.
    Input(crossterm::event::Event),
    /// A background result.
    Worker(Reply),
    /// A report of the ROS publisher thread (`p`).
    Ros(RosEvent),
    /// SIGINT, SIGTERM or SIGHUP: leave cleanly.
    Signal(i32),
    /// Time passes (only while something animates).
    Tick,
    /// News from the thread opening the bags.
    Opening(Progress),
    /// The bags are open and the app is built (on the opening thread).
    Opened(Box<Ready>),
    /// The topic filter computed on the background thread.
    Filtered(Filtered),
    /// A piece of a plot series computed in the background.
    Plot(crate::tui::jobs::plotter::PlotNews),
    /// XY mode's picture made in the background.
    Xy(std::sync::Arc<crate::tui::model::plot::xy_raster::XyRaster>),
    /// The topics' bandwidth over the visible window, summed in the background.
    Bandwidth(crate::catalog::window_bytes::WindowBytes),
    /// Log lines read in the background.
    Log(crate::catalog::log::LogPiece),
    /// A lane's camera thumbnail made in the background.
    Thumb(crate::tui::jobs::thumbnailer::ThumbNews),
    /// ERROR/FATAL ticks for the lanes read in the background.
    Ticks(crate::tui::jobs::error_ticks::TickNews),
    /// Matches of the content search found in the background.
    Search(crate::tui::jobs::searcher::SearchNews),
    /// News of the thread following a growing recording (`F`).
    Follow(crate::tui::jobs::live::LiveNews),
    /// The terminal's graphics protocol, from its answers to the query (`None`:
    /// half-blocks).
    Graphics(Option<crate::tui::term::graphics::Graphics>),
}

/// The result of opening.
pub struct Ready {
    /// The app over the bags that opened (`None` when none did).
    pub app: Option<App>,
    /// Bags that could not be opened.
    pub errors: Vec<BagError>,
}

impl std::fmt::Debug for Ready {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Ready({} errors)", self.errors.len())
    }
}

/// A [`Notify`] that wraps each piece of news with `wrap` into an event on `events`.
pub fn notify<T: 'static>(events: &Sender<AppEvent>, wrap: fn(T) -> AppEvent) -> Notify<T> {
    let events = events.clone();
    Notify::new(move |news| events.send(wrap(news)).is_ok())
}

/// Where the scan of a bag shown while it runs stands: the bag, when its scan started, and
/// the bytes walked of its size.
pub type Scanning = (usize, std::time::Instant, (u64, u64));

/// Builds the app of `width`×`height` over the bags that opened (on the opening thread, so
/// the UI never waits for work proportional to the bags; for a bag shown while its scan
/// runs, `scanning`, over its first chunks): starts the worker and wires every background
/// thread's reports into `events`.
pub fn ready(
    catalog: Catalog,
    (errors, scanning): (Vec<BagError>, Option<Scanning>),
    registry: crate::msg::Registry,
    (width, height): (u16, u16),
    (events, first_frame): (&Sender<AppEvent>, &Gate),
) -> Ready {
    if catalog.is_empty() {
        return Ready { app: None, errors };
    }
    let worker = Worker::start(
        catalog.clone(),
        registry.clone(),
        notify(events, AppEvent::Worker),
        first_frame.clone(),
    );
    let mut app = App::new(catalog, worker, width, height);
    app.settings.registry = registry;
    if let Some((bag, started, progress)) = scanning {
        app.start_scan(bag, started, progress);
    }
    app.set_events_after(events.clone(), first_frame.clone());
    app.settings.unopened = errors.iter().map(ToString::to_string).collect();
    Ready {
        app: Some(app),
        errors,
    }
}

impl App {
    /// Where background threads other than the worker (the ROS publisher, the topic filter)
    /// send their reports: the event channel of the loop. Without it, `p` cannot publish and
    /// the topic filter is always applied inline.
    pub fn set_events(&mut self, events: Sender<AppEvent>) {
        self.set_events_after(events, Gate::opened());
    }

    /// [`App::set_events`], with the background reading that needs no request (the log
    /// lines) waiting for `first_frame` to open.
    pub fn set_events_after(&mut self, events: Sender<AppEvent>, first_frame: Gate) {
        self.filter_in_background(notify(&events, AppEvent::Filtered));
        self.set_plot_notify(notify(&events, AppEvent::Plot));
        self.set_xy_notify(notify(&events, AppEvent::Xy));
        self.set_bandwidth_notify(notify(&events, AppEvent::Bandwidth));
        self.start_log_reading(notify(&events, AppEvent::Log), first_frame);
        self.set_lanes_notify(
            notify(&events, AppEvent::Thumb),
            notify(&events, AppEvent::Ticks),
        );
        self.set_search_notify(notify(&events, AppEvent::Search));
        self.set_follow_notify(
            notify(&events, AppEvent::Follow),
            notify(&events, AppEvent::Worker),
        );
        self.set_ros_notify(Notify::new(move |ev| {
            events.send(AppEvent::Ros(ev)).is_ok()
        }));
    }

    /// Handles one event; returns true when the screen must be redrawn.
    pub fn handle(&mut self, event: AppEvent) -> bool {
        let redraw = self.handle_event(event);
        self.sync_xy();
        redraw
    }

    /// [`App::handle`] without the follow-ups every change of state has.
    fn handle_event(&mut self, event: AppEvent) -> bool {
        match event {
            AppEvent::Input(input) => self.input(input),
            AppEvent::Worker(reply) => self.reply(reply),
            AppEvent::Ros(event) => self.ros_event(event),
            AppEvent::Signal(_) => {
                self.quit = true;
                true
            }
            AppEvent::Tick => self.advance_play(std::time::Instant::now()),
            AppEvent::Filtered(done) => self.filtered(done),
            AppEvent::Plot(news) => self.plot_news(news),
            AppEvent::Log(piece) => self.log_piece(piece),
            AppEvent::Thumb(news) => self.thumb_news(news),
            AppEvent::Ticks(news) => self.tick_news(news),
            AppEvent::Search(news) => self.search_news(news),
            AppEvent::Follow(news) => self.live_news(news),
            AppEvent::Xy(raster) => self.xy_news(raster),
            AppEvent::Bandwidth(bytes) => self.view_bytes_news(bytes),
            AppEvent::Opening(news) => self.opening_news(news),
            AppEvent::Opened(_) => false,
            AppEvent::Graphics(g) => self.set_graphics(g),
        }
    }

    /// Terminal input: keys through the keymap, the mouse, resizes, pasted text in a prompt.
    fn input(&mut self, input: Event) -> bool {
        match input {
            Event::Key(k) if k.kind != KeyEventKind::Release => {
                let context = match self.overlays.mode {
                    Mode::Filter
                    | Mode::Jump
                    | Mode::LogPrompt
                    | Mode::Find
                    | Mode::ExportDir
                    | Mode::PlotPrompt => Context::Prompt,
                    Mode::Log => Context::Log,
                    Mode::ConfirmPublish => Context::Confirm,
                    _ if self.focus == Pane::Plot => Context::Plot,
                    _ => Context::Global,
                };
                match self.settings.keymap.action(k, context) {
                    Some(a) => self.apply(a),
                    None => false,
                }
            }
            Event::Mouse(m) => match m.kind {
                MouseEventKind::Down(MouseButton::Left) => {
                    self.apply(Action::Click(m.column, m.row))
                }
                MouseEventKind::ScrollDown => self.apply(Action::Scroll(m.column, m.row, true)),
                MouseEventKind::ScrollUp => self.apply(Action::Scroll(m.column, m.row, false)),
                _ => false,
            },
            Event::Resize(w, h) => self.apply(Action::Resize(w, h)),
            Event::Paste(text)
                if matches!(
                    self.overlays.mode,
                    Mode::Filter
                        | Mode::Jump
                        | Mode::LogPrompt
                        | Mode::Find
                        | Mode::ExportDir
                        | Mode::PlotPrompt
                ) =>
            {
                for c in text.chars().filter(|c| !c.is_control()) {
                    self.apply(Action::Input(c));
                }
                true
            }
            _ => false,
        }
    }
}
