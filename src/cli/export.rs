//! `bagscope export`: one row per message of a topic, as CSV with the columns of
//! `rostopic echo -p`, or as JSON lines.

use std::io::Write;
use std::path::PathBuf;

use clap::{Args, ValueEnum};

use crate::catalog::Schemas;
use crate::msg::csv::CsvLayout;
use crate::msg::json;

use super::args::{BagsArgs, SelectArgs, open_catalog};
use super::damage::{readable, report_unread};
use super::field_paths;
use super::output::Output;
use super::term::{Stdout, write_failed};
use super::{Outcome, print_error, print_note, print_warning};

/// Export formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ExportFormat {
    /// `rostopic echo -p` columns.
    Csv,
    /// One JSON object per line.
    Jsonl,
    /// One image file per camera frame (`-o DIR`): PNG for `Image`, the bytes of a
    /// `CompressedImage` as they are.
    Images,
}

/// Arguments of `bagscope export`.
#[derive(Args, Debug)]
pub struct ExportArgs {
    /// Which messages (at least one `-t TOPIC`; CSV takes exactly one).
    #[command(flatten)]
    pub select: SelectArgs,
    /// Output format.
    #[arg(long, value_enum)]
    pub format: ExportFormat,
    /// Write here instead of standard output (written to a temporary file, renamed at the
    /// end); with `--format images`, the directory the frames go to.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// The bags, and where the definitions they lack come from.
    #[command(flatten)]
    pub input: BagsArgs,
}

/// Runs `bagscope export`.
pub fn run(args: &ExportArgs) -> Outcome {
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
    let mut layout: Option<CsvLayout> = None;
    let mut text = String::new();
    let (mut rows, mut misfit, mut no_value) = (0u64, 0u64, 0u64);
    let mut unread = crate::bag::Unread::default();
    for item in catalog.messages(&selection) {
        let Some((m, bag)) = readable(&catalog, item, &mut unread) else {
            continue;
        };
        let Some(conn) = bag.connection(m.message.entry.conn) else {
            continue;
        };
        let time = m.message.entry.time;
        let value = match &schemas.get(m.bag, conn).schema {
            Ok(s) => crate::msg::decode(s, &m.message.data),
            Err(e) => {
                print_error(format!("{}: {}: {e}", bag.path().display(), conn.topic));
                return Outcome::Failed;
            }
        };
        let value = match value {
            Ok(v) => v,
            Err(e) => {
                print_error(format!(
                    "{}: {} message at {time}: {e}",
                    bag.path().display(),
                    conn.topic
                ));
                outcome = outcome.max(Outcome::Problems);
                continue;
            }
        };
        text.clear();
        let path = paths.get(&crate::catalog::BagConn::new(m.bag, conn.id));
        match (args.format, path) {
            (format, Some(path)) => {
                let values = path.collect(value.root());
                let Some(first) = values.first() else {
                    no_value += 1;
                    continue;
                };
                if format == ExportFormat::Jsonl {
                    let _ = json::write_field(
                        &mut text,
                        &conn.topic,
                        &conn.datatype,
                        time,
                        path.text(),
                        &values,
                        path.has_wildcard(),
                    );
                } else {
                    let l = layout.get_or_insert_with(|| {
                        let l = CsvLayout::for_value(first);
                        text.push_str(&l.header());
                        text.push('\n');
                        l
                    });
                    if let Ok(fit) = l.write_value_row(&mut text, time, first) {
                        if !fit.is_exact() {
                            misfit += 1;
                        }
                    }
                }
            }
            (ExportFormat::Jsonl, None) => {
                let _ = json::write_message(&mut text, &conn.topic, &conn.datatype, time, &value);
            }
            (ExportFormat::Csv | ExportFormat::Images, None) => {
                let l = layout.get_or_insert_with(|| {
                    let l = CsvLayout::new(&value);
                    text.push_str(&l.header());
                    text.push('\n');
                    l
                });
                if let Ok(fit) = l.write_row(&mut text, time, &value) {
                    if !fit.is_exact() {
                        misfit += 1;
                    }
                }
            }
        }
        text.push('\n');
        rows += 1;
        if let Err(e) = out.write_all(text.as_bytes()) {
            return write_failed(&e, outcome.max(report_unread(&unread)));
        }
    }
    if let Err(e) = out.flush() {
        return write_failed(&e, outcome.max(report_unread(&unread)));
    }
    outcome = outcome.max(report_unread(&unread));
    drop(out);
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
