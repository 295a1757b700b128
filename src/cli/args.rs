//! Arguments several subcommands share: message selection and definition paths.

use std::path::PathBuf;

use clap::Args;

use crate::catalog::{Catalog, Selection};
use crate::msg::Registry;
use crate::time::{TimeSpec, parse_time_spec};

use super::{Outcome, print_error};

/// Which messages: topics and an inclusive time range.
#[derive(Args, Debug, Clone, Default)]
pub struct SelectArgs {
    /// Only this topic (repeatable; a missing leading `/` is tolerated).
    #[arg(short = 't', long = "topic", value_name = "TOPIC")]
    pub topics: Vec<String>,
    /// Earliest receive time: seconds since the epoch, or `+SECONDS` after the start.
    #[arg(long, value_name = "T", value_parser = parse_time_spec, allow_hyphen_values = true)]
    pub start: Option<TimeSpec>,
    /// Latest receive time (inclusive), same forms as --start.
    #[arg(long, value_name = "T", value_parser = parse_time_spec, allow_hyphen_values = true)]
    pub end: Option<TimeSpec>,
}

impl SelectArgs {
    /// The selection over `catalog` (offsets resolved against its start).
    pub fn selection(&self, catalog: &Catalog) -> Selection {
        let origin = catalog.start_time().unwrap_or_default();
        Selection {
            topics: self.topics.clone(),
            start: self.start.map(|t| t.resolve(origin)),
            end: self.end.map(|t| t.resolve(origin)),
            parallel: true,
        }
    }

    /// Warns about topics no bag holds; true when at least one was unknown.
    pub fn warn_unknown_topics(&self, catalog: &Catalog) -> bool {
        let known = catalog.topics();
        let mut unknown = false;
        for t in &self.topics {
            if !known
                .iter()
                .any(|k| crate::catalog::topic_matches(t, &k.topic))
            {
                print_error(format!("no bag holds topic '{t}'"));
                unknown = true;
            }
        }
        unknown
    }
}

/// Where to find message definitions bags do not carry.
#[derive(Args, Debug, Clone, Default)]
pub struct MsgPathArgs {
    /// A directory of `pkg/msg/*.msg` trees for types the bags do not define (repeatable).
    #[arg(long = "msg-path", value_name = "DIR")]
    pub msg_paths: Vec<PathBuf>,
}

impl MsgPathArgs {
    /// The bundled definitions plus the given directories.
    pub fn registry(&self) -> Result<Registry, Outcome> {
        let mut r = Registry::bundled();
        for dir in &self.msg_paths {
            if let Err(e) = r.add_msg_path(dir) {
                print_error(format!("{}: {e}", dir.display()));
                return Err(Outcome::Failed);
            }
        }
        Ok(r)
    }
}

/// Opens every bag; errors are printed. `Err` when none could be opened.
pub fn open_catalog(paths: &[PathBuf]) -> Result<(Catalog, Outcome), Outcome> {
    let (catalog, errors) = Catalog::open(paths, &crate::bag::OpenOptions::default());
    for e in &errors {
        print_error(e);
    }
    if catalog.is_empty() {
        return Err(Outcome::Failed);
    }
    let mut outcome = if errors.is_empty() {
        Outcome::Ok
    } else {
        Outcome::Failed
    };
    for b in catalog.bags() {
        if super::damage::print_losses(b) {
            outcome = outcome.max(Outcome::Problems);
        }
    }
    Ok((catalog, outcome))
}
