//! `bagscope play BAG...`: publishes the selected messages into a live ROS1 graph on their
//! original schedule, through the native node (`ros`) and player (`play`).
//!
//! On a terminal, space pauses and resumes, `s` steps one message while paused, and a
//! `rosbag play`-style status line is redrawn on stderr. Elsewhere: no raw mode, one line at
//! the start and one at the end.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use clap::Args;

use crate::play::{ClockPublisher, Control, Outlet, PlayOptions, Player, Report, Session, Status};
use crate::ros::{NodeConfig, QueueLimits, names};

use super::args::{SelectArgs, open_selection};
use super::{Outcome, print_error};

/// How long queued messages may take to reach subscribers at the end.
const FLUSH_TIMEOUT: Duration = Duration::from_secs(5);
/// How often the status line is redrawn.
const STATUS_PERIOD: Duration = Duration::from_millis(100);

/// Arguments of `bagscope play`.
#[derive(Args, Debug)]
#[allow(clippy::struct_excessive_bools)] // independent command-line switches
pub struct PlayArgs {
    /// Which messages.
    #[command(flatten)]
    pub select: SelectArgs,
    /// Speed factor: 2 plays twice as fast, 0.5 half as fast.
    #[arg(short = 'r', long, default_value_t = 1.0, value_name = "R", value_parser = parse_rate)]
    pub rate: f64,
    /// Start again at the end, until stopped.
    #[arg(short = 'l', long = "loop")]
    pub looping: bool,
    /// Publish every topic under this namespace (`/chatter` → `NS/chatter`).
    #[arg(long, value_name = "NS")]
    pub namespace: Option<String>,
    /// Publish the bag time on /clock (rosgraph_msgs/Clock) for nodes using sim time.
    #[arg(long)]
    pub clock: bool,
    /// Frequency of /clock messages between bag messages.
    #[arg(long, default_value_t = 100.0, value_name = "HZ", value_parser = parse_rate)]
    pub hz: f64,
    /// Seconds to wait after advertising before the first message (subscribers connect).
    #[arg(short = 'd', long, default_value_t = 0.2, value_name = "S", value_parser = parse_seconds)]
    pub delay: f64,
    /// Skip stretches longer than S seconds without messages instead of waiting through them
    /// (`rosbag play --skip-empty`).
    #[arg(long, value_name = "S", value_parser = parse_seconds)]
    pub skip_empty: Option<f64>,
    /// Start paused (space resumes, `s` steps).
    #[arg(long)]
    pub pause: bool,
    /// Keep the node (and latched topics) alive after the end, until Ctrl-C.
    #[arg(short = 'k', long)]
    pub keep_alive: bool,
    /// Messages queued per subscriber before the oldest are dropped.
    #[arg(long, default_value_t = 100, value_name = "N")]
    pub queue: usize,
    /// No status line.
    #[arg(short = 'q', long)]
    pub quiet: bool,
    /// Bag files (one merged timeline).
    #[arg(required = true, value_name = "BAG")]
    pub bags: Vec<PathBuf>,
}

/// A positive, finite speed factor (`--rate`, the explorer's `--ros-rate`).
pub(crate) fn parse_rate(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(r) if r.is_finite() && r > 0.0 => Ok(r),
        _ => Err(format!("'{s}' is not a positive number")),
    }
}

fn parse_seconds(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(r) if r.is_finite() && (0.0..=86_400.0).contains(&r) => Ok(r),
        _ => Err(format!("'{s}' is not a number of seconds (0 to 86400)")),
    }
}

/// Takes the terminal's keys (raw mode) for as long as it lives.
struct RawMode;

impl RawMode {
    fn enter() -> Option<RawMode> {
        crossterm::terminal::enable_raw_mode()
            .ok()
            .map(|()| RawMode)
    }
}

impl Drop for RawMode {
    fn drop(&mut self) {
        let _ = crossterm::terminal::disable_raw_mode();
    }
}

/// Prints lines on stderr; in raw mode lines end in CR LF and the status line is cleared
/// first.
#[derive(Clone)]
struct Console {
    raw: bool,
    status: bool,
    lock: Arc<Mutex<()>>,
}

impl Console {
    fn say(&self, line: &str) {
        let line = crate::printable::escape_line(line);
        let _g = self.lock.lock().unwrap_or_else(PoisonError::into_inner);
        let mut err = std::io::stderr().lock();
        let _ = if self.status {
            write!(err, "\r\x1b[K{line}\r\n")
        } else {
            writeln!(err, "{line}")
        };
        let _ = err.flush();
    }

    fn status(&self, line: &str) {
        let line = crate::printable::escape_line(line);
        let _g = self.lock.lock().unwrap_or_else(PoisonError::into_inner);
        let mut err = std::io::stderr().lock();
        let _ = write!(err, "\r{line}\x1b[K");
        let _ = err.flush();
    }

    fn end_status(&self, line: &str) {
        let line = crate::printable::escape_line(line);
        let _g = self.lock.lock().unwrap_or_else(PoisonError::into_inner);
        let mut err = std::io::stderr().lock();
        let end = if self.raw { "\r\n" } else { "\n" };
        let _ = write!(err, "\r{line}\x1b[K{end}");
        let _ = err.flush();
    }
}

/// Forwards SIGINT/SIGTERM/SIGHUP as [`Control::Stop`].
pub(super) fn forward_signals(tx: Sender<Control>) {
    #[cfg(unix)]
    {
        use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
        if let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) {
            let _ = std::thread::Builder::new()
                .name("play-signals".into())
                .spawn(move || {
                    for _ in signals.forever() {
                        if tx.send(Control::Stop).is_err() {
                            break;
                        }
                    }
                });
        }
    }
    #[cfg(not(unix))]
    drop(tx);
}

/// Turns keys into controls: space, `s`, Ctrl-C (raw mode has no SIGINT) and `q`.
fn forward_keys(tx: Sender<Control>) {
    use crossterm::event::{Event, KeyCode, KeyEventKind, KeyModifiers, read};
    let _ = std::thread::Builder::new()
        .name("play-keys".into())
        .spawn(move || {
            while let Ok(ev) = read() {
                let Event::Key(k) = ev else { continue };
                if k.kind == KeyEventKind::Release {
                    continue;
                }
                let c = match k.code {
                    KeyCode::Char(' ') => Control::TogglePause,
                    KeyCode::Char('s') => Control::Step,
                    KeyCode::Char('c') if k.modifiers.contains(KeyModifiers::CONTROL) => {
                        Control::Stop
                    }
                    KeyCode::Char('q') => Control::Stop,
                    _ => continue,
                };
                if tx.send(c).is_err() {
                    break;
                }
            }
        });
}

/// Redraws the status line until `stop` is set.
fn draw_status(
    console: Console,
    status: Arc<Status>,
    stop: Arc<AtomicBool>,
) -> Option<std::thread::JoinHandle<()>> {
    std::thread::Builder::new()
        .name("play-status".into())
        .spawn(move || {
            while !stop.load(Ordering::SeqCst) {
                console.status(&status.snapshot().line(Instant::now()));
                std::thread::park_timeout(STATUS_PERIOD);
            }
        })
        .ok()
}

/// Runs `bagscope play`.
pub fn run(args: &PlayArgs) -> Outcome {
    let (catalog, selection, mut outcome) = match open_selection(&args.bags, &args.select) {
        Ok(opened) => opened,
        Err(o) => return o,
    };
    let namespace = match crate::play::namespace(args.namespace.as_deref()) {
        Ok(ns) => ns,
        Err(e) => {
            print_error(format!("--namespace: {e}"));
            return Outcome::Failed;
        }
    };
    let config = match NodeConfig::from_env(&names::anonymous("bagscope_play")) {
        Ok(c) => c,
        Err(e) => {
            print_error(e);
            return Outcome::Failed;
        }
    };
    let master_uri = config.master_uri.clone();
    let limits = QueueLimits {
        messages: args.queue.max(1),
        ..QueueLimits::default()
    };
    let Session { node, mut outlet } =
        match Session::start(config, &namespace, limits, &catalog, &selection) {
            Ok(s) => s,
            Err(e) => {
                print_error(e);
                return Outcome::Failed;
            }
        };
    let clock = if args.clock {
        match ClockPublisher::advertise(&node) {
            Ok(c) => Some(c),
            Err(e) => {
                print_error(e);
                return Outcome::Failed;
            }
        }
    } else {
        None
    };

    let (tx, rx) = mpsc::channel::<Control>();
    forward_signals(tx.clone());
    {
        let tx = Mutex::new(tx.clone());
        node.on_shutdown_request(move |_| {
            let _ = tx
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .send(Control::Stop);
        });
    }
    let master_lost = Arc::new(AtomicBool::new(false));
    {
        let (tx, lost) = (tx.clone(), Arc::clone(&master_lost));
        node.watch_master(Duration::from_secs(2), 3, move |_| {
            lost.store(true, Ordering::SeqCst);
            let _ = tx.send(Control::Stop);
        });
    }
    let interactive = std::io::stdin().is_terminal();
    let raw = if interactive { RawMode::enter() } else { None };
    if raw.is_some() {
        forward_keys(tx.clone());
    }
    drop(tx);
    let show_status = !args.quiet && std::io::stderr().is_terminal();
    let console = Console {
        raw: raw.is_some(),
        status: show_status,
        lock: Arc::new(Mutex::new(())),
    };
    for w in outlet.take_warnings() {
        console.say(&format!("bagscope: warning: {w}"));
    }
    let bags = catalog
        .paths()
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", ");
    console.say(&format!(
        "bagscope: playing {bags} as {} (master {master_uri}){}",
        node.name(),
        if raw.is_some() {
            "; space pauses, s steps"
        } else {
            ""
        }
    ));

    let status = Arc::new(Status::default());
    let stop_drawing = Arc::new(AtomicBool::new(false));
    let drawer = show_status
        .then(|| {
            draw_status(
                console.clone(),
                Arc::clone(&status),
                Arc::clone(&stop_drawing),
            )
        })
        .flatten();
    let report = {
        let mut player = Player {
            outlet: &mut outlet,
            clock,
            options: PlayOptions {
                rate: args.rate,
                looping: args.looping,
                clock_hz: args.clock.then_some(args.hz),
                delay: Duration::from_secs_f64(args.delay),
                start_paused: args.pause,
                skip_empty: args
                    .skip_empty
                    .filter(|s| *s > 0.0)
                    .map(Duration::from_secs_f64),
                ..PlayOptions::default()
            },
            status: Arc::clone(&status),
        };
        player.run(&catalog, &selection, &rx, &mut |_| {})
    };
    node.flush(FLUSH_TIMEOUT);
    stop_drawing.store(true, Ordering::SeqCst);
    if let Some(d) = drawer {
        d.thread().unpark();
        let _ = d.join();
        console.end_status(&status.snapshot().line(Instant::now()));
    }
    outcome = outcome.max(summarise(&console, &report, &mut outlet));
    if master_lost.load(Ordering::SeqCst) {
        console.say(&format!(
            "bagscope: error: lost the ROS master at {master_uri} (no answer for 6 s)"
        ));
        outcome = Outcome::Problems;
    }
    if args.keep_alive && !report.stopped {
        console.say(&format!(
            "bagscope: keeping {} alive for latched topics (Ctrl-C to exit)",
            node.name()
        ));
        wait_for_stop(&rx);
    }
    if let Err(e) = node.shutdown() {
        console.say(&format!(
            "bagscope: warning: unregistering from the master: {e}"
        ));
    }
    drop(raw);
    outcome
}

fn wait_for_stop(rx: &Receiver<Control>) {
    loop {
        match rx.recv() {
            Ok(Control::Stop) | Err(_) => return,
            Ok(_) => {}
        }
    }
}

/// Prints how playback ended; `Problems` when messages could not be read or published.
fn summarise(console: &Console, report: &Report, outlet: &mut Outlet) -> Outcome {
    let mut outcome = Outcome::Ok;
    for w in outlet.take_warnings() {
        console.say(&format!("bagscope: warning: {w}"));
    }
    for e in &report.read_errors {
        console.say(&format!("bagscope: error: {e}"));
        outcome = Outcome::Problems;
    }
    if let Some(e) = report.publish_errors.first() {
        console.say(&format!(
            "bagscope: error: {} message(s) not published: {e}",
            report.publish_errors.len()
        ));
        outcome = Outcome::Problems;
    }
    for p in outlet.publications() {
        for l in p.stats().subscribers.iter().filter(|l| l.dropped > 0) {
            console.say(&format!(
                "bagscope: warning: {} lost {} message(s) of {}: its queue was full (a slow \
                 subscriber; the others were not held up)",
                l.callerid,
                l.dropped,
                p.topic()
            ));
        }
    }
    let how = if report.stopped { "stopped" } else { "done" };
    let skipped = if report.skipped > 0 {
        format!(", {} skipped", report.skipped)
    } else {
        String::new()
    };
    console.say(&format!(
        "bagscope: {how}: {} message(s) published{skipped}",
        report.published
    ));
    outcome
}
