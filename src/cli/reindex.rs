//! `bagscope reindex IN OUT`: a complete, indexed V2.0 copy of an unindexed, truncated,
//! damaged or old-version bag, with every message the reader can recover, and a report of
//! what was lost.

use std::path::PathBuf;

use clap::Args;

use crate::bag::Query;
use crate::bag::rewrite::{ConnectionIds, RewriteOptions};
use crate::format::Version;

use super::copy::{WriteArgs, open_input, recovery_lines, report_problems, run_copy, wrote_line};
use super::error::CliError;
use super::outcome::Outcome;
use super::term::{Stdout, outln};

/// Arguments of `bagscope reindex`.
#[derive(Args, Debug)]
pub struct ReindexArgs {
    /// The bag to read (any version; never modified).
    #[arg(value_name = "IN")]
    pub input: PathBuf,
    /// The V2.0 bag to write (must not be IN; written beside it under a temporary name and
    /// renamed when complete).
    #[arg(value_name = "OUT")]
    pub output: PathBuf,
    /// Output options.
    #[command(flatten)]
    pub write: WriteArgs,
}

/// Runs `bagscope reindex`.
pub fn run(args: &ReindexArgs) -> Result<Outcome, CliError> {
    let (registry, bag) = open_input(&args.input, &args.write)?;
    let options = RewriteOptions {
        query: Query::all(),
        writer: args.write.writer_options(&bag),
        ids: ConnectionIds::Keep,
        definitions: &registry,
        keep: None,
    };
    let report = run_copy(&bag, &args.output, &options)?;
    let outcome = report_problems(&bag, &report);
    let mut out = Stdout::human();
    outln!(
        out,
        "input:     {} (version {})",
        bag.path().display(),
        bag.version()
    );
    let unread = report.unreadable.messages();
    match bag.recovery() {
        Some(r) => {
            for line in recovery_lines(r) {
                outln!(out, "{line}");
            }
        }
        None if bag.version() == Version::V2_0 && report.unreadable.is_empty() => {
            outln!(out, "index:     complete; the copy holds the same messages");
        }
        None if bag.version() == Version::V2_0 => outln!(out, "index:     complete"),
        None => outln!(
            out,
            "index:     read from the version {} index",
            bag.version()
        ),
    }
    if !report.unreadable.is_empty() {
        outln!(
            out,
            "lost:      {unread} message(s) could not be read (listed on stderr)"
        );
    } else if bag.recovery().is_none_or(crate::bag::Recovery::is_lossless) {
        outln!(out, "lost:      nothing");
    }
    if report.filled_definitions > 0 {
        outln!(
            out,
            "defined:   {} connection(s) from the bundled definitions or --msg-path",
            report.filled_definitions
        );
    }
    if !report.missing_definitions.is_empty() {
        outln!(
            out,
            "missing:   message definitions of {} connection(s), listed above",
            report.missing_definitions.len()
        );
    }
    outln!(out, "{}", wrote_line(&report));
    Ok(out.finish(outcome))
}
