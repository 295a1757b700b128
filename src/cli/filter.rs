//! `bagscope filter IN OUT [-t TOPIC]... [--start T] [--end T]`: a V2.0 copy of the messages on
//! some topics within a time range.

use std::path::PathBuf;

use clap::Args;

use crate::bag::rewrite::{ConnectionIds, RewriteOptions};
use crate::bag::{Bag, ConnId, Query};
use crate::time::RosTime;

use super::args::{SelectArgs, check_range, unknown_topics};
use super::copy::{WriteArgs, open_input, recovery_lines, report_problems, run_copy, wrote_line};
use super::error::CliError;
use super::outcome::Outcome;
use super::term::print_warning;
use super::term::{Stdout, outln};
use super::where_args::WhereArgs;

/// Arguments of `bagscope filter`.
#[derive(Args, Debug)]
#[command(mut_arg("topics", |a| a.help("Keep messages on TOPIC (repeatable; default: every topic)")))]
#[command(mut_arg("start", |a| a.help(
    "Keep messages received at or after T: epoch seconds, `+OFFSET` after the start of the bag \
     (`+90`, `+1m30s`, `+500ms`), a date (`2023-11-14 22:13:32`, local; `Z` for UTC) or a time \
     of day"
)))]
#[command(mut_arg("end", |a| a.help("Keep messages received at or before T (same forms as --start)")))]
pub struct FilterArgs {
    /// The bag to read (any version; never modified).
    #[arg(value_name = "IN")]
    pub input: PathBuf,
    /// The V2.0 bag to write (must not be IN; written beside it under a temporary name and
    /// renamed when complete).
    #[arg(value_name = "OUT")]
    pub output: PathBuf,
    /// Which messages are kept.
    #[command(flatten)]
    pub select: SelectArgs,
    /// Which messages are kept, by content.
    #[command(flatten)]
    pub filter: WhereArgs,
    /// Output options.
    #[command(flatten)]
    pub write: WriteArgs,
}

/// Runs `bagscope filter`.
pub fn run(args: &FilterArgs) -> Result<Outcome, CliError> {
    let to_mcap = args
        .output
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("mcap"));
    if to_mcap || crate::bag::inputs::is_bag_dir(&args.input) {
        return into_mcap(args, to_mcap);
    }
    let (registry, bag) = open_input(&args.input, &args.write)?;
    // A ROS1 bag holds ROS1 messages only: CDR (and other) channels of an MCAP input go to
    // an MCAP output.
    if let Some(c) = bag
        .connections()
        .iter()
        .find(|c| c.message_encoding != "ros1")
    {
        return Err(CliError::Usage(format!(
            "{}: {} carries {} messages, which a ROS1 bag cannot hold: write an .mcap instead (bagscope filter {} OUT.mcap)",
            args.input.display(),
            c.topic,
            c.message_encoding,
            args.input.display()
        )));
    }
    let query = selection(&bag, &args.select).map_err(CliError::Usage)?;
    let conns = bag
        .connections()
        .iter()
        .filter(|c| query.wants_conn(c.id))
        .map(|c| (0, c));
    let filter = args
        .filter
        .compile(conns, &crate::catalog::Schemas::new(registry.clone()))?;
    let keep = |conn: ConnId, time: RosTime, data: &[u8]| {
        filter
            .as_ref()
            .is_none_or(|f| f.keep(crate::catalog::BagConn::new(0, conn), time, data))
    };
    let options = RewriteOptions {
        query,
        writer: args.write.writer_options(&bag),
        ids: ConnectionIds::Renumber,
        definitions: &registry,
        keep: filter
            .is_some()
            .then_some(&keep as &crate::bag::rewrite::Keep<'_>),
    };
    let report = run_copy(&bag, &args.output, &options)?;
    // A damaged input was copied as far as it could be read: say what is missing.
    if let Some(r) = bag.recovery().filter(|r| !r.is_lossless()) {
        for line in recovery_lines(r) {
            print_warning(format_args!("{}: {line}", bag.path().display()));
        }
    }
    if let Some(f) = &filter {
        f.report();
    }
    let outcome = report_problems(&bag, &report);
    let mut out = Stdout::human();
    outln!(out, "{}", wrote_line(&report));
    Ok(out.finish(outcome))
}

/// `filter IN OUT.mcap` (or a ROS 2 bag directory IN): the selected messages of IN into an
/// MCAP file, each channel in its own encoding with its schema and metadata.
fn into_mcap(args: &FilterArgs, to_mcap: bool) -> Result<Outcome, CliError> {
    use crate::cli::context::{Context, Wanted};
    use crate::sink::mcap::{McapCompression, McapSink};
    if !to_mcap {
        return Err(CliError::Usage(format!(
            "{}: a ROS 2 bag is filtered into an MCAP file: name OUT with .mcap",
            args.input.display()
        )));
    }
    crate::bag::writer::ensure_distinct(&args.output, std::slice::from_ref(&args.input))?;
    let compression = match args.write.compression {
        None => McapCompression::Zstd,
        Some(super::copy::CompressionArg::None) => McapCompression::None,
        Some(super::copy::CompressionArg::Lz4) => McapCompression::Lz4,
        Some(super::copy::CompressionArg::Bz2) => {
            return Err(CliError::Usage(
                "MCAP chunks are compressed with zstd, lz4 or none, not bz2".into(),
            ));
        }
    };
    let input = super::args::BagsArgs {
        msg: args.write.msg.clone(),
        bags: vec![args.input.clone()],
    };
    let ctx = Context::open(&Wanted::new(&input, &args.select, &args.filter))?;
    let profile = super::export::sink::profile_of(&ctx.catalog, &ctx.selection);
    let sink = McapSink::create_with_profile(&args.output, compression, ctx.registry(), profile)?;
    let filter = &ctx.filter;
    let mut keep = |m: &crate::sink::SinkMessage<'_>| {
        filter.as_ref().is_none_or(|f| {
            f.keep(
                crate::catalog::BagConn::new(m.bag, m.conn.id),
                m.time,
                m.data,
            )
        })
    };
    let result = crate::sink::drive(
        &ctx.catalog,
        &ctx.selection,
        Box::new(sink),
        Some(&mut keep),
        &mut |_| {},
    );
    if let Some(f) = filter {
        f.report();
    }
    match result {
        Ok(driven) => {
            let outcome = ctx
                .outcome
                .max(super::damage::report_unread(&driven.unread));
            let mut out = Stdout::human();
            for line in &driven.finished.wrote {
                outln!(out, "{line}");
            }
            Ok(out.finish(outcome))
        }
        Err(e) => Err(CliError::Usage(e.to_string())),
    }
}

/// The query for the topics and time range asked for. A topic IN does not have, an empty or
/// inverted range, or one entirely outside IN's messages is a usage error (nothing would be
/// selected).
fn selection(bag: &Bag, args: &SelectArgs) -> Result<Query, String> {
    let mut query = Query::all();
    if !args.topics.is_empty() {
        let known: Vec<String> = bag.connections().iter().map(|c| c.topic.clone()).collect();
        let holder = format!("{} has no", bag.path().display());
        if let Some(why) = unknown_topics(&args.topics, &known, &holder) {
            return Err(why);
        }
        let mut conns: Vec<ConnId> = Vec::new();
        for topic in &args.topics {
            conns.extend(matching(bag, topic));
        }
        query = query.connections(conns);
    }
    let base = bag.start_time().unwrap_or(RosTime::MIN);
    let start = args.start.map(|t| t.resolve(base));
    let end = args.end.map(|t| t.resolve(base));
    check_range(start, end, bag.start_time().zip(bag.end_time()))?;
    Ok(query.time_range(start, end))
}

/// Connections on `topic`; when none match exactly, those whose topic differs only by a
/// leading `/` (old bags have topics like `scan`).
fn matching(bag: &Bag, topic: &str) -> Vec<ConnId> {
    let exact: Vec<ConnId> = bag
        .connections()
        .iter()
        .filter(|c| c.topic == topic)
        .map(|c| c.id)
        .collect();
    if !exact.is_empty() {
        return exact;
    }
    let bare = topic.trim_start_matches('/');
    bag.connections()
        .iter()
        .filter(|c| c.topic.trim_start_matches('/') == bare)
        .map(|c| c.id)
        .collect()
}
