//! The terminal explorer: topics, a timeline built from chunk infos, the messages of the
//! selected topic and a decoded inspector, over one or many bags.
//!
//! One event loop (see [`run`]) blocks on the next event — input, a worker reply, a signal —,
//! drains what else is pending, updates the state and draws only when something changed.
//! Every background thread — reading, decompressing and decoding ([`worker`](jobs::worker)),
//! opening, following, publishing into a ROS graph, plotting, searching — is started in
//! [`jobs`]; the terminal side (raw mode, the input thread, graphics detection, the event
//! stream) is in [`term`]; drawing reads the state and never changes it ([`ui`]).

pub mod action;
pub mod app;
pub mod jobs;
pub mod keymap;
pub mod layout;
pub mod model;
pub mod startup;
pub mod term;
pub mod text;
pub mod theme;
pub mod ui;
pub mod view;

use std::io;
use std::sync::mpsc;

use crossterm::event::Event;
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;

use app::App;
pub use jobs::opening::Bags;
use jobs::opening::Opening;
use term::event::AppEvent;
use term::terminal::TerminalGuard;
use theme::Theme;

/// Options of the explorer.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// A note for the status bar (e.g. that the bundled demo bag is shown).
    pub note: Option<String>,
    /// Capture the mouse (click to focus/select, wheel to scroll).
    pub mouse: bool,
    /// How `p` publishes into the ROS graph.
    pub publish: jobs::publish::Settings,
    /// Definitions for bags that carry none: the bundled ones plus `--msg-path`.
    pub registry: crate::msg::Registry,
    /// `--plot /topic/field`: series plotted from the start (a bad one is reported in the
    /// status bar once the bags are open).
    pub plots: Vec<String>,
    /// `--out-dir DIR`: where `E` writes (default: beside the first bag).
    pub out_dir: Option<std::path::PathBuf>,
}

/// How long leaving waits for a running ROS publication to stop and unregister.
const UNREGISTER_WAIT: std::time::Duration = std::time::Duration::from_secs(5);

/// How the explorer ended.
#[derive(Debug)]
pub enum Ended {
    /// The user quit (`q`, Ctrl-C).
    Quit {
        /// Bags that could not be opened (the others were shown).
        errors: Vec<crate::bag::BagError>,
    },
    /// A signal (SIGINT, SIGTERM, SIGHUP) ended it; the terminal was restored.
    Signal(i32),
    /// No bag could be opened.
    Unopenable(Vec<crate::bag::BagError>),
}

/// Runs the explorer until the user quits or a signal arrives. The bags are opened on a
/// background thread while a first frame says so.
pub fn run(bags: Bags, options: &Options) -> io::Result<Ended> {
    let (tx, rx) = mpsc::channel::<AppEvent>();
    // The bags are opened from the start, while the terminal is set up: its queries (the
    // graphics protocol and cell size below) take a round trip each, a long one over SSH,
    // which the open no longer waits for. The size is an `ioctl`, not a query.
    let (w, h) = crossterm::terminal::size()?;
    let opening = Opening::new(&bags);
    // Opened once the explorer's first frame is on the screen: the work that does not make
    // that frame waits for it (two cores are soon taken).
    let first_frame = jobs::gate::Gate::default();
    let _open_at_exit = jobs::gate::OpenOnDrop(first_frame.clone());
    start_opening(bags, &tx, options.registry.clone(), (w, h), &first_frame)?;
    let guard = TerminalGuard::enter(options.mouse)?;
    let mut terminal = Terminal::new(CrosstermBackend::new(io::stdout()))?;
    // The graphics query (kitty / sixel / iTerm2 and the cell size in pixels) is written
    // before the first frame, so that the two never interleave on the terminal, and answered
    // on the input thread: nothing here waits for the round trip.
    let startup = term::graphics::Choice::from_env().start()?;
    // Dropped before `guard` on every way out: the answers are read before the terminal is
    // restored.
    let answers = term::input::spawn(tx.clone(), &startup)?;
    let mut graphics = match startup {
        term::graphics::Startup::Known(g) => g,
        term::graphics::Startup::Asked(_) => None,
    };
    // Signals end the loop like `q` does, so the terminal is restored on the way out.
    jobs::signals::start(term::event::notify(&tx, AppEvent::Signal));
    let theme = Theme::from_env();
    let wait = startup::Wait {
        rx: &rx,
        tx: &tx,
        registry: &options.registry,
        first_frame: &first_frame,
        theme,
    };
    let mut opening = opening;
    let (ready, queued) =
        match startup::wait_for_app(&mut terminal, &mut opening, &wait, &mut graphics)? {
            startup::Waited::Ready(ready, queued) => (*ready, queued),
            startup::Waited::Quit => return Ok(Ended::Quit { errors: Vec::new() }),
            startup::Waited::Signal(n) => return Ok(Ended::Signal(n)),
        };
    let term::event::Ready { app, errors } = ready;
    let Some(mut app) = app else {
        return Ok(Ended::Unopenable(errors));
    };
    app.settings.note.clone_from(&options.note);
    app.views.inspector.picture.graphics = graphics;
    app.settings.publish.clone_from(&options.publish);
    if let Some(dir) = &options.out_dir {
        app.settings.output_dir = std::path::absolute(dir).unwrap_or_else(|_| dir.clone());
    }
    // The terminal may have been resized while opening (laid out again only then: the
    // histogram of a million chunks is tens of milliseconds before the first frame).
    let (w, h) = crossterm::terminal::size()?;
    if (app.area.width, app.area.height) != (w, h) {
        app.apply(action::Action::Resize(w, h));
    }
    app.plot_all(&options.plots);
    // Replies and keys that came before the app are its first events, in their order.
    startup::hand_over(&mut app, queued);
    let drawn = terminal.draw(|f| ui::draw(f, &app, theme));
    first_frame.open();
    drawn?;
    let mut signal = None;
    // While playing, the loop wakes up ten times a second to move the cursor.
    let tick = std::time::Duration::from_millis(100);
    loop {
        let first = if app.is_playing() {
            match rx.recv_timeout(tick) {
                Ok(ev) => ev,
                Err(mpsc::RecvTimeoutError::Timeout) => AppEvent::Tick,
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            }
        } else {
            match rx.recv() {
                Ok(ev) => ev,
                Err(_) => break,
            }
        };
        if let AppEvent::Signal(n) = first {
            signal = Some(n);
        }
        let mut changed = app.handle(first);
        while let Ok(more) = rx.try_recv() {
            if let AppEvent::Signal(n) = more {
                signal = Some(n);
            }
            changed |= app.handle(more);
        }
        if app.quit {
            break;
        }
        if changed {
            terminal.draw(|f| ui::draw(f, &app, theme))?;
            flush_outbox(&mut app)?;
        }
    }
    if app.stop_publishing() {
        terminal.draw(|f| ui::draw(f, &app, theme))?;
        wait_for_unregistration(&mut app, &rx, |app| {
            terminal.draw(|f| ui::draw(f, app, theme)).map(|_| ())
        })?;
    }
    drop(answers);
    drop(terminal);
    drop(guard);
    Ok(match signal {
        Some(n) => Ended::Signal(n),
        None => Ended::Quit { errors },
    })
}

/// Opens `bags` on a background thread (an error when none can be started); the explorer
/// built over them (for a terminal of `size`) arrives on `tx` as [`AppEvent::Opened`]. Once
/// `first_frame` opens, that thread goes on to build the chunks by time, which make each
/// later zoom's histogram and lanes O(bins · log chunks) (shared with the app's catalog, a
/// clone).
fn start_opening(
    bags: Bags,
    tx: &mpsc::Sender<AppEvent>,
    registry: crate::msg::Registry,
    size: (u16, u16),
    first_frame: &jobs::gate::Gate,
) -> io::Result<()> {
    let events = tx.clone();
    let first_frame = first_frame.clone();
    jobs::opening::start(
        bags,
        term::event::notify(tx, AppEvent::Opening),
        move |catalog, errors| {
            let shared = catalog.clone();
            let gates = (&events, &first_frame);
            let ready = term::event::ready(catalog, (errors, None), registry, size, gates);
            let _ = events.send(AppEvent::Opened(Box::new(ready)));
            first_frame.wait(jobs::gate::FIRST_FRAME_WAIT);
            shared.index_by_time();
        },
    )
}

/// After quitting (or a signal) while publishing: waits, at most [`UNREGISTER_WAIT`], for
/// the publisher to stop and unregister, showing its status. Another signal, `q` or
/// Ctrl-C leaves at once (the thread is then abandoned; the process exit ends it).
fn wait_for_unregistration(
    app: &mut App,
    rx: &mpsc::Receiver<AppEvent>,
    mut draw: impl FnMut(&App) -> io::Result<()>,
) -> io::Result<()> {
    let deadline = std::time::Instant::now() + UNREGISTER_WAIT;
    while app.is_publishing() {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        match rx.recv_timeout(left) {
            Ok(AppEvent::Ros(ev)) => {
                if app.handle(AppEvent::Ros(ev)) {
                    draw(app)?;
                }
            }
            Ok(AppEvent::Signal(_)) | Err(_) => break,
            Ok(AppEvent::Input(Event::Key(k)))
                if k.kind != crossterm::event::KeyEventKind::Release
                    && app.settings.keymap.quits(k, keymap::Context::Global) =>
            {
                break;
            }
            Ok(_) => {}
        }
    }
    Ok(())
}

/// Writes pending escape sequences (clipboard) straight to the terminal.
fn flush_outbox(app: &mut App) -> io::Result<()> {
    use std::io::Write;
    if app.outbox.is_empty() {
        return Ok(());
    }
    let mut out = io::stdout();
    for s in app.outbox.drain(..) {
        out.write_all(s.as_bytes())?;
    }
    out.flush()
}

/// Feeds a synthetic input event (tests).
pub fn input(ev: Event) -> AppEvent {
    AppEvent::Input(ev)
}
