//! The command-line interface: argument parsing, one module per subcommand, exit codes.
//!
//! This file holds `main` and the dispatch only; what the subcommands share has a file of its
//! own that never reaches back here: the grammar (`command`), the set-up of the commands that
//! read messages (`context`: bags, definitions, selection, `--where`, built once), how a
//! command ended (`outcome`) and why it could not run (`error`). Commands return
//! `Result<Outcome, CliError>`; the error is printed once, here. `echo/` and `export/` group
//! a command's modes, with their arguments in `args.rs`.
//!
//! Exit codes (see `docs/cli.md`): 0 success; 1 the data has problems (a damaged bag read in
//! part, `verify` found problems); 2 usage error or a file that cannot be opened at all.
//! Errors are printed as `bagscope: error: FILE: WHAT (at byte N)`.

pub mod args;
pub mod cache_dir;
pub mod call;
pub mod command;
pub mod context;
mod controls;
pub mod convert;
pub mod copy;
pub mod damage;
pub mod echo;
pub mod error;
mod explore;
pub mod export;
pub mod field_paths;
pub mod filter;
mod follow;
pub mod index;
pub mod info;
pub mod json;
pub mod log;
mod one_subcommand;
pub mod ordered;
pub mod outcome;
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

use std::io::{self, Write};
use std::process::ExitCode;

use command::{Cli, Command};
use outcome::Outcome;
use term::print_error;

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
    let result = match &cli.command {
        Some(Command::Info(args)) => info::run(args),
        Some(Command::Echo(args)) => echo::run(args),
        Some(Command::Log(args)) => log::run(args),
        Some(Command::Verify(args)) => verify::run(args),
        Some(Command::Export(args)) => export::run(args),
        Some(Command::Index(args)) => Ok(index::run(args)),
        Some(Command::Query(args)) => index::query(args),
        Some(Command::Filter(args)) => filter::run(args),
        Some(Command::Reindex(args)) => reindex::run(args),
        Some(Command::Convert(args)) => convert::run(args),
        Some(Command::Play(args)) => play::run(args),
        Some(Command::Serve(args)) => Ok(serve::run(args)),
        Some(Command::Call(args)) => Ok(call::run(args)),
        Some(Command::Completions(args)) => Ok(shell::completions(
            args,
            <Cli as clap::CommandFactory>::command(),
        )),
        Some(Command::Manpage(args)) => Ok(shell::manpage(
            args,
            <Cli as clap::CommandFactory>::command(),
        )),
        None => Ok(explore::explore(cli)),
    };
    error::finish(result)
}
