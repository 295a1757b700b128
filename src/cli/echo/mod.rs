//! `bagscope echo`: decoded messages of one or many bags in receive-time order, as
//! `rostopic echo` YAML or as one JSON object per line.

pub mod all;
pub mod args;
mod follow;
pub mod printer;

use crate::catalog::Schemas;

use super::args::{SelectArgs, open_catalog, topics_from_bags};
use super::damage::{readable, report_unread};
use super::field_paths;
use super::outcome::Outcome;
use super::term::Stdout;
use super::term::{print_error, print_note};
use args::{EchoArgs, EchoFormat};
use printer::Printer;

/// Runs `bagscope echo` (`BAG` arguments that look like topics select them, see
/// [`topics_from_bags`]).
pub fn run(args: &EchoArgs) -> Outcome {
    let mut args = args.clone();
    topics_from_bags(&mut args.input, &mut args.select);
    let args = &args;
    if args.follow {
        return follow::echo(args);
    }
    let (catalog, mut outcome) = match open_catalog(&args.input.bags) {
        Ok(c) => c,
        Err(o) => return o,
    };
    let registry = match args.input.msg.registry() {
        Ok(r) => r,
        Err(o) => return o,
    };
    let fields = match field_paths::split_topics(&args.select.topics, &catalog) {
        Ok(f) => f,
        Err(e) => {
            print_error(e);
            return Outcome::Failed;
        }
    };
    let select = SelectArgs {
        topics: fields.topics.clone(),
        ..args.select.clone()
    };
    let selection = match select.checked_selection(&catalog) {
        Ok(s) => s,
        Err(o) => return o,
    };
    let mut printer = Printer::new(args.format, registry.clone());
    if let Err(e) = printer.set_paths(&fields, &catalog) {
        print_error(e);
        return Outcome::Failed;
    }
    let conns = catalog.selected_connections(&selection);
    let filter = match args.filter.compile(conns, &Schemas::new(registry)) {
        Ok(f) => f,
        Err(e) => {
            e.print();
            return Outcome::Failed;
        }
    };
    let mut out = Stdout::data();
    let mut written = 0u64;
    let mut unread = crate::bag::Unread::default();
    if args.limit.is_none() {
        // Every message is printed: format on every core, in order.
        for (i, conn) in catalog.selected_connections(&selection) {
            if let Some(bag) = catalog.bag(i) {
                printer.tell(i, bag.path(), conn);
            }
        }
        let messages = catalog
            .messages(&selection)
            .filter_map(|item| readable(&catalog, item, &mut unread).map(|(m, _)| m));
        let problems = all::print_all(messages, &catalog, &printer, filter.as_ref(), &mut out);
        outcome = outcome.max(problems.outcome);
        printer.no_value += problems.no_value;
    } else {
        for item in catalog.messages(&selection) {
            if args.limit.is_some_and(|n| written >= n) {
                break;
            }
            let Some((m, bag)) = readable(&catalog, item, &mut unread) else {
                continue;
            };
            let conn = crate::catalog::BagConn::new(m.bag, m.message.entry.conn);
            if filter
                .as_ref()
                .is_some_and(|f| !f.keep(conn, &m.message.data))
            {
                continue;
            }
            let before = printer.no_value;
            let (text, ok) = printer.render(m.bag, bag, &m.message);
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
    out.finish(outcome)
}
