//! `bagscope export`: one row per message of a topic, as CSV with the columns of
//! `rostopic echo -p`, or as JSON lines.

use std::io::Write;

pub mod args;
pub mod columns;
mod images;
pub(crate) mod sink;
mod text;

use super::args::topics_from_bags;
use super::context::{Context, Fields, Wanted};
use super::damage::report_unread;
use super::error::CliError;
use super::outcome::Outcome;
use super::output::Output;
use super::term::{Stdout, write_failed};
use super::term::{print_note, print_warning};
use args::{ExportArgs, ExportFormat};

/// Runs `bagscope export` (`BAG` arguments that look like topics select them, see
/// [`topics_from_bags`]).
pub fn run(args: &ExportArgs) -> Result<Outcome, CliError> {
    let mut args = args.clone();
    topics_from_bags(&mut args.input, &mut args.select);
    let args = &args;
    let columns = columns::parse(&args.columns).map_err(CliError::Usage)?;
    if !columns.is_empty() && !matches!(args.format, ExportFormat::Csv | ExportFormat::Jsonl) {
        return Err(CliError::Usage(
            "--column makes CSV or JSON lines columns: use --format csv or jsonl".to_string(),
        ));
    }
    if matches!(args.format, ExportFormat::Mcap | ExportFormat::Parquet) {
        return sink::run(args);
    }
    if args.format == ExportFormat::Images {
        return images::run(args);
    }
    if args.select.topics.is_empty() {
        return Err(CliError::Usage(
            "export needs a topic: -t TOPIC".to_string(),
        ));
    }
    if args.format == ExportFormat::Csv && args.select.topics.len() > 1 {
        return Err(CliError::Usage(
            "CSV export takes one topic (columns differ between topics); use jsonl for several"
                .to_string(),
        ));
    }
    let fields = if args.format == ExportFormat::Csv {
        Fields::OneValue
    } else {
        Fields::Any
    };
    let mut ctx =
        Context::open(&Wanted::new(&args.input, &args.select, &args.filter).fields(fields))?;
    if !columns.is_empty() && !ctx.paths.is_empty() {
        return Err(CliError::Usage(
            "--column computes the columns: give -t the topic alone (fields go in the expressions)"
                .to_string(),
        ));
    }
    let mut outcome = ctx.outcome;
    let out: Box<dyn Write> = match &args.output {
        None => Box::new(Stdout::data()),
        Some(path) => Box::new(Output::create(path, &args.input.bags)?),
    };
    let mut out = out;
    let mut unread = crate::bag::Unread::default();
    let result = if columns.is_empty() {
        let export = text::TextExport {
            format: args.format,
            catalog: &ctx.catalog,
            registry: ctx.registry().clone(),
            paths: &ctx.paths,
            keep: ctx.filter.as_ref(),
        };
        export.run(&ctx.selection, &mut out, &mut unread)
    } else {
        columns::run(&columns, args.format, &mut ctx, &mut out, &mut unread)?
    };
    let written = match result {
        Ok(w) => w,
        Err(e) => return Ok(write_failed(&e, outcome.max(report_unread(&unread)))),
    };
    if written.fatal.is_some() {
        return Ok(Outcome::Failed);
    }
    if written.undecoded > 0 {
        outcome = outcome.max(Outcome::Problems);
    }
    if let Err(e) = out.flush() {
        return Ok(write_failed(&e, outcome.max(report_unread(&unread))));
    }
    let (rows, misfit, no_value) = (written.rows, written.misfit, written.no_value);
    let (dropped, empty) = (written.dropped, written.empty_cells);
    outcome = outcome.max(report_unread(&unread));
    drop(out);
    if let Some(f) = &ctx.filter {
        f.report();
    }
    if misfit > 0 {
        print_warning(format_args!(
            "{misfit} of {rows} rows did not fit the columns of the first message (an array changed length): {dropped} values dropped, {empty} cells left empty; --format jsonl keeps every value (see docs/export.md)"
        ));
    }
    if no_value > 0 {
        print_note(format_args!(
            "{no_value} messages had no value at the field path (an index past the end of the array): no row for them"
        ));
    }
    if let Some(path) = &args.output {
        print_note(format_args!("wrote {rows} rows to {}", path.display()));
    }
    Ok(outcome)
}
