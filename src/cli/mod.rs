//! The command-line interface: argument parsing, one module per subcommand, exit codes.
//!
//! Exit codes (see `docs/cli.md`): 0 success; 1 the data has problems (a damaged bag read in
//! part, `verify` found problems); 2 usage error or a file that cannot be opened at all.
//! Errors are printed as `bagscope: error: FILE: WHAT (at byte N)`.

pub mod args;
pub mod cache_dir;
pub mod call;
mod controls;
pub mod convert;
pub mod copy;
pub mod damage;
pub mod echo;
mod echo_all;
pub mod export;
pub mod export_images;
pub mod export_sink;
mod export_text;
pub mod field_paths;
pub mod filter;
mod follow;
pub mod index;
pub mod info;
pub mod json;
mod one_subcommand;
pub mod ordered;
pub mod output;
pub mod play;
pub mod progress;
pub mod reindex;
pub mod rosbag_fmt;
pub mod serve;
pub mod shell;
pub mod suggest;
pub mod term;
pub mod verify;
pub mod where_args;

pub use term::{print_error, print_note, print_warning};

use std::io::{self, Write};
use std::path::Path;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::bag::Bag;

/// bagscope: explore, check and convert ROS1 bag files of every version.
#[derive(Parser, Debug)]
#[command(name = "bagscope", version, about, long_about = None)]
#[command(args_conflicts_with_subcommands = true)]
pub struct Cli {
    /// Subcommand; without one, BAG files open in the terminal explorer.
    #[command(subcommand)]
    pub command: Option<Command>,
    /// Bags to explore (none: the bundled demo bag).
    #[arg(value_name = "BAG")]
    pub bags: Vec<std::path::PathBuf>,
    /// Do not capture the mouse (keeps the terminal's own selection working).
    #[arg(long)]
    pub no_mouse: bool,
    /// `p` in the explorer publishes every topic under this namespace
    /// (`/chatter` → `NS/chatter`).
    #[arg(long, value_name = "NS", value_parser = parse_namespace)]
    pub ros_namespace: Option<String>,
    /// Speed factor of `p` in the explorer: 2 publishes twice as fast, 0.5 half as fast.
    #[arg(long, default_value_t = 1.0, value_name = "R", value_parser = play::parse_rate)]
    pub ros_rate: f64,
    /// Where definitions the bags lack come from.
    #[command(flatten)]
    pub msg: args::MsgPathArgs,
    /// Open the explorer with this field plotted (`/topic/field`, e.g.
    /// `/imu/data/linear_acceleration/z` or `/scan/ranges[10]`); repeatable.
    #[arg(long = "plot", value_name = "PATH")]
    pub plot: Vec<String>,
}

/// A namespace ROS accepts, as a global name.
fn parse_namespace(s: &str) -> Result<String, String> {
    crate::play::namespace(Some(s)).map_err(|e| e.to_string())
}

/// The subcommands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Summarise bags (the `rosbag info` layout, or YAML/JSON).
    Info(info::InfoArgs),
    /// Print decoded messages in receive-time order (`rostopic echo` YAML or JSON lines).
    Echo(echo::EchoArgs),
    /// Read, decompress and decode every message; report every problem (exit 1 if any).
    Verify(verify::VerifyArgs),
    /// One row per message of a topic: CSV (`rostopic echo -p` columns) or JSON lines.
    Export(export::ExportArgs),
    /// Build or inspect a persistent index over many bags (`index build INDEX BAG...`).
    Index(index::IndexArgs),
    /// Every indexed message of an interval, in time order, printed or written to a bag.
    Query(index::QueryArgs),
    /// Write a V2.0 copy of the messages on some topics within a time range.
    Filter(filter::FilterArgs),
    /// Write a complete, indexed V2.0 copy of an unindexed, truncated or old bag.
    Reindex(reindex::ReindexArgs),
    /// Convert RoCKIn YAML to a bag (IN.yaml OUT.bag) or a bag to RoCKIn YAML (IN.bag OUT.yaml).
    Convert(convert::ConvertArgs),
    /// Publish the messages into a live ROS1 graph on their original schedule.
    Play(play::PlayArgs),
    /// The bagserver: publish indexed intervals under a namespace on request (NS/play_interval).
    Serve(serve::ServeArgs),
    /// Ask a bagserver (`serve`) to publish an interval: `call NS START END [-t TOPIC]...`.
    Call(call::CallArgs),
    /// Print the shell completion script: `bagscope completions bash|zsh|fish`.
    Completions(shell::CompletionsArgs),
    /// Print the man page bagscope(1), every subcommand included (`--out DIR`: one file each).
    Manpage(shell::ManpageArgs),
}

/// How a command ended; ordered by severity.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Outcome {
    /// Everything fine.
    Ok,
    /// The data has problems (damaged bag read in part, verify findings).
    Problems,
    /// Usage error, or a file that cannot be opened at all.
    Failed,
    /// The explorer was ended by this signal (exit code 128 + n, as shells report it).
    Signal(u8),
}

impl From<Outcome> for ExitCode {
    fn from(o: Outcome) -> ExitCode {
        match o {
            Outcome::Ok => ExitCode::SUCCESS,
            Outcome::Problems => ExitCode::from(1),
            Outcome::Failed => ExitCode::from(2),
            Outcome::Signal(n) => ExitCode::from(128_u8.saturating_add(n)),
        }
    }
}

/// Opens a bag, printing the error and returning [`Outcome::Failed`] when it cannot be opened.
pub fn open_bag(path: &Path) -> Result<Bag, Outcome> {
    Bag::open(path).map_err(|e| {
        print_error(&e);
        Outcome::Failed
    })
}

/// Runs the command line and returns the process exit code.
pub fn main() -> ExitCode {
    let argv: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if let Some(cli) = one_subcommand::parse(&argv) {
        return run(&cli).into();
    }
    // The command tree is built once (building it is a good part of the start-up time).
    let mut command = <Cli as clap::CommandFactory>::command();
    if let Some(message) = suggest::mistyped_subcommand(&command, &argv) {
        print_error(message);
        return ExitCode::from(2);
    }
    let parsed = command.try_get_matches_from_mut(&argv).and_then(|mut m| {
        <Cli as clap::FromArgMatches>::from_arg_matches_mut(&mut m)
            .map_err(|e| e.format(&mut command))
    });
    let cli = match parsed {
        Ok(c) => c,
        Err(e) if e.use_stderr() => {
            // A usage error quotes the arguments, which may come from file names: escaped, as
            // every diagnostic (plain text, without clap's colours).
            let text = e.render().to_string();
            let _ = write!(io::stderr().lock(), "{}", crate::printable::escape(&text));
            return ExitCode::from(2);
        }
        Err(e) => {
            // --help, --version: clap's own output on stdout.
            let _ = e.print();
            return ExitCode::SUCCESS;
        }
    };
    run(&cli).into()
}

/// Runs a parsed command line.
pub fn run(cli: &Cli) -> Outcome {
    // Commands that write files leave no temporary file behind when stopped by Ctrl-C, a
    // SIGTERM or a file-size limit (the others handle their signals themselves).
    if matches!(
        &cli.command,
        Some(
            Command::Filter(_)
                | Command::Reindex(_)
                | Command::Convert(_)
                | Command::Export(_)
                | Command::Index(_)
                | Command::Query(_)
        )
    ) {
        if let Err(e) = crate::bag::writer::remove_temp_files_on_signals() {
            print_error(format!("cannot install the signal handlers: {e}"));
        }
    }
    match &cli.command {
        Some(Command::Info(args)) => info::run(args),
        Some(Command::Echo(args)) => echo::run(args),
        Some(Command::Verify(args)) => verify::run(args),
        Some(Command::Export(args)) => export::run(args),
        Some(Command::Index(args)) => index::run(args),
        Some(Command::Query(args)) => index::query(args),
        Some(Command::Filter(args)) => filter::run(args),
        Some(Command::Reindex(args)) => reindex::run(args),
        Some(Command::Convert(args)) => convert::run(args),
        Some(Command::Play(args)) => play::run(args),
        Some(Command::Serve(args)) => serve::run(args),
        Some(Command::Call(args)) => call::run(args),
        Some(Command::Completions(args)) => shell::completions(args),
        Some(Command::Manpage(args)) => shell::manpage(args),
        None => explore(cli),
    }
}

/// The bundled demo bag (see `assets/README.md`).
const DEMO_BAG: &[u8] = include_bytes!("../../assets/demo.bag");

/// `bagscope [BAG]...`: the terminal explorer (the demo bag when no bag is given). The bags
/// are opened by the explorer itself, on a background thread, so its first frame is at once.
fn explore(cli: &Cli) -> Outcome {
    use crate::tui::{Bags, Ended};
    use std::io::IsTerminal;
    // What cannot be a bag (missing, a FIFO, a directory, a device) is refused at once, before
    // the terminal is taken over.
    for path in &cli.bags {
        if let Err(e) = crate::bag::open_regular(path) {
            print_error(crate::bag::BagError::new(
                &std::sync::Arc::from(path.as_path()),
                e.into(),
            ));
            return Outcome::Failed;
        }
    }
    let Ok(registry) = cli.msg.registry() else {
        return Outcome::Failed;
    };
    if !std::io::stdout().is_terminal() {
        print_error(
            "the explorer needs a terminal; use `bagscope info` or `bagscope echo` in scripts",
        );
        return Outcome::Failed;
    }
    let options = crate::bag::OpenOptions::default();
    let (bags, note) = if cli.bags.is_empty() {
        match Bag::from_bytes("demo.bag", DEMO_BAG.to_vec(), options) {
            Ok(bag) => (
                Bags::Open(crate::catalog::Catalog::new(vec![bag])),
                Some("bundled demo bag (bagscope BAG... opens yours)".to_string()),
            ),
            Err(e) => {
                print_error(e);
                return Outcome::Failed;
            }
        }
    } else {
        (Bags::Paths(cli.bags.clone(), options), None)
    };
    let options = crate::tui::Options {
        note,
        mouse: !cli.no_mouse,
        registry,
        plots: cli.plot.clone(),
        publish: crate::tui::jobs::publish::Settings {
            namespace: cli.ros_namespace.clone().unwrap_or_else(|| "/".to_string()),
            rate: cli.ros_rate,
            config: None,
        },
    };
    let result = crate::tui::run(bags, &options);
    // A bag still being written by `E` when the explorer ends (quit, Ctrl-C, SIGTERM) is not
    // finished: remove its temporary file rather than leave it behind.
    crate::bag::writer::remove_temp_files();
    match result {
        Ok(Ended::Quit { errors }) => {
            for e in &errors {
                print_error(e);
            }
            // Some bags given could not be shown.
            if errors.is_empty() {
                Outcome::Ok
            } else {
                Outcome::Problems
            }
        }
        Ok(Ended::Signal(n)) => Outcome::Signal(u8::try_from(n).unwrap_or(127)),
        Ok(Ended::Unopenable(errors)) => {
            for e in &errors {
                print_error(e);
            }
            Outcome::Failed
        }
        Err(e) => {
            print_error(format!("terminal: {e}"));
            Outcome::Failed
        }
    }
}
