//! `bagscope index build` and `bagscope query`: a persistent index over many bags and interval
//! queries against it (the bagserver's index builder and query, as files and commands).

use std::io;
use std::path::PathBuf;

use clap::{Args, Subcommand};

use crate::bag::writer::WriterOptions;
use crate::catalog::index::{self, Index};
use crate::format::Compression;
use crate::time::{TimeSpec, parse_time_spec};

use super::args::MsgPathArgs;
use super::damage::report_unread;
use super::echo::args::EchoFormat;
use super::echo::printer::Printer;
use super::error::CliError;
use super::outcome::Outcome;
use super::term::{Stdout, outln};
use super::term::{print_error, print_note, print_warning};

/// `bagscope index ...`.
#[derive(Args, Debug)]
pub struct IndexArgs {
    /// What to do.
    #[command(subcommand)]
    pub command: IndexCommand,
}

/// Index subcommands.
#[derive(Subcommand, Debug)]
pub enum IndexCommand {
    /// Build an index over bags (reads only their index sections where they have them).
    Build {
        /// The index file to write.
        #[arg(value_name = "INDEX")]
        index: PathBuf,
        /// Bag files.
        #[arg(required = true, value_name = "BAG")]
        bags: Vec<PathBuf>,
        /// Only these topics (comma-separated).
        #[arg(long, value_delimiter = ',', value_name = "TOPICS")]
        topics: Vec<String>,
    },
    /// Show what an index holds.
    Info {
        /// The index file.
        #[arg(value_name = "INDEX")]
        index: PathBuf,
    },
}

/// Runs `bagscope index ...`.
pub fn run(args: &IndexArgs) -> Outcome {
    match &args.command {
        IndexCommand::Build {
            index,
            bags,
            topics,
        } => {
            let started = std::time::Instant::now();
            let verbose = std::io::IsTerminal::is_terminal(&io::stderr());
            let mut progress = |p: &std::path::Path| {
                if verbose {
                    print_note(format_args!("reading {}", p.display()));
                }
            };
            match index::build(index, bags, topics, &mut progress) {
                Ok(r) => {
                    print_note(format_args!(
                        "indexed {} of {} topic(s) in {} bag(s) in {:.2} s: {} ({} bytes)",
                        crate::wording::count(r.entries, "message"),
                        r.topics,
                        r.files,
                        started.elapsed().as_secs_f64(),
                        index.display(),
                        r.bytes
                    ));
                    // What the index leaves out of damaged bags.
                    let mut outcome = Outcome::Ok;
                    for (path, loss) in &r.losses {
                        print_warning(format_args!(
                            "{}: lost (not indexed): {loss}",
                            path.display()
                        ));
                        outcome = Outcome::Problems;
                    }
                    outcome.max(super::damage::report_unread(&r.unread))
                }
                Err(e) => {
                    print_error(e);
                    Outcome::Failed
                }
            }
        }
        IndexCommand::Info { index } => match Index::open(index) {
            Ok(ix) => {
                let mut out = Stdout::human();
                outln!(out, "index:    {}", index.display());
                outln!(out, "messages: {}", ix.entry_count());
                if let (Some(s), Some(e)) = (ix.start_time(), ix.end_time()) {
                    outln!(out, "start:    {s}\nend:      {e}");
                }
                for (f, p) in ix.files().iter().zip(ix.resolved_paths()) {
                    outln!(out, "bag:      {} ({} bytes)", p.display(), f.size);
                }
                for t in ix.topics() {
                    if out.is_closed() {
                        break;
                    }
                    outln!(
                        out,
                        "topic:    {} {} [{}] {}",
                        t.topic,
                        t.datatype,
                        t.md5sum,
                        crate::wording::count(t.count, "msg")
                    );
                }
                out.finish(Outcome::Ok)
            }
            Err(e) => {
                print_error(e);
                Outcome::Failed
            }
        },
    }
}

/// Arguments of `bagscope query`.
#[derive(Args, Debug)]
pub struct QueryArgs {
    /// The index file.
    #[arg(value_name = "INDEX")]
    pub index: PathBuf,
    /// Earliest receive time: epoch seconds, `+OFFSET` after the index's start (`+90`, `+1m30s`, `+500ms`), a date (`2023-11-14 22:13:32`, local; `Z` for UTC) or a time of day.
    #[arg(long, value_parser = parse_time_spec, allow_hyphen_values = true, value_name = "T")]
    pub start: TimeSpec,
    /// Latest receive time (inclusive).
    #[arg(long, value_parser = parse_time_spec, allow_hyphen_values = true, value_name = "T")]
    pub end: TimeSpec,
    /// Only this topic (repeatable).
    #[arg(short = 't', long = "topic", value_name = "TOPIC")]
    pub topics: Vec<String>,
    /// Output format on standard output.
    #[arg(long, value_enum, default_value_t = EchoFormat::Yaml)]
    pub format: EchoFormat,
    /// Write the messages to a new bag instead.
    #[arg(long, value_name = "OUT.bag")]
    pub out: Option<PathBuf>,
    /// Chunk compression of `--out`.
    #[arg(long, value_parser = ["none", "bz2", "lz4"], default_value = "lz4")]
    pub compression: String,
    /// Where definitions the bags lack come from.
    #[command(flatten)]
    pub msg: MsgPathArgs,
}

/// Runs `bagscope query`.
pub fn query(args: &QueryArgs) -> Result<Outcome, CliError> {
    let ix = Index::open(&args.index)?;
    let origin = ix.start_time().unwrap_or_default();
    let (start, end) = (args.start.resolve(origin), args.end.resolve(origin));
    let known: Vec<String> = ix.topics().iter().map(|t| t.topic.clone()).collect();
    let holder = format!("{}: the index holds no", args.index.display());
    let span = ix.start_time().zip(ix.end_time());
    let problem = super::args::unknown_topics(&args.topics, &known, &holder)
        .or_else(|| super::args::check_range(Some(start), Some(end), span).err());
    if let Some(why) = problem {
        return Err(CliError::Usage(why));
    }
    let catalog = ix.catalog()?;
    let located = std::time::Instant::now();
    let entries = ix.query(&args.topics, start, end);
    if std::env::var_os("BAGSCOPE_TIMING").is_some() {
        print_note(format_args!(
            "located in {:.3} ms",
            located.elapsed().as_secs_f64() * 1e3
        ));
    }
    match &args.out {
        Some(out) => Ok(write_bag(args, out, &ix, &catalog, entries)),
        None => print(args, &ix, &catalog, entries),
    }
}

/// Reads the message an index entry points to: (bag index, message).
fn read_entry(
    ix: &Index,
    catalog: &crate::catalog::Catalog,
    e: Result<index::RawEntry, index::IndexError>,
) -> Result<(usize, crate::bag::Message), index::IndexError> {
    e.and_then(|e| ix.read(catalog, &e))
        .map(|m| (m.bag, m.message))
}

/// Files a read error: a bag's error goes to `unread` (reported like every command's, per
/// file), anything else (the index itself) is printed at once.
fn note_error(
    args: &QueryArgs,
    unread: &mut crate::bag::Unread,
    e: index::IndexError,
) -> Option<String> {
    match e {
        index::IndexError::Bag(b) => {
            unread.note(b);
            None
        }
        other => {
            let text = format!("{}: {other}", args.index.display());
            print_error(&text);
            Some(text)
        }
    }
}

fn print(
    args: &QueryArgs,
    ix: &Index,
    catalog: &crate::catalog::Catalog,
    entries: index::IndexMessages<'_>,
) -> Result<Outcome, CliError> {
    let registry = args.msg.registry()?;
    let mut printer = Printer::new(args.format, registry);
    let mut out = Stdout::data();
    let mut outcome = Outcome::Ok;
    let mut unread = crate::bag::Unread::default();
    for e in entries {
        let read = read_entry(ix, catalog, e);
        let (file, message) = match read {
            Ok(x) => x,
            Err(e) => {
                note_error(args, &mut unread, e);
                outcome = Outcome::Problems;
                continue;
            }
        };
        let Some(bag) = catalog.bag(file) else {
            continue;
        };
        let (text, ok) = printer.render(file, bag, &message);
        if !ok {
            outcome = Outcome::Problems;
        }
        out.bytes(text.as_bytes());
        if out.is_closed() {
            break;
        }
    }
    let outcome = outcome.max(report_unread(&unread));
    Ok(out.finish(outcome))
}

fn write_bag(
    args: &QueryArgs,
    path: &std::path::Path,
    ix: &Index,
    catalog: &crate::catalog::Catalog,
    entries: index::IndexMessages<'_>,
) -> Outcome {
    let compression = match args.compression.as_str() {
        "none" => Compression::None,
        "bz2" => Compression::Bz2,
        _ => Compression::Lz4,
    };
    let unread = std::cell::RefCell::new(crate::bag::Unread::default());
    let messages = entries.map(|e| {
        read_entry(ix, catalog, e)
            .map_err(|e| note_error(args, &mut unread.borrow_mut(), e).unwrap_or_default())
    });
    let options = WriterOptions {
        compression,
        ..WriterOptions::default()
    };
    match crate::catalog::export::write_bag(
        catalog,
        messages,
        path,
        options,
        std::slice::from_ref(&args.index),
    ) {
        Ok(done) => {
            for s in &done.skipped {
                print_error(format!("{}: {s}", args.index.display()));
            }
            print_note(format_args!(
                "wrote {} to {}",
                crate::wording::count(done.summary.messages, "message"),
                path.display()
            ));
            let outcome = report_unread(&unread.borrow());
            if done.skipped.is_empty() {
                outcome
            } else {
                Outcome::Problems
            }
        }
        Err(e) => {
            print_error(e);
            Outcome::Failed
        }
    }
}
