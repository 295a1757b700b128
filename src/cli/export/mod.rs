//! `bagscope export`: one row per message of a topic, as CSV with the columns of
//! `rostopic echo -p`, or as JSON lines.

use std::io::Write;

pub mod args;
mod images;
mod sink;
mod text;

use crate::catalog::Schemas;

use super::args::{SelectArgs, open_catalog, topics_from_bags};
use super::damage::report_unread;
use super::field_paths;
use super::outcome::Outcome;
use super::output::Output;
use super::term::{Stdout, write_failed};
use super::term::{print_error, print_note, print_warning};
use args::{ExportArgs, ExportFormat};

/// Runs `bagscope export` (`BAG` arguments that look like topics select them, see
/// [`topics_from_bags`]).
pub fn run(args: &ExportArgs) -> Outcome {
    let mut args = args.clone();
    topics_from_bags(&mut args.input, &mut args.select);
    let args = &args;
    if matches!(args.format, ExportFormat::Mcap | ExportFormat::Parquet) {
        return sink::run(args);
    }
    if args.format == ExportFormat::Images {
        return images::run(args);
    }
    if args.select.topics.is_empty() {
        print_error("export needs a topic: -t TOPIC");
        return Outcome::Failed;
    }
    if args.format == ExportFormat::Csv && args.select.topics.len() > 1 {
        print_error(
            "CSV export takes one topic (columns differ between topics); use jsonl for several",
        );
        return Outcome::Failed;
    }
    let (catalog, mut outcome) = match open_catalog(&args.input.bags) {
        Ok(opened) => opened,
        Err(o) => return o,
    };
    let registry = match args.input.msg.registry() {
        Ok(r) => r,
        Err(o) => return o,
    };
    let mut schemas = Schemas::new(registry);
    let (selection, paths) = match field_selection(args, &catalog, &mut schemas) {
        Ok(s) => s,
        Err(e) => {
            if let Some(e) = e {
                print_error(e);
            }
            return Outcome::Failed;
        }
    };
    let conns = catalog.selected_connections(&selection);
    let filter = match args.filter.compile(conns, &schemas) {
        Ok(f) => f,
        Err(e) => {
            e.print();
            return Outcome::Failed;
        }
    };
    let out: Box<dyn Write> = match &args.output {
        None => Box::new(Stdout::data()),
        Some(path) => match Output::create(path, &args.input.bags) {
            Ok(o) => Box::new(o),
            Err(e) => {
                print_error(e);
                return Outcome::Failed;
            }
        },
    };
    let mut out = out;
    let mut unread = crate::bag::Unread::default();
    let export = text::TextExport {
        format: args.format,
        catalog: &catalog,
        registry: schemas.registry().clone(),
        paths: &paths,
        keep: filter.as_ref(),
    };
    let written = match export.run(&selection, &mut out, &mut unread) {
        Ok(w) => w,
        Err(e) => return write_failed(&e, outcome.max(report_unread(&unread))),
    };
    if written.fatal.is_some() {
        return Outcome::Failed;
    }
    if written.undecoded > 0 {
        outcome = outcome.max(Outcome::Problems);
    }
    if let Err(e) = out.flush() {
        return write_failed(&e, outcome.max(report_unread(&unread)));
    }
    let (rows, misfit, no_value) = (written.rows, written.misfit, written.no_value);
    outcome = outcome.max(report_unread(&unread));
    drop(out);
    if let Some(f) = &filter {
        f.report();
    }
    if misfit > 0 {
        print_warning(format_args!(
            "{misfit} of {rows} rows did not fit the columns of the first message (an array changed length; see docs/export.md)"
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
    outcome
}

/// The selection, with field paths split off the `-t` values and resolved per connection;
/// `Err` (with the message, or `None` when already printed) on a usage error.
fn field_selection(
    args: &ExportArgs,
    catalog: &crate::catalog::Catalog,
    schemas: &mut Schemas,
) -> Result<
    (
        crate::catalog::Selection,
        std::collections::HashMap<crate::catalog::BagConn, crate::msg::path::ResolvedPath>,
    ),
    Option<String>,
> {
    let fields = field_paths::split_topics(&args.select.topics, catalog)?;
    if args.format == ExportFormat::Csv
        && fields.paths.values().any(|p| {
            p.segments()
                .iter()
                .any(|s| s.step == crate::msg::path::Step::All)
        })
    {
        return Err(Some(
            "CSV export takes one value per row: a field path with [*] needs --format jsonl"
                .to_string(),
        ));
    }
    let select = SelectArgs {
        topics: fields.topics.clone(),
        ..args.select.clone()
    };
    let selection = select.checked_selection(catalog).map_err(|_| None)?;
    let paths = field_paths::resolve(&fields, catalog, schemas)?;
    Ok((selection, paths))
}
