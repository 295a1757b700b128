//! `bagscope echo`: decoded messages of one or many bags in receive-time order, as
//! `rostopic echo` YAML or as one JSON object per line.

pub mod all;
pub mod args;
mod follow;
pub mod intervals;
pub mod printer;

use super::args::topics_from_bags;
use super::context::{Context, Fields, Wanted};
use super::damage::{readable, report_unread};
use super::error::CliError;
use super::outcome::Outcome;
use super::term::{Stdout, print_note};
use args::{EchoArgs, EchoFormat};
use printer::Printer;

/// Runs `bagscope echo` (`BAG` arguments that look like topics select them, see
/// [`topics_from_bags`]).
pub fn run(args: &EchoArgs) -> Result<Outcome, CliError> {
    let mut args = args.clone();
    slash_topics(&mut args.input.bags);
    topics_from_bags(&mut args.input, &mut args.select);
    let args = &args;
    if args.intervals {
        return intervals::run(args);
    }
    if args.follow {
        return follow::echo(args);
    }
    let wanted = Wanted::new(&args.input, &args.select, &args.filter).fields(Fields::Any);
    let mut ctx = Context::open(&wanted)?;
    let mut outcome = ctx.outcome;
    let mut printer = Printer::new(args.format, ctx.registry().clone());
    printer.set_resolved_paths(std::mem::take(&mut ctx.paths));
    let (catalog, selection, filter) = (&ctx.catalog, &ctx.selection, ctx.filter.as_ref());
    let mut out = Stdout::data();
    let mut written = 0u64;
    let mut unread = crate::bag::Unread::default();
    // `diff()`/`rate()` in `--where`: every message in order, on this thread.
    let in_order = filter.is_some_and(super::where_args::Where::is_stateful);
    if args.limit.is_none() && !in_order {
        // Every message is printed: format on every core, in order.
        for (i, conn) in catalog.selected_connections(selection) {
            if let Some(bag) = catalog.bag(i) {
                printer.tell(i, bag.path(), conn);
            }
        }
        let messages = catalog
            .messages(selection)
            .filter_map(|item| readable(catalog, item, &mut unread).map(|(m, _)| m));
        let problems = all::print_all(messages, catalog, &printer, filter, &mut out);
        outcome = outcome.max(problems.outcome);
        printer.no_value += problems.no_value;
    } else {
        for item in catalog.messages(selection) {
            if args.limit.is_some_and(|n| written >= n) {
                break;
            }
            if item.is_err() {
                // Messages of unknown topics lost: no previous message for diff()/rate().
                filter.inspect(|f| f.forget());
            }
            let Some((m, bag)) = readable(catalog, item, &mut unread) else {
                continue;
            };
            let before = printer.no_value;
            let Some((text, ok)) = printer.render_kept(filter, m.bag, bag, &m.message) else {
                continue;
            };
            if !ok {
                outcome = outcome.max(Outcome::Problems);
            }
            out.bytes(text.as_bytes());
            if out.is_closed() {
                break;
            }
            // As rostopic's `-n`, a message without a value at the field path does not count.
            if printer.no_value == before || args.format == EchoFormat::Json {
                written += 1;
            }
        }
    }
    outcome = outcome.max(report_unread(&unread));
    if let Some(f) = &filter {
        f.report();
    }
    if printer.no_value > 0 {
        print_note(format_args!(
            "{} messages had no value at the field path (an index past the end of the array): none printed for them",
            printer.no_value
        ));
    }
    Ok(out.finish(outcome))
}

/// `echo BAG odom/pose/pose`: a `BAG` argument that is no file and reads as a topic (and maybe
/// a field) without its leading `/` — a name, then `/` and names, no dot before the first
/// `/` — gets the `/`, so that it is taken as a topic when another argument is a bag (an
/// unknown topic is then reported as such).
fn slash_topics(bags: &mut [std::path::PathBuf]) {
    if !bags.iter().any(|p| p.is_file()) {
        return;
    }
    for p in bags.iter_mut() {
        let Some(text) = p.to_str() else { continue };
        let first = text.split('/').next().unwrap_or_default();
        let name_like = first
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && first.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && !text.contains('.');
        if name_like && !p.exists() {
            *p = std::path::PathBuf::from(format!("/{text}"));
        }
    }
}
