//! `bagscope convert IN.yaml OUT.bag` and `bagscope convert IN.bag OUT.yaml`: RoCKIn YAML ↔
//! bag, the direction chosen by the file extensions.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use clap::Args;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::bag::writer::WriterOptions;
use crate::bag::{Bag, OpenOptions};
use crate::format::Compression;
use crate::rockin::{ConvertError, ToBagOptions, bag_to_yaml, yaml_to_bag};

use super::args::MSG_PATH;
use super::copy::WriteArgs;
use super::error::CliError;
use super::outcome::Outcome;
use super::output::Output;
use super::rosbag_fmt::human_size;
use super::term::print_error;
use super::term::{Stdout, outln};

/// Arguments of `bagscope convert` (the output options of `filter`, worded for conversions).
#[derive(Args, Debug)]
#[command(mut_arg("compression", |a| a.help("Chunk compression of the bag written (YAML → bag only)")))]
#[command(mut_arg("chunk_size", |a| a.help("Uncompressed chunk size in KiB (YAML → bag only)")))]
#[command(mut_arg(MSG_PATH, |a| a.help(
    "Also look for message definitions (`pkg/msg/Type.msg`) under DIR, before the bundled \
     ones (repeatable): for items whose `type:` is not bundled (YAML → bag), and for bags \
     older than 1.2, which store none (bag → YAML)"
)))]
pub struct ConvertArgs {
    /// The file to read: a RoCKIn YAML file (`.yaml`, `.yml`) or a bag (`.bag`).
    #[arg(value_name = "IN")]
    pub input: PathBuf,
    /// The file to write: a bag when IN is YAML, a YAML file when IN is a bag. Written
    /// beside it under a temporary name and renamed when complete; must not be IN.
    #[arg(value_name = "OUT")]
    pub output: PathBuf,
    /// Chunk compression and size of the bag written, and where definitions come from.
    #[command(flatten)]
    pub write: WriteArgs,
}

/// Which way to convert.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// RoCKIn YAML → bag.
    ToBag,
    /// Bag → RoCKIn YAML.
    ToYaml,
}

fn extension(p: &Path) -> String {
    p.extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default()
}

fn is_yaml(p: &Path) -> bool {
    matches!(extension(p).as_str(), "yaml" | "yml")
}

fn is_bag(p: &Path) -> bool {
    match extension(p).as_str() {
        "bag" => true,
        "active" => p
            .file_stem()
            .is_some_and(|s| extension(Path::new(s)) == "bag"),
        _ => false,
    }
}

/// The direction from the file names: `IN.yaml OUT.bag` or `IN.bag OUT.yaml`.
pub fn direction(input: &Path, output: &Path) -> Result<Direction, String> {
    if is_yaml(input) && extension(output) == "bag" {
        Ok(Direction::ToBag)
    } else if is_bag(input) && is_yaml(output) {
        Ok(Direction::ToYaml)
    } else {
        Err(format!(
            "cannot tell which way to convert '{}' to '{}': give IN.yaml OUT.bag (RoCKIn YAML to bag) or IN.bag OUT.yaml (bag to RoCKIn YAML)",
            input.display(),
            output.display()
        ))
    }
}

/// Runs `bagscope convert`.
pub fn run(args: &ConvertArgs) -> Result<Outcome, CliError> {
    let dir = direction(&args.input, &args.output).map_err(CliError::Usage)?;
    if dir == Direction::ToYaml && args.write.compression.is_some() {
        return Err(CliError::Usage(
            "--compression applies to YAML → bag conversions only".to_string(),
        ));
    }
    let registry = args.write.msg.registry()?;
    Ok(match dir {
        Direction::ToBag => to_bag(args, &registry),
        Direction::ToYaml => to_yaml(args, &registry),
    })
}

fn failed(e: &ConvertError) -> Outcome {
    print_error(e);
    if e.is_input_error() {
        Outcome::Problems
    } else {
        Outcome::Failed
    }
}

fn to_bag(args: &ConvertArgs, registry: &crate::msg::Registry) -> Outcome {
    let options = ToBagOptions {
        writer: WriterOptions {
            compression: args
                .write
                .compression
                .map_or(Compression::None, Compression::from),
            chunk_size: args.write.chunk_size.saturating_mul(1024),
        },
        ..ToBagOptions::default()
    };
    let total = std::fs::metadata(&args.input).map(|m| m.len()).ok();
    let mut bar = ByteProgress::new(total);
    let result = yaml_to_bag(&args.input, &args.output, registry, &options, &mut |n| {
        bar.update(n);
    });
    bar.finish();
    let report = match result {
        Ok(r) => r,
        Err(e) => return failed(&e),
    };
    let s = &report.summary;
    let mut out = Stdout::human();
    print_topics(&mut out, &report.topics);
    outln!(
        out,
        "wrote:     {}: {}, {}, {}, {}",
        s.path.display(),
        count(s.messages, "message"),
        count(report.topics.len() as u64, "topic"),
        count(u64::from(s.chunks), "chunk"),
        human_size(s.bytes as f64)
    );
    out.finish(Outcome::Ok)
}

/// One `topic:` line per converted topic.
fn print_topics(out: &mut Stdout, topics: &[crate::rockin::TopicCount]) {
    for t in topics {
        if out.is_closed() {
            return;
        }
        outln!(
            out,
            "topic:     {} ({}): {}",
            t.topic,
            t.datatype,
            count(t.messages, "message")
        );
    }
}

fn to_yaml(args: &ConvertArgs, registry: &crate::msg::Registry) -> Outcome {
    // A small chunk cache: the conversion reads each chunk once, in file order.
    let options = OpenOptions {
        cache_bytes: 4 << 20,
        ..super::cache_dir::open_options()
    };
    let bag = match Bag::open_with(&args.input, options) {
        Ok(b) => b,
        Err(e) => {
            print_error(e);
            return Outcome::Failed;
        }
    };
    let mut out = match Output::create(&args.output, std::slice::from_ref(&args.input)) {
        Ok(o) => o,
        Err(e) => {
            print_error(e);
            return Outcome::Failed;
        }
    };
    let report = match bag_to_yaml(&bag, registry, &mut out, &args.output) {
        Ok(r) => r,
        Err(e) => return failed(&e),
    };
    if let Err(e) = out.flush() {
        print_error(format!("{}: {e}", args.output.display()));
        return Outcome::Failed;
    }
    let mut outcome = Outcome::Ok;
    if super::damage::print_losses(&bag) {
        outcome = Outcome::Problems;
    }
    outcome = outcome.max(super::damage::report_unread(&report.unread));
    let mut out = Stdout::human();
    print_topics(&mut out, &report.topics);
    outln!(
        out,
        "wrote:     {}: {}, {}",
        args.output.display(),
        count(report.messages, "message"),
        human_size(report.bytes as f64)
    );
    out.finish(outcome)
}

/// `1 message`, `2 messages`.
fn count(n: u64, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}

/// A progress bar over the bytes of the input, on a terminal, after a moment.
struct ByteProgress {
    total: Option<u64>,
    enabled: bool,
    started: Instant,
    last: Instant,
    bar: Option<ProgressBar>,
}

impl ByteProgress {
    fn new(total: Option<u64>) -> Self {
        ByteProgress {
            total,
            enabled: std::io::stderr().is_terminal(),
            started: Instant::now(),
            last: Instant::now(),
            bar: None,
        }
    }

    fn update(&mut self, bytes: u64) {
        let Some(total) = self.total.filter(|_| self.enabled) else {
            return;
        };
        if self.last.elapsed() < Duration::from_millis(100)
            || self.started.elapsed() < Duration::from_millis(400)
        {
            return;
        }
        self.last = Instant::now();
        let started = self.started;
        let bar = self.bar.get_or_insert_with(|| {
            let bar = ProgressBar::with_draw_target(
                Some(total.max(1)),
                ProgressDrawTarget::stderr_with_hz(8),
            )
            .with_elapsed(started.elapsed());
            if let Ok(style) = ProgressStyle::with_template(
                "{wide_bar} {percent:>3}% {bytes}/{total_bytes}, {elapsed} (eta {eta})",
            ) {
                bar.set_style(style);
            }
            bar
        });
        bar.set_position(bytes.min(total));
    }

    fn finish(self) {
        if let Some(bar) = self.bar {
            bar.finish_and_clear();
        }
        let _ = std::io::stderr().flush();
    }
}
