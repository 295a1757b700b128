//! Everything the command line prints goes through here: stdout through [`Stdout`] (escaped
//! for the terminal as `docs/cli.md` says; a closed pipe ends the output quietly), stderr
//! through [`print_error`], [`print_warning`] and [`print_note`] (always escaped, write
//! errors ignored). No `println!`/`eprintln!` elsewhere in `cli/`: they panic on a closed
//! pipe and print control characters from bags raw.

use std::fmt;
use std::io::{self, BufWriter, IsTerminal, StdoutLock, Write};

use crate::printable::{Escaping, escape_line};

use super::outcome::Outcome;

/// The environment variable that makes data outputs escaped as on a terminal
/// (`BAGSCOPE_ESCAPE=always`; for tests and for pagers that interpret escapes).
pub const ESCAPE_ENV: &str = "BAGSCOPE_ESCAPE";

/// Whether data outputs (YAML, JSON, CSV on stdout) are escaped: when stdout is a terminal,
/// or `BAGSCOPE_ESCAPE=always`. Written to a pipe or a file they stay byte-identical to the
/// official tools' output.
#[must_use]
pub fn escape_data() -> bool {
    io::stdout().is_terminal() || std::env::var_os(ESCAPE_ENV).is_some_and(|v| v == "always")
}

/// Standard output of a command. The first write error is kept and later writes are dropped;
/// [`Stdout::finish`] turns a closed pipe into a quiet end and any other error into a report.
pub struct Stdout {
    out: Escaping<BufWriter<StdoutLock<'static>>>,
    error: Option<io::Error>,
    /// Flush after each print (summaries on a terminal appear as they are made, in order
    /// with the diagnostics on stderr).
    eager: bool,
}

impl Stdout {
    /// For human summaries (`info`, `verify`, `reindex`, …): always escaped.
    #[must_use]
    pub fn human() -> Self {
        let mut out = Self::new(true);
        out.eager = io::stdout().is_terminal();
        out
    }

    /// For data outputs (`echo`, `export`, `info --json/--yaml`, …): escaped on a terminal
    /// only ([`escape_data`]).
    #[must_use]
    pub fn data() -> Self {
        Self::new(escape_data())
    }

    /// For outputs that escape their text themselves and may colour it (`log`): written as
    /// they are.
    #[must_use]
    pub fn escaped_by_caller() -> Self {
        Self::new(false)
    }

    fn new(escaped: bool) -> Self {
        Stdout {
            out: Escaping::new(
                BufWriter::with_capacity(1 << 16, io::stdout().lock()),
                escaped,
            ),
            error: None,
            eager: false,
        }
    }

    /// Writes formatted text (see the `outln!` macro).
    pub fn print(&mut self, args: fmt::Arguments<'_>) {
        if self.error.is_none() {
            let written = self.out.write_fmt(args);
            if let Err(e) =
                written.and_then(|()| if self.eager { self.out.flush() } else { Ok(()) })
            {
                self.error = Some(e);
            }
        }
    }

    /// Writes bytes.
    pub fn bytes(&mut self, data: &[u8]) {
        if self.error.is_none() {
            if let Err(e) = self.out.write_all(data) {
                self.error = Some(e);
            }
        }
    }

    /// True once a write failed (the reader went away): there is no point producing more.
    #[must_use]
    pub fn is_closed(&self) -> bool {
        self.error.is_some()
    }

    /// Flushes and returns `outcome`; a closed pipe is quiet (the outcome so far), any other
    /// write error is reported and fails the command.
    pub fn finish(mut self, outcome: Outcome) -> Outcome {
        if self.error.is_none() {
            if let Err(e) = self.out.flush() {
                self.error = Some(e);
            }
        }
        match self.error {
            None => outcome,
            Some(e) => write_failed(&e, outcome),
        }
    }
}

impl Write for Stdout {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if let Some(e) = &self.error {
            return Err(io::Error::new(e.kind(), e.to_string()));
        }
        self.out.write(buf).inspect_err(|e| {
            self.error = Some(io::Error::new(e.kind(), e.to_string()));
        })
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// The outcome after a write to stdout failed: a closed pipe (`| head`) ends the output
/// quietly with the outcome so far; other errors are reported.
pub fn write_failed(e: &io::Error, outcome: Outcome) -> Outcome {
    if e.kind() == io::ErrorKind::BrokenPipe {
        outcome
    } else {
        print_error(format_args!("writing the output: {e}"));
        Outcome::Failed
    }
}

/// Writes a line on stdout: `outln!(out, "x: {}", x)`.
macro_rules! outln {
    ($out:expr) => { $out.print(format_args!("\n")) };
    ($out:expr, $($arg:tt)*) => {
        $out.print(format_args!("{}\n", format_args!($($arg)*)))
    };
}
pub(crate) use outln;

/// Prints `bagscope: PREFIX: MESSAGE` on stderr as one line, escaped; a failing stderr is
/// ignored.
fn to_stderr(prefix: &str, message: &dyn fmt::Display) {
    let text = message.to_string();
    let _ = writeln!(
        io::stderr().lock(),
        "bagscope: {prefix}{}",
        escape_line(&text)
    );
}

/// Prints an error line in the contract's shape: `bagscope: error: MESSAGE`.
pub fn print_error(message: impl fmt::Display) {
    to_stderr("error: ", &message);
}

/// Prints `bagscope: warning: MESSAGE`.
pub fn print_warning(message: impl fmt::Display) {
    to_stderr("warning: ", &message);
}

/// Prints `bagscope: MESSAGE` (progress and log lines).
pub fn print_note(message: impl fmt::Display) {
    to_stderr("", &message);
}
