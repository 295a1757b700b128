//! `bagscope log`: the log messages (`/rosout`) of one or many bags, merged in receive-time
//! order, one line each as rosconsole prints them or one JSON object each (docs/log.md);
//! at least a level, only some nodes, `--where` on their fields, `--follow` for a recording.
//!
//! Messages are decoded and formatted on every core ([`crate::cli::ordered`]) and written in
//! order.

pub mod args;
mod follow;
mod line;
mod pick;

use crate::bag::Unread;
use crate::catalog::log::{LOG_TYPES, is_log_type, log_topics};
use crate::catalog::log_record::LogRecord;
use crate::catalog::{BagConn, Catalog, CatalogMessage, DecodePlans, Schemas, compile};

use super::args::{open_catalog, topics_from_bags};
use super::damage::{readable, report_unread};
use super::error::CliError;
use super::ordered::{BatchLimit, ordered_map, workers};
use super::outcome::Outcome;
use super::term::{Stdout, print_error, print_warning};
use args::{LogArgs, LogFormat};
use line::{LineStyle, colour_wanted};
use pick::{Pick, Seen};

/// Runs `bagscope log` (`BAG` arguments that look like topics select them, as in `echo`).
pub fn run(args: &LogArgs) -> Result<Outcome, CliError> {
    let mut args = args.clone();
    topics_from_bags(&mut args.input, &mut args.select);
    let style = LineStyle {
        format: args.format,
        verbose: args.verbose,
        colour: args.format == LogFormat::Text && colour_wanted(),
    };
    let pick = Pick {
        level: args.level,
        nodes: args.nodes.clone(),
    };
    if args.follow {
        return follow::log(&args, style, &pick);
    }
    let (catalog, mut outcome) = open_catalog(&args.input.bags)?;
    let schemas = Schemas::new(args.input.msg.registry()?);
    let mut select = args.select.clone();
    select.topics = chosen_topics(&catalog, &args.select.topics)?;
    if select.topics.is_empty() {
        print_warning(format_args!(
            "no log topic ({}) in {}: nothing to print",
            LOG_TYPES.join(" or "),
            if catalog.bags().len() == 1 {
                "the bag"
            } else {
                "the bags"
            }
        ));
        return Ok(outcome);
    }
    let selection = select.checked_selection(&catalog)?;
    let filter = args
        .filter
        .compile(catalog.selected_connections(&selection), &schemas)?;
    let plans = match &filter {
        Some(_) => DecodePlans::default(),
        None => DecodePlans::new(
            catalog.selected_connections(&selection),
            None,
            schemas.registry(),
        )
        .unwrap_or_default(),
    };
    for (_, conn) in catalog.selected_connections(&selection) {
        if let Err(e) = compile(conn, schemas.registry()).schema {
            print_error(format_args!(
                "{}: no usable definition of {} ({e}): its messages cannot be read",
                conn.topic, conn.datatype
            ));
            outcome = outcome.max(Outcome::Problems);
        }
    }
    let mut out = Stdout::escaped_by_caller();
    let mut unread = Unread::default();
    let mut totals = Piece::default();
    let messages = catalog
        .messages(&selection)
        .filter_map(|item| readable(&catalog, item, &mut unread).map(|(m, _)| m));
    // `diff()`/`rate()` in `--where`: one worker, so each topic's messages are tested in
    // receive-time order (batches are taken in order).
    let stateful = filter
        .as_ref()
        .is_some_and(super::where_args::Where::is_stateful);
    ordered_map(
        messages,
        if stateful { 1 } else { workers() },
        BatchLimit::default(),
        |m| m.message.data.len() + 64,
        || (),
        |(), batch: Vec<CatalogMessage>| {
            let mut piece = Piece::default();
            for m in &batch {
                let conn = BagConn::new(m.bag, m.message.entry.conn);
                let data: &[u8] = &m.message.data;
                let decoded = if let Some(f) = &filter {
                    f.decode_kept(conn, m.message.entry.time, data)
                } else {
                    match plans.get(conn).map(|p| p.decode(data)) {
                        Some(Ok(d)) => Some(d),
                        Some(Err(e)) => {
                            piece.undecodable += 1;
                            piece.first_error.get_or_insert_with(|| {
                                let path = catalog.bag(m.bag).map(|b| b.path().display());
                                let file = path.map(|p| p.to_string()).unwrap_or_default();
                                format!(
                                    "{file}: log message at {} does not decode: {e}",
                                    m.message.entry.time
                                )
                            });
                            None
                        }
                        // No definition: said above.
                        None => None,
                    }
                };
                let Some(decoded) = decoded else { continue };
                let record = LogRecord::read(&decoded.root());
                if pick.wants_nodes() {
                    piece.seen.note(record.name, record.kind);
                }
                if pick.keeps(&record) {
                    let topic = catalog
                        .bag(m.bag)
                        .and_then(|b| b.connection(m.message.entry.conn))
                        .map_or("", |c| c.topic.as_str());
                    style.push(&mut piece.text, topic, m.message.entry.time, &record);
                }
            }
            piece
        },
        |piece| {
            out.bytes(piece.text.as_bytes());
            totals.add(piece);
            !out.is_closed()
        },
    );
    outcome = outcome.max(report_unread(&unread));
    if let Some(e) = &totals.first_error {
        print_error(e);
        print_error(format_args!(
            "{} log message(s) could not be decoded",
            totals.undecodable
        ));
        outcome = outcome.max(Outcome::Problems);
    }
    if let Some(f) = &filter {
        f.report();
        if f.undecodable() > 0 {
            outcome = outcome.max(Outcome::Problems);
        }
    }
    pick.warn_unseen(&totals.seen, filter.is_some());
    Ok(out.finish(outcome))
}

/// The topics to read: those given (each must be a log topic), else the catalog's log
/// topics ([`log_topics`]: `/rosout_agg` only when there is no `/rosout`); empty when there
/// are none.
fn chosen_topics(catalog: &Catalog, given: &[String]) -> Result<Vec<String>, CliError> {
    if given.is_empty() {
        return Ok(log_topics(catalog).topics);
    }
    for t in given {
        let other = catalog
            .bags()
            .iter()
            .flat_map(|b| b.connections().iter())
            .find(|c| crate::catalog::topic_matches(t, &c.topic) && !is_log_type(&c.datatype));
        if let Some(c) = other {
            return Err(CliError::Usage(format!(
                "'{}' is a {} topic, not a log topic ({})",
                c.topic,
                c.datatype,
                LOG_TYPES.join(" or ")
            )));
        }
    }
    Ok(given.to_vec())
}

/// One batch's lines and tallies.
#[derive(Default)]
struct Piece {
    text: String,
    undecodable: u64,
    first_error: Option<String>,
    seen: Seen,
}

impl Piece {
    /// Adds the tallies of `other` (not its text).
    fn add(&mut self, other: Piece) {
        self.undecodable += other.undecodable;
        if self.first_error.is_none() {
            self.first_error = other.first_error;
        }
        self.seen.add(other.seen);
    }
}
