//! The arguments of `bagscope echo`, shared by its modes (all messages, `-n`, `--follow`) and
//! by `query`'s printing.

use clap::{Args, ValueEnum};

use crate::cli::args::{BagsArgs, SelectArgs};
use crate::cli::where_args::WhereArgs;

/// Output formats of `echo`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum EchoFormat {
    /// `rostopic echo` style, `---` after each message.
    Yaml,
    /// One JSON object per line (docs/JSON.md).
    Json,
}

/// Arguments of `bagscope echo`.
#[derive(Args, Debug, Clone)]
pub struct EchoArgs {
    /// Which messages.
    #[command(flatten)]
    pub select: SelectArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = EchoFormat::Yaml)]
    pub format: EchoFormat,
    /// Stop after this many messages.
    #[arg(long, short = 'n', value_name = "N")]
    pub limit: Option<u64>,
    /// Which messages, by content.
    #[command(flatten)]
    pub filter: WhereArgs,
    /// The bags, and where the definitions they lack come from.
    #[command(flatten)]
    pub input: BagsArgs,
    /// With `--where EXPR`: print the stretches of time in which EXPR held instead of the
    /// messages, one line per run of consecutive messages of a topic for which it holds:
    /// `START END COUNT` (receive times as `sec.nsec`; the topic as a 4th column when
    /// several topics are selected).
    #[arg(long)]
    pub intervals: bool,
    /// Follow one bag that is still being recorded (`.bag.active`): print its messages,
    /// then each new one as it is written, until the recording ends or Ctrl-C.
    #[arg(long)]
    pub follow: bool,
    /// With `--follow`: stop waiting once the file has not grown for this many seconds and
    /// no process holds it open for writing (a recorder that crashed); exit 1. 0: wait
    /// forever.
    #[arg(long, value_name = "SECS", default_value_t = crate::cli::follow::IDLE_TIMEOUT)]
    pub idle_timeout: u64,
}
