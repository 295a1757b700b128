//! `bagscope completions SHELL` and `bagscope manpage`: the shell completion scripts and the
//! roff man page, both made from the clap definitions so they cannot drift from the program.
//! The page's KEYS section is made from the explorer's keymap (the table `?` shows), its
//! ENVIRONMENT section from [`ENVIRONMENT`].

use std::io::{self, Write};
use std::path::PathBuf;

use clap::Args;
use clap_complete::Shell;

use super::outcome::Outcome;
use super::term::print_error;
use crate::tui::keymap::{Context, KeyMap};

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
    /// Write bagscope.1 and one bagscope-SUBCOMMAND.1 per subcommand into DIR (created if
    /// missing) instead of printing the single page (with every subcommand as a section) on
    /// stdout.
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
        return match write_pages(cmd, dir) {
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

/// Writes the pages of `cmd` into `dir`, creating it (and its parents) when missing:
/// `bagscope.1` (with KEYS and ENVIRONMENT) and one `bagscope-SUBCOMMAND.1` each.
fn write_pages(cmd: clap::Command, dir: &std::path::Path) -> io::Result<()> {
    std::fs::create_dir_all(dir)?;
    clap_mangen::generate_to(cmd.clone(), dir)?;
    let mut cmd = cmd.disable_help_subcommand(true);
    cmd.build();
    let man = clap_mangen::Man::new(cmd);
    let mut out = Vec::new();
    man.render(&mut out)?;
    extra_sections(&mut out)?;
    std::fs::write(dir.join(man.get_filename()), out)
}

/// The roff of bagscope(1) from the command line `cmd`: the main page, the explorer's KEYS
/// and the ENVIRONMENT, then one section per subcommand (nested ones too, `index build`) with
/// its synopsis, description and options as subsections.
pub fn page(cmd: clap::Command) -> io::Result<Vec<u8>> {
    let mut cmd = cmd.disable_help_subcommand(true);
    cmd.build();
    let mut out = Vec::new();
    clap_mangen::Man::new(cmd.clone()).render(&mut out)?;
    extra_sections(&mut out)?;
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

/// The environment variables bagscope reads: `(name, what it does)`.
pub const ENVIRONMENT: &[(&str, &str)] = &[
    (
        "BAGSCOPE_CACHE_DIR",
        "Where info remembers the compression statistics of bags read before (default: \
         $XDG_CACHE_HOME/bagscope, else $HOME/.cache/bagscope). Set and empty: remember nothing.",
    ),
    (
        "BAGSCOPE_GRAPHICS",
        "How the explorer draws pictures: auto (ask the terminal; the default), halfblocks, \
         kitty, sixel or iterm2.",
    ),
    (
        "BAGSCOPE_QUERY_WAIT",
        "Seconds the explorer waits for the terminal to answer its graphics query (default 2, \
         at most 60).",
    ),
    (
        "BAGSCOPE_ESCAPE",
        "always: escape control characters of bag text on standard output even when it is not \
         a terminal (a pipe or a file gets the bytes as the official tools print them).",
    ),
    (
        "NO_COLOR",
        "Set and not empty: no colours, in the explorer (pictures as grey ramps) and in \
         coloured terminal output.",
    ),
    (
        "ROS_MASTER_URI",
        "The ROS master play, serve, call and the explorer's p publish through (default \
         http://localhost:11311/).",
    ),
    (
        "ROS_HOSTNAME, ROS_IP",
        "The address bagscope's ROS node gives its peers (ROS_HOSTNAME first).",
    ),
    (
        "ROS_NAMESPACE",
        "The namespace bagscope's ROS node and its relative names are resolved in.",
    ),
    (
        "XDG_CACHE_HOME, HOME",
        "Where the cache directory is when BAGSCOPE_CACHE_DIR is unset.",
    ),
    (
        "TMUX, TERM",
        "Inside tmux or screen, BAGSCOPE_GRAPHICS=auto draws half-blocks without asking.",
    ),
];

/// The key contexts of the explorer as the KEYS section lists them, with their headings.
const KEY_CONTEXTS: [Context; 5] = [
    Context::Global,
    Context::Plot,
    Context::Prompt,
    Context::Log,
    Context::Confirm,
];

/// The heading of a key context (every context has one, so a new one gets a heading).
fn context_heading(context: Context) -> &'static str {
    match context {
        Context::Global => "Everywhere (a pane may give a key its own meaning)",
        Context::Plot => "In the plot pane (5)",
        Context::Prompt => "Typing a filter, a time or an expression",
        Context::Log => "In the log view (r)",
        Context::Confirm => "Answering a question",
    }
}

/// Writes the KEYS section (the explorer's keymap, as `?` shows it) and the ENVIRONMENT
/// section.
fn extra_sections(out: &mut Vec<u8>) -> io::Result<()> {
    let keymap = KeyMap::default();
    writeln!(out, ".SH KEYS")?;
    writeln!(
        out,
        "The explorer (bagscope BAG...) reads these keys; ? shows them in the program."
    )?;
    for context in KEY_CONTEXTS {
        writeln!(out, ".SS \"{}\"", roff_text(context_heading(context)))?;
        for (keys, what) in keymap.help(context) {
            writeln!(out, ".TP")?;
            writeln!(out, "\\fB{}\\fR", roff_text(&keys))?;
            writeln!(out, "{}", roff_line(what))?;
        }
    }
    writeln!(out, ".SH ENVIRONMENT")?;
    for (name, what) in ENVIRONMENT {
        writeln!(out, ".TP")?;
        writeln!(out, "\\fB{}\\fR", roff_text(name))?;
        writeln!(out, "{}", roff_line(what))?;
    }
    Ok(())
}

/// `text` escaped for roff inside a line: backslashes, and hyphens as minus signs.
fn roff_text(text: &str) -> String {
    text.replace('\\', "\\e")
        .replace('-', "\\-")
        .replace('"', "\\(dq")
}

/// `text` as a roff text line: escaped, and never taken for a request (a leading `.` or `'`).
fn roff_line(text: &str) -> String {
    let escaped = roff_text(text);
    if escaped.starts_with('.') || escaped.starts_with('\'') {
        format!("\\&{escaped}")
    } else {
        escaped
    }
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
