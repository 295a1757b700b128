//! `bagscope export`: one row per message of a topic, as CSV with the columns of
//! `rostopic echo -p`, or as JSON lines.

use std::io::Write;
use std::path::PathBuf;

use clap::{Args, ValueEnum};

use crate::catalog::Schemas;

use super::args::{BagsArgs, SelectArgs, open_catalog, topics_from_bags};
use super::damage::report_unread;
use super::field_paths;
use super::output::Output;
use super::term::{Stdout, write_failed};
use super::where_args::WhereArgs;
use super::{Outcome, print_error, print_note, print_warning};

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
pub struct ExportArgs {
    /// Which messages (at least one `-t TOPIC`; CSV takes exactly one).
    #[command(flatten)]
    pub select: SelectArgs,
    /// Output format.
    #[arg(long, value_enum)]
    pub format: ExportFormat,
    /// Which messages, by content.
    #[command(flatten)]
    pub filter: WhereArgs,
    /// Write here instead of standard output (written to a temporary file, renamed at the
    /// end); with `--format images`, the directory the frames go to.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// The bags, and where the definitions they lack come from.
    #[command(flatten)]
    pub input: BagsArgs,
    /// Options of the MCAP and Parquet formats.
    #[command(flatten)]
    pub sink: super::export_sink::SinkArgs,
}

/// Runs `bagscope export` (`BAG` arguments that look like topics select them, see
/// [`topics_from_bags`]).
pub fn run(args: &ExportArgs) -> Outcome {
    let mut args = args.clone();
    topics_from_bags(&mut args.input, &mut args.select);
    let args = &args;
    if matches!(args.format, ExportFormat::Mcap | ExportFormat::Parquet) {
        return super::export_sink::run(args);
    }
    if args.format == ExportFormat::Images {
        return super::export_images::run(args);
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
    let conns = super::echo::selected_connections(&catalog, &selection);
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
    let export = super::export_text::TextExport {
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
