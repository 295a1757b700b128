//! What the commands that read bags set up before their work: the bags opened.

use std::path::Path;

use crate::bag::Bag;

use super::outcome::Outcome;
use super::term::print_error;

/// Opens a bag, printing the error and returning [`Outcome::Failed`] when it cannot be opened.
pub fn open_bag(path: &Path) -> Result<Bag, Outcome> {
    Bag::open(path).map_err(|e| {
        print_error(&e);
        Outcome::Failed
    })
}
