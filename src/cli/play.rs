//! `bagscope play BAG...`: publishes the selected messages into a live ROS1 graph on their
//! original schedule, through the native node (`ros`) and player (`play`).
//!
//! On a terminal, space pauses and resumes, `s` steps one message while paused, and a
//! `rosbag play`-style status line is redrawn on stderr. Elsewhere: no raw mode, one line at
//! the start and one at the end.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use clap::Args;

use crate::catalog::{Catalog, Selection};
use crate::play::{
    ClockPublisher, Outlet, PlayOptions, Player, Report, Session, Status, StatusSnapshot, Watcher,
};
use crate::ros::{NodeConfig, QueueLimits, names};

use super::args::SelectArgs;
use super::context::{Context, Fields, Wanted};
use super::controls::{RawMode, Stops, forward_keys};
use super::error::CliError;
use super::outcome::Outcome;

/// How long queued messages may take to reach subscribers at the end.
const FLUSH_TIMEOUT: Duration = Duration::from_secs(5);
/// How often the status line is redrawn.
const STATUS_PERIOD: Duration = Duration::from_millis(100);
/// Subscribers that lost messages of one topic named one line each; beyond, one line says
/// how many.
const DROP_LINES: usize = 3;
/// How often the master is checked, and after how many failures in a row it is taken as
/// lost (6 s without an answer).
const MASTER_CHECK: Duration = Duration::from_secs(2);
const MASTER_MISSES: u32 = 3;

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

/// Runs `bagscope play`.
pub fn run(args: &PlayArgs) -> Result<Outcome, CliError> {
    let ctx = Context::open(&Wanted {
        bags: &args.bags,
        msg: None,
        select: &args.select,
        filter: None,
        fields: Fields::No,
    })?;
    let started = start(args, &ctx.catalog, &ctx.selection)?;
    Ok(play(
        args,
        &ctx.catalog,
        &ctx.selection,
        started,
        ctx.outcome,
    ))
}

/// A node started with the selection advertised, and `/clock` when asked for.
struct Started {
    session: Session,
    clock: Option<ClockPublisher>,
    master_uri: String,
}

/// Checks the namespace, starts the node from the environment, advertises the selection
/// and `/clock`.
fn start(args: &PlayArgs, catalog: &Catalog, selection: &Selection) -> Result<Started, CliError> {
    let namespace = crate::play::namespace(args.namespace.as_deref())
        .map_err(|e| CliError::Usage(format!("--namespace: {e}")))?;
    let config = NodeConfig::from_env(&names::anonymous("bagscope_play"))?;
    let master_uri = config.master_uri.clone();
    let limits = QueueLimits {
        messages: args.queue.max(1),
        ..QueueLimits::default()
    };
    let session = Session::start(config, &namespace, limits, catalog, selection)?;
    let clock = if args.clock {
        Some(ClockPublisher::advertise(&session.node)?)
    } else {
        None
    };
    Ok(Started {
        session,
        clock,
        master_uri,
    })
}

/// How `args` ask to play.
fn options(args: &PlayArgs) -> PlayOptions {
    PlayOptions {
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
    }
}

/// Plays the selection through the started node, with keys and a status line on a
/// terminal; then reports, keeps the node alive if asked and unregisters.
fn play(
    args: &PlayArgs,
    catalog: &Catalog,
    selection: &Selection,
    started: Started,
    mut outcome: Outcome,
) -> Outcome {
    let Started {
        session: Session { node, mut outlet },
        clock,
        master_uri,
    } = started;
    let (stops, keys) = Stops::watch(&node, MASTER_CHECK, MASTER_MISSES, |_| {});
    let raw = if std::io::stdin().is_terminal() {
        RawMode::enter()
    } else {
        None
    };
    if raw.is_some() {
        forward_keys(keys);
    }
    let show_status = !args.quiet && std::io::stderr().is_terminal();
    let console = Console {
        raw: raw.is_some(),
        status: show_status,
        lock: Arc::new(Mutex::new(())),
    };
    for w in outlet.take_warnings() {
        console.say(&format!("bagscope: warning: {w}"));
    }
    super::serve::note_few_descriptors(&node, |line| {
        console.say(&format!("bagscope: warning: {line}"));
    });
    {
        let console = console.clone();
        node.on_refusal(move |line| console.say(&format!("bagscope: warning: {line}")));
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
    let mut player = Player {
        outlet: &mut outlet,
        clock,
        options: options(args),
        status: Arc::clone(&status),
    };
    let watcher = show_status.then(|| {
        let console = console.clone();
        Watcher {
            period: STATUS_PERIOD,
            on_status: Box::new(move |s: &StatusSnapshot| console.status(&s.line(Instant::now()))),
        }
    });
    let report = match crate::play::play(&mut player, catalog, selection, &stops.rx, watcher) {
        Ok(report) => report,
        Err(panic) => std::panic::resume_unwind(panic),
    };
    node.flush(FLUSH_TIMEOUT);
    if show_status {
        console.end_status(&status.snapshot().line(Instant::now()));
    }
    outcome = outcome.max(summarise(&console, &report, &mut outlet));
    if stops.master_lost() {
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
        stops.wait_for_stop();
    }
    if let Err(e) = node.shutdown() {
        console.say(&format!(
            "bagscope: warning: unregistering from the master: {e}"
        ));
    }
    drop(raw);
    outcome
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
        let stats = p.stats();
        let lost: Vec<_> = stats.subscribers.iter().filter(|l| l.dropped > 0).collect();
        if lost.len() <= DROP_LINES {
            for l in lost {
                console.say(&format!(
                    "bagscope: warning: {} lost {} message(s) of {}: its queue was full (a \
                     slow subscriber; the others were not held up)",
                    l.callerid,
                    l.dropped,
                    p.topic()
                ));
            }
        } else if let Some(first) = lost.first() {
            // A crowd gets one line, not one each.
            let others: u64 = lost.iter().skip(1).map(|l| l.dropped).sum();
            console.say(&format!(
                "bagscope: warning: {} lost {} message(s) of {}, and {} other subscriber(s) \
                 {others} more: their queues were full (slow subscribers; the others were not \
                 held up)",
                first.callerid,
                first.dropped,
                p.topic(),
                lost.len() - 1
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
