//! The arguments of `bagscope log`.

use clap::{Args, ValueEnum};

use crate::catalog::log::LogLevel;
use crate::cli::args::{BagsArgs, SelectArgs};
use crate::cli::where_args::WhereArgs;

/// Output formats of `log`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum LogFormat {
    /// One line per message, as rosconsole prints it: `[ INFO] [STAMP] [NODE]: TEXT`.
    Text,
    /// One JSON object per message and line, every field (docs/log.md).
    Json,
}

/// Arguments of `bagscope log`.
#[derive(Args, Debug, Clone)]
pub struct LogArgs {
    /// Only messages at least this severe: debug, info, warn, error or fatal (any case).
    #[arg(long, short = 'l', value_name = "L", value_parser = parse_level, default_value = "debug")]
    pub level: LogLevel,
    /// Only messages of this node (its exact name, e.g. `/planner`; a missing leading `/` is
    /// tolerated; repeatable).
    #[arg(long = "node", value_name = "N")]
    pub nodes: Vec<String>,
    /// Which log topics and time range (default: `/rosout`, or `/rosout_agg` when it is the
    /// only log topic; `--start`/`--end` are receive times).
    #[command(flatten)]
    pub select: SelectArgs,
    /// Which messages, by content (fields of rosgraph_msgs/Log).
    #[command(flatten)]
    pub filter: WhereArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = LogFormat::Text)]
    pub format: LogFormat,
    /// Also print where each message was logged (`file:line (function)`) and the node's
    /// topics.
    #[arg(long, short = 'v')]
    pub verbose: bool,
    /// The bags (merged in receive-time order), and where the definitions they lack come
    /// from.
    #[command(flatten)]
    pub input: BagsArgs,
    /// Follow one bag that is still being recorded (`.bag.active`): print its log lines,
    /// then each new one as it is written, until the recording ends or Ctrl-C.
    #[arg(long)]
    pub follow: bool,
    /// With `--follow`: stop waiting once the file has not grown for this many seconds and
    /// no process holds it open for writing (a recorder that crashed); exit 1. 0: wait
    /// forever.
    #[arg(long, value_name = "SECS", default_value_t = crate::cli::follow::IDLE_TIMEOUT)]
    pub idle_timeout: u64,
}

/// A level by name, any case (`warning` for `warn` too).
pub fn parse_level(s: &str) -> Result<LogLevel, String> {
    let lower = s.to_ascii_lowercase();
    let level = match lower.as_str() {
        "debug" => LogLevel::Debug,
        "info" => LogLevel::Info,
        "warn" | "warning" => LogLevel::Warn,
        "error" => LogLevel::Error,
        "fatal" => LogLevel::Fatal,
        _ => {
            return Err(format!(
                "'{s}' is no level: debug, info, warn, error or fatal"
            ));
        }
    };
    Ok(level)
}
