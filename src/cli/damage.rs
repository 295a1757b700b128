//! How every command that reads messages tells what it could not read: the losses found when
//! a bag was opened (truncation, damaged stretches) and the messages reading met errors on,
//! counted as `verify` counts them (a chunk that does not decompress costs all its messages).

use crate::bag::{Bag, BagError, Unread};
use crate::catalog::{Catalog, CatalogMessage};

use super::outcome::Outcome;
use super::term::{print_error, print_warning};

/// Prints the losses found while opening `bag` as warnings on stderr
/// (`bagscope: warning: FILE: lost: …`); true when there are any.
pub fn print_losses(bag: &Bag) -> bool {
    // The end of a recording still being written is no loss: a note, whatever the exit code.
    if let Some(u) = bag.recovery().and_then(|r| r.unfinished.as_ref()) {
        super::term::print_note(format_args!("{}: unfinished: {u}", bag.path().display()));
    }
    let Some(r) = bag.recovery().filter(|r| !r.is_lossless()) else {
        return false;
    };
    for l in &r.losses {
        print_warning(format_args!("{}: lost: {l}", bag.path().display()));
    }
    true
}

/// Prints every error of `unread`, then per file how many messages could not be read (or,
/// when its errors cost none, that the file is damaged); [`Outcome::Problems`] when anything
/// went wrong.
pub fn report_unread(unread: &Unread) -> Outcome {
    if unread.is_empty() {
        return Outcome::Ok;
    }
    // The same error met for several messages (random access into a chunk that does not
    // decompress) is printed once, with how often.
    let mut distinct: Vec<(String, usize)> = Vec::new();
    for e in unread.errors() {
        let text = e.to_string();
        match distinct.iter_mut().find(|(t, _)| *t == text) {
            Some((_, n)) => *n += 1,
            None => distinct.push((text, 1)),
        }
    }
    for (text, n) in distinct {
        if n == 1 {
            print_error(text);
        } else {
            print_error(format!("{text} ({n} times)"));
        }
    }
    for (path, n) in unread.by_file() {
        if n == 0 {
            // Errors that cost no message (a chunk damaged past the messages read): what
            // was wrong is above; no loss is claimed, and none denied.
            print_error(format!(
                "{}: damaged (above), but no message was lost",
                path.display()
            ));
        } else {
            print_error(format!(
                "{}: {n} message(s) could not be read",
                path.display()
            ));
        }
    }
    Outcome::Problems
}

/// A message read from `catalog` and the bag it is in; one that could not be read is
/// counted in `unread` instead (`None`).
pub fn readable<'c>(
    catalog: &'c Catalog,
    item: Result<CatalogMessage, BagError>,
    unread: &mut Unread,
) -> Option<(CatalogMessage, &'c Bag)> {
    let m = item.map_err(|e| unread.note(e)).ok()?;
    let bag = catalog.bag(m.bag)?;
    Some((m, bag))
}
