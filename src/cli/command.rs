//! The command line's grammar: the top-level arguments (the explorer's) and the subcommands,
//! each with the arguments its module defines.

use clap::{Parser, Subcommand};

use super::{
    call, convert, echo, export, filter, index, info, play, reindex, serve, shell, verify,
};

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
    pub msg: super::args::MsgPathArgs,
    /// Open the explorer with this field plotted (`/topic/field`, e.g.
    /// `/imu/data/linear_acceleration/z` or `/scan/ranges[10]`) or this quantity
    /// (`'/odom: norm(twist.twist.linear)'`); repeatable.
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
    Echo(echo::args::EchoArgs),
    /// Read, decompress and decode every message; report every problem (exit 1 if any).
    Verify(verify::VerifyArgs),
    /// One row per message of a topic: CSV (`rostopic echo -p` columns) or JSON lines.
    Export(export::args::ExportArgs),
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

#[cfg(test)]
mod tests {
    use super::Cli;
    use crate::cli::shell::page;

    #[test]
    fn the_page_has_a_section_per_subcommand() {
        let roff =
            String::from_utf8(page(<Cli as clap::CommandFactory>::command()).unwrap()).unwrap();
        assert!(
            roff.starts_with(".ie") || roff.contains(".TH bagscope 1"),
            "{roff}"
        );
        for sub in ["INFO", "ECHO", "INDEX BUILD", "COMPLETIONS", "MANPAGE"] {
            assert!(
                roff.contains(&format!(".SH \"BAGSCOPE {sub}\"")),
                "no section for {sub}"
            );
        }
    }
}
