//! The arguments of `bagscope export`, shared by its formats (text, images, MCAP and Parquet).

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use crate::cli::args::{BagsArgs, SelectArgs};
use crate::cli::where_args::WhereArgs;
use crate::sink::parquet::partition::Level;

/// Export formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ExportFormat {
    /// `rostopic echo -p` columns.
    Csv,
    /// One JSON object per line.
    Jsonl,
    /// One MCAP file (profile `ros1`, the raw message bytes) of all selected topics.
    Mcap,
    /// A directory of Parquet files, one per topic, columns flattened from the type.
    Parquet,
    /// One image file per camera frame (`-o DIR`): PNG for `Image`, the bytes of a
    /// `CompressedImage` as they are.
    Images,
}

/// Arguments of `bagscope export`.
#[derive(Args, Debug, Clone)]
#[command(after_long_help = "\
What it writes:
  csv       one row per message of one topic, the columns of `rostopic echo -p`
            (`-t /topic/field` for one field), or --column computed columns
  jsonl     one JSON object per message (several topics), or --column values
  mcap      one MCAP file of every selected topic (-o FILE)
  parquet   a directory of Parquet files, one per topic (-o DIR)
  images    one image file per camera frame (-o DIR)
--where EXPR keeps only the messages for which EXPR holds, in every format.
Examples:
  bagscope export run.bag -t /odom --format csv --column speed='norm(twist.twist.linear)'
  bagscope export run.bag -t /rosout --format jsonl --where 'level >= WARN'
  bagscope export run.bag --format mcap -o run.mcap
See docs/export.md.")]
pub struct ExportArgs {
    /// Which messages (csv, jsonl and images need `-t TOPIC`, csv exactly one; mcap and
    /// parquet take every topic without one).
    #[command(flatten)]
    pub select: SelectArgs,
    /// Output format.
    #[arg(long, value_enum)]
    pub format: ExportFormat,
    /// Which messages, by content.
    #[command(flatten)]
    pub filter: WhereArgs,
    /// A computed column (repeatable), e.g. `--column speed='norm(twist.twist.linear)'`: the
    /// CSV then has `%time` and these columns only, in the order given (an empty cell where
    /// there is no value); JSON lines get `"values":{"speed":…}`. EXPR is a number of the
    /// search language (docs/search.md): fields, `+ - * /`, `norm()`, `yaw()`, `diff()`,
    /// `rate()`…
    #[arg(long = "column", value_name = "NAME=EXPR")]
    pub columns: Vec<String>,
    /// Write here instead of standard output (written to a temporary file, renamed at the
    /// end); with `--format images`, the directory the frames go to.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// The bags, and where the definitions they lack come from.
    #[command(flatten)]
    pub input: BagsArgs,
    /// Options of the MCAP and Parquet formats.
    #[command(flatten)]
    pub sink: SinkArgs,
}

/// Chunk compression of `--format mcap`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum, Default)]
pub enum CompressionArg {
    /// Zstandard.
    #[default]
    Zstd,
    /// LZ4.
    Lz4,
    /// No compression.
    None,
}

/// The options of the MCAP and Parquet formats.
#[derive(Args, Debug, Clone, Default)]
pub struct SinkArgs {
    /// MCAP chunk compression.
    #[arg(long, value_enum, default_value_t = CompressionArg::Zstd)]
    pub compression: CompressionArg,
    /// Parquet: Hive-style partition directories, outermost first: `KEY=VALUE` (e.g.
    /// `robot=r1`), `date` (the message's UTC date) or `bag-date` (the date of the bag's first
    /// message), comma-separated: `robot=r1,date` → `OUT/robot=r1/date=2026-11-24/TOPIC.parquet`.
    #[arg(long, value_name = "LEVELS", value_parser = parse_levels)]
    pub partition_by: Option<Levels>,
    /// Parquet: one file per topic and bag (`TOPIC.BAGNAME.parquet`) instead of per topic.
    #[arg(long)]
    pub per_bag: bool,
}

/// Parsed `--partition-by` levels.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Levels(pub Vec<Level>);

fn parse_levels(text: &str) -> Result<Levels, String> {
    crate::sink::parquet::partition::parse_levels(text).map(Levels)
}
