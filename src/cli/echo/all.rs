//! `bagscope echo` without `-n`: every selected message printed, formatted on every core.
//!
//! Batches of messages are rendered by clones of one [`Printer`] on the workers of
//! [`crate::cli::ordered`] and written in input order, so the output is byte-identical to rendering
//! them one by one.

use crate::catalog::{Catalog, CatalogMessage};

use super::printer::Printer;
use crate::cli::ordered::{BatchLimit, ordered_map, workers};
use crate::cli::outcome::Outcome;
use crate::cli::term::Stdout;
use crate::cli::where_args::Where;

/// What printing every message found wrong.
#[derive(Debug)]
pub(super) struct Printed {
    /// `Problems` when a message could not be decoded.
    pub outcome: Outcome,
    /// Messages printed as nothing because the field path named no value in them.
    pub no_value: u64,
}

/// One batch's text and tallies.
#[derive(Default)]
struct Piece {
    text: String,
    failed: bool,
    no_value: u64,
}

/// Prints `messages` to `out` in `echo`'s format as `printer` renders them (its schemas'
/// notes already told), keeping those `filter` keeps. Stops when `out` is closed.
pub(super) fn print_all(
    messages: impl Iterator<Item = CatalogMessage>,
    catalog: &Catalog,
    printer: &Printer,
    filter: Option<&Where>,
    out: &mut Stdout,
) -> Printed {
    let mut printed = Printed {
        outcome: Outcome::Ok,
        no_value: 0,
    };
    ordered_map(
        messages,
        workers(),
        BatchLimit::default(),
        |m| m.message.data.len() + 64,
        || printer.clone(),
        |printer, batch: Vec<CatalogMessage>| {
            let mut piece = Piece::default();
            let before = printer.no_value;
            for m in &batch {
                let Some(bag) = catalog.bag(m.bag) else {
                    continue;
                };
                let Some((text, ok)) = printer.render_kept(filter, m.bag, bag, &m.message) else {
                    continue;
                };
                piece.text.push_str(text);
                piece.failed |= !ok;
            }
            piece.no_value = printer.no_value - before;
            piece
        },
        |piece| {
            if piece.failed {
                printed.outcome = printed.outcome.max(Outcome::Problems);
            }
            printed.no_value += piece.no_value;
            out.bytes(piece.text.as_bytes());
            !out.is_closed()
        },
    );
    printed
}
