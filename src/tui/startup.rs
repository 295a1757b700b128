//! The explorer's start: the opening screen while the bags are opened, then the hand-over to
//! the app.
//!
//! The app is built on the opening thread, and the worker it starts answers the first
//! requests (the first topic's messages, the inspector) on the same channel the loop reads.
//! Those answers, keys typed meanwhile and any other background news can therefore arrive
//! *before* the app itself ([`AppEvent::Opened`]): nothing is dropped — every event the
//! opening screen does not consume is queued and handed to the app, in order, before its
//! first frame ([`Waited::Ready`], [`hand_over`]).

use std::io;
use std::sync::mpsc::{self, Receiver, Sender};
use std::time::{Duration, Instant};

use crossterm::event::{Event, KeyEventKind};
use ratatui::Terminal;
use ratatui::backend::Backend;

use super::app::App;
use super::jobs::gate::Gate;
use super::jobs::opening::{Opening, Progress};
use super::keymap::{Context, KeyMap};
use super::term::event::{self, AppEvent, Ready};
use super::term::graphics::Graphics;
use super::theme::Theme;
use super::view;

/// How the opening screen ended.
pub enum Waited {
    /// The app (or why none could be built), with the events that arrived before it, in
    /// their order, for [`hand_over`].
    Ready(Box<Ready>, Vec<AppEvent>),
    /// The user quit (`q`, Ctrl-C) or the channel closed.
    Quit,
    /// A signal.
    Signal(i32),
}

/// What the opening screen needs besides the terminal.
pub struct Wait<'a> {
    /// The events of the loop (the opening thread, the worker, input, signals).
    pub rx: &'a Receiver<AppEvent>,
    /// Their sender, for an app built here over a partly scanned bag.
    pub tx: &'a Sender<AppEvent>,
    /// Definitions for bags that carry none.
    pub registry: &'a crate::msg::Registry,
    /// Opened once the first frame of the app is on the screen.
    pub first_frame: &'a Gate,
    /// Colours.
    pub theme: Theme,
}

/// Shows the opening screen (redrawn every 100 ms for the elapsed time, and when its text
/// changes) until the app is built, the user quits or a signal arrives. `graphics` takes
/// the terminal's answer to the graphics query when it comes meanwhile.
pub fn wait_for_app<B: Backend>(
    terminal: &mut Terminal<B>,
    opening: &mut Opening,
    wait: &Wait<'_>,
    graphics: &mut Option<Graphics>,
) -> io::Result<Waited>
where
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    let tick = Duration::from_millis(100);
    let quit_keys = KeyMap::default();
    let mut queued: Vec<AppEvent> = Vec::new();
    let mut drawn: Option<Instant> = None;
    loop {
        if drawn.is_none_or(|d| d.elapsed() >= tick) {
            let shown = &*opening;
            terminal
                .draw(|f| {
                    let area = f.area();
                    view::opening::draw(f, shown, shown.started.elapsed(), wait.theme, area);
                })
                .map_err(io::Error::other)?;
            drawn = Some(Instant::now());
        }
        let left = drawn.map_or(tick, |d| tick.saturating_sub(d.elapsed()));
        let ev = match wait.rx.recv_timeout(left) {
            Ok(ev) => ev,
            Err(mpsc::RecvTimeoutError::Timeout) => continue,
            Err(mpsc::RecvTimeoutError::Disconnected) => return Ok(Waited::Quit),
        };
        match ev {
            AppEvent::Signal(n) => return Ok(Waited::Signal(n)),
            AppEvent::Input(Event::Key(k))
                if k.kind != KeyEventKind::Release && quit_keys.quits(k, Context::Global) =>
            {
                return Ok(Waited::Quit);
            }
            AppEvent::Opened(ready) => return Ok(Waited::Ready(ready, queued)),
            // The last bag's scan has found its first chunks: explore them now (a few
            // chunks: small work for this thread), the rest follows.
            AppEvent::Opening(Progress::Partial(p)) => {
                let size = terminal.size().map_err(io::Error::other)?;
                let catalog = crate::catalog::Catalog::new(p.bags);
                let scanning = (p.scanned, opening.current_since, (p.done, p.total));
                let ready = event::ready(
                    catalog,
                    (p.errors, Some(scanning)),
                    wait.registry.clone(),
                    (size.width, size.height),
                    (wait.tx, wait.first_frame),
                );
                return Ok(Waited::Ready(Box::new(ready), queued));
            }
            AppEvent::Opening(p) => {
                if opening.apply(&p) {
                    drawn = None;
                }
            }
            AppEvent::Graphics(g) => *graphics = g,
            // Worker replies, keys, resizes, background news: the app's, once it exists.
            other => queued.push(other),
        }
    }
}

/// Hands the events that arrived before the app to it, in their order; true when one of
/// them changed what is shown.
pub fn hand_over(app: &mut App, queued: Vec<AppEvent>) -> bool {
    let mut changed = false;
    for ev in queued {
        changed |= app.handle(ev);
    }
    changed
}
