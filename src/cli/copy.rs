//! What `filter` and `reindex` share: the output options, running the copy with a progress
//! bar, and reporting what was read, lost and written.

use std::path::Path;

use clap::{Args, ValueEnum};

use crate::bag::rewrite::{RewriteOptions, RewriteReport, rewrite};
use crate::bag::writer::{DEFAULT_CHUNK_SIZE, WriterOptions};
use crate::bag::{Bag, Recovery};
use crate::format::Compression;
use crate::msg::Registry;

use super::args::{MSG_PATH, MsgPathArgs};
use super::error::CliError;
use super::outcome::Outcome;
use super::progress::CopyProgress;
use super::rosbag_fmt::human_size;
use super::term::print_warning;

/// Compression methods on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum CompressionArg {
    /// Uncompressed chunks.
    None,
    /// bzip2 (smallest, slowest).
    Bz2,
    /// LZ4 (fast).
    Lz4,
}

impl From<CompressionArg> for Compression {
    fn from(c: CompressionArg) -> Compression {
        match c {
            CompressionArg::None => Compression::None,
            CompressionArg::Bz2 => Compression::Bz2,
            CompressionArg::Lz4 => Compression::Lz4,
        }
    }
}

/// How the output bag is written: chunk compression and size, and where the definitions a
/// pre-1.2 input does not carry come from (they are written into the copy).
#[derive(Args, Debug, Clone)]
#[command(mut_arg(MSG_PATH, |a| a.help(
    "Also look for message definitions (`pkg/msg/Type.msg`) under DIR, before the bundled \
     ones (repeatable). Used for bags older than 1.2, which store none"
)))]
pub struct WriteArgs {
    /// Chunk compression [default: the input's (its most used chunk compression; none for
    /// bags older than 2.0)].
    #[arg(long, value_enum, value_name = "METHOD")]
    pub compression: Option<CompressionArg>,
    /// Uncompressed chunk size in KiB; a chunk is closed after the message that crosses it.
    #[arg(long, value_name = "KIB", default_value_t = DEFAULT_CHUNK_SIZE / 1024,
          value_parser = clap::value_parser!(u32).range(0..=4_194_303))]
    pub chunk_size: u32,
    /// Definitions for old bags.
    #[command(flatten)]
    pub msg: MsgPathArgs,
}

impl WriteArgs {
    /// The writer options for copying `bag`.
    pub fn writer_options(&self, bag: &Bag) -> WriterOptions {
        let compression = self.compression.map_or_else(
            || {
                let c = bag
                    .compression_stats()
                    .into_iter()
                    .max_by_key(|s| s.chunks)
                    .map_or(Compression::None, |s| s.compression);
                // A bag holds none, bz2 or lz4 chunks: an MCAP's zstd becomes lz4.
                if c == Compression::Zstd {
                    Compression::Lz4
                } else {
                    c
                }
            },
            Compression::from,
        );
        WriterOptions {
            compression,
            chunk_size: self.chunk_size.saturating_mul(1024),
        }
    }
}

/// The definitions of `args` and the bag `input`, opened.
pub fn open_input(input: &Path, args: &WriteArgs) -> Result<(Registry, Bag), CliError> {
    let registry = args.msg.registry()?;
    let bag = Bag::open_with(input, super::cache_dir::open_options())?;
    Ok((registry, bag))
}

/// Runs the copy of `bag` into `output` with a progress bar; the report, or why the copy
/// failed.
pub fn run_copy(
    bag: &Bag,
    output: &Path,
    options: &RewriteOptions<'_>,
) -> Result<RewriteReport, CliError> {
    let range = bag.start_time().zip(bag.end_time()).map(|(s, e)| {
        let s = options.query.start.map_or(s, |q| q.max(s));
        let e = options.query.end.map_or(e, |q| q.min(e));
        (s, e.max(s))
    });
    let mut progress = CopyProgress::new(range);
    let result = rewrite(bag, output, options, &mut |p| progress.update(p));
    progress.finish();
    Ok(result?)
}

/// Prints, on stderr, what the reader could not read and which definitions are missing;
/// returns [`Outcome::Problems`] when messages were lost.
pub fn report_problems(bag: &Bag, report: &RewriteReport) -> Outcome {
    let mut outcome = Outcome::Ok;
    if bag.recovery().is_some_and(|r| !r.is_lossless()) {
        outcome = Outcome::Problems;
    }
    outcome = outcome.max(super::damage::report_unread(&report.unreadable));
    for w in bag.warnings() {
        print_warning(format_args!("{}: {w}", bag.path().display()));
    }
    for m in &report.missing_definitions {
        print_warning(format_args!(
            "{}: topic '{}' ({} [{}]) is written with an empty message \
             definition: {}; tools that decode from the bag cannot decode it (give the .msg \
             files with --msg-path)",
            bag.path().display(),
            m.topic,
            m.datatype,
            m.md5sum,
            m.reason
        ));
    }
    outcome
}

/// The `wrote:` line.
pub fn wrote_line(report: &RewriteReport) -> String {
    let s = &report.summary;
    format!(
        "wrote:     {}: {}, {}, {}, {}",
        s.path.display(),
        count(s.messages, "message"),
        count(u64::from(s.connections), "connection"),
        count(u64::from(s.chunks), "chunk"),
        human_size(s.bytes as f64)
    )
}

/// `1 chunk`, `2 chunks`.
fn count(n: u64, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}

/// Lines describing how a bag without a usable index was read (`lost:` lines only for
/// losses: the caller says when nothing at all was lost).
pub fn recovery_lines(recovery: &Recovery) -> Vec<String> {
    let mut lines = vec![format!("index:     {}", recovery.reason)];
    if recovery.complete_chunks + recovery.partial_chunks > 0 {
        lines.push(format!(
            "read:      {} complete and {} partial {}",
            recovery.complete_chunks,
            recovery.partial_chunks,
            if recovery.partial_chunks == 1 {
                "chunk"
            } else {
                "chunks"
            }
        ));
    }
    for l in &recovery.losses {
        lines.push(format!("lost:      {l}"));
    }
    if let Some(u) = &recovery.unfinished {
        lines.push(format!("unfinished: not in the copy: {u}"));
    }
    lines
}
