//! `bagscope completions SHELL` and `bagscope manpage`: the shell completion scripts and the
//! roff man page, both made from the clap definitions so they cannot drift from the program.

use std::io::{self, Write};
use std::path::PathBuf;

use clap::Args;
use clap_complete::Shell;

use super::outcome::Outcome;
use super::term::print_error;

/// `bagscope completions SHELL`.
#[derive(Args, Debug)]
pub struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_name = "SHELL")]
    pub shell: Shell,
}

/// `bagscope manpage [--out DIR]`.
#[derive(Args, Debug)]
pub struct ManpageArgs {
    /// Write bagscope.1 and one bagscope-SUBCOMMAND.1 per subcommand into DIR instead of
    /// printing the single page (with every subcommand as a section) on stdout.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
}

/// Prints the completion script for `args.shell` of the command line `cmd` on stdout.
pub fn completions(args: &CompletionsArgs, mut cmd: clap::Command) -> Outcome {
    let mut out = Vec::new();
    clap_complete::generate(args.shell, &mut cmd, "bagscope", &mut out);
    write_stdout(&out)
}

/// Prints the man page of the command line `cmd` on stdout, or writes the pages into
/// `--out DIR`.
pub fn manpage(args: &ManpageArgs, cmd: clap::Command) -> Outcome {
    if let Some(dir) = &args.out {
        return match clap_mangen::generate_to(cmd, dir) {
            Ok(()) => Outcome::Ok,
            Err(e) => {
                print_error(format!("{}: {e}", dir.display()));
                Outcome::Failed
            }
        };
    }
    match page(cmd) {
        Ok(roff) => write_stdout(&roff),
        Err(e) => {
            print_error(format!("man page: {e}"));
            Outcome::Failed
        }
    }
}

/// The roff of bagscope(1) from the command line `cmd`: the main page, then one section per subcommand (nested ones
/// too, `index build`) with its synopsis, description and options as subsections.
pub fn page(cmd: clap::Command) -> io::Result<Vec<u8>> {
    let mut cmd = cmd.disable_help_subcommand(true);
    cmd.build();
    let mut out = Vec::new();
    clap_mangen::Man::new(cmd.clone()).render(&mut out)?;
    let mut todo: Vec<clap::Command> = cmd.get_subcommands().cloned().collect();
    todo.reverse();
    while let Some(sub) = todo.pop() {
        if sub.is_hide_set() {
            continue;
        }
        let name = sub
            .get_bin_name()
            .map_or_else(|| sub.get_name().to_string(), str::to_string);
        writeln!(out, ".SH \"{}\"", name.to_uppercase())?;
        let man = clap_mangen::Man::new(sub.clone());
        let mut part = Vec::new();
        man.render_synopsis_section(&mut part)?;
        man.render_description_section(&mut part)?;
        if sub.get_arguments().any(|a| !a.is_hide_set()) {
            man.render_options_section(&mut part)?;
        }
        // The subcommand's own sections become subsections of its section.
        for line in String::from_utf8_lossy(&part).lines() {
            match line.strip_prefix(".SH ") {
                Some(rest) => writeln!(out, ".SS {rest}")?,
                None => writeln!(out, "{line}")?,
            }
        }
        let mut nested: Vec<clap::Command> = sub.get_subcommands().cloned().collect();
        nested.reverse();
        todo.extend(nested);
    }
    Ok(out)
}

/// Writes `bytes` to stdout; a closed pipe is not an error.
fn write_stdout(bytes: &[u8]) -> Outcome {
    let mut stdout = io::stdout().lock();
    match stdout.write_all(bytes).and_then(|()| stdout.flush()) {
        Ok(()) => Outcome::Ok,
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Outcome::Ok,
        Err(e) => {
            print_error(format!("stdout: {e}"));
            Outcome::Failed
        }
    }
}
