//! `bagscope export --format mcap|parquet`: the selected messages of every bag, merged in
//! receive-time order, into one MCAP file or a directory of Parquet files (see `sink/`).

use crate::catalog::{BagConn, Schemas};
use crate::sink::mcap::{McapCompression, McapSink};
use crate::sink::parquet::{ParquetOptions, ParquetSink};
use crate::sink::{Driven, MessageSink, drive};
use crate::time::RosTime;

use super::args::{CompressionArg, ExportArgs, ExportFormat};
use crate::cli::context::{Context, Wanted};
use crate::cli::damage::report_unread;
use crate::cli::error::CliError;
use crate::cli::outcome::Outcome;
use crate::cli::progress::CopyProgress;
use crate::cli::term::print_error;
use crate::cli::term::print_note;
use crate::cli::term::print_warning;

/// Runs `bagscope export --format mcap|parquet`.
pub fn run(args: &ExportArgs) -> Result<Outcome, CliError> {
    let Some(output) = &args.output else {
        return Err(CliError::Usage(
            "--format mcap and parquet write files: give -o OUT".to_string(),
        ));
    };
    if args.format == ExportFormat::Mcap {
        crate::bag::writer::ensure_distinct(output, &args.input.bags)?;
        if args.sink.partition_by.is_some() || args.sink.per_bag {
            return Err(CliError::Usage(
                "--partition-by and --per-bag are options of --format parquet".to_string(),
            ));
        }
    } else if output.is_file() {
        return Err(CliError::Usage(format!(
            "{}: --format parquet writes a directory, and this is a file",
            output.display()
        )));
    }
    let ctx = Context::open(&Wanted::new(&args.input, &args.select, &args.filter))?;
    let (catalog, selection, filter) = (&ctx.catalog, &ctx.selection, &ctx.filter);
    let registry = ctx.registry();
    let sink: Box<dyn MessageSink + '_> = if args.format == ExportFormat::Mcap {
        let compression = match args.sink.compression {
            CompressionArg::Zstd => McapCompression::Zstd,
            CompressionArg::Lz4 => McapCompression::Lz4,
            CompressionArg::None => McapCompression::None,
        };
        Box::new(McapSink::create_with_profile(
            output,
            compression,
            registry,
            profile_of(catalog, selection),
        )?)
    } else {
        let options = ParquetOptions {
            partitions: args
                .sink
                .partition_by
                .as_ref()
                .map_or_else(Vec::new, |l| l.0.clone()),
            per_bag: args.sink.per_bag,
        };
        Box::new(ParquetSink::create(
            output,
            options,
            Schemas::new(registry.clone()),
        )?)
    };
    let range = progress_range(selection.start, selection.end, catalog);
    let mut progress = CopyProgress::new(range);
    // `--where EXPR`: only the messages it keeps reach the sink.
    let mut keep = |m: &crate::sink::SinkMessage<'_>| {
        filter
            .as_ref()
            .is_none_or(|f| f.keep(BagConn::new(m.bag, m.conn.id), m.time, m.data))
    };
    let result = drive(catalog, selection, sink, Some(&mut keep), &mut |p| {
        progress.update(p);
    });
    progress.finish();
    if let Some(f) = &filter {
        f.report();
    }
    Ok(finish(result, ctx.outcome))
}

/// The MCAP profile of the selected connections: `ros1` when all are ROS1 (bags and ros1
/// MCAP files), `ros2` when all are CDR, none when they mix.
pub(crate) fn profile_of(
    catalog: &crate::catalog::Catalog,
    selection: &crate::catalog::Selection,
) -> &'static str {
    let mut encodings = catalog
        .selected_connections(selection)
        .map(|(_, c)| c.message_encoding.as_str())
        .peekable();
    let first = encodings.peek().copied().unwrap_or("ros1");
    if !encodings.all(|e| e == first) {
        return "";
    }
    match first {
        "ros1" => "ros1",
        "cdr" => "ros2",
        _ => "",
    }
}

/// The time range the progress bar spans: the selection's, within the catalog's.
fn progress_range(
    start: Option<RosTime>,
    end: Option<RosTime>,
    catalog: &crate::catalog::Catalog,
) -> Option<(RosTime, RosTime)> {
    let (first, last) = catalog.start_time().zip(catalog.end_time())?;
    Some((
        start.map_or(first, |s| s.max(first)),
        end.map_or(last, |e| e.min(last)),
    ))
}

/// Prints what was written and what could not be read; the outcome.
fn finish(result: Result<Driven, crate::sink::SinkError>, outcome: Outcome) -> Outcome {
    match result {
        Ok(driven) => {
            let mut outcome = outcome.max(report_unread(&driven.unread));
            for line in &driven.finished.left_out {
                print_warning(line);
                outcome = outcome.max(Outcome::Problems);
            }
            for line in &driven.finished.wrote {
                print_note(line);
            }
            outcome
        }
        Err(e) => {
            print_error(e);
            Outcome::Failed
        }
    }
}
